'use strict';
const test = require('node:test');
const assert = require('node:assert/strict');
const { SampleEnds, TripTimes, sampleNumber, percentile } = require('../measure/trip-time');

test('a saved request file name gives its JMeter sample number; other names none', () => {
  assert.equal(sampleNumber('request_17.json'), 17);
  assert.equal(sampleNumber('request_5.x-ndjson'), 5);
  for (const name of ['timestamp_3.json', 'request_.json', 'request_0.json', 'request_12', 'xrequest_4.json',
    'request_9999999999999.json']) assert.equal(sampleNumber(name), null, name);
});

test('sample ends are kept per engine: two engines both saving request_7 keep their own', () => {
  const ends = new SampleEnds();
  assert.equal(ends.add('/state/runs/r1/local1/responses/request_7.json', 1000), true);
  assert.equal(ends.add('/state/runs/r1/local2/responses/request_7.json', 2000), true);
  assert.equal(ends.add('C:\\state\\runs\\r1\\local2\\responses\\request_5000.json', 3000), true);   // grows
  assert.equal(ends.add('/state/runs/r1/local1/responses/timestamp_3.json', 4000), false);
  assert.equal(ends.get('local1', 'request_7.json'), 1000);
  assert.equal(ends.get('local2', 'request_7.json'), 2000);
  assert.equal(ends.get('local2', 'request_5000.json'), 3000);
  assert.equal(ends.get('local1', 'request_8.json'), null);      // no such sample
  assert.equal(ends.get('local3', 'request_7.json'), null);      // no such engine
  assert.equal(ends.get('local1', 'sub/request_7.json'), 1000);  // an entry name with a folder
});

test('paths of another shape match by number alone, and only while there is one engine', () => {
  const ends = new SampleEnds();
  ends.add('/tmp/pushbench-responses/request_4.json', 500);
  assert.equal(ends.get('gen1', 'request_4.json'), 500);
  ends.add('/state/runs/r1/gen2/responses/request_4.json', 600);
  assert.equal(ends.get('gen1', 'request_4.json'), null);
  assert.equal(ends.get('gen2', 'request_4.json'), 600);
});

test('nearest-rank percentiles', () => {
  const sorted = Array.from({ length: 100 }, (_, i) => i + 1);
  assert.equal(percentile(sorted, 50), 50);
  assert.equal(percentile(sorted, 99), 99);
  assert.equal(percentile(sorted, 99.9), 100);
  assert.equal(percentile(sorted, 0), 1);
  assert.equal(percentile([7], 90), 7);
  assert.equal(percentile([], 50), null);
});

test('trip times: the offset is added at the end, per second by the second the answer arrived', () => {
  const t0 = 1_000_000;
  const trips = new TripTimes(t0 - 60_000);
  // end (client clock), created (server clock, 100 ms ahead of the client): trips 5, 15, 25, 35 ms
  trips.add(t0 + 200, t0 + 100 + 200 - 5);
  trips.add(t0 + 700, t0 + 100 + 700 - 15);
  trips.add(t0 + 1500, t0 + 100 + 1500 - 25);
  trips.add(t0 + 3100, t0 + 100 + 3100 - 35);
  trips.add(null, t0);          // its sample was not found
  trips.add(t0 + 3200, NaN);    // no created time
  const { summary, series } = trips.result(100, t0, 4, 3);
  assert.deepEqual(summary, { polls: 4, unmatched: 2, meanMs: 20, minMs: 5, p50Ms: 15, p90Ms: 35, p99Ms: 35,
    p999Ms: 35, maxMs: 35, ratePerSecond: 1, belowZero: 0, errorBoundMs: 3,
    spectrum: [{ percentile: 0, ms: 5 }, { percentile: 50, ms: 15 }, { percentile: 75, ms: 25 }, { percentile: 100, ms: 35 }] });
  assert.deepEqual(series.mean, [10, 25, null, 35]);
  assert.deepEqual(series.max, [15, 25, null, 35]);
});

test('message rate: answers timed per second of the steady window; without one, from the first second with one to the last', () => {
  const trips = new TripTimes(0);
  for (const end of [2100, 2500, 2900, 3400, 3600, 4000]) trips.add(end, end - 10);
  assert.equal(trips.result(0, 0, 30, null, { fromSecond: 0, toSecond: 30, seconds: 30 }).summary.ratePerSecond, 0.2);   // 6 in 30 s
  assert.equal(trips.result(0, 0, 10, null, { fromSecond: 3, toSecond: 5, seconds: 2 }).summary.ratePerSecond, 1.5);   // 3 in seconds 3-4
  assert.equal(trips.result(0, 0, 10).summary.ratePerSecond, 2);              // 6 answers in seconds 2-4
  assert.equal(trips.result(0, 0, 4).summary.ratePerSecond, 2.5);             // the window ends at 4 s: 5 in seconds 2-3
});

test('trip times below zero (only through the offset error) are counted', () => {
  const trips = new TripTimes(0);
  for (const raw of [-3, -1, 0, 4]) trips.add(10_000, 10_000 - raw);
  const { summary } = trips.result(0.5, 0, 20);
  assert.equal(summary.belowZero, 2);
  assert.equal(summary.minMs, -2.5);
  assert.equal(summary.maxMs, 4.5);
});

test('no poll answered by an event: no trip-time summary, an empty series', () => {
  const { summary, series } = new TripTimes(0).result(0, 0, 3);
  assert.equal(summary, null);
  assert.deepEqual(series, { mean: [null, null, null], max: [null, null, null] });
  const unmatchedOnly = new TripTimes(0);
  unmatchedOnly.add(null, 5);
  assert.deepEqual(unmatchedOnly.result(0, 0, 1).summary, { polls: 0, unmatched: 1 });
});

test('percentile spectrum: steps halving the rest while a value lies beyond, then the maximum', () => {
  const { percentileSpectrum } = require('../measure/trip-time');
  const sorted = Array.from({ length: 10 }, (_, i) => i + 1);   // 1..10 ms
  assert.deepEqual(percentileSpectrum(sorted), [
    { percentile: 0, ms: 1 }, { percentile: 50, ms: 5 }, { percentile: 75, ms: 8 }, { percentile: 87.5, ms: 9 },
    { percentile: 100, ms: 10 }]);
  assert.deepEqual(percentileSpectrum([7], (v) => v + 0.5), [{ percentile: 0, ms: 7.5 }, { percentile: 100, ms: 7.5 }]);
  assert.deepEqual(percentileSpectrum([]), []);
  const big = percentileSpectrum(Array.from({ length: 100000 }, (_, i) => i));
  assert.equal(big.length, 18);                      // 2^16 <= 100,000 < 2^17: 17 steps and the maximum
  assert.equal(big[16].percentile, 99.9985);
});

test('the trip-time distribution chart: one line per kind of answer, labelled by percentile', () => {
  const { buildRunCharts } = require('../chart/run-charts');
  const spectrum = (n) => Array.from({ length: n }, (_, k) => ({ percentile: 100 * (1 - 2 ** -k), ms: 10 * k }));
  const series = Object.fromEntries(['cpu', 'memory', 'processCpu', 'processRssMB', 'connections', 'responses', 'responsesCumulative',
    'errors', 'timeouts', 'emitDuration', 'requestsPerCycle', 'tripMean', 'tripMax'].map((k) => [k, []]));
  const datasets = { series, places: { meanDuration: [], maxDuration: [] }, hasSamples: true, engines: [],
    tripSpectrum: { poll: spectrum(3), comet: spectrum(5) } };
  const { charts } = buildRunCharts(datasets, { server: 'node', type: 'comet', threads: 10 });
  const c = charts['trip-time-spectrum'];
  assert.deepEqual(c.x_axis.labels.labels, ['0%', '50%', '75%', '87.5%', '93.75%']);
  assert.deepEqual(c.elements.map((e) => [e.text, e.values]), [['Long polls', [0, 10, 20]], ['Comet records', [0, 10, 20, 30, 40]]]);
});
