'use strict';
// A TCP proxy that delays every byte by a fixed time in each direction: the known delay between JMeter
// engines and the server under test of tests/trip-time-accuracy.test.js (issue #22 item 4's accuracy test;
// this kernel has no netem, design.md). Each chunk read on one side is written to the other side
// `delayMs` after it was read, in order; a side's end (FIN) is passed on the same way, after its data.
//
//   node tests/lib/delay-proxy.js <listen address> <listen port> <target address> <target port> <delay ms> [<source address>]
//
// <source address>: the local address its connections to the target leave from (default: the kernel's choice).
// Prints "listening <address>:<port>" once it accepts connections; ends on TERM or INT.
const net = require('node:net');

// Forwards from `from` to `to`, each chunk delayMs after it arrived; the end likewise.
function delayedPipe(from, to, delayMs) {
  const queue = [];        // { due: ms (performance clock), chunk | null for the end }
  let timer = null;
  const flush = () => {
    timer = null;
    const now = performance.now();
    while (queue.length > 0 && queue[0].due <= now) {
      const { chunk } = queue.shift();
      if (chunk === null) to.end(); else to.write(chunk);
    }
    if (queue.length > 0) timer = setTimeout(flush, queue[0].due - now);
  };
  const push = (chunk) => {
    queue.push({ due: performance.now() + delayMs, chunk });
    if (timer === null) timer = setTimeout(flush, delayMs);
  };
  from.on('data', push);
  from.on('end', () => push(null));
  return () => { if (timer !== null) clearTimeout(timer); };
}

function startProxy({ listenAddress, listenPort, targetAddress, targetPort, delayMs, sourceAddress }) {
  const server = net.createServer({ noDelay: true, allowHalfOpen: true }, (client) => {
    const upstream = net.connect({ host: targetAddress, port: targetPort, localAddress: sourceAddress, noDelay: true, allowHalfOpen: true });
    const stops = [delayedPipe(client, upstream, delayMs), delayedPipe(upstream, client, delayMs)];
    const close = () => {
      for (const stop of stops) stop();
      client.destroy();
      upstream.destroy();
    };
    client.on('error', close);
    upstream.on('error', close);
    // Half-open allowed: a side's FIN goes through the queue (after its data), not at once.
    client.on('close', () => upstream.end());
    upstream.on('close', () => client.end());
  });
  return new Promise((resolve, reject) => {
    server.once('error', reject);
    server.listen(listenPort, listenAddress, () => resolve(server));
  });
}

if (require.main === module) {
  const [listenAddress, listenPort, targetAddress, targetPort, delay, sourceAddress] = process.argv.slice(2);
  const delayMs = Number(delay);
  if (!targetAddress || !Number.isInteger(Number(listenPort)) || !Number.isInteger(Number(targetPort))
    || !Number.isFinite(delayMs) || delayMs < 0) {
    process.stderr.write('usage: node tests/lib/delay-proxy.js <listen address> <listen port> <target address> <target port> <delay ms> [<source address>]\n');
    process.exit(2);
  }
  startProxy({ listenAddress, listenPort: Number(listenPort), targetAddress, targetPort: Number(targetPort), delayMs, sourceAddress })
    .then((server) => {
      process.stdout.write(`listening ${listenAddress}:${listenPort}\n`);
      const stop = () => { server.close(); process.exit(0); };
      process.on('SIGTERM', stop);
      process.on('SIGINT', stop);
    })
    .catch((err) => {
      process.stderr.write(`delay-proxy: ${err.message}\n`);
      process.exit(1);
    });
}

module.exports = { startProxy };
