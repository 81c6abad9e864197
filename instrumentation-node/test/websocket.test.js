'use strict';
// The WebSocket transport of issue #38 (docs/protocol.md "WebSocket") over a real in-process server and the
// `ws` client: the upgrade's checks, the subscription handshake (the first message, within the body
// deadline), one text frame per record, ping answered, and the close codes RFC 6455 gives each ending.
const test = require('node:test');
const assert = require('node:assert/strict');
const http = require('node:http');
const WebSocket = require('ws');
const { createApp } = require('../app');
const { upgradeProblem } = require('../websocket');
const { quietLog, sleep } = require('./helpers');

async function startApp(t, options = {}) {
  const app = createApp({ log: quietLog(), ...options });
  const server = http.createServer((req, res) => app.dispatch(req, res));
  server.on('upgrade', (req, socket, head) => app.upgrade(req, socket, head));
  await new Promise((resolve) => server.listen(0, '127.0.0.1', resolve));
  t.after(() => { app.events.clear(); app.completeAll('shutdown'); server.closeAllConnections(); server.close(); });
  return { app, url: `ws://127.0.0.1:${server.address().port}/request` };
}

// A client that keeps every frame ({ text, record }), pongs, and how the connection closed ({ code, reason }).
function connect(url) {
  const ws = new WebSocket(url);
  const client = { ws, frames: [], pongs: [], closed: null };
  ws.on('message', (data) => {
    const text = String(data);
    let record;
    try { record = JSON.parse(text); } catch { record = undefined; }
    client.frames.push({ text, record });
  });
  ws.on('pong', (data) => client.pongs.push(String(data)));
  ws.on('error', () => {});
  client.closing = new Promise((resolve) => ws.on('close', (code, reason) => {
    client.closed = { code, reason: String(reason) };
    resolve(client.closed);
  }));
  client.opened = new Promise((resolve, reject) => { ws.on('open', resolve); ws.on('unexpected-response', reject); });
  return client;
}

async function until(check, ms = 2000) {
  const end = Date.now() + ms;
  while (!check()) {
    if (Date.now() > end) throw new Error('condition not met in time');
    await sleep(10);
  }
}

test('upgrade checks: each malformed upgrade gets its status, a good one none', () => {
  const paths = ['/request', '/status'];
  const good = { upgrade: 'websocket', 'sec-websocket-version': '13', 'sec-websocket-key': 'dGhlIHNhbXBsZSBub25jZQ==' };
  const cases = [
    ['GET', '/request', good, null],
    ['GET', '/request?x=1', { ...good, upgrade: 'WebSocket' }, null],
    ['GET', '/status', good, 400],
    ['GET', '/nowhere', good, 404],
    ['GET', '/a/../request', good, 400],
    ['GET', '/a/..\\request', good, 400],
    ['GET', '/a/..%5crequest', good, 400],
    ['GET', '/request', { ...good, upgrade: 'h2c' }, 400],
    ['POST', '/request', good, 400],
    ['GET', '/request', { ...good, 'sec-websocket-version': '8' }, 426],
    ['GET', '/request', { ...good, 'sec-websocket-version': undefined }, 426],
    ['GET', '/request', { ...good, 'sec-websocket-key': undefined }, 400],
    ['GET', '/request', { ...good, 'sec-websocket-key': 'c2hvcnQ=' }, 400],
  ];
  for (const [method, url, headers, status] of cases) {
    const problem = upgradeProblem({ method, url, headers }, paths);
    assert.equal(problem ? problem.status : null, status, `${method} ${url} ${JSON.stringify(headers)}`);
  }
  assert.deepEqual(upgradeProblem({ method: 'GET', url: '/request', headers: { ...good, 'sec-websocket-version': '8' } }, paths).headers,
    { 'Sec-WebSocket-Version': '13' });
});

test('subscription handshake: the first message subscribes; each record is one text frame; ping is answered', async (t) => {
  const { app, url } = await startApp(t);
  const client = connect(url);
  await client.opened;
  assert.equal(app.pool.counts().ws, 0, 'not subscribed before its first message');
  client.ws.send(JSON.stringify({ type: 'ws', events: ['w1'], duration: 5 }));
  await until(() => app.pool.counts().ws === 1);
  client.ws.ping('are you there');
  await until(() => client.pongs.length === 1);
  assert.deepEqual(client.pongs, ['are you there']);
  app.events.set('w1', 20);
  await until(() => client.frames.length >= 2);
  const [first, second] = client.frames;
  assert.deepEqual(first.record.request, { type: 'ws', events: ['w1'], duration: 5 }, 'the echo: the subscription as parsed');
  assert.equal(first.record.response.event.cycle, 1);
  assert.equal(second.record.response.event.cycle, 2);
  assert.equal(first.text, JSON.stringify(first.record), 'a frame is the compact record, no newline');
  app.completeAll('clear');
  assert.deepEqual(await client.closing, { code: 1000, reason: 'clear' });
  assert.deepEqual(client.frames.at(-1).record.response, { clear: { reason: 'clear' } });
  assert.equal(app.pool.counts().open, 0);
});

test('a subscription with a cursor is resumed: gap, replays within the bound, then live', async (t) => {
  const { app, url } = await startApp(t, { replayCycles: 2 });
  for (let id = 1; id <= 6; id++) app.history.record({ name: 'r', id, created: Date.now() });
  const client = connect(url);
  await client.opened;
  client.ws.send(JSON.stringify({ type: 'ws', events: ['r'], cursor: { r: 1 } }));
  await until(() => client.frames.length === 3);
  assert.deepEqual(client.frames.map((f) => Object.keys(f.record.response)[0]), ['gap', 'replay', 'replay']);
  assert.deepEqual(client.frames[0].record.response.gap, { name: 'r', from: 2, to: 4, skipped: 3 });
  assert.deepEqual(client.frames.slice(1).map((f) => f.record.response.replay.cycle), [5, 6]);
  client.ws.close();
  await client.closing;
});

test('close codes: shutdown 1001, bad subscription 1008, binary 1003, oversize 1009, a second message 1008', async (t) => {
  const { app, url } = await startApp(t);
  const cases = [
    ['not JSON', '{"type":', 1008],
    ['unknown transport', JSON.stringify({ type: 'comet', events: ['x'] }), 1008],
    ['bad name', JSON.stringify({ type: 'ws', events: ['no spaces'] }), 1008],
    ['bad cursor', JSON.stringify({ type: 'ws', events: ['x'], cursor: { x: -1 } }), 1008],
    ['binary', Buffer.from('{"type":"ws","events":[]}'), 1003],
    ['over 16 KiB', JSON.stringify({ type: 'ws', events: [], pad: 'p'.repeat(16384) }), 1009],
  ];
  for (const [what, message, code] of cases) {
    const client = connect(url);
    await client.opened;
    client.ws.send(message);
    const closed = await client.closing;
    assert.equal(closed.code, code, what);
    if (code === 1008 || code === 1003) {
      assert.equal(client.frames.length, 1, `${what}: one error frame before the close`);
      assert.equal(client.frames[0].record.error.status, 400, what);
    }
  }
  const twice = connect(url);
  await twice.opened;
  twice.ws.send(JSON.stringify({ type: 'ws', events: ['x'] }));
  twice.ws.send(JSON.stringify({ type: 'ws', events: ['y'] }));
  assert.equal((await twice.closing).code, 1008, 'a second message');
  assert.equal(app.pool.counts().ws, 0, 'the refused stream left the pool');
  const held = connect(url);
  await held.opened;
  held.ws.send(JSON.stringify({ type: 'ws', events: ['x'] }));
  await until(() => app.pool.counts().ws === 1);
  app.completeAll('shutdown');
  assert.deepEqual(await held.closing, { code: 1001, reason: 'shutdown' });
  assert.deepEqual(held.frames.at(-1).record.response, { clear: { reason: 'shutdown' } });
});

test('a subscription not sent within the body deadline: 408 error frame, close 1008, counted late', async (t) => {
  const { app, url } = await startApp(t, { bodyDeadlineMs: 150 });
  const client = connect(url);
  await client.opened;
  const closed = await client.closing;
  assert.equal(closed.code, 1008);
  assert.equal(client.frames[0].record.error.status, 408);
  assert.equal(app.bodies.late, 1);
});

test('a client that leaves is removed silently', async (t) => {
  const { app, url } = await startApp(t);
  const client = connect(url);
  await client.opened;
  client.ws.send(JSON.stringify({ type: 'ws', events: ['x'] }));
  await until(() => app.pool.counts().ws === 1);
  client.ws.terminate();
  await until(() => app.pool.counts().ws === 0);
});
