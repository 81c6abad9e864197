'use strict';
// measure/seen-cycles.js: each (event, cycle) counts once per stream, whatever the order, the event or a
// cycle number that is no small whole number.
const test = require('node:test');
const assert = require('node:assert/strict');
const { SeenCycles, MAX_BIT_CYCLE } = require('../measure/seen-cycles');

test('a cycle is new once per event, in any order, and the bits grow as cycles come', () => {
  const seen = new SeenCycles();
  const order = [1, 2, 3, 3, 2, 700, 5000, 4, 1, 5000];
  assert.deepEqual(order.map((c) => seen.add('event1', c)), [true, true, true, false, false, true, true, true, false, false]);
  assert.equal(seen.add('event2', 3), true, 'another event has cycles of its own');
  assert.equal(seen.add('event2', 3), false);
  assert.ok(seen.bits.get('event1').length >= 5000 / 8 && seen.bits.get('event1').length <= 1024, 'one bit per cycle number');
});

test('cycle numbers outside the bits (negative, fractional, huge, missing) are still counted once', () => {
  const seen = new SeenCycles();
  for (const c of [-1, 2.5, MAX_BIT_CYCLE, 1e12, undefined, '7']) {
    assert.equal(seen.add('event1', c), true, String(c));
    assert.equal(seen.add('event1', c), false, String(c));
  }
  assert.equal(seen.bits.size, 0);
  assert.equal(seen.add('event1', 7), true, 'the number 7 is not the string 7');
});

test('many streams of many cycles stay small: 2,000 streams x 1,000 cycles in well under 1 MB of bits', () => {
  const streams = Array.from({ length: 2000 }, () => new SeenCycles());
  let unique = 0;
  for (let c = 1; c <= 1000; c++) for (const s of streams) if (s.add('event1', c)) unique++;
  assert.equal(unique, 2_000_000);
  const bytes = streams.reduce((n, s) => n + s.bits.get('event1').length, 0);
  assert.ok(bytes <= 2000 * 128, `${bytes} bytes of bits`);
});
