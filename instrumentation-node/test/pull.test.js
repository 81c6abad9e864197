'use strict';
// Pull (short polling, docs/protocol.md "Pull"): the cycle history and its answers, the request's
// validation, and pulls over a real in-process HTTP server whose emitter runs: every cycle once, none twice.
const test = require('node:test');
const assert = require('node:assert/strict');
const http = require('node:http');
const { PullHistory } = require('../pull');
const { pushRequest } = require('../validate');
const { createApp } = require('../app');
const { quietLog, sleep } = require('./helpers');

const plain = (o) => JSON.parse(JSON.stringify(o));

test('history: a first pull starts the window, later pulls get the cycles after the cursor, in order', () => {
  const h = new PullHistory();
  const echo = (cursor) => ({ type: 'pull', events: ['a', 'b', 'a'], ...(cursor ? { cursor } : {}) });
  h.record({ name: 'a', id: 1, created: 1000 });
  const first = plain(h.answer(echo(null), 1500).pull);
  assert.deepEqual(first, { events: [], cursor: { a: 1, b: 0 }, skipped: 0 });
  h.record({ name: 'a', id: 2, created: 2000 });
  h.record({ name: 'b', id: 1, created: 2100 });
  h.record({ name: 'a', id: 3, created: 3000 });
  const second = plain(h.answer(echo(first.cursor), 3005).pull);
  assert.deepEqual(second.events.map((e) => `${e.name}#${e.cycle}`), ['a#2', 'a#3', 'b#1']);
  assert.deepEqual(second.events[0].timings, { duration: 1005, sent: 3005, created: 2000 });
  assert.deepEqual(second.cursor, { a: 3, b: 1 });
  assert.deepEqual(plain(h.answer(echo(second.cursor), 3010).pull), { events: [], cursor: { a: 3, b: 1 }, skipped: 0 });
});

test('history: keeps the last `keep` cycles and counts the ones a late cursor lost; a restarted emitter starts over', () => {
  const h = new PullHistory({ keep: 3 });
  for (let id = 1; id <= 10; id++) h.record({ name: 'a', id, created: id * 100 });
  const late = h.answer({ type: 'pull', events: ['a'], cursor: { a: 2 } }, 2000).pull;
  assert.deepEqual(late.events.map((e) => e.cycle), [8, 9, 10]);
  assert.equal(late.skipped, 5, 'cycles 3..7 are gone');
  h.record({ name: 'a', id: 1, created: 5000 });   // removed and set again: ids start from 1
  assert.equal(h.latest('a'), 1);
  assert.deepEqual(h.answer({ type: 'pull', events: ['a'], cursor: { a: 0 } }, 5001).pull.events.map((e) => e.cycle), [1]);
});

test('validation: pull takes an optional cursor of names to cycle ids and ignores duration like comet', () => {
  const ok = pushRequest({ type: 'pull', events: ['e1'], cursor: { e1: 4 }, duration: 3000 });
  assert.deepEqual(plain(ok.value), { type: 'pull', events: ['e1'], duration: 3000, cursor: { e1: 4 } });
  assert.deepEqual(plain(pushRequest({ type: 'pull', events: ['e1'], duration: -1 }).value), { type: 'pull', events: ['e1'] });
  const proto = pushRequest(JSON.parse('{"type":"pull","events":["__proto__"],"cursor":{"__proto__":2}}'));
  assert.equal(JSON.stringify(proto.value.cursor), '{"__proto__":2}');
  for (const cursor of [[], 5, 'x', { e1: -1 }, { e1: 1.5 }, { e1: '3' }, { 'bad name': 1 }, { e1: 2 ** 53 }]) {
    assert.ok(pushRequest({ type: 'pull', events: ['e1'], cursor }).problem, JSON.stringify(cursor));
  }
  const many = Object.fromEntries(Array.from({ length: 17 }, (_, i) => [`n${i}`, 1]));
  assert.match(pushRequest({ type: 'pull', events: [], cursor: many }).problem, /at most 16/);
  assert.match(pushRequest({ type: 'push', events: [] }).problem, /"pull"/);
});

function post(port, body) {
  return new Promise((resolve, reject) => {
    const text = JSON.stringify(body);
    const req = http.request({ host: '127.0.0.1', port, method: 'POST', path: '/request', agent: false,
      headers: { 'Content-Type': 'application/json', 'Content-Length': Buffer.byteLength(text) } }, (res) => {
      let out = '';
      res.setEncoding('utf8');
      res.on('data', (c) => { out += c; });
      res.on('end', () => resolve({ status: res.statusCode, type: res.headers['content-type'], json: JSON.parse(out) }));
    });
    req.on('error', reject);
    req.end(text);
  });
}

test('over HTTP with a running emitter: pulls answer at once, every cycle arrives once, none twice', async (t) => {
  const app = createApp({ log: quietLog() });
  const server = http.createServer((req, res) => app.dispatch(req, res));
  await new Promise((resolve) => server.listen(0, '127.0.0.1', resolve));
  t.after(() => { app.events.clear(); server.closeAllConnections(); server.close(); });
  const { port } = server.address();
  const first = await post(port, { type: 'pull', events: ['pe'] });
  assert.equal(first.status, 200);
  assert.equal(first.type, 'application/json');
  assert.deepEqual(first.json.response.pull, { events: [], cursor: { pe: 0 }, skipped: 0 });
  assert.equal(first.json.request.type, 'pull');
  assert.ok(first.json.connections.start >= 1);
  app.events.set('pe', 20);
  let cursor = first.json.response.pull.cursor;
  const got = [];
  const began = Date.now();
  while (Date.now() - began < 600) {
    const asked = Date.now();
    const answer = await post(port, { type: 'pull', events: ['pe'], cursor });
    assert.ok(Date.now() - asked < 200, 'a pull is never held');
    for (const e of answer.json.response.pull.events) {
      assert.ok(e.timings.created <= e.timings.sent);
      got.push(e.cycle);
    }
    cursor = answer.json.response.pull.cursor;
    await sleep(70);
  }
  const last = app.events.get('pe').cycle;
  const tail = await post(port, { type: 'pull', events: ['pe'], cursor });
  got.push(...tail.json.response.pull.events.map((e) => e.cycle));
  assert.ok(last >= 10, `the emitter ran (${last} cycles)`);
  assert.deepEqual(got.slice(0, last), Array.from({ length: last }, (_, i) => i + 1), 'cycles 1..n, each once, in order');
  assert.equal(new Set(got).size, got.length, 'none twice');
  assert.deepEqual(app.pool.counts(), { open: 0, comet: 0, poll: 0, sse: 0, ws: 0 }, 'a pull is never held');
});
