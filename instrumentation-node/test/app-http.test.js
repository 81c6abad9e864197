'use strict';
// The app's routes over a real in-process HTTP server on an ephemeral port: the generic answers
// (404, 405, 413, 400, 408) and the request lifecycle that needs real sockets (a client leaving, shutdown).
const test = require('node:test');
const assert = require('node:assert/strict');
const http = require('node:http');
const net = require('node:net');
const { createApp } = require('../app');
const { quietLog, sleep } = require('./helpers');

async function startApp(t, options = {}) {
  const app = createApp({ log: quietLog(), ...options });
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
  const wrong = await call(port, 'PUT', '/request');
  assert.equal(wrong.status, 405);
  assert.equal(wrong.headers.allow, 'POST, GET');
  assert.match(wrong.text, /"error"/);
  const big = await call(port, 'POST', '/request', 'x'.repeat(16385));
  assert.equal(big.status, 413);
  assert.equal((await call(port, 'POST', '/request', 'x'.repeat(16384))).status, 400, '16384 bytes is within the limit');
  const malformed = await call(port, 'POST', '/event/set', '{"name":');
  assert.equal(malformed.status, 400);
  assert.deepEqual(JSON.parse(malformed.text), { error: { status: 400, message: 'body is not valid JSON' } });
});

test('a path with a dot segment is 400, whatever it would resolve to', async (t) => {
  const { port } = await startApp(t);
  for (const path of ['/../timestamp', '/./status', '/%2e%2e/timestamp', '/%2E/status', '/a/../timestamp', '/timestamp/..']) {
    const answer = await call(port, 'GET', path);
    assert.equal(answer.status, 400, path);
    assert.match(JSON.parse(answer.text).error.message, /dot segment/, path);
  }
  assert.equal((await call(port, 'GET', '/.x')).status, 404, 'a dot inside a segment is no dot segment');
  assert.equal((await call(port, 'GET', '/timestamp?client=../1')).status, 200, 'the query is not the path');
});

test('a path with a backslash, also as %5c, is 400: a URL parser reads it as a slash', async (t) => {
  const { port } = await startApp(t);
  for (const path of ['/..\\timestamp', '/.\\timestamp', '/%2e%2e\\timestamp', '/status/..\\timestamp', '/timestamp\\',
    '/..%5ctimestamp', '/..%5Ctimestamp', '/status%5c']) {
    const answer = await call(port, 'GET', path);
    assert.equal(answer.status, 400, path);
    assert.match(JSON.parse(answer.text).error.message, /backslash/, path);
  }
  assert.equal((await call(port, 'GET', '/timestamp?client=a\\b')).status, 200, 'the query is not the path');
});

test('a body over 16 KiB is 413 and its connection ends with the answer, the rest of the body unread', async (t) => {
  const { port } = await startApp(t);
  const total = 100 * 1024 * 1024;
  const socket = net.connect(port, '127.0.0.1');
  let reply = '';
  let sent = 0;
  let ended = false;
  socket.on('data', (chunk) => { reply += chunk; });
  socket.on('end', () => { ended = true; });
  socket.on('error', () => {});   // a write after the server's close
  const closed = new Promise((resolve) => socket.on('close', resolve));
  const block = Buffer.alloc(65536, 'x');
  const pump = () => {
    while (sent < total && !socket.destroyed) {
      sent += block.length;
      if (!socket.write(block)) { socket.once('drain', pump); return; }
    }
  };
  socket.write(`POST /request HTTP/1.1\r\nHost: x\r\nContent-Length: ${total}\r\n\r\n`);
  pump();
  const timer = setTimeout(() => socket.destroy(), 10000);
  await closed;
  clearTimeout(timer);
  assert.match(reply, /^HTTP\/1\.1 413 /, reply.slice(0, 80));
  assert.match(reply, /\r\nConnection: close\r\n/i);
  assert.ok(ended, 'the server ended the connection');
  assert.ok(sent < total / 2, `${sent} of ${total} bytes taken: the body was read on`);
});

test('a body not whole within the body deadline is 408, the connection closed, and counted in /status', async (t) => {
  const { port } = await startApp(t, { bodyDeadlineMs: 200 });
  const socket = net.connect(port, '127.0.0.1');
  let reply = '';
  socket.on('data', (chunk) => { reply += chunk; });
  const closed = new Promise((resolve) => socket.on('close', resolve));
  const started = Date.now();
  socket.write('POST /request HTTP/1.1\r\nHost: x\r\nContent-Length: 40\r\n\r\n{"type":');
  const trickle = setInterval(() => socket.writable && socket.write(' '), 50);
  await closed;
  clearInterval(trickle);
  const waited = Date.now() - started;
  assert.ok(waited >= 200 && waited < 1000, `answered and closed after ${waited} ms`);
  assert.match(reply, /^HTTP\/1\.1 408 /);
  assert.match(reply, /"status":408/);
  assert.deepEqual(JSON.parse((await call(port, 'GET', '/status')).text).bodies, { late: 1, refused: 0 });
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

// Raw bytes of one connection until `done(text)` says enough (or 3 s pass).
function rawExchange(port, requestText, done) {
  return new Promise((resolve, reject) => {
    const socket = net.connect(port, '127.0.0.1', () => socket.write(requestText));
    let text = '';
    const timer = setTimeout(() => { socket.destroy(); reject(new Error(`no complete answer; got ${JSON.stringify(text)}`)); }, 3000);
    socket.setEncoding('latin1');
    socket.on('data', (chunk) => {
      text += chunk;
      if (done(text)) { clearTimeout(timer); socket.destroy(); resolve(text); }
    });
    socket.on('error', reject);
  });
}

// Strict chunked decoding of one response body: every chunk is "<hex size>\r\n<exactly size bytes>\r\n".
// Returns the chunks; asserts the terminating "0\r\n\r\n" when `ended`.
function chunksOf(body, ended) {
  const chunks = [];
  let at = 0;
  for (;;) {
    const eol = body.indexOf('\r\n', at);
    if (eol < 0) break;
    const size = parseInt(body.slice(at, eol), 16);
    assert.match(body.slice(at, eol), /^[0-9a-f]+$/, `chunk size line at byte ${at}`);
    if (size === 0) { assert.equal(body.slice(eol), '\r\n\r\n'); return chunks; }
    const data = body.slice(eol + 2, eol + 2 + size);
    assert.equal(data.length, size);
    assert.equal(body.slice(eol + 2 + size, eol + 4 + size), '\r\n', 'chunk ends with CRLF');
    chunks.push(data);
    at = eol + 4 + size;
  }
  assert.equal(ended, false, 'stream was not terminated with a zero chunk');
  return chunks;
}

const cometBody = '{"type":"comet","events":["wire"]}';
const cometRequest = (version) =>
  `POST /request HTTP/${version}\r\nHost: x\r\nContent-Length: ${cometBody.length}\r\n\r\n${cometBody}`;

test('comet records on the wire: one exact HTTP chunk per record, a zero chunk after the clear record', async (t) => {
  const { app, port } = await startApp(t);
  app.events.set('wire', 20);
  const text = await rawExchange(port, cometRequest('1.1'), (sofar) => {
    if ((sofar.match(/"event":/g) || []).length === 3) app.completeAll('clear');
    return sofar.endsWith('0\r\n\r\n');
  });
  const [head, body] = [text.slice(0, text.indexOf('\r\n\r\n')), text.slice(text.indexOf('\r\n\r\n') + 4)];
  assert.match(head, /^HTTP\/1\.1 200/);
  assert.match(head, /transfer-encoding: chunked/i);
  const chunks = chunksOf(body, true);
  assert.ok(chunks.length >= 4, `${chunks.length} chunks`);
  for (const chunk of chunks) assert.ok(chunk.endsWith('}\n') && chunk.indexOf('\n') === chunk.length - 1, 'one record line per chunk');
  const records = chunks.map((chunk) => JSON.parse(chunk));
  assert.deepEqual(records.slice(0, 3).map((r) => r.response.event.cycle), [1, 2, 3]);
  assert.deepEqual(records.at(-1).response, { clear: { reason: 'clear' } });
});

test('comet to an HTTP/1.0 client: no chunk framing, plain record lines until the connection closes', async (t) => {
  const { app, port } = await startApp(t);
  app.events.set('wire', 20);
  const text = await rawExchange(port, cometRequest('1.0'), (sofar) => (sofar.match(/"event":/g) || []).length === 2);
  const body = text.slice(text.indexOf('\r\n\r\n') + 4);
  assert.doesNotMatch(text.slice(0, text.indexOf('\r\n\r\n')), /transfer-encoding/i);
  const lines = body.split('\n').filter(Boolean);
  assert.deepEqual(lines.map((line) => JSON.parse(line).response.event.cycle), [1, 2]);
});
