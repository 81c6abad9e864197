'use strict';
// bench/pairs.js, the closing tables of bench/target-cost.sh and bench/tls-cost.sh: medians and ranges per
// (level, kind), the second kind over the first pair by pair, a column no run has left out.
const test = require('node:test');
const assert = require('node:assert/strict');
const { tables } = require('../pairs');

test('medians, ranges and the pair-by-pair ratio', () => {
  const run = (repeat, level, kind, us, verdict = 'valid') => ({ repeat, level, kind, engineMicrosPerMessage: us, engineCpuPercent: us,
    messagesPerSecond: level, missed: 0, tripP99Ms: 5, verdict });
  const rows = [run(1, 1000, 'native', 20), run(1, 1000, 'target', 30), run(2, 1000, 'native', 25), run(2, 1000, 'target', 25),
    run(3, 1000, 'native', 22), run(3, 1000, 'target', null, 'failed')];
  const out = tables(rows, ['native', 'target']).split('\n');
  assert.equal(out[0], '| level | kind | engine µs/message median (range) | engine CPU % | messages/s | missed | trip p99 ms | verdicts |');
  assert.equal(out[2], '| 1000 | native | 22 (20-25) | 22 | 1000 | 0, 0, 0 | 5 | valid, valid, valid |');
  assert.equal(out[3], '| 1000 | target | 25 (25-30) | 25 | 1000 | 0, 0, 0 | 5 | valid, valid, failed |');
  assert.equal(out[7], '| 1000 | 1 (1-1.5) | 2 |', 'pairs 30/20 and 25/25; the third has no figure');
});
