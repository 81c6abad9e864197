'use strict';
const test = require('node:test');
const assert = require('node:assert/strict');
const { eventRecord, timeoutRecord, clearRecord, errorBody } = require('../records');

const request = { echo: { type: 'poll', events: ['event1'], duration: 3000 }, created: 1000, start: 4 };

test('event record has the protocol shape and consistent timings', () => {
  const record = eventRecord(request, { name: 'event1', id: 17, created: 1500 }, 2, 5, 1503, 6);
  assert.deepEqual(record, {
    response: { event: { name: 'event1', cycle: 17, timings: { duration: 3, sent: 1503, created: 1500 },
      connections: { total: 5, place: 2 } } },
    request: { type: 'poll', events: ['event1'], duration: 3000 },
    timings: { duration: 503, sent: 1503, created: 1000 },
    connections: { start: 4, finish: 6 },
  });
});

test('only the timeout record says timeout; only errors say error', () => {
  const normal = [
    eventRecord(request, { name: 'event1', id: 1, created: 1100 }, 1, 1, 1100, 1),
    clearRecord(request, 'clear', 1200, 1),
    clearRecord(request, 'shutdown', 1200, 1),
  ];
  for (const record of normal) assert.doesNotMatch(JSON.stringify(record), /error|timeout/);
  const timedOut = timeoutRecord(request, 4000, 1);
  assert.deepEqual(timedOut.response, { timeout: { duration: 3000 } });
  assert.match(JSON.stringify(timedOut), /timeout/);
  assert.doesNotMatch(JSON.stringify(timedOut), /error/);
  assert.match(JSON.stringify(errorBody(400, 'bad')), /error/);
});

test('the pre-built comet line is byte-for-byte JSON.stringify of the event record', () => {
  const { eventLine, cycleHead, requestMiddle } = require('../records');
  const echoes = [
    { type: 'comet', events: ['event1'] },
    { type: 'comet', events: ['a-b_C', 'event2'], duration: 3000 },
  ];
  const cycles = [{ name: 'event1', id: 1, created: 1700000000120 }, { name: 'x_Y-9', id: 123456, created: 5 }];
  for (const echo of echoes) {
    const comet = { echo, created: 1699999995912, start: 4890 };
    const middle = requestMiddle(echo);
    for (const cycle of cycles) {
      const head = cycleHead(cycle);
      for (const [place, total, sent, finish] of [[1, 1, cycle.created, 1], [12, 5000, 1700000000123, 5003]]) {
        const expected = JSON.stringify(eventRecord(comet, cycle, place, total, sent, finish)) + '\n';
        assert.equal(eventLine(head, middle, comet, cycle, place, total, sent, finish), expected);
        assert.equal(eventLine(head, middle, comet, cycle, place, total, sent, finish, ''), expected.slice(0, -1),
          'the SSE and WebSocket framings take the same record without its newline');
      }
    }
  }
});
