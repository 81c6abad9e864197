'use strict';
const test = require('node:test');
const assert = require('node:assert/strict');
const validate = require('../validate');
const { parseJson } = require('../body');

const ok = (result) => { assert.equal(result.problem, undefined, result.problem); return result.value; };
const rejected = (result) => assert.equal(typeof result.problem, 'string');

test('logging: enabled must be a boolean', () => {
  assert.deepEqual(ok(validate.logging({ enabled: true })), { enabled: true });
  assert.deepEqual(ok(validate.logging({ enabled: false })), { enabled: false });
  for (const body of [{}, { enabled: 'yes' }, { enabled: 1 }, { enabled: null }, [], 'x', null, undefined]) {
    rejected(validate.logging(body));
  }
});

test('event set: name rule and frequency 10..3600000 integer', () => {
  assert.deepEqual(ok(validate.eventSet({ name: 'event1', frequency: 2000 })), { name: 'event1', frequency: 2000 });
  ok(validate.eventSet({ name: 'A_b-9', frequency: 10 }));
  ok(validate.eventSet({ name: 'x'.repeat(64), frequency: 3600000 }));
  const bad = [
    { name: '', frequency: 100 }, { name: 'a b', frequency: 100 }, { name: 'x'.repeat(65), frequency: 100 },
    { name: 'évent', frequency: 100 }, { name: 5, frequency: 100 }, { frequency: 100 },
    { name: 'e', frequency: 9 }, { name: 'e', frequency: 0 }, { name: 'e', frequency: -1 },
    { name: 'e', frequency: 3600001 }, { name: 'e', frequency: 1e300 }, { name: 'e', frequency: 10.5 },
    { name: 'e', frequency: '100' }, { name: 'e' }, null, [], 'e',
  ];
  for (const body of bad) rejected(validate.eventSet(body));
});

test('event remove and clear bodies', () => {
  ok(validate.eventRemove({ name: 'e' }));
  rejected(validate.eventRemove({ name: 'e/1' }));
  rejected(validate.eventRemove({}));
  ok(validate.eventClear(undefined));
  ok(validate.eventClear({}));
  rejected(validate.eventClear([]));
  rejected(validate.eventClear('clear'));
});

test('push request: type, events, duration', () => {
  assert.deepEqual(ok(validate.pushRequest({ type: 'poll', events: ['e'], duration: 3000 })),
    { type: 'poll', events: ['e'], duration: 3000 });
  assert.deepEqual(ok(validate.pushRequest({ type: 'comet', events: [] })), { type: 'comet', events: [] });
  assert.deepEqual(ok(validate.pushRequest({ type: 'comet', events: ['e'], duration: 3000, extra: 1 })),
    { type: 'comet', events: ['e'], duration: 3000 }, 'extra fields are not echoed');
  // Comet ignores duration: a placeholder is not a reason to refuse a stream.
  assert.deepEqual(ok(validate.pushRequest({ type: 'comet', events: ['e'], duration: 0 })), { type: 'comet', events: ['e'] });
  ok(validate.pushRequest({ type: 'poll', events: Array.from({ length: 16 }, (_, i) => `e${i}`), duration: 1 }));
  const bad = [
    { type: 'websocket', events: [], duration: 1 }, { events: [], duration: 1 }, { type: 'POLL', events: [], duration: 1 },
    { type: 'poll', duration: 100 }, { type: 'poll', events: 'e', duration: 100 }, { type: 'poll', events: [5], duration: 100 },
    { type: 'poll', events: ['bad name'], duration: 100 },
    { type: 'poll', events: Array.from({ length: 17 }, (_, i) => `e${i}`), duration: 100 },
    { type: 'poll', events: ['e'] }, { type: 'poll', events: ['e'], duration: 0 },
    { type: 'poll', events: ['e'], duration: -5 }, { type: 'poll', events: ['e'], duration: 3600001 },
    { type: 'poll', events: ['e'], duration: 1e12 }, { type: 'poll', events: ['e'], duration: 1.5 },
    { type: 'poll', events: ['e'], duration: '300' }, null, [], 42,
  ];
  for (const body of bad) rejected(validate.pushRequest(body));
});

test('JSON parsing: empty is undefined, malformed is a problem', () => {
  assert.equal(parseJson('').value, undefined);
  assert.equal(parseJson('  \n').value, undefined);
  assert.deepEqual(parseJson('{"a":1}').value, { a: 1 });
  assert.equal(typeof parseJson('{"type":').problem, 'string');
  assert.equal(typeof parseJson('nope').problem, 'string');
});

test('SSE query: type=sse once, events once as a comma-separated list of 0-16 names', () => {
  const query = (text) => validate.sseQuery(new URLSearchParams(text));
  assert.deepEqual(ok(query('type=sse&events=e1,e2&cachebuster=7')), { type: 'sse', events: ['e1', 'e2'] });
  assert.deepEqual(ok(query('type=sse&events=')), { type: 'sse', events: [] });
  ok(query(`type=sse&events=${Array.from({ length: 16 }, (_, i) => `e${i}`).join(',')}`));
  for (const bad of ['events=e1', 'type=sse', 'type=sse&type=sse&events=e1', 'type=sse&events=a&events=b', 'type=SSE&events=e',
    'type=sse&events=a,,b', 'type=sse&events=bad%20name', `type=sse&events=${Array.from({ length: 17 }, (_, i) => `e${i}`).join(',')}`]) {
    rejected(query(bad));
  }
  assert.match(query('type=comet&events=e').problem, /POST \/request/, 'a type asked elsewhere says where');
  assert.match(query('type=ws&events=e').problem, /WebSocket upgrade/);
  assert.match(query('type=carrier-pigeon&events=e').problem, /unknown transport/);
});

test('Last-Event-ID: name:cycle pairs as a cursor; absent or empty is none; anything else is refused', () => {
  assert.equal(ok(validate.lastEventId(undefined)), null);
  assert.equal(ok(validate.lastEventId('')), null);
  assert.deepEqual({ ...ok(validate.lastEventId('e1:17,e-2_x:0')) }, { e1: 17, 'e-2_x': 0 });
  const proto = ok(validate.lastEventId('__proto__:3'));
  assert.equal(Object.getPrototypeOf(proto), null, 'a name is a plain key');
  assert.equal(proto.__proto__, 3);
  const seventeen = Array.from({ length: 17 }, (_, i) => `e${i}:1`).join(',');
  for (const bad of ['e1', 'e1:', ':5', 'e1:-1', 'e1:1.5', 'e1:01', 'e1:1,e1:2', 'bad name:1', 'e1:99999999999999999', 'e1:1,', seventeen]) {
    rejected(validate.lastEventId(bad));
  }
});

test('WebSocket subscription: type ws, events, an optional cursor; other types are refused saying where they go', () => {
  assert.deepEqual(ok(validate.wsSubscription({ type: 'ws', events: ['e'] })), { type: 'ws', events: ['e'] });
  assert.deepEqual({ ...ok(validate.wsSubscription({ type: 'ws', events: ['e'], cursor: { e: 4 } })).cursor }, { e: 4 });
  for (const bad of [{ type: 'ws' }, { type: 'ws', events: ['e'], cursor: { e: -1 } }, { type: 'websocket', events: [] }, null, 'ws']) {
    rejected(validate.wsSubscription(bad));
  }
  assert.match(validate.wsSubscription({ type: 'sse', events: [] }).problem, /type must be "ws".*GET \/request\?type=sse/);
  assert.match(validate.pushRequest({ type: 'ws', events: [] }).problem, /WebSocket upgrade/, 'POST /request says where ws goes');
  rejected(validate.pushRequest({ type: 'sse', events: [] }));
});
