'use strict';
// How fast a generator opens its streams, seen from the server (bench/peers.sh, issue #38 item 6): polls
// GET /status every 20 ms on one kept-alive connection until requests.<type> reaches <connections> (or
// <limit s> pass) and prints one JSON line: openSeconds from the last poll that saw none open to the first
// that saw them all, openedPerSecond = connections / openSeconds (a poll's 20 ms bound each side), open.
//   node bench/peers/watch-open.js <port> <sse|ws> <connections> <limit s>
const http = require('node:http');

const [port, type, n, limit] = process.argv.slice(2);
if (!/^\d+$/.test(port || '') || !/^(sse|ws)$/.test(type || '') || !/^\d+$/.test(n || '') || !/^\d+$/.test(limit || '')) {
  console.error('usage: node bench/peers/watch-open.js <port> <sse|ws> <connections> <limit s>');
  process.exit(2);
}
const want = Number(n);
const agent = new http.Agent({ keepAlive: true, maxSockets: 1 });
const deadline = Date.now() + Number(limit) * 1000;
let lastNone = null;   // ms of the last poll that saw no stream open
let open = 0;

function status() {
  return new Promise((resolve, reject) => {
    const req = http.get({ host: '127.0.0.1', port: Number(port), path: '/status', agent, timeout: 5000 }, (res) => {
      let body = '';
      res.setEncoding('utf8');
      res.on('data', (d) => { body += d; });
      res.on('end', () => {
        try { resolve(JSON.parse(body)); } catch (e) { reject(e); }
      });
    });
    req.on('timeout', () => req.destroy(new Error('status timed out')));
    req.on('error', reject);
  });
}

function done(t) {
  const seconds = lastNone === null || t === null ? null : (t - lastNone) / 1000;
  console.log(JSON.stringify({ open, openSeconds: seconds, openedPerSecond: seconds ? Math.round(want / seconds) : null }));
  agent.destroy();
}

(async () => {
  for (;;) {
    const t = Date.now();
    open = (await status()).requests[type];
    if (open === 0) lastNone = t;
    if (open >= want) return done(lastNone === null ? null : t);   // all open before the first poll: no span
    if (Date.now() >= deadline) return done(null);
    await new Promise((r) => setTimeout(r, 20));
  }
})().catch((e) => {
  console.error(`watch-open: ${e.message}`);
  process.exit(1);
});
