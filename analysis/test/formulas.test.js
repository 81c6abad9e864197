'use strict';
const test = require('node:test');
const assert = require('node:assert/strict');
const { Timeline, elapsedSecond } = require('../measure/timeline');
const { messageCounts, countAfter, finalCuts } = require('../measure/messages');

test('per-second bucketing from the run start, shifted by the clock offset', () => {
  const t0 = 1_000_000;
  const tl = new Timeline(t0 - 60_000, 'sum');
  tl.add(t0 + 10);        // second 0
  tl.add(t0 + 999);       // second 0
  tl.add(t0 + 1000);      // second 1
  tl.add(t0 + 2500, 3);   // second 2
  assert.deepEqual(tl.toSeconds(t0, 4), [2, 1, 3, 0]);
  // server clock 1000 ms ahead: every server time is one second earlier on the client clock
  assert.deepEqual(tl.toSeconds(t0, 4, 1000), [1, 3, 0, 0]);
  assert.equal(tl.lastSecond(t0), 2);
  assert.equal(elapsedSecond(t0 + 1999, t0), 1);
});

test('max mode keeps the peak per second and null where nothing was seen', () => {
  const tl = new Timeline(0, 'max');
  tl.add(100, 5);
  tl.add(900, 7);
  tl.add(2100, 2);
  assert.deepEqual(tl.toSeconds(0, 4), [7, null, 2, null]);
});

test('times far outside the run are counted, not stored', () => {
  const tl = new Timeline(1000, 'sum');
  tl.add(0);
  tl.add(1000 + 49 * 3600 * 1000);
  assert.equal(tl.outOfRange, 2);
  assert.deepEqual(tl.toSeconds(1000, 2), [0, 0]);
});

test('received, unique and missed messages (CHIRON) per comet stream', () => {
  const cycles = new Map([['e1', [100, 200, 300, 400, 500]]]);
  assert.equal(countAfter(cycles.get('e1'), 150, 400), 3);
  const streams = [
    // open 50..550: all five cycles expected, got 1,2,2(duplicate),4 -> unique 3, missed 2
    { created: 50, end: 550, events: ['e1'], received: 4, uniqueByEvent: { e1: 3 } },
    // received after cycle 1 started, cleared after cycle 3: cycles 2,3 expected, both got
    { created: 100, end: 300, events: ['e1'], received: 2, uniqueByEvent: { e1: 2 } },
  ];
  const m = messageCounts(streams, cycles, { responses: 4, received: 3, unique: 3 });
  assert.deepEqual(m.comet, { streams: 2, received: 6, unique: 5, duplicates: 1, expected: 7, missed: 2,
    receivedPercent: (100 * 5) / 7 });
  assert.deepEqual(m.poll, { responses: 4, received: 3, unique: 3, duplicates: 0 });
});

test('missed messages: the final cycle cut short at the test\'s end is expected only of the streams it reached', () => {
  // A real Node.js run of 10,000 comet streams (20261126-132208-node-comet-10000-40): the Clean Up clear came
  // while cycle 41 was being sent, which reached 7,000 of 10,000 streams; each of the other 3,000 got the
  // clear after that cycle's start and was counted one message missed. Here: cycles 1-3, the third cut.
  const cycles = new Map([['e1', [100, 200, 300]]]);
  const reached = { created: 50, end: 320, events: ['e1'], received: 3, uniqueByEvent: { e1: 3 }, lastCycleByEvent: { e1: 3 } };
  const cutOff = { created: 50, end: 330, events: ['e1'], received: 2, uniqueByEvent: { e1: 2 }, lastCycleByEvent: { e1: 2 } };
  // missed cycle 2 besides the cut one: that miss is a real one
  const lossy = { created: 50, end: 330, events: ['e1'], received: 1, uniqueByEvent: { e1: 1 }, lastCycleByEvent: { e1: 1 } };
  const streams = [reached, cutOff, lossy];
  const none = messageCounts(streams, cycles);
  assert.deepEqual(none.comet, { streams: 3, received: 6, unique: 6, duplicates: 0, expected: 9, missed: 3, receivedPercent: (100 * 6) / 9 });
  const m = messageCounts(streams, cycles, undefined, null, [], new Map([['e1', { cycle: 3, created: 300 }]]));
  assert.deepEqual(m.comet, { streams: 3, received: 6, unique: 6, duplicates: 0, expected: 7, missed: 1, receivedPercent: (100 * 6) / 7,
    finalCycleUnreached: 2 });
  // SSE and WebSocket clients are judged alike
  const ws = messageCounts([], cycles, undefined, null, [{ ...cutOff, type: 'ws', streams: 1, replays: 0, gapSkipped: 0 }],
    new Map([['e1', { cycle: 3, created: 300 }]]));
  assert.equal(ws.ws.missed, 0);
  assert.equal(ws.ws.finalCycleUnreached, 1);
  // which cycle is cut: each event's highest-numbered one, when it reached fewer requests than were subscribed
  assert.deepEqual([...finalCuts([{ name: 'e1', cycle: 40, created: 51160, requests: 10000, total: 10000 },
    { name: 'e1', cycle: 41, created: 52160, requests: 7000, total: 10000 }, { name: 'e1', cycle: 39, created: 50160, requests: 9000, total: 10000 },
    { name: 'e2', cycle: 7, created: 900, requests: 10, total: 10 }])], [['e1', { cycle: 41, created: 52160 }]]);
});
