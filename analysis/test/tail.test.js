'use strict';
// Every tail attributed (docs/validity.md "The tail"): the pause log parser on real JDK 17 output, the
// records beyond p99 per second, their attribution to engine and server stops and CPU, the verdict rule,
// and a synthetic run end to end whose known engine stop covers the tail's second.
const test = require('node:test');
const assert = require('node:assert/strict');
const fs = require('node:fs');
const os = require('node:os');
const path = require('node:path');
const { parseGcLogFile, parseGcLogText, stopsOf, longestPerSecond, pausePerSecond } = require('../read/gc-log');
const { attributeTail, attributeKind, pausedSeconds } = require('../measure/tail');
const { assessValidity, DEFAULTS } = require('../measure/validity');
const { TripTimes } = require('../measure/trip-time');
const { analyzeAndWrite } = require('../run-analysis');
const { makeStreamRun } = require('../tools/stream-run');

const CAPTURED = path.join(__dirname, 'fixtures', 'captured');
const T = DEFAULTS;

test('pause log: a real JMeter engine log (JDK 17, Parallel GC, -Xlog:gc,safepoint): each collection inside its safepoint', async () => {
  // load/engine.sh's log of `./run.sh node 3 15 100 comet - event1 500` on this machine
  const gc = await parseGcLogFile(path.join(CAPTURED, 'engine-gc-safepoint.log'));
  assert.equal(gc.skipped, 0);
  assert.equal(gc.pauses.length, 9);
  assert.equal(gc.safepoints.length, 30);
  assert.deepEqual(gc.safepoints[4], { epochMs: 1795634681972, pauseMs: 17.547, reason: 'ParallelGCFailedAllocation' });
  const stops = stopsOf(gc);
  // every GC pause is held by a safepoint: only the safepoints remain, the longer for each stop
  assert.equal(stops.length, 30);
  assert.ok(stops.every((s) => s.source === 'safepoint'));
  // a young (18.224 ms) and a full collection (33.225 ms) in one safepoint of 53.255 ms
  const metadata = stops.find((s) => s.epochMs === 1795634682596);
  assert.deepEqual(metadata, { startMs: 1795634682542.745, epochMs: 1795634682596, pauseMs: 53.255, source: 'safepoint' });
  assert.equal(Math.max(...stops.map((s) => s.pauseMs)), 55.67);
  // the same log before safepoints were logged (-Xlog:gc): the GC pauses are the stops
  const text = fs.readFileSync(path.join(CAPTURED, 'engine-gc-safepoint.log'), 'utf8');
  const gcOnly = stopsOf(parseGcLogText(text.split('\n').filter((l) => !l.includes('Safepoint')).join('\n')));
  assert.equal(gcOnly.length, 9);
  assert.ok(gcOnly.every((s) => s.source === 'gc'));
  assert.deepEqual(gcOnly[0], { startMs: 1795634681954.675, epochMs: 1795634681972, pauseMs: 17.325, source: 'gc' });
});

test('pause log: G1 (JDK 17), a remark logged 18 ms before its safepoint ends is the same stop', async () => {
  const gc = await parseGcLogFile(path.join(CAPTURED, 'jvm-g1-gc-safepoint.log'));
  const stops = stopsOf(gc);
  assert.equal(gc.skipped, 0);
  assert.equal(stops.length, gc.safepoints.length);
  // GC(9): 18.957 ms collected, 66.769 ms stopped
  assert.ok(stops.some((s) => s.epochMs === 1795634609970 && s.pauseMs === 66.769));
  assert.ok(stops.some((s) => s.epochMs === 1795634610039 && s.pauseMs === 20.289));   // G1PauseRemark
});

test('pause log: JDK 9-12 safepoint lines, a collection no safepoint holds, a broken line', () => {
  const log = [
    '[1795000001000ms][10ms] Total time for which application threads were stopped: 0.0300000 seconds, Stopping threads took: 0.0000100 seconds',
    '[1795000002000ms][1010ms] GC(1) Pause Young (Allocation Failure) 10M->2M(20M) 5.000ms',
    '[1795000003000ms][2010ms] Safepoint "Cleanup", Total: broken',
  ].join('\n');
  const gc = parseGcLogText(log);
  assert.equal(gc.skipped, 1);
  assert.deepEqual(stopsOf(gc), [
    { startMs: 1795000000970, epochMs: 1795000001000, pauseMs: 30, source: 'safepoint' },
    { startMs: 1795000001995, epochMs: 1795000002000, pauseMs: 5, source: 'gc' }]);
  // per second: booked where a stop ended; the longest in every second it overlaps
  const stops = [{ startMs: 1950, epochMs: 2100, pauseMs: 150 }, { startMs: 2500, epochMs: 2510, pauseMs: 10 }];
  assert.deepEqual(pausePerSecond(stops, 0, 4), [0, 0, 160, 0]);
  assert.deepEqual(longestPerSecond(stops, 0, 4), [null, 150, 150, null]);
  assert.deepEqual(pausedSeconds(stops, 0, 4, 20), [false, true, true, false]);
  // on a clock 1 s ahead, from 1 s: 1950-2100 is -0.05-0.1 s, the run's second 0
  assert.deepEqual(pausedSeconds(stops, 1000, 4, 20, 1000), [true, false, false, false]);
});

test('records beyond p99 per second: the holding bucket shared out, the total from the run histogram', () => {
  const t0 = 1e12;
  const trips = new TripTimes(t0 - 3600_000);
  for (let i = 0; i < 10_000; i++) {   // 100 s, 100 records a second: 20-26 ms, every 100th 500 ms
    const end = t0 + i * 10;
    trips.add(end, end - ((i % 100 === 0) ? 500 : 20 + (i % 7)), 'gen1', 'event1', Math.floor(i / 100));
  }
  const r = trips.result(0, t0, 100);
  assert.equal(r.tail.beyondMs, 26);
  assert.equal(r.tail.records, 100);
  assert.deepEqual(r.tail.perSecond, new Array(100).fill(1));
  // several engines with their own offsets
  const two = new TripTimes(t0 - 3600_000);
  for (let i = 0; i < 2000; i++) {
    const end = t0 + i * 10;
    two.add(end, end - (i === 1500 ? 900 : 30), i % 2 ? 'a' : 'b', 'event1', 1);
  }
  const offsets = new Map([['a', { offset: 2, errorBoundMs: 1 }], ['b', { offset: -2, errorBoundMs: 1 }]]);
  const r2 = two.result(0, t0, 20, 1, null, offsets);
  assert.equal(r2.tail.records, 1 + 0);       // p99 = 32 (engine a's 30 + 2): beyond it, the 900 ms one
  assert.equal(r2.tail.perSecond[15], 1);
});

test('attribution: shares of the tail records by the seconds of each cause, unknown causes null', () => {
  const tail = { beyondMs: 100, records: 10, perSecond: [0, 4, 0, 3, 3] };
  const k = attributeKind(tail, { enginePause: [false, true, false, false, true], serverPause: null, serverCpu: [false, false, false, true, false] });
  assert.deepEqual(k, { beyondMs: 100, records: 10, causes: { enginePause: { records: 7, share: 0.7 }, serverPause: null,
    serverCpu: { records: 3, share: 0.3 }, unexplained: { records: 0, share: 0 } } });
  const t0 = 1_000_000;
  const out = attributeTail({ tails: { tripTime: tail, comet: null }, t0, offset: 500, seconds: 5, t: T, capacityPercent: 100,
    engines: [{ name: 'gen1', safepointsLogged: true, stops: [{ startMs: t0 + 1100, epochMs: t0 + 1185, pauseMs: 85 },
      { startMs: t0 + 3100, epochMs: t0 + 3110, pauseMs: 10 }] }],
    // server clock 500 ms ahead: its stop at 4.6-4.64 s is 4.1 s on the client clock
    server: { jvm: true, safepointsLogged: true, stops: [{ startMs: t0 + 4600, epochMs: t0 + 4640, pauseMs: 40 }] },
    processCpu: [10, 10, 10, 96, 10], hostCpu: [10, 10, 10, 10, 10] });
  assert.deepEqual(out.summary.tripTime.causes, { enginePause: { records: 4, share: 0.4 }, serverPause: { records: 3, share: 0.3 },
    serverCpu: { records: 3, share: 0.3 }, unexplained: { records: 0, share: 0 } });
  assert.equal(out.summary.longestEnginePauseMs, 85);
  assert.equal(out.summary.longestServerPauseMs, 40);
  assert.equal(out.summary.enginePauses, 'safepoints');
  assert.equal(out.summary.serverPauses, 'safepoints');
  assert.equal(out.summary.comet, null);
  const node = attributeTail({ tails: { tripTime: tail }, t0, offset: 0, seconds: 5, t: T, capacityPercent: 100, engines: [],
    server: { jvm: false, stops: null }, processCpu: [], hostCpu: [] });
  assert.equal(node.summary.serverPauses, 'none: not a JVM');
  assert.equal(node.summary.tripTime.causes.serverPause, null);
  assert.equal(node.summary.tripTime.causes.enginePause, null);
  assert.equal(node.summary.tripTime.causes.unexplained.share, 1);
});

test('attribution: an engine stop that ended before the load began (plan loading, JMeter\'s collection before its threads) counts nowhere', () => {
  // A real 50-stream SSE run's engine: its 68 ms metadata collection and 41 ms System.gc() ended 0.4 s before
  // the first request, in the second of the first records beyond p99.
  const tail = { beyondMs: 30, records: 5, perSecond: [0, 0, 1, 4, 0] };
  const t0 = 1_795_708_934_000;
  const stops = [{ startMs: t0 + 2157, epochMs: t0 + 2225, pauseMs: 68.385 }, { startMs: t0 + 2330, epochMs: t0 + 2371, pauseMs: 41.227 },
    { startMs: t0 + 3500, epochMs: t0 + 3500.15, pauseMs: 0.147 }];
  const args = { tails: { comet: tail }, t0, offset: 0, seconds: 5, t: T, capacityPercent: 100, server: { jvm: false, stops: null },
    processCpu: [], hostCpu: [], engines: [{ name: 'local', safepointsLogged: true, stops }] };
  const before = attributeTail(args);   // without the load's start every stop counts
  assert.deepEqual(before.summary.comet.causes.enginePause, { records: 1, share: 0.2 });
  assert.equal(before.summary.longestEnginePauseMs, 68.385);
  const out = attributeTail({ ...args, loadStartMs: t0 + 2800 });
  assert.deepEqual(out.summary.comet.causes.enginePause, { records: 0, share: 0 });
  assert.equal(out.summary.longestEnginePauseMs, 0.147);
});

// A workload with no shortfall, no sign and no disturbance (validity.test.js's light run, cut down).
const LIGHT = { window: { seconds: 50 }, connections: { asked: 10, expected: 10, mean: 10, min: 10, share: 1 }, answers: null,
  rampup: { askedSeconds: 5, lastThreadStartSecond: 5, threadsSeen: 10 }, gaps: null, missedCycles: null, emit: null,
  server: { capacityPercent: 100, cpuMean: 10, seconds: 50, saturatedSeconds: 0 }, engines: [], hosts: [], errors: null };
const tailWith = (share, records = 100) => ({ pauseAtLeastMs: 20, longestEnginePauseMs: 85, comet: { beyondMs: 40, records,
  causes: { enginePause: { records: Math.round(share * records), share }, serverPause: null, serverCpu: { records: 0, share: 0 },
    unexplained: { records: records - Math.round(share * records), share: 1 - share } } } });

test('verdict: engine stops explaining TAIL_ENGINE_SHARE of the tail make a run generator-bound', () => {
  assert.equal(T.TAIL_ENGINE_SHARE, 0.2);
  assert.equal(T.TAIL_PAUSE_MS, 20);
  assert.equal(assessValidity(LIGHT, { thresholds: T, tail: tailWith(0.19) }).verdict, 'valid');
  const v = assessValidity(LIGHT, { thresholds: T, tail: tailWith(0.2) });
  assert.equal(v.verdict, 'generator-bound');
  assert.deepEqual(v.reasons.map((r) => r.rule), ['tail-engine-pause']);
  assert.match(v.reasons[0].text, /stopped >= 20 ms in the seconds of 20 of the 100 comet trip times beyond p99 \(40 ms\): 20%; longest engine stop 85 ms/);
  assert.equal(assessValidity(LIGHT, { thresholds: { ...T, TAIL_ENGINE_SHARE: 0.5 }, tail: tailWith(0.4) }).verdict, 'valid');
  assert.equal(assessValidity(LIGHT, { thresholds: T, tail: null }).verdict, 'valid');
  // a tail of fewer than TAIL_MIN_RECORDS records is not judged: one stop in one second could hold its share
  assert.equal(T.TAIL_MIN_RECORDS, 50);
  assert.equal(assessValidity(LIGHT, { thresholds: T, tail: tailWith(1, 49) }).verdict, 'valid');
  assert.equal(assessValidity(LIGHT, { thresholds: T, tail: tailWith(0.2, 50) }).verdict, 'generator-bound');
  assert.equal(assessValidity(LIGHT, { thresholds: { ...T, TAIL_MIN_RECORDS: 0 }, tail: tailWith(1, 3) }).verdict, 'generator-bound');
  // a disturbance still comes first; the tail is listed beside it
  const disturbed = { ...LIGHT, hosts: [{ name: 'h', roles: ['sut'], cpu: { seconds: 50 }, steal: { mean: 9, seconds: 50, highSeconds: 0 }, otherCpuMean: 1 }] };
  const d = assessValidity(disturbed, { thresholds: T, tail: tailWith(0.5) });
  assert.equal(d.verdict, 'disturbed');
  assert.deepEqual(d.reasons.map((r) => [r.rule, r.verdict]), [['steal', 'disturbed'], ['tail-engine-pause', 'generator-bound']]);
});

test('a synthetic run whose engine stopped 250 ms over its slow records: every tail record attributed to it, generator-bound', async () => {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'pb-tail-'));
  try {
    // 400 streams, 20 cycles of 1 s: 2-5 ms each, but 100 records of cycle 5 took 301-400 ms (1.25%: p99
    // among them, the 80 beyond it the tail, more than TAIL_MIN_RECORDS)
    const delayMs = (c, place) => (c === 5 && place <= 100 ? 300 + place : 2 + (place % 4));
    await makeStreamRun(dir, 400 * 20, { connections: 400, engines: [{ name: 'gen1', offsetMs: 0 }], server: 'tc7', delayMs });
    const run = JSON.parse(fs.readFileSync(path.join(dir, 'run.json'), 'utf8'));
    const start = run.startedAt + 1000;           // stream-run's start; cycle c begins at start + 2000 + c * 1000
    const slowArrival = start + 2000 + 5000 + 300;
    const sp = (endMs, totalNs, name) => `[${endMs}ms][${endMs - start}ms] Safepoint "${name}", Time since last: 1000 ns, Reaching safepoint: 1000 ns, Cleanup: 1000 ns, At safepoint: ${totalNs - 3000} ns, Total: ${totalNs} ns`;
    fs.mkdirSync(path.join(dir, 'engines', 'gen1'), { recursive: true });
    fs.writeFileSync(path.join(dir, 'engines', 'gen1', 'gc.log'), [
      `[${start}ms][1ms] Using Parallel`,
      `[${slowArrival - 10}ms][5000ms] GC(3) Pause Young (Allocation Failure) 77M->17M(247M) 120.000ms`,
      sp(slowArrival - 10, 250_000_000, 'ParallelGCFailedAllocation'),   // 7.04-7.29 s after start: over the slow records
      sp(start + 12_000, 5_000_000, 'Cleanup'),
    ].join('\n') + '\n');
    fs.mkdirSync(path.join(dir, 'sut'), { recursive: true });
    fs.writeFileSync(path.join(dir, 'sut', 'gc.log'), sp(start + 15_500, 30_000_000, 'G1CollectForAllocation') + '\n');
    const { summary, charts } = await analyzeAndWrite(dir);
    const tail = summary.tail;
    assert.equal(summary.tripTime.comet.records, 8000);
    assert.equal(tail.comet.records, 80);
    assert.ok(tail.comet.records >= T.TAIL_MIN_RECORDS);
    assert.equal(tail.comet.beyondMs, summary.tripTime.comet.p99Ms);
    assert.deepEqual(tail.comet.causes.enginePause, { records: 80, share: 1 });
    assert.deepEqual(tail.comet.causes.serverPause, { records: 0, share: 0 });
    assert.deepEqual(tail.comet.causes.unexplained, { records: 0, share: 0 });
    assert.equal(tail.longestEnginePauseMs, 250);
    assert.equal(tail.longestServerPauseMs, 30);
    assert.equal(tail.serverPauses, 'safepoints');
    assert.equal(tail.tripTime, null);
    assert.ok(summary.validity.reasons.some((r) => r.rule === 'tail-engine-pause' && r.verdict === 'generator-bound'), JSON.stringify(summary.validity));
    // the chart: each JVM's longest stop per second beside the comet records' longest trip time
    const chart = charts['pauses-trip-time'];
    const names = chart.elements.map((e) => e.text);
    assert.deepEqual(names, ['Engine gen1: longest stop', 'Server JVM: longest stop', 'Comet trip time: max']);
    const engine = chart.elements[0].values;
    const second = Math.floor((slowArrival - run.startedAt) / 1000);
    assert.equal(Math.max(...engine.map((v) => (typeof v === 'object' && v !== null ? v.value : v) ?? 0)), 250);
    const val = (v) => (typeof v === 'object' && v !== null ? v.value : v);
    assert.equal(val(engine[second]), 250);
    assert.ok(val(chart.elements[2].values[second]) >= 300);
  } finally {
    fs.rmSync(dir, { recursive: true, force: true });
  }
});
