'use strict';
// The protocol conformance suite (docs/protocol.md), black-box over HTTP, for any server by base URL.
//
//   const { registerSuite } = require('./suite');
//   registerSuite('http://127.0.0.1:8080', { label: 'node' });   // inside a node:test file
//
// The cases are tables: groups { name, cases: [{ name, body(ctx) }] }, here and in pull.js, broken-clients.js
// and streams.js; registerSuite registers them in order, one describe() a group, with one runner
// (registerGroup). ctx is the server's context (serverContext): requests to it and the checks of its answers.
// Tests run one after another and each ends with POST /event/clear, so they never see each other's
// emitters or requests. Timing tolerances: env PB_CONFORMANCE_SLACK_MS (default 1500) for "about
// N ms", PB_CONFORMANCE_CLOCK_MS (default 5000) for "the server's clock is close to ours". The server's
// settings, as it was started with, read when the suite is registered (serverSettings): the cap on emitters it
// must enforce, env PB_MAX_EMITTERS (default 16); its body deadline, PB_BODY_DEADLINE_MS (default 10000); its
// replay bound, PB_REPLAY_CYCLES (default 100); its stream backlog, PB_STREAM_BACKLOG_BYTES (default 1048576).
// The SSE and WebSocket cases of issue #38 are in streams.js; a server that does not speak a transport has
// its cases skipped, saying why.

const { describe, test, before, afterEach } = require('node:test');
const assert = require('node:assert/strict');
const crypto = require('node:crypto');
const http = require('node:http');
const { pullGroup } = require('./pull');
const { brokenClientGroups } = require('./broken-clients');
const { streamGroup } = require('./streams');
const { request, openStream, sendAndHold, rawExchange, waitUntil, sleep } = require('./http-client');

const SLACK = Number(process.env.PB_CONFORMANCE_SLACK_MS) || 1500;
const CLOCK = Number(process.env.PB_CONFORMANCE_CLOCK_MS) || 5000;

// The server's settings the cases check against (ctx.settings).
function serverSettings(env = process.env) {
  const replay = /^\d{1,4}$/.test(env.PB_REPLAY_CYCLES || '') ? Number(env.PB_REPLAY_CYCLES) : 100;
  return { replay, backlog: Number(env.PB_STREAM_BACKLOG_BYTES) || 1048576, deadline: Number(env.PB_BODY_DEADLINE_MS) || 10000,
    maxEmitters: Number(env.PB_MAX_EMITTERS) || 16 };
}

// Event names unique per test; hex cannot spell "error" or "timeout".
const uniqueName = (tag) => `cf-${tag}-${crypto.randomBytes(3).toString('hex')}`;

// ---- checks of answers and records ----------------------------------------------------------------------

function assertJson(answer, statusCode = 200) {
  assert.equal(answer.status, statusCode, `status ${answer.status}: ${answer.text}`);
  assert.match(String(answer.headers['content-type']), /^application\/json/);
  assert.ok(answer.json !== undefined, `body is JSON: ${answer.text}`);
}

function assertRejected(answer, statusCode, what) {
  assert.equal(answer.status, statusCode, `${what}: expected ${statusCode}, got ${answer.status} ${answer.text}`);
  assert.match(String(answer.headers['content-type']), /^application\/json/, what);
  assert.ok(answer.json && answer.json.error, `${what}: body has an error object: ${answer.text}`);
  assert.equal(answer.json.error.status, statusCode, what);
  assert.equal(typeof answer.json.error.message, 'string', what);
}

function assertNormal(text, what) {
  assert.doesNotMatch(text, /error/, `${what} must not contain "error": ${text}`);
  assert.doesNotMatch(text, /timeout/, `${what} must not contain "timeout": ${text}`);
}

const isMillis = (v) => Number.isSafeInteger(v) && Math.abs(v - Date.now()) < CLOCK + 3600000;
const isCount = (v) => Number.isSafeInteger(v) && v >= 0;

// Common part of every record: request echo, timings, connections.
function assertEnvelope(record, echo) {
  assert.deepEqual(record.request, echo, 'request is the POST body as parsed');
  const { timings, connections } = record;
  assert.ok(isMillis(timings.created) && isMillis(timings.sent), `timings are ms: ${JSON.stringify(timings)}`);
  assert.ok(Math.abs(timings.sent - Date.now()) < CLOCK, 'timings.sent is close to now');
  assert.equal(timings.duration, timings.sent - timings.created, 'timings.duration = sent - created');
  assert.ok(timings.duration >= 0);
  assert.ok(Number.isSafeInteger(connections.start) && connections.start >= 1, 'connections.start >= 1');
  assert.ok(Number.isSafeInteger(connections.finish) && connections.finish >= 1, 'connections.finish >= 1');
}

function assertEventRecord(record, { name, echo }) {
  assertEnvelope(record, echo);
  assert.deepEqual(Object.keys(record.response), ['event']);
  const event = record.response.event;
  assert.equal(event.name, name);
  assert.ok(Number.isSafeInteger(event.cycle) && event.cycle >= 1, 'cycle is an id from 1');
  const { timings, connections } = event;
  assert.ok(isMillis(timings.created) && isMillis(timings.sent));
  assert.equal(timings.duration, timings.sent - timings.created, 'event.timings.duration = sent - created');
  assert.ok(timings.duration >= 0);
  assert.ok(timings.created >= record.timings.created, 'the cycle started after the request arrived');
  assert.equal(timings.sent, record.timings.sent, 'the event was sent when the record was');
  assert.ok(Number.isSafeInteger(connections.total) && connections.total >= 1);
  assert.ok(Number.isSafeInteger(connections.place) && connections.place >= 1 && connections.place <= connections.total,
    `1 <= place <= total: ${JSON.stringify(connections)}`);
  assertNormal(JSON.stringify(record), 'an event record');
}

function assertClearRecord(record, { echo, reason = 'clear' }) {
  assertEnvelope(record, echo);
  assert.deepEqual(record.response, { clear: { reason } });
  assertNormal(JSON.stringify(record), 'a clear record');
}

// /status's requests: comet and poll counted, and the SSE and WebSocket counts 0 where the server has them.
function assertRequests(requests, expected) {
  const { open, comet, poll, ...streams } = requests;
  assert.deepEqual({ open, comet, poll }, expected);
  for (const [name, count] of Object.entries(streams)) assert.equal(count, 0, `requests.${name}`);
}

// ---- the context every case gets ------------------------------------------------------------------------

// ctx: requests to the server at base, the checks above, and what the server is (blocking, speaks, settings).
// blocking: the server holds each request on a blocking socket (tc6-bio, tc7-bio), which gives no sign of
// a client that left an idle held request until the server next writes to it: a vanished poll must then
// leave by its own duration instead of at once (docs/protocol.md, "Connections").
function serverContext(base, { blocking, speaks, settings }) {
  const get = (path, options) => request(base, 'GET', path, options);
  const post = (path, body, options) => request(base, 'POST', path, { body, ...options });
  const status = async () => (await get('/status')).json;
  const setEvent = async (name, frequency) => {
    const answer = await post('/event/set', { name, frequency });
    assert.equal(answer.status, 200, answer.text);
    return answer;
  };
  // Proof, after a bad input, that the server still answers everyone else.
  async function stillServing() {
    const answer = await get(`/timestamp?client=${Date.now()}`);
    assert.equal(answer.status, 200, 'the server must keep serving after a bad input');
    assert.equal(typeof answer.json.timestamp.server, 'number');
    const poll = await post('/request', { type: 'poll', events: [uniqueName('alive')], duration: 50 });
    assert.equal(poll.status, 200);
    assert.ok(poll.json.response.timeout, 'a normal poll still works');
  }
  return { base, blocking, speaks, settings, SLACK, get, post, request: (method, path, options) => request(base, method, path, options),
    status, setEvent, stillServing, uniqueName, assertJson, assertRejected, assertNormal, assertEnvelope, assertEventRecord,
    assertClearRecord, assertRequests };
}

// ---- the cases ------------------------------------------------------------------------------------------

const TIME_STAMPER = { name: 'time stamper', cases: [
  { name: 'echoes the client time and gives the server time in ms', body: async ({ get }) => {
    const answer = await get('/timestamp?client=1234567890123');
    assertJson(answer);
    assert.equal(answer.json.timestamp.client, 1234567890123);
    assert.ok(Number.isSafeInteger(answer.json.timestamp.server));
    assert.ok(Math.abs(answer.json.timestamp.server - Date.now()) < CLOCK, 'server time is close to now');
    assertNormal(answer.text, 'a timestamp');
  } },
  { name: 'client is null when absent or not an integer', body: async ({ get }) => {
    assert.equal((await get('/timestamp')).json.timestamp.client, null);
    assert.equal((await get('/timestamp?client=abc')).json.timestamp.client, null);
  } },
] };

const LOG_MANAGER = { name: 'log manager', cases: [
  { name: 'switches logging on and off; /status shows it', body: async ({ post, status }) => {
    const on = await post('/logging', { enabled: true });
    assertJson(on);
    assert.deepEqual(on.json, { logging: { enabled: true } });
    assert.equal((await status()).logging, true);
    const off = await post('/logging', { enabled: false });
    assert.deepEqual(off.json, { logging: { enabled: false } });
    assert.equal((await status()).logging, false);
  } },
  { name: 'rejects a non-boolean enabled', body: async ({ post, status, stillServing }) => {
    for (const body of [{ enabled: 'yes' }, { enabled: 1 }, {}, [true]]) {
      assertRejected(await post('/logging', body), 400, `logging ${JSON.stringify(body)}`);
    }
    assert.equal((await status()).logging, false);
    await stillServing();
  } },
] };

// Its cap case names the cap, PB_MAX_EMITTERS as the server was started with.
const eventManager = ({ maxEmitters }) => ({ name: 'event manager', cases: [
  { name: 'set creates, set again changes, remove removes, unknown remove is 404', body: async ({ post, status, setEvent, stillServing }) => {
    const name = uniqueName('ev');
    const created = await setEvent(name, 1000);
    assertJson(created);
    assert.deepEqual(created.json, { event: { name, frequency: 1000, state: 'created' } });
    const changed = await setEvent(name, 500);
    assert.deepEqual(changed.json, { event: { name, frequency: 500, state: 'changed' } });
    const listed = (await status()).events.find((e) => e.name === name);
    assert.ok(listed, '/status lists the event');
    assert.equal(listed.frequency, 500);
    assert.ok(isCount(listed.cycle));
    const removed = await post('/event/remove', { name });
    assertJson(removed);
    assert.deepEqual(removed.json, { event: { name, state: 'removed' } });
    assert.equal((await status()).events.find((e) => e.name === name), undefined);
    assertRejected(await post('/event/remove', { name }), 404, 'removing an unknown event');
    await stillServing();
  } },
  { name: `at most ${maxEmitters} emitters (PB_MAX_EMITTERS): one more new name is 409, a change at the cap is fine`,
    body: async ({ post, status, setEvent, stillServing }) => {
      const names = Array.from({ length: maxEmitters }, (_, i) => uniqueName(`cap${i}`));
      for (const name of names) await setEvent(name, 60000);
      const extra = uniqueName('over');
      assertRejected(await post('/event/set', { name: extra, frequency: 60000 }), 409, `emitter ${maxEmitters + 1}`);
      const listed = (await status()).events.map((e) => e.name);
      assert.equal(listed.length, maxEmitters, 'the refused set created nothing');
      assert.ok(!listed.includes(extra));
      assert.equal((await setEvent(names[0], 30000)).json.event.state, 'changed', 'an existing name still changes');
      await post('/event/remove', { name: names[0] });
      assert.equal((await setEvent(extra, 60000)).json.event.state, 'created', 'room again after a remove');
      await stillServing();
    } },
  { name: 'cycle ids continue across a change of interval', body: async ({ base, setEvent }) => {
    const name = uniqueName('chg');
    const stream = await openStream(base, { type: 'comet', events: [name] });
    await setEvent(name, 100);
    const first = await stream.nextLine(2000 + SLACK);
    await setEvent(name, 120);
    const second = await stream.nextLine(2000 + SLACK);
    assert.equal(first.record.response.event.cycle, 1);
    assert.equal(second.record.response.event.cycle, 2);
    stream.destroy();
  } },
] });

const POLL = { name: 'request manager: poll', cases: [
  { name: 'a poll is answered by the next event with a complete record', body: async ({ post, setEvent }) => {
    const name = uniqueName('poll');
    await setEvent(name, 150);
    const echo = { type: 'poll', events: [name], duration: 5000 };
    const answer = await post('/request', echo);
    assertJson(answer);
    assertEventRecord(answer.json, { name, echo });
    assert.ok(answer.elapsed < 150 + SLACK, `answered within an interval (took ${answer.elapsed} ms)`);
    assert.ok(answer.json.timings.duration <= 150 + SLACK);
  } },
  { name: 'a poll with no event times out near its duration with a timeout record, status 200', body: async ({ post }) => {
    const echo = { type: 'poll', events: [uniqueName('idle')], duration: 300 };
    const answer = await post('/request', echo);
    assertJson(answer);
    assert.match(answer.text, /timeout/);
    assert.doesNotMatch(answer.text, /error/);
    assert.deepEqual(answer.json.response, { timeout: { duration: 300 } });
    assertEnvelope(answer.json, echo);
    assert.ok(answer.json.timings.duration >= 290, `held ${answer.json.timings.duration} ms of 300`);
    assert.ok(answer.json.timings.duration <= 300 + SLACK, `held ${answer.json.timings.duration} ms of 300`);
    assert.ok(answer.elapsed >= 280 && answer.elapsed <= 300 + SLACK, `client waited ${answer.elapsed} ms`);
  } },
  { name: 'a poll on a name with no emitter yet is reached by an emitter set later', body: async ({ post, status, setEvent }) => {
    const name = uniqueName('later');
    const echo = { type: 'poll', events: [name], duration: 5000 };
    const pending = post('/request', echo);
    await waitUntil(async () => (await status()).requests.poll === 1, 2000, 'the poll to be held');
    await setEvent(name, 100);
    const answer = await pending;
    assertJson(answer);
    assertEventRecord(answer.json, { name, echo });
    assert.equal(answer.json.response.event.cycle, 1);
  } },
  { name: 'a poll subscribed to several events is answered once, by the first', body: async ({ post, status, setEvent }) => {
    const quick = uniqueName('quick');
    const slow = uniqueName('slow');
    await setEvent(slow, 60000);
    await setEvent(quick, 100);
    const echo = { type: 'poll', events: [slow, quick], duration: 5000 };
    const answer = await post('/request', echo);
    assertEventRecord(answer.json, { name: quick, echo });
    // the answer may reach us a moment before the server has taken the poll off its lists
    await waitUntil(async () => (await status()).requests.open === 0, 1000, 'the answered poll to leave every list');
  } },
  { name: 'a timed-out poll leaves its keep-alive connection open for the next poll', body: async ({ post }) => {
    const agent = new http.Agent({ keepAlive: true, maxSockets: 1 });
    try {
      const echo = { type: 'poll', events: [uniqueName('again')], duration: 200 };
      const first = await post('/request', echo, { agent });
      const second = await post('/request', echo, { agent });
      for (const answer of [first, second]) {
        assert.equal(answer.status, 200);
        assert.deepEqual(answer.json.response, { timeout: { duration: 200 } });
        assert.notEqual(answer.headers.connection, 'close', 'the server ended the connection');
      }
      assert.ok(second.reused && second.localPort === first.localPort,
        `the second poll went out on a new connection (ports ${first.localPort}, ${second.localPort})`);
    } finally {
      agent.destroy();
    }
  } },
] };

const COMET = { name: 'request manager: comet', cases: [
  { name: 'a comet stream gets one JSON line per event, incrementally, with rising cycle ids', body: async ({ base, post, setEvent }) => {
    const name = uniqueName('stream');
    const echo = { type: 'comet', events: [name] };
    const stream = await openStream(base, echo);
    assert.equal(stream.status, 200);
    assert.match(String(stream.headers['content-type']), /^application\/x-ndjson/);
    await setEvent(name, 150);
    const lines = [];
    for (let i = 0; i < 3; i++) lines.push(await stream.nextLine(1000 + SLACK));
    assert.equal(stream.ended, false, 'three events arrived while the stream is still open');
    lines.forEach((line, i) => {
      assert.ok(line.record && typeof line.record === 'object', `line ${i + 1} is one JSON object: ${line.text}`);
      assertEventRecord(line.record, { name, echo });
      assert.equal(line.record.response.event.cycle, i + 1);
      assert.equal(line.record.response.event.connections.total, 1);
      assert.equal(line.record.response.event.connections.place, 1);
    });
    assert.ok(lines[2].at - lines[0].at >= 150, `records arrived over time, not at once (${lines[2].at - lines[0].at} ms)`);
    const cleared = await post('/event/clear', {});
    assert.equal(cleared.json.clear.requests, 1);
    const last = await stream.nextLine(2000);
    assertClearRecord(last.record, { echo });
    await stream.waitEnd(2000);
    assert.equal(stream.lines.filter((l) => l.unterminated).length, 0, 'every line ends in \\n');
  } },
  { name: 'a comet stream stays open after its emitter is removed', body: async ({ base, post, status, setEvent }) => {
    const name = uniqueName('keep');
    const stream = await openStream(base, { type: 'comet', events: [name] });
    await setEvent(name, 100);
    await stream.nextLine(1000 + SLACK);
    await post('/event/remove', { name });
    await sleep(250);
    const before = stream.lines.length;
    await sleep(300);
    assert.equal(stream.lines.length, before, 'no records after remove');
    assert.equal(stream.ended, false);
    assert.equal((await status()).requests.comet, 1);
    stream.destroy();
  } },
] };

const CLEAR_AND_STATUS = { name: 'clear and status', cases: [
  { name: 'clear stops every emitter and completes every open comet and poll', body: async ({ base, post, status, setEvent }) => {
    const cometEcho = { type: 'comet', events: [uniqueName('a')] };
    const pollEcho = { type: 'poll', events: [uniqueName('b')], duration: 10000 };
    const stream = await openStream(base, cometEcho);
    const pending = post('/request', pollEcho);
    await setEvent(uniqueName('c'), 10000);
    await waitUntil(async () => (await status()).requests.open === 2, 2000, 'two open requests');
    const cleared = await post('/event/clear', {});
    assertJson(cleared);
    assert.deepEqual(cleared.json, { clear: { events: 1, requests: 2 } });
    const polled = await pending;
    assertJson(polled);
    assertClearRecord(polled.json, { echo: pollEcho });
    const line = await stream.nextLine(2000);
    assertClearRecord(line.record, { echo: cometEcho });
    await stream.waitEnd(2000);
    const after = await status();
    assertRequests(after.requests, { open: 0, comet: 0, poll: 0 });
    assert.deepEqual(after.events, []);
  } },
  { name: 'clear with an empty body works too', body: async ({ post }) => {
    const answer = await post('/event/clear', '');
    assertJson(answer);
    assert.deepEqual(answer.json, { clear: { events: 0, requests: 0 } });
  } },
  { name: '/status counts open requests by type and reports the last emit cycle', body: async ({ base, get, post, status, setEvent }) => {
    const name = uniqueName('st');
    const stream = await openStream(base, { type: 'comet', events: [name] });
    const polls = [post('/request', { type: 'poll', events: [uniqueName('p')], duration: 10000 }),
      post('/request', { type: 'poll', events: [uniqueName('q')], duration: 10000 })];
    await waitUntil(async () => (await status()).requests.open === 3, 2000, 'three open requests');
    const counted = await get('/status');
    assertJson(counted);
    assertNormal(counted.text, '/status');
    assertRequests(counted.json.requests, { open: 3, comet: 1, poll: 2 });
    assert.equal(typeof counted.json.logging, 'boolean');
    await setEvent(name, 100);
    await stream.nextLine(1000 + SLACK);
    await waitUntil(async () => {
      const event = (await status()).events.find((e) => e.name === name);
      return event && event.lastCycle && event.cycle >= 1;
    }, 2000, 'a completed cycle in /status');
    const event = (await status()).events.find((e) => e.name === name);
    assert.equal(event.frequency, 100);
    assert.equal(event.lastCycle.total, 1);
    assert.ok(isCount(event.lastCycle.durationMicros), 'lastCycle.durationMicros is an integer >= 0');
    await post('/event/clear', {});
    await Promise.all(polls);
  } },
] };

const BAD_INPUT = { name: 'bad input is refused with a 4xx error body, and the server keeps serving', cases: [
  { name: 'malformed JSON', body: async ({ post, stillServing }) => {
    for (const path of ['/request', '/event/set', '/event/remove', '/logging']) {
      assertRejected(await post(path, '{"type":'), 400, `malformed JSON to ${path}`);
      await stillServing();
    }
  } },
  { name: 'wrong JSON types and missing fields', body: async ({ post, stillServing }) => {
    const cases = [
      ['/request', { type: 'poll', events: 'x', duration: 100 }],
      ['/request', { type: 'poll', events: [5], duration: 100 }],
      ['/request', { type: 7, events: [], duration: 100 }],
      ['/request', { events: ['x'], duration: 100 }],
      ['/request', { type: 'poll', duration: 100 }],
      ['/request', []],
      ['/request', 'poll'],
      ['/event/set', { name: 5, frequency: 100 }],
      ['/event/set', { name: 'x', frequency: '100' }],
      ['/event/set', { name: 'x' }],
      ['/event/set', null],
      ['/event/remove', { name: ['x'] }],
      ['/event/remove', {}],
    ];
    for (const [path, body] of cases) {
      assertRejected(await post(path, body), 400, `${path} ${JSON.stringify(body)}`);
    }
    await stillServing();
  } },
  { name: 'unknown request type, and the transports that are not POSTed (sse, ws)', body: async ({ post, stillServing }) => {
    for (const type of ['websocket', 'POLL', '', 'sse', 'ws']) {
      assertRejected(await post('/request', { type, events: ['x'], duration: 100 }), 400, `type ${type}`);
    }
    await stillServing();
  } },
  { name: 'poll duration out of range or not an integer', body: async ({ post, stillServing }) => {
    for (const duration of [0, -5, 3600001, 1e12, 1.5, '300', null]) {
      assertRejected(await post('/request', { type: 'poll', events: ['x'], duration }), 400, `duration ${duration}`);
    }
    assertRejected(await post('/request', { type: 'poll', events: ['x'] }), 400, 'poll without duration');
    await stillServing();
  } },
  { name: 'frequency out of range or not an integer', body: async ({ post, status, stillServing }) => {
    for (const frequency of [0, 9, -1, 3600001, 1e300, 10.5]) {
      assertRejected(await post('/event/set', { name: uniqueName('f'), frequency }), 400, `frequency ${frequency}`);
    }
    assert.deepEqual((await status()).events, [], 'no emitter was created');
    await stillServing();
  } },
  { name: 'bad event names', body: async ({ post, stillServing }) => {
    const names = ['', 'a b', 'x'.repeat(65), 'évent', '../x', 'a/b', 12];
    for (const name of names) {
      assertRejected(await post('/event/set', { name, frequency: 100 }), 400, `set name ${JSON.stringify(name)}`);
      assertRejected(await post('/request', { type: 'poll', events: [name], duration: 100 }), 400,
        `request event ${JSON.stringify(name)}`);
    }
    const seventeen = Array.from({ length: 17 }, (_, i) => `n${i}`);
    assertRejected(await post('/request', { type: 'poll', events: seventeen, duration: 100 }), 400, '17 events');
    assert.equal((await post('/event/set', { name: 'x'.repeat(64), frequency: 60000 })).status, 200, '64 characters is fine');
    await stillServing();
  } },
  { name: 'a body over 16 KiB is refused with 413 (declared or chunked)', body: async ({ post, stillServing }) => {
    const big = JSON.stringify({ type: 'poll', events: ['x'], duration: 100, pad: 'p'.repeat(17000) });
    assertRejected(await post('/request', big), 413, 'body with Content-Length over 16 KiB');
    await stillServing();
    assertRejected(await post('/request', big, { chunked: true }), 413, 'chunked body over 16 KiB');
    await stillServing();
    const fits = JSON.stringify({ type: 'poll', events: ['x'], duration: 50, pad: 'p'.repeat(16000) });
    assert.ok(Buffer.byteLength(fits) <= 16384);
    assert.equal((await post('/request', fits)).status, 200, 'a body just under 16 KiB is accepted');
  } },
  { name: 'unknown path is 404', body: async ({ get, post, stillServing }) => {
    assertRejected(await get('/nowhere'), 404, 'GET /nowhere');
    assertRejected(await post('/event/nowhere', {}), 404, 'POST /event/nowhere');
    await stillServing();
  } },
  { name: 'wrong method is 405 with an Allow header', body: async ({ request: ask, stillServing }) => {
    for (const [method, path, allowed] of [['PUT', '/request', 'POST'], ['POST', '/timestamp', 'GET'],
      ['GET', '/event/set', 'POST'], ['PUT', '/logging', 'POST'], ['DELETE', '/status', 'GET']]) {
      const answer = await ask(method, path, method === 'POST' ? { body: {} } : {});
      assertRejected(answer, 405, `${method} ${path}`);
      assert.match(String(answer.headers.allow), new RegExp(allowed), `${method} ${path}: Allow names ${allowed}`);
    }
    await stillServing();
  } },
  { name: 'a request target that is no URL path (GET //, //x) is a 4xx, never a 5xx', body: async ({ base, stillServing }) => {
    for (const target of ['//', '//x', '//status']) {
      const reply = await rawExchange(base, `GET ${target} HTTP/1.1\r\nHost: pb\r\nConnection: close\r\n\r\n`);
      assert.match(reply, /^HTTP\/1\.[01] 4\d\d/, `GET ${target}: ${reply.slice(0, 80)}`);
    }
    await stillServing();
  } },
  { name: 'malformed HTTP is refused (400 or closed), nothing else is affected', body: async ({ base, stillServing }) => {
    const reply = await rawExchange(base, 'THIS IS NOT HTTP\r\n\r\n');
    assert.ok(reply === '' || /^HTTP\/1\.[01] 4\d\d/.test(reply), `reply: ${reply.slice(0, 80)}`);
    await stillServing();
  } },
  { name: 'a client vanishing mid comet stream is removed', body: async ({ base, status, setEvent, stillServing }) => {
    const name = uniqueName('gone');
    const stream = await openStream(base, { type: 'comet', events: [name] });
    const stays = await openStream(base, { type: 'comet', events: [name] });
    await setEvent(name, 100);
    await stream.nextLine(1000 + SLACK);
    stream.destroy();
    await waitUntil(async () => (await status()).requests.comet === 1, 3000, 'the vanished stream to leave /status');
    const cycleAfter = (await status()).events.find((e) => e.name === name).cycle;
    await waitUntil(() => stays.lines.some((l) => l.record.response.event.cycle > cycleAfter + 1), 2000 + SLACK,
      'the remaining stream to keep receiving');
    const event = (await status()).events.find((e) => e.name === name);
    assert.equal(event.lastCycle.total, 1, 'later cycles no longer count the vanished client');
    stays.destroy();
    await stillServing();
  } },
  { name: 'a client vanishing during a poll is removed', body: async ({ base, blocking, status, stillServing }) => {
    const duration = blocking ? 1000 : 10000;
    const held = await sendAndHold(base, { type: 'poll', events: [uniqueName('vp')], duration });
    await waitUntil(async () => (await status()).requests.poll === 1, 2000, 'the poll to be held');
    held.destroy();
    await waitUntil(async () => (await status()).requests.poll === 0, blocking ? duration + SLACK : 3000,
      'the vanished poll to leave /status');
    await stillServing();
  } },
] };

// Every group, in the order it runs.
const suiteGroups = (settings) => [TIME_STAMPER, LOG_MANAGER, eventManager(settings), POLL, COMET, pullGroup, CLEAR_AND_STATUS,
  BAD_INPUT, ...brokenClientGroups(settings), streamGroup(settings)];

// ---- the runner -----------------------------------------------------------------------------------------

// Registers one group as a describe() of its cases, in table order; each test runs body(ctx). A case may
// name the transports it needs (needs: skipped, with notSpoken and the transports lacking, on a server that
// does not speak one) or those whose refusal it tests (refuses: registered only on a server that lacks one,
// since it is the test of that server, not a case to skip on the others). The group's before() fails while
// server.reachable is false, so a server that is not there cancels every group rather than skipping it.
function registerGroup({ name, cases }, ctx, { server, notSpoken }) {
  describe(name, () => {
    before(() => {
      if (!server.reachable) throw new Error(`no server at ${ctx.base}: see the first test's failure`);
    });
    for (const { name: title, body, needs = [], refuses = [] } of cases) {
      if (refuses.some((transport) => ctx.speaks.includes(transport))) continue;
      const lacking = needs.filter((transport) => !ctx.speaks.includes(transport));
      test(title, { skip: lacking.length > 0 ? `${notSpoken} (${lacking.join(', ')})` : false }, () => body(ctx));
    }
  });
}

// speaks: the transports of issue #38 the server speaks ("sse", "ws"); notSpoken: why the cases of the
// others are skipped; blocking: see serverContext.
const ALL_TRANSPORTS = ['sse', 'ws'];
function registerSuite(base, { label = base, blocking = false, speaks = ALL_TRANSPORTS,
  notSpoken = `${label} does not speak this transport` } = {}) {
  const settings = serverSettings();
  const ctx = serverContext(base, { blocking, speaks, settings });
  // The first test proves the server is there; without it every group is cancelled (not silently
  // skipped): that first test fails, with the reason.
  const server = { reachable: false };

  describe(`protocol conformance: ${label}`, () => {
    test(`a server answers GET /timestamp at ${base}`, async () => {
      let answer;
      try {
        answer = await ctx.get('/timestamp');
      } catch (err) {
        throw new Error(`no server answers GET /timestamp at ${base} (${err.message}); start it first`);
      }
      assert.equal(answer.status, 200, answer.text);
      server.reachable = true;
    });

    afterEach(async () => {
      if (!server.reachable) return;
      await ctx.post('/event/clear', {});
      await ctx.post('/logging', { enabled: false });
    });

    for (const group of suiteGroups(settings)) registerGroup(group, ctx, { server, notSpoken });
  });
}

module.exports = { registerSuite };
