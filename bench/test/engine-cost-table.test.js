'use strict';
// bench/engine-cost-table.js: the longest engine stop bench/engine-cost.sh reports, on the gc.log of a real
// mux run of that bench (1,000 comet streams, bench/test/fixtures/engine-cost-gc.log: -Xlog:gc,safepoint of
// JDK 17, the bench's own jcmd histograms 2 s and 41 s in), a run's line from another real run's files
// (bench/test/fixtures/engine-cost-run: 5,000 comet streams, mux, unpinned, commit febcae4: its summary.json,
// gc.log and the bench's figures), and its table's median and range.
const { test } = require('node:test');
const assert = require('node:assert/strict');
const fs = require('node:fs');
const path = require('node:path');
const { longestStopMs, table, spread, runLine } = require('../engine-cost-table');

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

const RUN = path.join(__dirname, 'fixtures', 'engine-cost-run');
const runFiles = () => ({
  summary: JSON.parse(fs.readFileSync(path.join(RUN, 'summary.json'), 'utf8')),
  gcLogText: fs.readFileSync(path.join(RUN, 'gc.log'), 'utf8'),
  figures: Object.fromEntries(fs.readFileSync(path.join(RUN, 'figures'), 'utf8').split('\n').filter(Boolean).map((l) => l.split('='))),
});

test('a run\'s line: opened/s from its summary (connect completions), the server\'s beside it', () => {
  const f = runFiles();
  const r = runLine({ ...f, serverOpened: { open: 5000, openSeconds: 9.96, openedPerSecond: 502 },
    repeat: 1, level: 5000, type: 'comet', sampler: 'mux', exit: 0, run: 'r1' });
  // The figures this run's line had in docs/engine/engine-cost-unpinned.jsonl (written by the script before
  // runLine): the same from the same files.
  assert.deepEqual([r.verdict, r.answersPerSecond, r.engineMicrosPerAnswer, r.serverMicrosPerAnswer, r.ratio, r.kbPerConnection, r.threads, r.maxPauseMs],
    ['valid', 4998.7, 9.2, 8.6, 1.07, 3.69, 35, 7.941]);
  // The engine's opened/s is the summary's (5,000 connected, the last 9.946 s after the first request), not
  // 5,000 / the second the last request began (9.9 s: 505, the figure that line had).
  assert.equal(f.summary.workload.rampup.lastConnectedSecond, 9.946);
  assert.equal(r.openedPerSecond, f.summary.workload.rampup.openedPerSecond);
  assert.equal(r.openedPerSecond, 503);
  assert.equal(r.serverOpenedPerSecond, 502);
  // Without the server's watch, or from a run without C lines (the push sampler), or without a summary: null.
  assert.equal(runLine({ ...f, level: 5000 }).serverOpenedPerSecond, null);
  const noConnects = structuredClone(f.summary);
  for (const k of ['connectionsOpened', 'lastConnectedSecond', 'openedPerSecond']) delete noConnects.workload.rampup[k];
  assert.equal(runLine({ ...f, summary: noConnects, level: 5000 }).openedPerSecond, null);
  const none = runLine({ summary: null, level: 5000, repeat: 1, type: 'comet', sampler: 'mux', exit: 1, run: 'r1' });
  assert.deepEqual([none.verdict, none.openedPerSecond, none.engineMicrosPerAnswer, none.maxPauseMs, none.kbPerConnection], [null, null, null, null, null]);
});

test('the table shows the engine\'s and the server\'s opened/s side by side', () => {
  const run = (repeat, engine, server) => ({ repeat, level: 5000, type: 'comet', sampler: 'mux', verdict: 'valid', openedPerSecond: engine, serverOpenedPerSecond: server });
  const out = table([run(1, 503, 502), run(2, 506, null)]).split('\n');
  const head = out[0].split(' | ');
  const row = out[2].split(' | ');
  assert.equal(row[head.indexOf('opened/s engine')], '505 (503-506)');
  assert.equal(row[head.indexOf('opened/s server')], '502');
});
