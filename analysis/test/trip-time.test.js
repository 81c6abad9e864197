'use strict';
const test = require('node:test');
const assert = require('node:assert/strict');
const { SampleEnds, TripTimes, SignedHistogram, CycleHistograms, OPEN_CYCLES, CYCLE_HISTOGRAM, sampleNumber, percentile, REFERENCE_VALUES } =
  require('../measure/trip-time');

// HdrHistogram's precision (measure/trip-time.js, docs/trip-time.md): a percentile is within 0.2% of the exact
// one (two roundings to 3 significant digits), plus the 0.01 ms the summary rounds to.
const near = (actual, expected, what) => assert.ok(Math.abs(actual - expected) <= 0.002 * Math.abs(expected) + 0.011,
  `${what}: ${actual} is not within 0.2% of ${expected}`);
const PERCENTILE_FIELDS = ['p50Ms', 'p90Ms', 'p99Ms', 'p999Ms'];
// An emit cycle's figures: 2 significant digits from 0.1 ms, within 0.1 ms or 1%, twice when engines merge.
const nearCycle = (actual, expected, what) => assert.ok(Math.abs(actual - expected) <= 0.02 * Math.abs(expected) + 0.21,
  `${what}: ${actual} is not within 0.2 ms or 2% of ${expected}`);

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
  const { spectrum, ...rest } = summary;
  const exact = { p50Ms: 15, p90Ms: 35, p99Ms: 35, p999Ms: 35 };
  for (const k of PERCENTILE_FIELDS) near(rest[k], exact[k], k);
  for (const k of PERCENTILE_FIELDS) delete rest[k];
  assert.deepEqual(rest, { polls: 4, unmatched: 2, meanMs: 20, minMs: 5, maxMs: 35, ratePerSecond: 1, belowZero: 0, errorBoundMs: 3 });
  assert.deepEqual(spectrum.map((p) => p.percentile), [0, 50, 75, 100]);
  [5, 15, 25, 35].forEach((ms, i) => near(spectrum[i].ms, ms, `spectrum ${spectrum[i].percentile}%`));
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
  const at = (p) => percentile(sorted, p);
  assert.deepEqual(percentileSpectrum(at, sorted.length), [
    { percentile: 0, ms: 1 }, { percentile: 50, ms: 5 }, { percentile: 75, ms: 8 }, { percentile: 87.5, ms: 9 },
    { percentile: 100, ms: 10 }]);
  assert.deepEqual(percentileSpectrum(() => 7.5, 1), [{ percentile: 0, ms: 7.5 }, { percentile: 100, ms: 7.5 }]);
  assert.deepEqual(percentileSpectrum(at, 0), []);
  const big = percentileSpectrum(() => 1, 100000);
  assert.equal(big.length, 18);                      // 2^16 <= 100,000 < 2^17: 17 steps and the maximum
  assert.equal(big[16].percentile, 99.9985);
});

test('HdrHistogram percentiles of 100,000 spread trip times stay within 0.2% of the exact ones, below zero too', () => {
  let x = 12345;
  const random = () => { x = (x * 1103515245 + 12345) % 2 ** 31; return x / 2 ** 31; };
  const trips = new TripTimes(0);
  const exact = [];
  for (let i = 0; i < 100_000; i++) {
    // mostly 1-60 ms, a tail to 3 s, a few below zero (the offset's error)
    const trip = i % 1000 === 0 ? -random() * 2 : i % 97 === 0 ? 100 + random() * 2900 : 1 + random() * 59;
    const created = 1_000_000 + i;
    const end = Math.round((created + trip - 40) * 1000) / 1000;   // this engine's clock is 40 ms behind the server's
    trips.add(end, created, 'gen1');
    exact.push(Math.round((end + 40 - created) * 1000) / 1000);
  }
  exact.sort((a, b) => a - b);
  const { summary } = trips.result(40, 1_000_000, 200);
  for (const [k, p] of [['p50Ms', 50], ['p90Ms', 90], ['p99Ms', 99], ['p999Ms', 99.9]]) near(summary[k], percentile(exact, p), k);
  near(summary.maxMs, exact[exact.length - 1], 'max (exact)');
  near(summary.minMs, exact[0], 'min (exact)');
  assert.equal(summary.belowZero, exact.filter((v) => v < 0).length);
  for (const s of summary.spectrum.slice(1, -1)) near(s.ms, percentile(exact, s.percentile), `spectrum ${s.percentile}%`);
});

test('a signed histogram: nearest rank across values below and above zero', () => {
  const h = new SignedHistogram();
  for (const v of [-1500, -1000, 0, 2000, 4000]) h.record(v);
  // exact below 2,048 µs; above, the highest value of the bucket (3 significant digits: 2 µs wide at 4,000)
  assert.deepEqual([0, 20, 40, 60, 80, 100].map((p) => h.valueAt(p)), [-1500, -1500, -1000, 0, 2000, 4001]);
  assert.equal(h.countBelow(0), 2);
  assert.equal(new SignedHistogram().valueAt(50), null);
});

test('each engine\'s trips use its own offset; figures per emit cycle merge the engines', () => {
  const T0 = 5_000_000;
  const trips = new TripTimes(T0 - 60_000);
  const offsets = new Map([['gen1', { offset: 2.5, errorBoundMs: 0.2 }], ['gen2', { offset: -7, errorBoundMs: 0.4 }]]);
  // cycle c starts at T0 + 1000c (server clock); record k of it takes k ms (1..10) on gen1, 10 + k ms on gen2
  for (let c = 1; c <= 3; c++) {
    const created = T0 + 1000 * c;
    for (let k = 1; k <= 10; k++) {
      trips.add(created + k - 2.5, created, 'gen1', 'event1', c);
      trips.add(created + 10 + k + 7, created, 'gen2', 'event1', c);
    }
  }
  const { summary, cycles } = trips.result(0, T0, 10, 5, null, offsets);
  assert.equal(summary.polls, 60);
  assert.equal(summary.minMs, 1);
  assert.equal(summary.maxMs, 20);
  assert.equal(summary.meanMs, 10.5);
  near(summary.p50Ms, 10, 'p50');
  near(summary.p90Ms, 18, 'p90');
  assert.equal(summary.errorBoundMs, 0.4, 'the largest bound of the engines whose trips it holds');
  assert.deepEqual(summary.byEngine, [{ engine: 'gen1', count: 30, offsetMs: 2.5, errorBoundMs: 0.2 },
    { engine: 'gen2', count: 30, offsetMs: -7, errorBoundMs: 0.4 }]);
  assert.deepEqual(cycles.map((c) => [c.event, c.cycle, c.createdSecond, c.count, c.errorBoundMs]),
    [['event1', 1, 1, 20, 0.4], ['event1', 2, 2, 20, 0.4], ['event1', 3, 3, 20, 0.4]]);
  for (const c of cycles) {
    nearCycle(c.p50Ms, 10, 'cycle p50');
    nearCycle(c.p90Ms, 18, 'cycle p90');
    nearCycle(c.maxMs, 20, 'cycle max');
  }
  assert.equal(summary.cycles.count, 3);
  // an engine without an exchange of its own takes the run's offset and bound
  const lone = new TripTimes(T0 - 60_000);
  for (let k = 0; k < REFERENCE_VALUES + 5; k++) lone.add(T0 + 12, T0, 'gen3', 'event1', 1);
  const { summary: s3, cycles: c3 } = lone.result(1, T0, 10, 0.5, null, offsets);
  assert.equal(s3.minMs, 13);
  near(s3.p50Ms, 13, 'p50 with the run offset');
  assert.equal(s3.errorBoundMs, 0.5);
  assert.equal(c3[0].count, REFERENCE_VALUES + 5, 'values waiting for the reference are recorded once it is fixed');
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

test('per-cycle histograms: only the last cycles stay open, a late record reopens its cycle, nothing is lost', () => {
  const cycles = new CycleHistograms();
  const plain = new Map();   // the same values, every cycle a histogram of its own
  const record = (key, us) => {
    cycles.record(key, us);
    if (!plain.has(key)) plain.set(key, new SignedHistogram(CYCLE_HISTOGRAM));
    plain.get(key).record(us);
  };
  const n = OPEN_CYCLES * 3;
  for (let c = 1; c <= n; c++) for (let k = 0; k < 50; k++) record(`e#${c}`, ((c * 7919 + k * 104729) % 300_000) - 2000);
  assert.equal(cycles.open.size, OPEN_CYCLES, 'the cycles opened last stay open');
  assert.equal(cycles.closed.size, n - OPEN_CYCLES, 'the others are kept encoded');
  record('e#1', 123_456);   // a late record: its cycle is opened again, the oldest open one closed
  record('e#2', -5_000);
  assert.equal(cycles.open.size, OPEN_CYCLES);
  const buckets = (h) => { const out = []; h.forEach((v, count) => out.push([v, count])); return out; };
  const back = CycleHistograms.fromPartial(structuredClone(cycles.partial()));
  assert.deepEqual(back.keys().sort(), [...plain.keys()].sort());
  for (const [key, h] of plain) {
    assert.deepEqual(buckets(cycles.get(key)), buckets(h), key);
    assert.deepEqual(buckets(back.get(key)), buckets(h), `${key} through a partial`);
    assert.equal(back.get(key).count, h.count);
  }
  assert.equal(cycles.get('e#0'), undefined);
});
