'use strict';
// Runs of the mux engine (docs/run-layout.md "Stream logs"): no answer is a JMeter sample; results.csv holds
// the engines' summary samples and the stream logs alone hold each answer, with its verdict in the E line's
// 11th field. A synthetic long-poll run of two engines (tools/mux-run.js) analysed end to end: the answers
// counted from the stream logs, failures split into errors and timeouts, each connection's re-poll gaps to
// the µs, the capacity criterion, and the totals check against the summaries, which flags the answers of an
// archive whose E lines were lost. Without results.csv the stream logs still give the answers; a push-sampler
// run (10-field E lines, a results.csv row per answer) reads as before. The folds' merges are checked against
// one fold over everything.
const test = require('node:test');
const assert = require('node:assert/strict');
const fs = require('node:fs');
const path = require('node:path');
const zlib = require('node:zlib');
const { analyzeRun } = require('../run-analysis');
const { makeMuxRun, LATE_GAP_MS, RUN, START } = require('../tools/mux-run');
const { makeStreamRun, packArchive } = require('../tools/stream-run');
const { readArchive } = require('../read/responses');
const { readArchives } = require('../stage/archives');
const { answerSample } = require('../measure/stream-answers');
const { readSamples, answerTotals } = require('../stage/samples');
const { stampMarginMs } = require('../stage/validity');
const { ArchiveMeasures } = require('../measure/archive-measures');
const { SampleFold } = require('../measure/sample-fold');
const { ClientThreads, MICROS_RESOLUTION_MS } = require('../measure/client-threads');
const { answerCriterionOfStreamLogs, AnswerCriterion } = require('../measure/answer-criterion');
const { percentile } = require('../measure/trip-time');
const { scratchDir } = require('./helpers');

async function muxRun(options) {
  const dir = path.join(scratchDir('pb-mux-'), 'run');
  return { dir, ...await makeMuxRun(dir, options) };
}

// The re-poll gaps the analysis must report: those opened by an answer inside the steady window.
function gapsInWindow(expected, summary) {
  const from = summary.startedAt + summary.steadyWindow.fromSecond * 1000;
  const to = summary.startedAt + summary.steadyWindow.toSecond * 1000;
  return expected.gaps.filter((g) => g.answerMs >= from && g.answerMs < to).map((g) => g.gapMs).sort((a, b) => a - b);
}

test('a mux run: its answers come from the stream logs, failures split, summaries no answers', async () => {
  const { dir, expected } = await muxRun();
  const { summary, datasets } = await analyzeRun(dir);
  const t = summary.totals;
  assert.equal(t.answersFrom, 'stream logs');
  assert.deepEqual(t.samplesByLabel.request, { samples: expected.answers, failed: expected.failed });
  assert.equal(t.samplesByLabel['request-summary'], undefined, 'summary samples are no samples');
  assert.equal(t.samplesByLabel.timestamp.samples, 6, 'the time-stamp samples (results.csv) stay; their 10-field E lines are no answers');
  assert.deepEqual([t.failedSamples, t.errors, t.timeoutFailures], [expected.failed, expected.errors, expected.timeoutFailures]);
  assert.deepEqual(expected.failedByKind, { network: 2, http: 2, error: 2, timeout: 2 });
  assert.equal(t.samples, expected.answers + 9, 'the answers and results.csv\'s 9 other samples');
  assert.equal(datasets.series.errors.reduce((a, b) => a + b, 0), expected.errors, 'errors per second, at each error\'s end');
  const { kinds, ...errors } = summary.workload.errors;
  assert.deepEqual(errors, { failed: expected.errors, failures: expected.failed, samples: expected.answers + 9,
    share: Math.round((expected.errors / (expected.answers + 9)) * 1000) / 1000 });
  // the errors by kind (issue #36 item 3): an HTTP status, or the network error's class; timeout failures are no error
  assert.equal(kinds.reduce((n, k) => n + k.count, 0), expected.errors);
  for (const k of kinds) assert.match(k.kind, /^(HTTP [45][0-9][0-9]|Non HTTP response code: java\.[A-Za-z.]+Exception)$/, k.kind);
  // the totals check agrees
  assert.equal(summary.flags.lostAnswers, false);
  assert.deepEqual(summary.flags.answerTotals.streamLogs, { answers: expected.answers, failed: expected.failed });
  assert.deepEqual({ ...summary.flags.answerTotals.summaries, rows: 0 }, { rows: 0, answers: expected.answers, failed: expected.failed, uncounted: 0 });
  assert.ok(summary.flags.answerTotals.summaries.rows > 0);
  assert.deepEqual(summary.flags.problems, []);
  assert.equal(summary.flags.unendedSamples, 0);
});

test('a mux run: each connection\'s ramp-up start and re-poll gaps, to the µs, and the cycles missed in a gap', async () => {
  const { dir, expected } = await muxRun();
  const { summary } = await analyzeRun(dir);
  const w = summary.workload;
  assert.equal(w.rampup.threadsSeen, expected.threads, 'one client thread per (engine, connection)');
  assert.ok(w.rampup.lastThreadStartSecond > 1.5 && w.rampup.lastThreadStartSecond <= RUN.rampupS);
  const gaps = gapsInWindow(expected, summary);
  assert.equal(w.gaps.count, gaps.length);
  assert.equal(w.gaps.maxMs, LATE_GAP_MS);
  assert.equal(w.gaps.overlapping, 0);
  for (const p of [50, 90]) assert.ok(Math.abs(w.gaps[`p${p}Ms`] - percentile(gaps, p)) <= 0.002, `p${p}: ${w.gaps[`p${p}Ms`]} vs ${percentile(gaps, p)}`);
  assert.notEqual(w.gaps.p50Ms, Math.round(w.gaps.p50Ms), 'sub-ms gaps are kept, not whole ms');
  assert.equal(w.missedCycles.count, expected.lateGaps, 'the late connection of each engine missed one cycle');
});

test('a mux run: connections opened per second count from each connection\'s first connect completed (C lines), not its B line', async () => {
  const { dir, expected } = await muxRun();
  const { summary } = await analyzeRun(dir);
  const r = summary.workload.rampup;
  assert.equal(r.connectionsOpened, expected.threads, 'one C line per connection, the refused one\'s at its next connect');
  assert.equal(expected.connects.count, expected.threads);
  const lastSecond = Math.round(expected.connects.lastMs - START) / 1000;   // s to the ms, from the first request's B line
  assert.equal(r.lastConnectedSecond, lastSecond);
  assert.ok(Math.abs(r.lastConnectedSecond - r.lastThreadStartSecond) < 0.1, 'near the last B line (rounded to 0.1 s)');
  assert.equal(r.openedPerSecond, Math.round(expected.threads / lastSecond));
  const plain = path.join(scratchDir('pb-mux-'), 'run');
  await makeStreamRun(plain, 40 * 5, { connections: 40, engines: [{ name: 'gen1', offsetMs: 1 }] });
  const old = (await analyzeRun(plain)).summary.workload.rampup;
  assert.deepEqual([old.connectionsOpened, old.lastConnectedSecond, old.openedPerSecond], [undefined, undefined, undefined],
    'a log without C lines (the push sampler, older runs) has no such figure');
});

test('a mux run: the capacity criterion judges the stream logs\' answers', async () => {
  const { dir, expected } = await muxRun();
  const { summary } = await analyzeRun(dir);
  const c = summary.capacityCriterion;
  assert.deepEqual([c.answers, c.errors, c.onTime], [expected.answers, expected.errors, expected.answers - expected.errors - expected.lateAnswers]);
  assert.equal(c.basis, 'long poll: elapsed less the emit interval');
  assert.equal(c.problem, null);
  assert.equal(c.met, true);
});

// Drops the E lines of every request answer from an engine's stream log and packs its archive again.
function loseAnswers(log, archive) {
  const lines = zlib.gunzipSync(fs.readFileSync(log)).toString('utf8').split('\n');
  const requests = new Set(lines.filter((l) => /^B\t.*\trequest$/.test(l)).map((l) => l.split('\t')[2]));
  const kept = lines.filter((l) => !(l.startsWith('E\t') && requests.has(l.split('\t')[2])));
  fs.writeFileSync(log, zlib.gzipSync(kept.join('\n')));
  packArchive(path.dirname(log), archive);
  return lines.length - kept.length;
}

test('a mux run whose second archive lost its E lines: the totals check flags the lost answers', async () => {
  const { dir, expected, logs, archives } = await muxRun();
  const lost = loseAnswers(logs[1], archives[1]);
  assert.ok(lost > 0);
  const { summary } = await analyzeRun(dir);
  const left = expected.answers - lost;
  assert.equal(summary.totals.samplesByLabel.request.samples, left);
  assert.equal(summary.flags.lostAnswers, true);
  assert.equal(summary.flags.answerTotals.streamLogs.answers, left);
  assert.equal(summary.flags.answerTotals.summaries.answers, expected.answers);
  assert.equal(summary.flags.unendedSamples, lost, 'the answers begun and never ended');
  const n = (v) => v.toLocaleString('en-US');
  const line = summary.flags.problems.find((p) => p.startsWith('answers lost'));
  assert.ok(line, summary.flags.problems.join('; '));
  assert.match(line, new RegExp(`stream logs hold ${n(left)} answers .*summaries count ${n(expected.answers)} `));
});

test('a mux run without results.csv: the stream logs\' answers are the run\'s, nothing to check them against', async () => {
  const { dir, expected } = await muxRun();
  fs.rmSync(path.join(dir, 'jmeter', 'results.csv'));
  const { summary } = await analyzeRun(dir);
  assert.ok(summary.flags.missingInputs.includes('jmeter/results.csv'));
  assert.equal(summary.totals.answersFrom, 'stream logs');
  assert.deepEqual(summary.totals.samplesByLabel, { request: { samples: expected.answers, failed: expected.failed } });
  assert.equal(summary.flags.lostAnswers, undefined);
  assert.equal(summary.capacityCriterion.answers, expected.answers);
  assert.equal(summary.workload.rampup.threadsSeen, expected.threads);
  assert.equal(summary.workload.missedCycles.count, expected.lateGaps);
});

test('a mux run whose results.csv lost its summary samples: the answers still come from the stream logs', async () => {
  const { dir, expected } = await muxRun();
  const csv = path.join(dir, 'jmeter', 'results.csv');
  fs.writeFileSync(csv, fs.readFileSync(csv, 'utf8').split('\n').filter((l) => !l.includes(',request-summary,')).join('\n'));
  const { summary } = await analyzeRun(dir);
  assert.equal(summary.totals.answersFrom, 'stream logs');
  assert.deepEqual(summary.totals.samplesByLabel.request, { samples: expected.answers, failed: expected.failed });
  assert.equal(summary.totals.samplesByLabel.setevent.samples, 1, 'results.csv\'s own samples stay');
  assert.equal(summary.flags.answerTotals, undefined, 'no summaries: nothing to check against');
});

test('a push-sampler run (10-field E lines, a results.csv row per answer): answers from results.csv, no totals check', async () => {
  const dir = path.join(scratchDir('pb-mux-'), 'run');
  await makeStreamRun(dir, 40 * 5, { connections: 40, engines: [{ name: 'gen1', offsetMs: 1 }] });
  const { summary } = await analyzeRun(dir);
  assert.equal(summary.totals.answersFrom, undefined);
  assert.equal(summary.flags.lostAnswers, undefined);
  assert.equal(summary.flags.answerTotals, undefined);
  assert.equal(summary.totals.samplesByLabel.request.samples, 40);
  assert.equal(summary.capacityCriterion.answers, 40);
  const { answers } = await readArchives([path.join(dir, 'responses', 'gen1.tar.gz')], { baseMs: null, sampleEnds: null });
  assert.deepEqual(answers.counts, { answers: 0, failed: 0 }, 'a 10-field E line carries no verdict: not an answer');
});

test('the archives\' answers merged in archive order = one fold over every archive, with and without a run start', async () => {
  const { dir } = await muxRun({ engines: [{ name: 'e1', offsetMs: 1, muxThreads: 1 }, { name: 'e2', offsetMs: -1, muxThreads: 2 },
    { name: 'e3', offsetMs: 0.5, muxThreads: 1 }] });
  const files = ['e1', 'e2', 'e3'].map((e) => path.join(dir, 'responses', `${e}.tar.gz`));
  const criterion = { run: RUN, seconds: 6 };
  for (const baseMs of [null, Date.UTC(2026, 10, 23)]) {
    const merged = await readArchives(files, { baseMs, sampleEnds: null, answers: { criterion } });
    const one = new ArchiveMeasures(baseMs, { criterion });
    for (const f of files) await readArchive(f, one.visitor);
    const figures = (a) => ({ ...a.samples.partial(), clientThreads: a.samples.clientThreads.result(0, { fromMs: 0, toMs: Infinity }),
      criterion: a.criterion.result() });
    assert.deepEqual(figures(merged.answers), figures(one.answers), `baseMs ${baseMs}`);
    assert.ok(merged.answers.counts.answers > 0);
  }
});

test('a sample fold: results.csv\'s new columns by name, summary samples summed apart, a fold merged = one fold', async () => {
  const file = path.join(scratchDir('pb-mux-'), 'results.csv');
  fs.writeFileSync(file, [
    'label,timeStamp,elapsed,success,failureMessage,threadName,ErrorCount,SampleCount,responseMessage',
    'request,1000,12,true,,t1,0,1,OK',
    'request-summary,900,1000,false,,"Request (mux) 1-1",2,40,"answers 40, errors 2, open 9"',
    'request-summary,1900,1000,true,,"Request (mux) 1-1",,,"answers 3"',
    'request,1020,5,false,response contains timeout although an event was set,t1,1,1,OK',
  ].join('\n') + '\n');
  const { csv } = await readSamples(file, 0);
  assert.equal(csv.rows, 2);
  assert.deepEqual(csv.byLabel, { request: { samples: 2, failed: 1 } });
  assert.deepEqual([csv.first, csv.last, csv.timeoutFailures, csv.errors], [1000, 1025, 1, 0], 'summary samples span no time');
  assert.deepEqual(csv.summaries, { rows: 2, answers: 40, failed: 2, uncounted: 1 });
  assert.match(answerTotals(csv, { counts: { answers: 40, failed: 2 } }).problem, /1 of 2 summary samples without SampleCount/);
  // a fold merged into another: the same as one fold of every sample
  const a = [{ label: 'request', timeStamp: 10.25, elapsed: 5, success: false, failureMessage: 'HTTP 404', threadName: 'e1 r1' },
    { label: 'timestamp', timeStamp: 3, elapsed: 1, success: true, failureMessage: '', threadName: 'x', responseFile: '/r/e1/responses/timestamp_1.push' }];
  const b = [{ label: 'request', timeStamp: 20.5, elapsed: 1.25, success: true, failureMessage: '', threadName: 'e1 r1' },
    { label: 'request', timeStamp: 2, elapsed: 900, success: false, failureMessage: 'Exception: timeout', threadName: 'e2 r1' }];
  const one = new SampleFold(0, MICROS_RESOLUTION_MS);
  const left = new SampleFold(0, MICROS_RESOLUTION_MS);
  const right = new SampleFold(0, MICROS_RESOLUTION_MS);
  for (const s of [...a, ...b]) one.add(s);
  for (const s of a) left.add(s);
  for (const s of b) right.add(s);
  left.merge(structuredClone(right.partial()));
  const figures = (f) => ({ ...f.partial(), clientThreads: f.clientThreads.result(0, { fromMs: 0, toMs: 1e4 }), errorsAt: f.errorTimeline.toSeconds(0, 2) });
  assert.deepEqual(figures(left), figures(one));
  assert.deepEqual([one.errors, one.timeoutFailures, one.clientThreads.result(0, { fromMs: 0, toMs: 1e4 }).gaps.p50Ms], [2, 0, 5.25]);
});

test('client threads: the stamps\' resolution is the source\'s; merged threads read as one', () => {
  const window = { fromMs: 0, toMs: 1e4 };
  const whole = new ClientThreads();
  const micros = new ClientThreads(MICROS_RESOLUTION_MS);
  for (const c of [whole, micros]) {
    c.add('A', 0, 1000);
    c.add('A', 999.5, 500);   // begins half a ms before the answer's stamp: within whole ms, not within µs
  }
  assert.deepEqual([whole.result(0, window).gaps.overlapping, micros.result(0, window).gaps.overlapping], [0, 1]);
  assert.equal(stampMarginMs({ offset: 0, best: { errorBoundMs: 0.25 }, byEngine: new Map() }, MICROS_RESOLUTION_MS), 0.251);
  const one = new ClientThreads(MICROS_RESOLUTION_MS);
  const left = new ClientThreads(MICROS_RESOLUTION_MS);
  const right = new ClientThreads(MICROS_RESOLUTION_MS);
  const samples = [['A', 1000.125, 10], ['B', 1500.5, 100.25], ['A', 1010.75, 20], ['B', 1600.875, 3], ['C', 998.001, 1]];
  samples.forEach((s, i) => { one.add(...s); (i < 2 ? left : right).add(...s); });
  left.merge(structuredClone(right.partial()));
  assert.deepEqual(left.result(990, window, [1010.5]), one.result(990, window, [1010.5]));
  assert.deepEqual(one.result(990, window).gaps.maxMs, 0.625);
});

test('the criterion of a comet run\'s stream logs: judged on the time to the head (12th E field); none without it, and said so', () => {
  const c = new AnswerCriterion({ type: 'comet' }, 6);
  c.add({ label: 'request', elapsed: 5000, latency: null, success: true, failureMessage: '' });
  const r = answerCriterionOfStreamLogs(c, { type: 'comet' }, {});
  assert.deepEqual([r.answers, r.met], [0, null]);
  assert.match(r.problem, /head came/);
  const st = { kind: 'request', engine: 'gen1', thread: 'Request 1-1', beganUs: 1e9, endUs: 1e9 + 5e6, headersUs: 1e9 + 1500,
    responseCode: '200', ok: true, failure: '' };
  const withHead = new AnswerCriterion({ type: 'comet' }, 6);
  withHead.add(answerSample(st));
  const judged = answerCriterionOfStreamLogs(withHead, { type: 'comet' }, {});
  assert.equal(judged.answers, 1);
  assert.equal(judged.problem, null);
  assert.equal(answerSample(st).latency, 1.5);
});
