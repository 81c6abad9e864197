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
