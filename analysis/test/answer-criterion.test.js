'use strict';
// Reference 003's capacity criterion (analysis/measure/answer-criterion.js): what an answer's time is for each
// request type, the 95% and 5% bounds at their edges, T from PB_ANSWER_WITHIN_S, and the criterion of a
// real results.csv through the analysis (data/summary.json capacityCriterion).
const test = require('node:test');
const assert = require('node:assert/strict');
const fs = require('node:fs');
const path = require('node:path');
const { AnswerCriterion, answerCriterionOfCsv, withinSeconds, WITHIN_SECONDS_DEFAULT } = require('../measure/answer-criterion');
const { analyzeRun } = require('../run-analysis');
const { scratchDir, copyRun, REAL_RUN } = require('./helpers');

const POLL_EVENTS = { type: 'poll', event: 'event1', emitIntervalMs: 1000, maxDurationMs: 180000 };
const POLL_NO_EVENTS = { type: 'poll', event: null, emitIntervalMs: null, maxDurationMs: 10000 };
const COMET = { type: 'comet', event: 'event1', emitIntervalMs: 2000, maxDurationMs: null };

const sample = (elapsed, extra = {}) => ({ label: 'request', elapsed, latency: 5, success: true, failureMessage: '', ...extra });
const refused = () => sample(3, { success: false, failureMessage: 'Non HTTP response code: java.net.ConnectException/Non HTTP response message: Connection refused' });

function judge(run, samples, seconds = 6) {
  const c = new AnswerCriterion(run, seconds);
  for (const s of samples) c.add(s);
  return c.result();
}

test('a long poll with events is on time up to the emit interval + T, and late one ms after', () => {
  const r = judge(POLL_EVENTS, [sample(400), sample(7000), sample(7001)]);
  assert.equal(r.allowanceMs, 1000);
  assert.equal(r.answers, 3);
  assert.equal(r.onTime, 2);
  assert.equal(r.share, 0.6667);
  assert.equal(r.met, false);
});

test('a poll that ran to its max-duration (the plan\'s timeout assertion) is late, not an error', () => {
  const r = judge(POLL_EVENTS, [sample(180000, { success: false, failureMessage: 'Test failed: text expected not to contain /timeout/' })]);
  assert.deepEqual([r.answers, r.onTime, r.errors], [1, 0, 0]);
});

test('a long poll without events counts past its max-duration', () => {
  const r = judge(POLL_NO_EVENTS, [sample(10050), sample(15999), sample(16001)], 6);
  assert.equal(r.allowanceMs, 10000);
  assert.equal(r.onTime, 2);
});

test('comet answers are timed by Latency (first bytes), not by the stream\'s whole elapsed', () => {
  const r = judge(COMET, [sample(600000, { latency: 120 }), sample(600000, { latency: 6500 })]);
  assert.equal(r.onTime, 1);
  assert.match(r.basis, /Latency/);
});

test('95% on time meets the criterion; one answer fewer does not', () => {
  const met = judge(POLL_EVENTS, [...Array(19).fill(sample(500)), sample(9000)]);
  assert.equal(met.share, 0.95);
  assert.equal(met.met, true);
  const notMet = judge(POLL_EVENTS, [...Array(18).fill(sample(500)), sample(9000), sample(9000)]);
  assert.equal(notMet.share, 0.9);
  assert.equal(notMet.met, false);
});

test('errors count as answers not on time, and more than 5% of them fail the criterion on their own', () => {
  // 100 answers, 5 refused: 95% on time and 5% errors, met; 6 refused: not met
  const five = judge(POLL_EVENTS, [...Array(95).fill(sample(500)), ...Array(5).fill(refused())]);
  assert.deepEqual([five.errors, five.errorShare, five.share, five.met], [5, 0.05, 0.95, true]);
  const six = judge(POLL_EVENTS, [...Array(94).fill(sample(500)), ...Array(6).fill(refused())]);
  assert.deepEqual([six.errors, six.errorShare, six.met], [6, 0.06, false]);
});

test('the p95 answer time is the time under which 95% came; null when errors take more than 5%', () => {
  const r = judge(POLL_EVENTS, [...Array(95).fill(sample(1200)), ...Array(5).fill(sample(21000))]);
  assert.equal(r.p95Seconds, 0.2);   // elapsed 1.2 s less the 1 s interval
  const worse = judge(POLL_EVENTS, [...Array(90).fill(sample(1200)), ...Array(10).fill(refused())]);
  assert.equal(worse.p95Seconds, null);
});

test('samples of other labels are not answers; no answers gives met null', () => {
  const r = judge(POLL_EVENTS, [{ ...sample(10), label: 'timestamp' }, { ...sample(10), label: 'setevent' }]);
  assert.deepEqual([r.answers, r.share, r.met], [0, null, null]);
});

test('T comes from PB_ANSWER_WITHIN_S; a value that is not seconds > 0 keeps the default and says so', () => {
  assert.deepEqual(withinSeconds({}), { seconds: WITHIN_SECONDS_DEFAULT, problem: null });
  assert.deepEqual(withinSeconds({ PB_ANSWER_WITHIN_S: '2.5' }), { seconds: 2.5, problem: null });
  for (const bad of ['0', '-1', 'six']) {
    const w = withinSeconds({ PB_ANSWER_WITHIN_S: bad });
    assert.equal(w.seconds, WITHIN_SECONDS_DEFAULT, bad);
    assert.match(w.problem, /PB_ANSWER_WITHIN_S/);
  }
});

test('a results.csv on disk: read through the CSV reader, a missing one named', async () => {
  const dir = scratchDir('pb-answers-');
  const file = path.join(dir, 'results.csv');
  const header = 'timeStamp,elapsed,label,responseCode,responseMessage,threadName,success,failureMessage,bytes,sentBytes,grpThreads,allThreads,Latency,Connect,"responseFile"';
  const row = (elapsed, ok, msg, label = 'request') => `1795378156983,${elapsed},${label},200,OK,t-1,${ok},${msg},10,10,1,1,3,1,/x/local/responses/${label}_1.json`;
  fs.writeFileSync(file, [header, row(20, true, ''), row(900, true, ''), row(9000, true, ''), row(3, false, '"Non HTTP response code: java.net.ConnectException"'),
    row(5, true, '', 'timestamp')].join('\n') + '\n');
  const r = await answerCriterionOfCsv(file, POLL_EVENTS, { PB_ANSWER_WITHIN_S: '6' });
  assert.deepEqual([r.answers, r.onTime, r.errors, r.share, r.met, r.problem], [4, 2, 1, 0.5, false, null]);
  const none = await answerCriterionOfCsv(null, POLL_EVENTS, {});
  assert.equal(none.answers, 0);
  assert.match(none.problem, /no results\.csv/);
});

test('every analysed run has capacityCriterion in its summary (a real comet run of 100 streams)', async () => {
  const run = copyRun(path.join(scratchDir(), 'run'), REAL_RUN);
  const { summary } = await analyzeRun(run);
  const c = summary.capacityCriterion;
  assert.equal(c.answers, 100);   // one request sample per comet stream
  assert.equal(c.withinSeconds, WITHIN_SECONDS_DEFAULT);
  assert.equal(c.errors, 0);
  assert.equal(c.onTime, 100);    // every stream's headers came within 6 s here (the largest Latency is 2.0 s)
  assert.equal(c.met, true);
});
