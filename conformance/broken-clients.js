'use strict';
// Conformance cases for clients that send broken, odd or slow requests (docs/protocol.md, "Request bodies",
// "Paths" and "Errors"): a table of raw requests with the answer each must get, each checked the same way;
// empty and chunked bodies answered as any other; a body far over the limit refused with the connection
// closed; and bodies sent a byte at a time while other clients use the server. After each case the server
// must still serve. Three groups of suite.js's cases (brokenClientGroups). The body deadline the server was started with: env
// PB_BODY_DEADLINE_MS (default 10000), read by suite.js (ctx.settings.deadline).

const assert = require('node:assert/strict');
const { rawExchange, oversizedBody } = require('./http-client');
const { measureSlowBodies } = require('./slow-bodies');

const SLOW_CLIENTS = 8;

const get = (target) => `GET ${target} HTTP/1.1\r\nHost: pb\r\nConnection: close\r\n\r\n`;
// A POST with the given body and its Content-Length.
const post = (target, body) => `POST ${target} HTTP/1.1\r\nHost: pb\r\nContent-Type: application/json\r\n` +
  `Content-Length: ${Buffer.byteLength(body)}\r\nConnection: close\r\n\r\n${body}`;
const postEmpty = (target) => post(target, '{}');
// A chunked POST whose chunked body is given in parts, sent apart (see rawExchange).
const chunkedTo = (target, ...body) => [`POST ${target} HTTP/1.1\r\nHost: pb\r\nContent-Type: application/json\r\n` +
  'Transfer-Encoding: chunked\r\nConnection: close\r\n\r\n', ...body];
const chunked = (...body) => chunkedTo('/event/clear', ...body);
// One chunk of text, framed.
const chunk = (text) => `${Buffer.byteLength(text).toString(16)}\r\n${text}\r\n`;
const LAST_CHUNK = '0\r\n\r\n';
// The POST endpoints that need a body: an empty one is refused.
const BODY_ENDPOINTS = ['/event/set', '/event/remove', '/logging', '/request'];

// [what, request, status, body]. body "error": the JSON error body; "error or empty": that, or the empty
// 400 of Tomcat's connector, which refuses a ".." above the root, a backslash and its encoding itself,
// before the webapp sees the request.
const CASES = [
  ['dot segment /../timestamp', get('/../timestamp'), 400, 'error or empty'],
  ['dot segment /%2e%2e/timestamp', get('/%2e%2e/timestamp'), 400, 'error or empty'],
  ['dot segment /%2E%2E/status', get('/%2E%2E/status'), 400, 'error or empty'],
  ['dot segment /./timestamp', get('/./timestamp'), 400, 'error'],
  ['dot segment /%2e/timestamp', get('/%2e/timestamp'), 400, 'error'],
  ['dot segment /%2E/status', get('/%2E/status'), 400, 'error'],
  ['dot segment /a/../timestamp', get('/a/../timestamp'), 400, 'error'],
  ['dot segment /timestamp/..', get('/timestamp/..'), 400, 'error'],
  ['dot segment POST /event/../event/clear', postEmpty('/event/../event/clear'), 400, 'error'],
  ...['/..\\timestamp', '/.\\timestamp', '/%2e%2e\\timestamp', '/status/..\\timestamp', '/timestamp\\', '/..%5ctimestamp',
    '/..%5Ctimestamp', '/status%5c'].map((target) => [`backslash ${target}`, get(target), 400, 'error or empty']),
  ...BODY_ENDPOINTS.flatMap((target) => [
    [`empty body POST ${target} (Content-Length: 0)`, post(target, ''), 400, 'error'],
    [`empty chunked body POST ${target}`, chunkedTo(target, LAST_CHUNK), 400, 'error'],
  ]),
  ['chunk size that is not hex', chunked('zz\r\n{}\r\n0\r\n\r\n'), 400, 'error'],
  ['negative chunk size', chunked('-1\r\n{}\r\n0\r\n\r\n'), 400, 'error'],
  ['chunk size past any length', chunked('100000000000000000\r\n{}\r\n0\r\n\r\n'), 400, 'error'],
  ['chunk longer than its size', chunked('2\r\n{}0\r\n\r\n'), 400, 'error'],
  ['malformed chunk after a good one', chunked('1\r\n{\r\n', 'zz\r\n}\r\n0\r\n\r\n'), 400, 'error'],
];

// The status line, and the body after the head (a chunked one decoded), of a raw reply.
function parseReply(reply) {
  const status = /^HTTP\/1\.[01] (\d{3}) /.exec(reply);
  const split = reply.indexOf('\r\n\r\n');
  const head = split < 0 ? reply : reply.slice(0, split);
  const body = split < 0 ? '' : reply.slice(split + 4);
  return { status: status ? Number(status[1]) : null, head,
    body: /\r\ntransfer-encoding: chunked\r?$/im.test(head) ? dechunk(body) : body };
}

// A chunked body's text (as far as it is whole).
function dechunk(body) {
  let text = '';
  let at = 0;
  for (;;) {
    const eol = body.indexOf('\r\n', at);
    const size = eol < 0 ? NaN : parseInt(body.slice(at, eol), 16);
    if (!(size > 0)) return text;
    text += body.slice(eol + 2, eol + 2 + size);
    at = eol + 2 + size + 2;
  }
}

function assertErrorBody({ head, body }, status, what) {
  assert.match(head, /\r\ncontent-type: application\/json/i, `${what}: JSON answer`);
  let json;
  try { json = JSON.parse(body); } catch { assert.fail(`${what}: the body is not JSON: ${body}`); }
  assert.equal(json.error && json.error.status, status, `${what}: error body ${body}`);
  assert.equal(typeof json.error.message, 'string', what);
}

// The slow-body case over SLOW_CLIENTS connections; deadline: the server's body deadline (ctx.settings).
async function slowBodies({ base, status, stillServing, SLACK, settings: { deadline } }) {
  const lateBefore = (await status()).bodies.late;
  const { slow, others } = await measureSlowBodies(base, { connections: SLOW_CLIENTS, intervalMs: 250,
    seconds: (deadline + SLACK) / 1000 + 3 });
  let late = 0;
  for (const r of slow.results) {
    const what = `a slow client answered ${r.status} after ${r.answeredMs} ms, closed after ${r.closedMs} ms`;
    // 503 at once is the other allowed answer: every place to wait for a body taken (docs/protocol.md).
    assert.ok(r.status === 408 || r.status === 503, what);
    assertErrorBody(parseReply(r.text), r.status, what);
    if (r.status === 408) {
      late++;
      assert.ok(r.answeredMs >= deadline - 20 && r.answeredMs <= deadline + SLACK, what);
    } else {
      assert.ok(r.answeredMs <= SLACK, what);
    }
    assert.ok(r.closedMs !== null && r.closedMs - r.answeredMs < SLACK, `${what}: the server must close it`);
  }
  assert.equal(others.failed, 0, `other clients went unanswered: ${JSON.stringify(others)}`);
  assert.ok(others.max < SLACK, `other clients waited up to ${others.max} ms: ${JSON.stringify(others)}`);
  assert.equal((await status()).bodies.late - lateBefore, late, '/status counts each 408 in bodies.late');
  await stillServing();
}

// Each POST endpoint's answer to an empty body, chunked and with Content-Length: 0: the same status and JSON.
async function emptyBodies({ base, stillServing }) {
  for (const target of [...BODY_ENDPOINTS, '/event/clear']) {
    const plain = parseReply(await rawExchange(base, post(target, '')));
    const chunkedReply = parseReply(await rawExchange(base, chunkedTo(target, LAST_CHUNK)));
    const expected = target === '/event/clear' ? 200 : 400;
    for (const [how, reply] of [['Content-Length: 0', plain], ['chunked', chunkedReply]]) {
      assert.equal(reply.status, expected, `POST ${target}, empty body (${how}): ${reply.head.split('\r\n')[0] || 'no answer'} ${reply.body}`);
      if (expected !== 200) assertErrorBody(reply, expected, `POST ${target}, empty body (${how})`);
    }
    if (expected === 200) assert.deepEqual(JSON.parse(chunkedReply.body), JSON.parse(plain.body), `POST ${target}: the same record`);
  }
  await stillServing();
}

// POST /event/set whose chunked body's data and last chunk arrive apart.
async function lastChunkApart({ base, stillServing }) {
  const body = JSON.stringify({ name: `cf-apart-${process.pid}`, frequency: 3600000 });
  const reply = parseReply(await rawExchange(base, chunkedTo('/event/set', chunk(body), LAST_CHUNK)));
  assert.equal(reply.status, 200, `${reply.head.split('\r\n')[0] || 'no answer'} ${reply.body}`);
  assert.equal(JSON.parse(reply.body).event.state, 'created', reply.body);
  await stillServing();
}

const OVERSIZED_MB = 100;

// A body of OVERSIZED_MB sent as fast as the connection takes it: the 413 comes with the error body, and the
// server ends the connection within SLACK of it, having taken less than half of the body.
async function oversizedBodies({ base, stillServing, SLACK }) {
  const total = OVERSIZED_MB * 1024 * 1024;
  for (const chunkedBody of [false, true]) {
    const r = await oversizedBody(base, { path: '/request', totalBytes: total, chunked: chunkedBody, giveUpMs: 10000 + SLACK });
    const what = `${chunkedBody ? 'chunked' : 'declared'}: answered ${r.status} at ${r.answeredMs} ms, ${r.closedBy}, ` +
      `${r.sentBytes} of ${total} bytes taken`;
    assert.equal(r.status, 413, what);
    assertErrorBody(parseReply(r.text), 413, what);
    assert.ok(r.closedMs !== null && r.closedMs - r.answeredMs < SLACK, `${what}: the server must close it`);
    assert.ok(r.sentBytes < total / 2, `${what}: the server read the body on`);
  }
  await stillServing();
}

// The three groups of suite.js's cases (each body gets its ctx); the slow-body case names the body deadline
// the server was started with (settings.deadline, PB_BODY_DEADLINE_MS).
const brokenClientGroups = ({ deadline }) => [
  { name: 'broken requests are refused with a 4xx, and the server keeps serving', cases: CASES.map(([what, request, expected, body]) => ({
    name: `${what}: ${expected}`,
    body: async ({ base, stillServing }) => {
      const reply = parseReply(await rawExchange(base, request));
      assert.equal(reply.status, expected, `${what}: got ${reply.head.split('\r\n')[0] || 'no answer'}`);
      if (body === 'error' || reply.body !== '') assertErrorBody(reply, expected, what);
      await stillServing();
    },
  })) },
  { name: 'request bodies: empty, chunked, far too large', cases: [
    { name: 'an empty body gets the same answer chunked as with Content-Length: 0 (POST /event/clear: its record)', body: emptyBodies },
    { name: 'a chunked body whose last chunk comes apart from its data is answered whole', body: lastChunkApart },
    { name: `a body of ${OVERSIZED_MB} MB (declared, or chunked without end) is 413 and its connection closed, the rest not read`,
      body: oversizedBodies },
  ] },
  { name: 'slow bodies', cases: [
    { name: `${SLOW_CLIENTS} bodies sent a byte every 250 ms get 408 at the body deadline (${deadline} ms, ` +
      'PB_BODY_DEADLINE_MS) and their connection closed; other clients are served meanwhile', body: slowBodies },
  ] },
];

module.exports = { brokenClientGroups, CASES };
