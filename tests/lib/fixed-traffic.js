'use strict';
// Test helper: TCP traffic of a known size, to check the network counters the analysis reads (issue #26,
// tests/network-counters.test.js). Raw sockets, so every byte on the wire is one this file wrote.
//
//   node tests/lib/fixed-traffic.js serve <address> <port> <response bytes>
//       answers each connection's request (an HTTP request whose Content-Length body has fully arrived)
//       with an HTTP response of exactly <response bytes>, then closes; prints "listening" once ready
//   node tests/lib/fixed-traffic.js send <address> <port> <requests> <request bytes> <at once>
//       <requests> requests of exactly <request bytes>, each on a new connection, <at once> at a time;
//       prints one JSON line { requests, sentBytes, receivedBytes, failed }
const net = require('node:net');

// An HTTP message of exactly `bytes` bytes: the head, then a body of 'x' filling the rest.
function message(firstLine, bytes) {
  for (let body = 0; ; body++) {
    const head = `${firstLine}\r\nContent-Length: ${body}\r\nConnection: close\r\n\r\n`;
    if (head.length + body === bytes) return Buffer.from(head + 'x'.repeat(body), 'latin1');
    if (head.length + body > bytes) throw new Error(`${bytes} bytes is too small for an HTTP message`);
  }
}

// The whole request has arrived: its head and as many body bytes as its Content-Length says.
function complete(buf) {
  const end = buf.indexOf('\r\n\r\n');
  if (end < 0) return false;
  const m = /Content-Length: (\d+)/i.exec(buf.subarray(0, end).toString('latin1'));
  return buf.length >= end + 4 + Number(m ? m[1] : 0);
}

function serve(address, port, responseBytes) {
  const response = message('HTTP/1.1 200 OK', responseBytes);
  const server = net.createServer((socket) => {
    let got = Buffer.alloc(0);
    socket.on('data', (d) => {
      got = Buffer.concat([got, d]);
      if (complete(got)) socket.end(response);
    });
    socket.on('error', () => socket.destroy());
  });
  server.listen(port, address, () => process.stdout.write('listening\n'));
  process.on('SIGTERM', () => server.close(() => process.exit(0)));
}

function sendOne(address, port, request) {
  return new Promise((resolve) => {
    let received = 0;
    const socket = net.connect({ host: address, port }, () => socket.write(request));
    socket.on('data', (d) => { received += d.length; });
    socket.on('end', () => resolve({ ok: true, received }));
    socket.on('error', () => resolve({ ok: false, received }));
  });
}

async function send(address, port, count, requestBytes, atOnce) {
  const request = message('POST /traffic HTTP/1.1', requestBytes);
  const out = { requests: 0, sentBytes: 0, receivedBytes: 0, failed: 0 };
  let next = 0;
  const worker = async () => {
    while (next < count) {
      next++;
      const r = await sendOne(address, port, request);
      out.requests++;
      out.sentBytes += request.length;
      out.receivedBytes += r.received;
      if (!r.ok) out.failed++;
    }
  };
  await Promise.all(Array.from({ length: Math.min(atOnce, count) }, worker));
  process.stdout.write(`${JSON.stringify(out)}\n`);
}

const [mode, address, port, ...rest] = process.argv.slice(2);
const nums = rest.map(Number);
if (mode === 'serve' && nums.length === 1) serve(address, Number(port), nums[0]);
else if (mode === 'send' && nums.length === 3) send(address, Number(port), ...nums);
else {
  process.stderr.write('usage: fixed-traffic.js serve <address> <port> <response bytes> | send <address> <port> <requests> <request bytes> <at once>\n');
  process.exitCode = 2;
}
