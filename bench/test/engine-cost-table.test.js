'use strict';
// bench/engine-cost-table.js: the longest engine stop bench/engine-cost.sh reports, on the gc.log of a real
// mux run of that bench (1,000 comet streams, bench/test/fixtures/engine-cost-gc.log: -Xlog:gc,safepoint of
// JDK 17, the bench's own jcmd histograms 2 s and 41 s in), and its table's median and range.
const { test } = require('node:test');
const assert = require('node:assert/strict');
const fs = require('node:fs');
const path = require('node:path');
const { longestStopMs, table, spread } = require('../engine-cost-table');

const LOG = fs.readFileSync(path.join(__dirname, 'fixtures', 'engine-cost-gc.log'), 'utf8');
const STARTED_AT = 1795637950620;   // the run's summary.startedAt; its steady window began 14 s after

test('the longest stop: safepoints and collections, the bench\'s own histograms left out, from a time on', () => {
  // Over the whole run: JMeter's System.gc() at the test's start (safepoint 56.7 ms, its collection 48.1 ms),
  // not the histograms' 71.9 and 57.8 ms safepoints.
  assert.equal(longestStopMs(LOG), 56.699);
  // In the steady window: the longest is a routine cleanup safepoint, well under a millisecond.
  const steady = longestStopMs(LOG, STARTED_AT + 14000);
  assert.ok(steady > 0 && steady < 1, `steady-window stop ${steady} ms`);
  assert.equal(longestStopMs(''), null);
  assert.equal(longestStopMs(LOG, Number.MAX_SAFE_INTEGER), null);
});

test('the table: median (min-max) over the repeats, and mux / push pair by pair', () => {
  assert.equal(spread([3, 1, 2]), '2 (1-3)');
  assert.equal(spread([1.234]), '1.23');
  assert.equal(spread([null, undefined]), '-');
  const run = (repeat, sampler, us) => ({ repeat, level: 1000, type: 'poll', sampler, verdict: 'valid', engineMicrosPerAnswer: us });
  const out = table([run(1, 'push', 200), run(1, 'mux', 40), run(2, 'push', 100), run(2, 'mux', 40)]);
  assert.match(out, /\| 1000 \| poll \| push \| 2 \| valid, valid \| 150 \(100-200\) \|/);
  assert.match(out, /1000 poll: 0\.3 \(0\.2-0\.4\) over 2 pair\(s\)/);
});
