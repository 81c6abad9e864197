'use strict';
// bench/peers/watch-open.js: connections opened per second as the server counts them (GET /status), the
// figure from a sequence of polls, and the watch itself against the real Node.js app (instrumentation-node)
// on an ephemeral port, started after the watch (its refused polls tried again), with real comet streams
// opened over ~300 ms.
const { test } = require('node:test');
const assert = require('node:assert/strict');
const http = require('node:http');
const net = require('node:net');
const { openSpan, watch } = require('../peers/watch-open');
const { createApp } = require('../../instrumentation-node/app');
const { createLog } = require('../../instrumentation-node/log');
const { freePort } = require('../../tests/lib/free-port');

const sleep = (ms) => new Promise((r) => setTimeout(r, ms));

test('the span runs from the last poll that saw none open to the first that saw all', () => {
  const polls = [{ ms: 1000, open: 0 }, { ms: 1020, open: 0 }, { ms: 1040, open: 3 }, { ms: 1060, open: 0 },
    { ms: 1080, open: 7 }, { ms: 1100, open: 9 }, { ms: 1120, open: 10 }, { ms: 1140, open: 10 }];
  // A count back to 0 (streams that closed) restarts the span: it starts at 1060.
  assert.deepEqual(openSpan(polls, 10), { open: 10, openSeconds: 0.06, openedPerSecond: 167 });
  assert.deepEqual(openSpan(polls, 3), { open: 3, openSeconds: 0.02, openedPerSecond: 150 });
  // Opened before the watch began (no poll saw none), or never all: no figure, the last count kept.
  assert.deepEqual(openSpan(polls.slice(4), 10), { open: 10, openSeconds: null, openedPerSecond: null });
  assert.deepEqual(openSpan(polls, 11), { open: 10, openSeconds: null, openedPerSecond: null });
  assert.deepEqual(openSpan([], 1), { open: 0, openSeconds: null, openedPerSecond: null });
});

function comet(port) {
  const socket = net.connect(port, '127.0.0.1');
  const body = '{"type":"comet","events":["x"]}';
  socket.write(`POST /request HTTP/1.1\r\nHost: x\r\nContent-Length: ${body.length}\r\n\r\n${body}`);
  return socket;
}

test('the watch waits for the server, then times the real app\'s comet streams opening', async (t) => {
  const port = await freePort();
  const watching = watch(port, 'comet', 15, 20);
  await sleep(300);   // the watch's polls are refused meanwhile
  const app = createApp({ log: createLog({ write() {} }) });
  const server = http.createServer((req, res) => app.dispatch(req, res));
  await new Promise((r) => server.listen(port, '127.0.0.1', r));
  const sockets = [];
  t.after(() => { for (const s of sockets) s.destroy(); app.completeAll('shutdown'); server.closeAllConnections(); server.close(); });
  await sleep(100);   // polls that see none open
  for (let i = 0; i < 15; i++) { sockets.push(comet(port)); await sleep(20); }
  const r = await watching;
  assert.equal(r.open, 15);
  // 15 streams opened over 14 x 20 ms and the socket's own delays; the span adds up to two 20 ms polls.
  assert.ok(r.openSeconds >= 0.26 && r.openSeconds < 2, `span ${r.openSeconds} s`);
  assert.equal(r.openedPerSecond, Math.round(15 / r.openSeconds));
});

test('a server that stops answering after its first answer ends the watch with its error', async () => {
  const server = http.createServer((req, res) => {
    res.setHeader('content-type', 'application/json');
    res.end(JSON.stringify({ requests: { open: 0, comet: 0, poll: 0, sse: 0, ws: 0 } }));
    server.close();
    server.closeAllConnections();
  });
  await new Promise((r) => server.listen(0, '127.0.0.1', r));
  await assert.rejects(watch(server.address().port, 'comet', 5, 20), /ECONNREFUSED|socket hang up|ECONNRESET/);
});
