'use strict';
// bench/engine-stops.js: a run's engine stops from the load's first request on, their longest and p99, and the
// CPU figures beside them, on a run directory written here (summary.json, gc.log, results.csv).
const test = require('node:test');
const assert = require('node:assert/strict');
const fs = require('node:fs');
const os = require('node:os');
const path = require('node:path');
const { runLine, percentile, firstRequestMs } = require('../engine-stops');

test('percentile: nearest rank; none of nothing', () => {
  assert.equal(percentile([], 0.99), null);
  assert.equal(percentile([5], 0.99), 5);
  assert.equal(percentile(Array.from({ length: 100 }, (_, i) => i + 1), 0.99), 99);
  assert.equal(percentile(Array.from({ length: 200 }, (_, i) => 200 - i), 0.99), 198);
});

test('a run: stops before the first request left out, those after counted; CPU shares and verdict carried', () => {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'pb-engine-stops-'));
  try {
    const t0 = 1_795_840_000_000;
    fs.mkdirSync(path.join(dir, 'data'));
    fs.mkdirSync(path.join(dir, 'engines', 'local'), { recursive: true });
    fs.mkdirSync(path.join(dir, 'jmeter'));
    fs.writeFileSync(path.join(dir, 'data', 'summary.json'), JSON.stringify({
      id: 'r1', startedAt: t0, durationSeconds: 60, validity: { verdict: 'disturbed', reasons: [{ rule: 'other-processes' }] },
      tail: { longestEnginePauseMs: 20.5 }, tripTime: { comet: { p99Ms: 250 } },
      workload: { engines: [{ jvmCpuMean: 11 }], server: { cpuMean: 14 }, hosts: [{ otherCpuMean: 49.14 }] },
    }));
    const sp = (endMs, ms, name) => `[${endMs}ms][1ms] Safepoint "${name}", Time since last: 1 ns, Reaching safepoint: 1000 ns, Cleanup: 1000 ns, At safepoint: 1000 ns, Total: ${Math.round(ms * 1e6)} ns`;
    fs.writeFileSync(path.join(dir, 'engines', 'local', 'gc.log'), [
      `[${t0}ms][3ms] Using The Z Garbage Collector`,
      sp(t0 + 4000, 86, 'CollectForMetadataAllocation'),   // before the first request: left out
      sp(t0 + 10_200, 71, 'ParallelGCSystemGC'),           // after it: the longest
      sp(t0 + 30_000, 20, 'Cleanup'),
      sp(t0 + 40_000, 1.5, 'Cleanup'),
      sp(t0 + 61_000, 90, 'Cleanup'),                      // started after the run's end: left out
    ].join('\n'));
    fs.writeFileSync(path.join(dir, 'jmeter', 'results.csv'), `timeStamp,elapsed,label\n${t0 + 10_100},5,setevent\n${t0 + 10_000},47,logging\n`);
    assert.equal(firstRequestMs(path.join(dir, 'jmeter', 'results.csv')), t0 + 10_000);
    assert.deepEqual(runLine('zgc', dir), {
      setting: 'zgc', run: 'r1', collector: 'The Z Garbage Collector', verdict: 'disturbed', rules: ['other-processes'],
      stops: 3, longestStopMs: 71, tailLongestMs: 20.5, p99StopMs: 71, over20: 2, over50: 1,
      engineCpuPercent: 11, serverCpuPercent: 14, engineOverServer: 0.79, otherCpuPercent: 49.1, cometP99Ms: 250,
    });
  } finally {
    fs.rmSync(dir, { recursive: true, force: true });
  }
});
