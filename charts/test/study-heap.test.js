'use strict';
// charts/study-heap.js (issue #35 item 4): docs/study's section on Tomcat 7 with the study's -Xmx2400m over
// 600 s, on runs made here: which runs it takes, the answer in numbers (crashes, OutOfMemoryErrors, the
// live heap's range), a dash where a run was analysed before its collections were read, and the
// histogram of the heap taken while a run ran.
const test = require('node:test');
const assert = require('node:assert/strict');
const { heapSection, longTomcat7Runs } = require('../study-heap');

const VALID = { verdict: 'valid', reasons: [] };

// A run as charts/collect-runs.js loads it; series: 40 s of RSS and emit durations, the window 10-40 s.
function run(id, params, summary = {}) {
  const seconds = 40;
  return {
    params: { server: 'tc7', type: 'comet', connections: 15000, emitIntervalMs: 1000, events: true, durationS: 600, ...params },
    summary: { id, serverCrashed: false, steadyWindow: { fromSecond: 10, toSecond: 40, seconds: 30 }, validity: VALID, ...summary },
    series: { processRssMB: Array.from({ length: seconds }, (_, i) => 1000 + i * 10), emitDuration: Array.from({ length: seconds }, (_, i) => (i % 2 ? 900 : null)) },
  };
}

const GC = { source: 'safepoints', stops: 90, stoppedMs: 67000, stoppedShare: 0.114, fullCollections: 85, fullCollectionMs: 66000,
  liveMB: { first: 1471, last: 1472, min: 1471, max: 1473 }, heapMB: 2320 };

test('the runs: Tomcat 7, 600 s or more, at the study\'s scale; nothing to show without one', () => {
  const runs = [run('b', {}), run('a', { connections: 5000 }), run('short', { durationS: 40 }), run('tc6', { server: 'tc6' }),
    run('small', { connections: 400 })];
  assert.deepEqual(longTomcat7Runs(runs).map((r) => r.summary.id), ['a', 'b']);
  assert.equal(heapSection([run('short', { durationS: 130 })]), '');
  assert.match(heapSection([run('a', {})]), /ran 1 run of 600 s or more[\s\S]*, and no run's collections were read\./);
});

test('the answer in numbers, a row per run, a dash where the collections were not read, the histogram', () => {
  const histogram = { atSecond: 325.4, totalInstances: 3000000, totalBytes: 1024 * 1024 * 1500,
    top: [{ class: '[B', instances: 1000000, bytes: 1024 * 1024 * 600 }, { class: 'java.lang.String', instances: 900000, bytes: 1024 * 1024 * 21.6 }] };
  const html = heapSection([
    run('r1', {}, { serverGc: GC, serverHeapHistogram: histogram, tail: { longestServerPauseMs: 1278.292 } }),
    run('r2', { connections: 5000 }, { serverGc: { ...GC, fullCollections: 2, stoppedShare: 0.004, liveMB: { first: 300, last: 300, min: 300, max: 300 } } }),
    run('r3', {}, { serverCrashed: true, serverOutOfMemory: { lines: 2, kinds: ['Java heap space'], heap: null }, validity: { verdict: 'server-limited', reasons: [] } }),
  ]);
  assert.match(html, /<h3 id="tomcat7-heap">/);
  assert.match(html, /ran 3 runs of 600 s or more: it <strong>crashed in 1<\/strong> and logged an OutOfMemoryError in\n1\. <em>Live heap<\/em>/);
  const rows = html.split('<tr>').slice(1);
  const cells = (row) => [...row.matchAll(/<td[^>]*>(.*?)<\/td>/g)].map((m) => m[1].replace(/<[^>]+>/g, ''));
  // r1: peak RSS over the window (1,390 MB at second 39), the live heap's range, 11.4% stopped, the longest emit after warm-up
  assert.deepEqual(cells(rows[1]), ['r1', 'Comet, 1 s events, 15,000 connections', 'no', 'none', '1,390', '1,471\u20131,473', '2,320', '85',
    '11.4%', '1,278', '900', 'valid']);
  assert.equal(cells(rows[2])[5], '300', 'one value when it never moved');
  assert.deepEqual(cells(rows[3]).slice(2, 10), ['crashed', '2 (Java heap space)', '1,390', '\u2013', '\u2013', '\u2013', '\u2013', '\u2013']);
  assert.equal(cells(rows[3])[11], 'server-limited');
  // the histogram: when, its totals, each class with its MB and share of the heap
  assert.match(html, /What the heap held in run r1 at its second 325/);
  assert.match(html, /1,500 MB\nin 3,000,000 objects; its 2 largest classes:/);
  assert.deepEqual(cells(rows[5]), ['[B', '1,000,000', '600', '40%']);
  assert.deepEqual(cells(rows[6]), ['java.lang.String', '900,000', '21.6', '1.4%']);
});
