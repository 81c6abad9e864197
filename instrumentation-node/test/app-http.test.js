'use strict';
// The app's routes over a real in-process HTTP server on an ephemeral port: the generic answers
// (404, 405, 413, 400) and the request lifecycle that needs real sockets (a client leaving, shutdown).
const test = require('node:test');
const assert = require('node:assert/strict');
const http = require('node:http');
const net = require('node:net');
const { createApp } = require('../app');
const { quietLog, sleep } = require('./helpers');

async function startApp(t) {
  const app = createApp({ log: quietLog() });
  const server = http.createServer((req, res) => app.dispatch(req, res));
  await new Promise((resolve) => server.listen(0, '127.0.0.1', resolve));
  t.after(() => { app.events.clear(); app.completeAll('shutdown'); server.closeAllConnections(); server.close(); });
  return { app, port: server.address().port };
}

function call(port, method, path, body, headers = {}) {
  return new Promise((resolve, reject) => {
    const req = http.request({ host: '127.0.0.1', port, method, path, agent: false, headers }, (res) => {
      let text = '';
      res.setEncoding('utf8');
      res.on('data', (c) => { text += c; });
      res.on('end', () => resolve({ status: res.statusCode, headers: res.headers, text }));
    });
    req.on('error', reject);
    req.end(body);
  });
}

test('generic answers: 404, 405 with Allow, 413, 400 for malformed JSON', async (t) => {
  const { port } = await startApp(t);
  assert.equal((await call(port, 'GET', '/nowhere')).status, 404);
  const wrong = await call(port, 'GET', '/request');
  assert.equal(wrong.status, 405);
  assert.equal(wrong.headers.allow, 'POST');
  assert.match(wrong.text, /"error"/);
  const big = await call(port, 'POST', '/request', 'x'.repeat(16385));
  assert.equal(big.status, 413);
  assert.equal((await call(port, 'POST', '/request', 'x'.repeat(16384))).status, 400, '16384 bytes is within the limit');
  const malformed = await call(port, 'POST', '/event/set', '{"name":');
  assert.equal(malformed.status, 400);
  assert.deepEqual(JSON.parse(malformed.text), { error: { status: 400, message: 'body is not valid JSON' } });
});

test('a comet client that disconnects is removed from the pool', async (t) => {
  const { app, port } = await startApp(t);
  const socket = net.connect(port, '127.0.0.1');
  const body = '{"type":"comet","events":["x"]}';
  socket.write(`POST /request HTTP/1.1\r\nHost: x\r\nContent-Length: ${body.length}\r\n\r\n${body}`);
  await new Promise((resolve) => socket.once('data', resolve));
  assert.equal(app.pool.counts().comet, 1);
  socket.destroy();
  for (let i = 0; i < 100 && app.pool.size > 0; i++) await sleep(10);
  assert.equal(app.pool.size, 0);
});

test('completeAll("shutdown") ends open polls and streams with a shutdown clear record', async (t) => {
  const { app, port } = await startApp(t);
  const pending = call(port, 'POST', '/request', '{"type":"poll","events":["x"],"duration":60000}');
  for (let i = 0; i < 100 && app.pool.size === 0; i++) await sleep(10);
  assert.equal(app.completeAll('shutdown'), 1);
  const answer = await pending;
  assert.equal(answer.status, 200);
  assert.deepEqual(JSON.parse(answer.text).response, { clear: { reason: 'shutdown' } });
});
