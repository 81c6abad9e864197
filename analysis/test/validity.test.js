'use strict';
// The run-validity rules (analysis/measure/validity.js) on data sets, the workload model that feeds them
// (analysis/measure/workload.js), the client-side gaps and missed cycles (analysis/measure/client-threads.js) and the
// engines' GC log parser (analysis/read/gc-log.js).
const test = require('node:test');
const assert = require('node:assert/strict');
const { assessValidity, thresholds, DEFAULTS } = require('../measure/validity');
const { steadyWindow, measureWorkload } = require('../measure/workload');
const { ClientThreads, countBetween } = require('../measure/client-threads');
const { parseGcLogText, pausePerSecond } = require('../read/gc-log');
const { stampMarginMs } = require('../stage/validity');
const fs = require('node:fs');
const path = require('node:path');
const zlib = require('node:zlib');

const T = DEFAULTS;
const fill = (n, v) => new Array(n).fill(v);

// A run of <seconds> elapsed seconds, load from second 0, on one shared host of 2 cores (the local default).
function dataSet({ type = 'poll', threads = 1000, interval = 1000, maxDuration = 180000, event = 'event1', rampup = 10, duration = 60,
  hostCpu = 40, steal = 0, serverCpu = 30, jvmCpu = 40, gc = 0, connections = threads, requestsPerCycle = threads,
  engineKnown = true, lastStart = rampup, gaps = { p50Ms: 1, p90Ms: 2, p99Ms: 5 }, missed = 0, errors = 0, emitDurationMs = 20,
  server = 'node', sutAddress = '127.0.0.1', engineAddress = '127.0.0.1', engineHostCpu = hostCpu, churn = null } = {}) {
  const seconds = duration + 5;
  const run = { server, type, connections: threads, rampupS: rampup, durationS: duration, event, emitIntervalMs: event ? interval : null,
    maxDurationMs: type === 'poll' ? maxDuration : null,
    hosts: { sut: { name: 'sut', address: sutAddress }, engines: [{ name: 'gen1', address: engineAddress }] },
    ...(churn === null ? {} : { provenance: { settings: { PB_CHURN_PERCENT: churn } } }) };
  const window = steadyWindow(run, 0, seconds);
  const cycles = [];
  if (event) for (let s = 0; s < duration; s += interval / 1000) cycles.push({ createdSecond: s + 0.3, requests: requestsPerCycle, duration: emitDurationMs });
  const series = { cpu: fill(seconds, hostCpu), steal: fill(seconds, steal), processCpu: fill(seconds, serverCpu),
    connections: fill(seconds, connections), timeouts: fill(seconds, 0) };
  const engines = [{ name: 'gen1', address: engineAddress, cores: engineKnown ? 2 : null,
    hostCpu: engineKnown ? fill(seconds, engineHostCpu) : fill(seconds, null), steal: fill(seconds, engineKnown ? steal : null),
    jvmCpu: engineKnown ? fill(seconds, jvmCpu) : fill(seconds, null), gcPauseMs: engineKnown ? fill(seconds, gc) : null,
    unknown: engineKnown ? [] : ['engine gen1: host CPU unknown (no engines/gen1/vmstat.log)'] }];
  const client = { threads, lastStartSecond: lastStart, gaps: { count: 5000, ...gaps, maxMs: gaps.p99Ms }, missedCycles: missed };
  const m = measureWorkload({ run, window, series, cycles, client, engines, sutCores: 2,
    errors: { failed: errors, samples: 10000 }, thresholds: T });
  return { run, window, m };
}

test('steady window: after the ramp-up to the end of the load; the whole load when that leaves too little', () => {
  assert.deepEqual(steadyWindow({ rampupS: 10, durationS: 60 }, 4, 80),
    { fromSecond: 14, toSecond: 64, seconds: 50, basis: 'after the ramp-up, to the end of the load' });
  assert.equal(steadyWindow({ rampupS: 10, durationS: 60 }, 4, 50).toSecond, 50);       // the run ended early
  const short = steadyWindow({ rampupS: 28, durationS: 30 }, 2, 40);
  assert.equal(short.fromSecond, 2);
  assert.match(short.basis, /whole load/);
});

test('a light run is valid, with full confidence', () => {
  const v = assessValidity(dataSet().m, { thresholds: T });
  assert.equal(v.verdict, 'valid');
  assert.deepEqual(v.reasons, []);
  assert.equal(v.confidence, 'full');
});

test('a churned SSE run holds fewer connections and gets fewer live answers by design: valid, neither judged, said in its unknowns', () => {
  const churned = { type: 'sse', maxDuration: null, connections: 740, requestsPerCycle: 757 };
  const without = assessValidity(dataSet(churned).m, { thresholds: T });
  assert.equal(without.verdict, 'server-limited', 'the same shortfall without churn');
  assert.deepEqual(without.reasons.map((r) => r.rule), ['no-generator-sign', 'answers-short', 'connections-short']);
  const { m } = dataSet({ ...churned, churn: '10' });
  assert.equal(m.churnPercent, 10);
  const v = assessValidity(m, { thresholds: T });
  assert.equal(v.verdict, 'valid');
  assert.equal(v.confidence, 'reduced');
  assert.deepEqual(v.unknowns, ['churn: the clients drop 10% of their streams a second, so the connections held and the answers got live are not judged']);
  assert.equal(dataSet({ churn: '0' }).m.churnPercent, 0);
  assert.equal(dataSet().m.churnPercent, 0, 'no provenance: no churn');
});

test('answers short with the shared host saturated by the JMeter JVM: generator-bound, with its numbers', () => {
  // The case: 5,000 polls, 1 s events, node at 20-45% of a core, the machine at 100%
  const { m } = dataSet({ threads: 5000, requestsPerCycle: 2116, hostCpu: 100, serverCpu: 35, jvmCpu: 150, lastStart: 30,
    gaps: { p50Ms: 1, p90Ms: 400, p99Ms: 2100 } });
  assert.equal(m.answers.expected, 5000 * 50);                 // the 50 cycles of the window 10-60 s
  assert.equal(m.answers.achievedPerSecond, 2116);
  const v = assessValidity(m, { thresholds: T });
  assert.equal(v.verdict, 'generator-bound');
  const rules = v.reasons.map((r) => r.rule);
  assert.deepEqual(rules, ['engine-cpu', 'answers-short', 'rampup-late', 'gaps-long']);
  assert.match(v.reasons[0].text, /host CPU >= 95% in 50 of 50 steady seconds/);
  assert.match(v.reasons[1].text, /2,116 of 5,000 answers\/s asked \(42\.3%/);
  assert.match(v.reasons[2].text, /last thread started 30 s .* ramp-up asked 10 s/);
});

test('answers short while the server process is saturated: server-limited, even when the host is busy', () => {
  const v = assessValidity(dataSet({ requestsPerCycle: 500, hostCpu: 100, serverCpu: 99, jvmCpu: 60 }).m, { thresholds: T });
  assert.equal(v.verdict, 'server-limited');
  assert.equal(v.reasons[0].rule, 'server-cpu');
});

test('answers short with the engines idle and the server not busy: server-limited (no generator sign)', () => {
  const v = assessValidity(dataSet({ requestsPerCycle: 500 }).m, { thresholds: T });
  assert.equal(v.verdict, 'server-limited');
  assert.equal(v.reasons[0].rule, 'no-generator-sign');
});

test('engine on its own host: its host saturated counts whatever the server used', () => {
  const v = assessValidity(dataSet({ requestsPerCycle: 500, engineAddress: '10.9.0.3', engineHostCpu: 99, hostCpu: 30, serverCpu: 60, jvmCpu: 180 }).m,
    { thresholds: T });
  assert.equal(v.verdict, 'generator-bound');
  assert.match(v.reasons[0].text, /engine gen1's host CPU/);
});

test('a shortfall on a machine others took is disturbed, whatever the server\'s signs: they are listed beside it', () => {
  // Node.js saturated and short of answers while other processes used 60% of the host (a bench beside it)
  const v = assessValidity(dataSet({ requestsPerCycle: 500, serverCpu: 100, hostCpu: 100, jvmCpu: 20 }).m, { thresholds: T });
  assert.equal(v.verdict, 'disturbed');
  assert.deepEqual(v.reasons.map((r) => [r.rule, r.verdict]), [['other-processes', 'disturbed'], ['answers-short', 'disturbed'],
    ['server-cpu', 'server-limited']]);
  // the same run on a quiet machine is the server's limit
  assert.equal(assessValidity(dataSet({ requestsPerCycle: 500, serverCpu: 100, hostCpu: 65, jvmCpu: 20 }).m, { thresholds: T }).verdict, 'server-limited');
});

test('GC pauses of an engine are a generator sign', () => {
  const v = assessValidity(dataSet({ requestsPerCycle: 500, gc: 200 }).m, { thresholds: T });
  assert.equal(v.verdict, 'generator-bound');
  assert.equal(v.reasons[0].rule, 'engine-gc');
  assert.match(v.reasons[0].text, /20% of the steady window/);
});

test('steal makes a run disturbed even when the load was met; a crash is server-limited whatever else', () => {
  const stolen = assessValidity(dataSet({ steal: 12 }).m, { thresholds: T });
  assert.equal(stolen.verdict, 'disturbed');
  assert.match(stolen.reasons[0].text, /steal 12% on average, >= 10% in 50 of 50/);
  const other = assessValidity(dataSet({ hostCpu: 90, serverCpu: 20, jvmCpu: 20 }).m, { thresholds: T });
  assert.equal(other.verdict, 'disturbed');
  assert.equal(other.reasons[0].rule, 'other-processes');
  const crashed = assessValidity(dataSet({ requestsPerCycle: 10, hostCpu: 100, jvmCpu: 190 }).m, { crashed: true, thresholds: T });
  assert.equal(crashed.verdict, 'server-limited');
  assert.equal(crashed.reasons[0].rule, 'server-crashed');
});

test('errors and emit cycles longer than the interval are server results', () => {
  assert.equal(assessValidity(dataSet({ errors: 500 }).m, { thresholds: T }).verdict, 'server-limited');
  const slow = assessValidity(dataSet({ emitDurationMs: 1500 }).m, { thresholds: T });
  assert.equal(slow.verdict, 'server-limited');
  assert.match(slow.reasons[0].text, /emit cycles took 1,500 ms .* interval is 1,000 ms/);
});

test('engine monitors missing: confidence reduced and said; client-side signs still point at the generator', () => {
  const quiet = assessValidity(dataSet({ engineKnown: false }).m, { thresholds: T });
  assert.equal(quiet.verdict, 'valid');
  assert.equal(quiet.confidence, 'reduced');
  assert.match(quiet.unknowns[0], /engine gen1: host CPU unknown/);
  const late = assessValidity(dataSet({ engineKnown: false, requestsPerCycle: 500, lastStart: 40 }).m, { thresholds: T });
  assert.equal(late.verdict, 'generator-bound');
  assert.equal(late.confidence, 'reduced');
});

test('long poll without events: answers are timeouts over the window, judged only with two max-durations in it', () => {
  const { m } = dataSet({ event: null, maxDuration: 10000, duration: 60 });
  assert.equal(m.answers.expected, 1000 * 50 / 10);
  assert.equal(m.answers.judged, true);
  assert.equal(m.gaps.againstMs, 10000);
  const short = dataSet({ event: null, maxDuration: 30000, duration: 60 }).m;
  assert.equal(short.answers.judged, false);
  assert.equal(assessValidity(short, { thresholds: T }).verdict, 'valid');   // 0 timeouts counted, but not judged
});

test('thresholds: PB_VALIDITY_<NAME> overrides a default; a bad value keeps it and says so', () => {
  const { thresholds: t, problems } = thresholds({ PB_VALIDITY_ANSWERS_SHORT: '0.5', PB_VALIDITY_STEAL_MEAN_PERCENT: 'lots' });
  assert.equal(t.ANSWERS_SHORT, 0.5);
  assert.equal(t.STEAL_MEAN_PERCENT, DEFAULTS.STEAL_MEAN_PERCENT);
  assert.match(problems[0], /PB_VALIDITY_STEAL_MEAN_PERCENT=lots/);
  const { m } = dataSet({ requestsPerCycle: 600 });
  assert.equal(assessValidity(m, { thresholds: t }).verdict, 'valid');          // 60% passes a 50% bar
});

test('client threads: last start, re-poll gaps and the emit cycles that fell into them', () => {
  const c = new ClientThreads();
  // thread A polls 0-1000, 1001-2000, 2500-3000 (a 500 ms gap at 2000); thread B starts at 400
  c.add('A', 0, 1000);
  c.add('B', 400, 1600);
  c.add('A', 1001, 999);
  c.add('A', 2500, 500);
  c.add('B', 2002, 998);
  const r = c.result(0, { fromMs: 0, toMs: 10000 }, [2200, 2400, 5000]);
  assert.equal(r.threads, 2);
  assert.equal(r.lastStartSecond, 0.4);
  assert.deepEqual([r.gaps.count, r.gaps.p50Ms, r.gaps.maxMs], [3, 2, 500]);
  assert.equal(r.missedCycles, 2);                    // 2200 and 2400 fell into A's gap 2000-2500
  assert.equal(c.result(0, { fromMs: 2100, toMs: 10000 }, [2200]).gaps.count, 0);   // gaps opened before the window
  assert.equal(countBetween([1, 2, 3], 1, 3), 1);
});

test('client threads: a thread\'s samples are taken in time order, whatever order results.csv lists them in', () => {
  const samples = [['A', 0, 1000], ['B', 400, 1600], ['A', 1001, 999], ['A', 2500, 500], ['B', 2002, 998], ['B', 3100, 900]];
  const inOrder = new ClientThreads();
  for (const s of samples) inOrder.add(...s);
  const shuffled = new ClientThreads();
  for (const i of [2, 5, 0, 4, 3, 1]) shuffled.add(...samples[i]);     // A's 1001 before its 0, B's 3100 first
  const window = { fromMs: 0, toMs: 10000 };
  const r = shuffled.result(0, window, [2200, 2400, 5000]);
  assert.deepEqual(r, inOrder.result(0, window, [2200, 2400, 5000]));
  assert.deepEqual([r.gaps.count, r.gaps.maxMs, r.missedCycles, r.lastStartSecond], [4, 500, 2, 0.4]);
  const overlap = new ClientThreads();
  overlap.add('A', 0, 1000);
  overlap.add('A', 900, 500);                                            // began before A's answer came
  assert.deepEqual([overlap.result(0, window).gaps.overlapping, overlap.result(0, window).gaps.count], [1, 0]);
});

test('client threads: a cycle counts as missed only when it began inside a gap by more than the stamps\' margin', () => {
  const c = new ClientThreads();
  c.add('A', 0, 1000);
  c.add('A', 1040, 960);                                                 // gap 1000-1040
  const window = { fromMs: 0, toMs: 10000 };
  assert.equal(c.result(0, window, [1000.4], null, 0).missedCycles, 1);
  assert.equal(c.result(0, window, [1000.4], null, 1.2).missedCycles, 0); // within 1.2 ms of the answer
  assert.equal(c.result(0, window, [1039.5], null, 1.2).missedCycles, 0); // within 1.2 ms of the next request
  assert.equal(c.result(0, window, [1020], null, 1.2).missedCycles, 1);
});

test('the stamps\' margin: 1 ms of whole-ms stamps plus the offset\'s error bound, or an engine\'s distance from it', () => {
  assert.equal(stampMarginMs({ offset: 0, best: null, byEngine: new Map() }), 1);
  assert.equal(stampMarginMs({ offset: -0.4, best: { errorBoundMs: 0.25 }, byEngine: new Map() }), 1.25);
  const byEngine = new Map([['e1', { offset: -0.4, errorBoundMs: 0.25 }], ['e2', { offset: 1.6, errorBoundMs: 0.5 }]]);
  assert.equal(stampMarginMs({ offset: -0.4, best: { errorBoundMs: 0.25 }, byEngine }), 1 + 2 + 0.5);
});

// Captured: the request samples of a real long-poll run (./run.sh tc7 5 20 400 poll 180000 event1 1000, one
// local engine), in results.csv's own order, and its emit cycles' start stamps from the response archive.
// Read in file order, 132 samples came before an earlier one of their thread, which made ~1 s gaps out of
// two polls and judged the run generator-bound.
test('captured long-poll run: results.csv out of thread order, gaps and missed cycles as the threads made them', () => {
  const dir = path.join(__dirname, 'fixtures', 'captured');
  const meta = JSON.parse(fs.readFileSync(path.join(dir, 'poll-order.json'), 'utf8'));
  const rows = zlib.gunzipSync(fs.readFileSync(path.join(dir, 'poll-order.csv.gz'))).toString('utf8').trim().split('\n').slice(1)
    .map((l) => { const [t, e, name] = l.split(','); return [name, Number(t), Number(e)]; });
  const lastStart = new Map();
  let before = 0;
  for (const [name, t] of rows) { if (t < (lastStart.get(name) ?? -Infinity)) before++; lastStart.set(name, t); }
  assert.equal(before, 132);
  const t0 = meta.startedAt;
  const window = { fromMs: t0 + meta.steadyWindow.fromSecond * 1000, toMs: t0 + meta.steadyWindow.toSecond * 1000 };
  const starts = meta.cycleCreatedMs.map((ms) => ms - meta.clockOffset.ms);
  const margin = stampMarginMs({ offset: meta.clockOffset.ms, best: { errorBoundMs: meta.clockOffset.errorBoundMs }, byEngine: new Map() });
  const judge = (order) => {
    const c = new ClientThreads();
    for (const r of order) c.add(...r);
    return c.result(t0, window, starts, null, margin);
  };
  const r = judge(rows);
  assert.deepEqual(r, judge([...rows].sort((a, b) => a[1] - b[1])));
  assert.deepEqual([r.threads, r.gaps.overlapping, r.missedCycles], [400, 0, 0]);
  assert.ok(r.gaps.count > 5000);
  assert.ok(r.gaps.maxMs < meta.emitIntervalMs / 2, `longest gap ${r.gaps.maxMs} ms`);
});

test('GC log: pause lines give their end time and length; other lines pass; broken pause lines are counted', () => {
  const log = [
    '[1795442931715ms][5ms] Using Parallel',
    '[1795442935309ms][3599ms] GC(0) Pause Young (Metadata GC Threshold) 119M->14M(588M) 21.839ms',
    '[1795442935344ms][3634ms] GC(1) Pause Full (Metadata GC Threshold) 14M->14M(588M) 34.723ms',
    '[1795442936248ms][4538ms] GC(2) Pause Young (System.gc()) 86M->20M(588M',
  ].join('\n');
  const gc = parseGcLogText(log);
  assert.deepEqual(gc.pauses, [{ epochMs: 1795442935309, pauseMs: 21.839, full: false, afterMB: 14, heapMB: 588 },
    { epochMs: 1795442935344, pauseMs: 34.723, full: true, afterMB: 14, heapMB: 588 }]);
  assert.equal(gc.skipped, 1);
  assert.deepEqual(pausePerSecond(gc.pauses, 1795442933000, 4), [0, 0, 56.562, 0]);
});

test('polls due: per thread, the max-duration cycles from its first request that end inside the window', () => {
  const c = new ClientThreads();
  c.add('A', 0, 3000);        // due at 3000, 6000, 9000, 12000
  c.add('B', 1500, 3000);     // due at 4500, 7500, 10500, 13500
  const r = c.result(0, { fromMs: 2000, toMs: 12000 }, [], 3000);
  assert.equal(r.pollsDue, 3 + 3);   // A: 3000, 6000, 9000 (12000 is outside); B: 4500, 7500, 10500
  assert.equal(c.result(0, { fromMs: 2000, toMs: 12000 }).pollsDue, null);
});

test('no request sample at all: the generator did not run, whatever the server did', () => {
  const { run, window } = dataSet();
  const m = measureWorkload({ run, window, series: { cpu: fill(65, 5), steal: fill(65, 0), processCpu: fill(65, 0), connections: fill(65, null),
    timeouts: fill(65, 0) }, cycles: [], client: { threads: 0, lastStartSecond: null, gaps: { count: 0 }, missedCycles: 0 },
  engines: [], sutCores: 2, errors: null, thresholds: T });
  const v = assessValidity(m, { thresholds: T });
  assert.equal(v.verdict, 'failed');
  assert.deepEqual(v.reasons.map((r) => r.rule), ['no-load']);
  assert.match(v.reasons[0].text, /neither JMeter nor the server recorded a request of the 1,000 connections asked/);
});

test('no request sample because the records were lost (an empty archive): failed for the loss, never no-load', () => {
  const { run, window } = dataSet();
  const m = measureWorkload({ run, window, series: { cpu: fill(65, 5), steal: fill(65, 0), processCpu: fill(65, 0), connections: fill(65, null),
    timeouts: fill(65, 0) }, cycles: [], client: { threads: 0, lastStartSecond: null, gaps: { count: 0 }, missedCycles: 0 },
  engines: [], sutCores: 2, errors: null, thresholds: T });
  const v = assessValidity(m, { thresholds: T, lost: ['gen1.tar.gz unreadable (empty file: no archive)'] });
  assert.equal(v.verdict, 'failed');
  assert.equal(v.reasons[0].rule, 'records-lost');
  assert.equal(v.reasons[0].text, 'records lost: gen1.tar.gz unreadable (empty file: no archive)');
  for (const rule of ['no-load', 'no-answer', 'no-connection']) assert.ok(!v.reasons.some((r) => r.rule === rule), rule);
});

// issue #36 item 3: a run that measured nothing of the server is `failed`, never a figure.
test('most samples failed (the service address refused every connection): failed, the error kinds counted', () => {
  const { run, window } = dataSet();
  const seconds = 65;
  const m = measureWorkload({ run, window, series: { cpu: fill(seconds, 5), steal: fill(seconds, 0), processCpu: fill(seconds, 0),
    connections: fill(seconds, 0), timeouts: fill(seconds, 0) }, cycles: [], sutCores: 2, thresholds: T, engines: [],
  client: { threads: 1000, lastStartSecond: 10, gaps: { count: 0 }, missedCycles: 0 },
  errors: { failed: 86849, failures: 86849, samples: 86849, kinds: [{ kind: 'Non HTTP response code: java.net.ConnectException', count: 86840 }, { kind: 'HTTP 503', count: 9 }] } });
  const v = assessValidity(m, { thresholds: T });
  assert.equal(v.verdict, 'failed');
  assert.deepEqual(v.reasons.map((r) => r.rule), ['most-failed', 'no-answer', 'no-connection']);
  assert.equal(v.reasons[0].text, '86,849 of 86,849 samples failed (100%): Non HTTP response code: java.net.ConnectException 86,840; HTTP 503 9');
  assert.match(v.reasons[1].text, /^the server answered none of the 49,000 answers asked in the steady window \(connections x emit cycles the interval asks in the window \(49; 0 seen\)\)/);
  // half of them is not most: errors, a server sign
  const half = assessValidity(dataSet({ errors: 5000 }).m, { thresholds: T });
  assert.equal(half.verdict, 'server-limited');
  // a crash stays a server result, however many samples failed after it
  assert.equal(assessValidity(m, { thresholds: T, crashed: true }).verdict, 'server-limited');
});

// Cycles one per interval from second 0.3, numbered from 1; `stall`: the seconds [from, to) with no cycle.
function numberedCycles(duration, { stall = null, drop = () => false, requests = 1000 } = {}) {
  const cycles = [];
  let n = 0;
  for (let s = 0; s < duration; s++) {
    if (stall && s >= stall[0] && s < stall[1]) continue;
    n++;
    if (!drop(n)) cycles.push({ event: 'event1', cycle: n, createdSecond: s + 0.3, requests, duration: 20 });
  }
  return cycles;
}

function withCycles(cycles) {
  const { run, window } = dataSet({ type: 'comet' });
  const seconds = 65;
  return measureWorkload({ run, window, series: { cpu: fill(seconds, 10), steal: fill(seconds, 0), processCpu: fill(seconds, 10),
    connections: fill(seconds, 1000), timeouts: fill(seconds, 0) }, cycles, client: null, engines: [], sutCores: 2, thresholds: T,
  errors: { failed: 0, failures: 0, samples: 10000 } });
}

test('answers asked from the parameters: a 10 s stall of the server shows as a shortfall and an emit stall', () => {
  const whole = withCycles(numberedCycles(60));
  assert.equal(whole.emit.cyclesExpected, 50);   // window 10-60 s, one per 1,000 ms
  assert.equal(whole.answers.expected, 50 * 1000);
  assert.equal(assessValidity(whole, { thresholds: T }).verdict, 'valid');
  const stalled = withCycles(numberedCycles(60, { stall: [20, 35] }));
  assert.equal(stalled.emit.cyclesSeen, 35);
  assert.equal(stalled.emit.cyclesNumbered, 35);
  assert.equal(stalled.answers.expected, 50 * 1000, 'asked from the interval, not from the cycles that happened');
  assert.match(stalled.answers.basis, /\(50; 35 seen\)/);
  const v = assessValidity(stalled, { thresholds: T });
  assert.equal(v.verdict, 'server-limited');
  assert.deepEqual(v.reasons.map((r) => r.rule), ['emit-stall', 'answers-short']);
  assert.match(v.reasons[0].text, /the server emitted 35 cycles in the steady window; one per 1,000 ms asks 50/);
});

test('cycles asked: one per interval from the emitter\'s first cycle (as numbered records place it, else one interval after the load start)', () => {
  const { run } = dataSet({ type: 'comet', interval: 5000 });
  const seconds = 6;
  // a 5 s load whose 5 s interval puts its first cycle at its end: none asked, nothing judged (not "no answer")
  const short = { ...run, rampupS: 1, durationS: 5 };
  const w = steadyWindow(short, 0, seconds);
  const m = measureWorkload({ run: short, window: w, loadStartSecond: 0, series: { cpu: fill(seconds, 5), steal: fill(seconds, 0),
    processCpu: fill(seconds, 1), connections: fill(seconds, 1000), timeouts: fill(seconds, 0) }, cycles: [], client: null, engines: [],
  sutCores: 2, thresholds: T, errors: { failed: 0, failures: 0, samples: 1000 } });
  assert.equal(m.emit.cyclesExpected, 0);
  assert.equal(m.answers.expected, 0);
  assert.equal(assessValidity(m, { thresholds: T }).verdict, 'valid');
  // numbered records place the first cycle: a late first cycle (the event set late) asks fewer
  const late = withCycles(numberedCycles(60).filter((c) => c.createdSecond >= 12).map((c) => ({ ...c, cycle: c.cycle - 12 })));
  assert.equal(late.emit.cyclesExpected, 48);   // first cycle at 12.3 s: 12.3 ... 59.3
  assert.equal(late.emit.cyclesNumbered, 48);
});

test('records lost (an archive cut short): with a shortfall the run failed, a data problem; without one the confidence is reduced', () => {
  // every other cycle's records lost: the cycle numbers say the server emitted them all
  const halfLost = withCycles(numberedCycles(60, { drop: (n) => n % 2 === 0 }));
  assert.equal(halfLost.emit.cyclesSeen, 25);
  assert.equal(halfLost.emit.cyclesNumbered, 49);
  const lost = ['gen1.tar.gz cut short'];
  const v = assessValidity(halfLost, { thresholds: T, lost });
  assert.equal(v.verdict, 'failed');
  assert.deepEqual(v.reasons.map((r) => r.rule), ['records-lost', 'answers-short']);
  assert.equal(v.reasons[0].text, 'records lost: gen1.tar.gz cut short');
  assert.ok(!v.reasons.some((r) => r.rule === 'emit-stall'), 'a loss is not blamed on the server');
  const whole = assessValidity(withCycles(numberedCycles(60)), { thresholds: T, lost });
  assert.equal(whole.verdict, 'valid');
  assert.equal(whole.confidence, 'reduced');
  assert.deepEqual(whole.unknowns, ['records lost: gen1.tar.gz cut short']);
});

test('docs/validity.md lists every threshold with its default', () => {
  const doc = fs.readFileSync(path.join(__dirname, '..', '..', 'docs', 'validity.md'), 'utf8');
  for (const [name, value] of Object.entries(DEFAULTS)) {
    assert.match(doc, new RegExp(`\\| \`${name}\` \\| ${String(value).replace('.', '\\.')} \\|`), name);
  }
});

test('a pinned engine saturates at its own CPUs: CPU list count, and the JVM rule on one of two cores', () => {
  const { cpuListCount } = require('../read/engines');
  assert.equal(cpuListCount('0-3,6\n'), 5);
  assert.equal(cpuListCount('1'), 1);
  assert.equal(cpuListCount('f,0'), null);
  const { run, window, m: base } = dataSet();
  const seconds = 65;
  const engines = [{ name: 'gen1', address: '127.0.0.1', cores: 2, cpusAllowed: 1, hostCpu: fill(seconds, 70), steal: fill(seconds, 0),
    jvmCpu: fill(seconds, 98), gcPauseMs: fill(seconds, 0), unknown: [] }];
  const cycles = Array.from({ length: 60 }, (_, i) => ({ createdSecond: i + 0.3, requests: 400, duration: 20 }));
  const m = measureWorkload({ run, window, cycles, engines, sutCores: 2, thresholds: T,
    series: { cpu: fill(seconds, 70), steal: fill(seconds, 0), processCpu: fill(seconds, 30), connections: fill(seconds, 1000), timeouts: fill(seconds, 0) },
    client: { threads: 1000, lastStartSecond: 10, gaps: { count: 10, p50Ms: 1, p90Ms: 2, p99Ms: 3 }, missedCycles: 0 }, errors: null });
  assert.equal(m.engines[0].cpus, 1);
  assert.equal(base.engines[0].cpus, 2);
  const v = assessValidity(m, { thresholds: T });
  assert.equal(v.verdict, 'generator-bound');
  assert.match(v.reasons[0].text, /JMeter JVM at >= 90% of its 1 CPUs in 50 of 50 steady seconds/);
});

test('pull: nothing is held; the pulls due per thread are the load asked, and a pull interval is no re-poll gap', () => {
  const run = { server: 'node', type: 'pull', connections: 2, rampupS: 0, durationS: 10, event: 'event1', emitIntervalMs: 2000, pullIntervalMs: 1000,
    maxDurationMs: null, hosts: { sut: { name: 'sut', address: '127.0.0.1' }, engines: [] } };
  const window = steadyWindow(run, 0, 12);
  const c = new ClientThreads();
  for (const t of ['A', 'B']) for (let k = 0; k < 10; k++) c.add(t, k * 1001, 1);   // every 1,001 ms
  const client = c.result(0, { fromMs: 0, toMs: 10000 }, [], run.pullIntervalMs);
  const series = { cpu: fill(12, 5), steal: fill(12, 0), processCpu: fill(12, 1), connections: fill(12, 0), timeouts: fill(12, 0) };
  const m = measureWorkload({ run, window, series, cycles: [], client, engines: [], sutCores: 2, errors: null, thresholds: T });
  assert.equal(m.connections.expected, 0);
  assert.equal(m.answers.expected, 18);           // 9 pulls due per thread after its first
  assert.equal(m.answers.achieved, 18);
  assert.equal(m.gaps, null);
  assert.equal(assessValidity(m, { thresholds: T }).verdict, 'valid');
});

test('long re-poll gaps and missed cycles are the client\'s delays: generator-bound even with its CPU below saturation', () => {
  const v = assessValidity(dataSet({ interval: 500, hostCpu: 70, jvmCpu: 80, serverCpu: 30, gaps: { p50Ms: 0, p90Ms: 241, p99Ms: 710 },
    missed: 1184 * 2 }).m, { thresholds: T });
  assert.equal(v.verdict, 'generator-bound');
  assert.deepEqual(v.reasons.map((r) => r.rule), ['gaps-long', 'missed-cycles']);
});
