'use strict';
// Conformance cases for clients that send broken or slow requests (docs/protocol.md, "Request bodies" and
// "Errors"): a table of raw requests with the answer each must get, each checked the same way, and bodies sent
// a byte at a time while other clients use the server. After each case the server must still serve. Two
// groups of suite.js's cases (brokenClientGroups). The body deadline the server was started with: env
// PB_BODY_DEADLINE_MS (default 10000), read by suite.js (ctx.settings.deadline).

const assert = require('node:assert/strict');
const { rawExchange } = require('./http-client');
const { measureSlowBodies } = require('./slow-bodies');

const SLOW_CLIENTS = 8;

const get = (target) => `GET ${target} HTTP/1.1\r\nHost: pb\r\nConnection: close\r\n\r\n`;
const postEmpty = (target) => `POST ${target} HTTP/1.1\r\nHost: pb\r\nContent-Type: application/json\r\n` +
  'Content-Length: 2\r\nConnection: close\r\n\r\n{}';
// A chunked POST /event/clear whose body is given in parts, sent apart (see rawExchange).
const chunked = (...body) => ['POST /event/clear HTTP/1.1\r\nHost: pb\r\nContent-Type: application/json\r\n' +
  'Transfer-Encoding: chunked\r\nConnection: close\r\n\r\n', ...body];

// [what, request, status, body]. body "error": the JSON error body; "error or empty": that, or the empty
// 400 of Tomcat's connector, which refuses a ".." above the root before the webapp sees the request.
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
  ['chunk size that is not hex', chunked('zz\r\n{}\r\n0\r\n\r\n'), 400, 'error'],
  ['negative chunk size', chunked('-1\r\n{}\r\n0\r\n\r\n'), 400, 'error'],
  ['chunk size past any length', chunked('100000000000000000\r\n{}\r\n0\r\n\r\n'), 400, 'error'],
  ['chunk longer than its size', chunked('2\r\n{}0\r\n\r\n'), 400, 'error'],
  ['malformed chunk after a good one', chunked('1\r\n{\r\n', 'zz\r\n}\r\n0\r\n\r\n'), 400, 'error'],
];

// The status line, and the body after the head, of a raw reply.
function parseReply(reply) {
  const status = /^HTTP\/1\.[01] (\d{3}) /.exec(reply);
  const split = reply.indexOf('\r\n\r\n');
  return { status: status ? Number(status[1]) : null, head: split < 0 ? reply : reply.slice(0, split),
    body: split < 0 ? '' : reply.slice(split + 4) };
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

// The two groups of suite.js's cases (each body gets its ctx); the slow-body case names the body deadline
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
  { name: 'slow bodies', cases: [
    { name: `${SLOW_CLIENTS} bodies sent a byte every 250 ms get 408 at the body deadline (${deadline} ms, ` +
      'PB_BODY_DEADLINE_MS) and their connection closed; other clients are served meanwhile', body: slowBodies },
  ] },
];

module.exports = { brokenClientGroups, CASES };
