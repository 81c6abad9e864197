'use strict';
// Reference 003's capacity criterion ("Comparing Tomcat performance across platforms"): a server holds a
// load while at least 95% of its answers come within T seconds and no more than 5% of them are errors.
// Judged on every run from its request samples (results.csv's, or the stream logs' when the mux engine
// logged its answers there alone: measure/stream-answers.js), and by bench/capacity.js second by second
// while it adds connections (docs/capacity.md).
//
// An answer is one request sample (one /request of one connection). Its answer time is what it took
// past the wait the protocol itself asks of a healthy server, because push holds answers on purpose:
//   long poll with events     elapsed - emit interval (a poll waits at most one interval for the next event)
//   long poll without events  elapsed - max-duration (the poll is answered by its timeout, on purpose)
//   comet, sse, ws            Latency: the time to the stream's first bytes (the server took the request
//                             and answered its headers). A stream's events are not single samples, so their
//                             per-message times are not in results.csv; the run report's emit duration and
//                             received-message % cover them (a held stream: lib/test-types.js).
// On time: a sample that is not an error and whose answer time is <= T s. An error is a failed sample
// whose failure is not the plan's "does not contain timeout" assertion (read/jmeter-csv.js
// isTimeoutAssertion: a poll that ran to its max-duration is late, not an error).
// share = on time / answers; met = share >= QUANTILE and errors / answers <= MAX_ERROR_SHARE.
//
// T is PB_ANSWER_WITHIN_S (seconds, > 0; default WITHIN_SECONDS_DEFAULT). It is read here and nowhere
// else; an unusable value keeps the default and says so in `problem`.
const { readResultsCsv, isTimeoutAssertion } = require('../read/jmeter-csv');
const { isHeldStream } = require('../../lib/test-types');

const WITHIN_SECONDS_DEFAULT = 6;   // reference 003: "a total page duration of six seconds or less"
const QUANTILE = 0.95;              // reference 003: "at least 95% of the users"
const MAX_ERROR_SHARE = 0.05;       // reference 003: "no more than 5% of the responses indicating errors"
const BUCKET_MS = 10;               // answer times are kept as a histogram of this resolution (the p95)

// T in force: { seconds, problem }.
function withinSeconds(env = process.env) {
  const v = env.PB_ANSWER_WITHIN_S;
  if (v === undefined || v === '') return { seconds: WITHIN_SECONDS_DEFAULT, problem: null };
  const n = Number(v);
  if (Number.isFinite(n) && n > 0) return { seconds: n, problem: null };
  return { seconds: WITHIN_SECONDS_DEFAULT, problem: `PB_ANSWER_WITHIN_S=${v} is not a number of seconds > 0: default ${WITHIN_SECONDS_DEFAULT} s used` };
}

// The wait the protocol asks for before an answer of this run (ms), and the words for it.
function allowance(run) {
  if (run.type === 'poll' && run.event && run.emitIntervalMs > 0) return { ms: run.emitIntervalMs, basis: 'long poll: elapsed less the emit interval' };
  if (run.type === 'poll' && run.maxDurationMs > 0) return { ms: run.maxDurationMs, basis: 'long poll: elapsed less the max-duration' };
  if (isHeldStream(run.type)) return { ms: 0, basis: `${run.type}: time to the stream's first bytes (JMeter Latency)` };
  return { ms: 0, basis: 'elapsed' };
}

// The answer time of one request sample (ms), or null when it has none to judge.
function answerTimeMs(sample, run, allowanceMs) {
  const t = isHeldStream(run.type) ? sample.latency : sample.elapsed;
  return Number.isFinite(t) ? t - allowanceMs : null;
}

// Counts answers one sample at a time; result() judges them.
class AnswerCriterion {
  constructor(run, seconds = withinSeconds().seconds) {
    this.run = run;
    this.seconds = seconds;
    this.allowance = allowance(run);
    this.answers = 0;
    this.onTime = 0;
    this.errors = 0;
    this.histogram = new Map();   // answer-time bucket -> count (errors left out)
  }

  add(sample) {
    if (sample.label !== 'request') return;
    const t = answerTimeMs(sample, this.run, this.allowance.ms);
    if (t === null) return;
    this.answers++;
    if (!sample.success && !isTimeoutAssertion(sample.failureMessage)) {
      this.errors++;
      return;
    }
    const bucket = Math.max(0, Math.ceil(t / BUCKET_MS));
    this.histogram.set(bucket, (this.histogram.get(bucket) ?? 0) + 1);
    if (t <= this.seconds * 1000) this.onTime++;
  }

  // The answer time (s) under which QUANTILE of all answers came (errors count as never), or null.
  quantileSeconds() {
    const need = Math.ceil(QUANTILE * this.answers);
    if (need === 0) return null;
    let seen = 0;
    for (const b of [...this.histogram.keys()].sort((a, c) => a - c)) {
      seen += this.histogram.get(b);
      if (seen >= need) return (b * BUCKET_MS) / 1000;
    }
    return null;   // more than 5% errors: 95% never came
  }

  // Plain data of the counts (structured-clone-able: a worker's, measure/stream-answers.js).
  partial() {
    return { answers: this.answers, onTime: this.onTime, errors: this.errors, histogram: [...this.histogram] };
  }

  // Adds the counts of a criterion over other answers of the same run and T (partial()).
  merge(p) {
    this.answers += p.answers;
    this.onTime += p.onTime;
    this.errors += p.errors;
    for (const [bucket, n] of p.histogram) this.histogram.set(bucket, (this.histogram.get(bucket) ?? 0) + n);
  }

  result() {
    const share = this.answers ? round(this.onTime / this.answers) : null;
    const errorShare = this.answers ? round(this.errors / this.answers) : null;
    return {
      withinSeconds: this.seconds, quantile: QUANTILE, maxErrorShare: MAX_ERROR_SHARE,
      basis: this.allowance.basis, allowanceMs: this.allowance.ms,
      answers: this.answers, onTime: this.onTime, errors: this.errors, share, errorShare,
      p95Seconds: this.quantileSeconds(),
      met: this.answers ? share >= QUANTILE && errorShare <= MAX_ERROR_SHARE : null,
    };
  }
}

const round = (v) => Math.round(v * 10000) / 10000;

// The criterion's figures with the problems met on the way (`problem`: null without one).
const judged = (c, problems) => ({ ...c.result(), problem: problems.length ? problems.join('; ') : null });

// The criterion of one run from its results.csv (null: no file): a second pass over the file, so that
// the analysis keeps one call for it. An unreadable file gives answers 0 and the reason in `problem`.
async function answerCriterionOfCsv(file, run, env = process.env) {
  const { seconds, problem } = withinSeconds(env);
  const c = new AnswerCriterion(run, seconds);
  const problems = problem ? [problem] : [];
  if (file) {
    try { await readResultsCsv(file, (s) => c.add(s)); } catch (err) { problems.push(`results.csv unreadable: ${err.message}`); }
  } else {
    problems.push('no results.csv: no answers to judge');
  }
  return judged(c, problems);
}

// The criterion of a run whose answers only its stream logs hold (measure/stream-answers.js folded them,
// with T read here: withinSeconds). A comet stream is judged on the time to its head (the E line's 12th
// field); a log without it leaves no comet answer to judge, and `problem` says so.
function answerCriterionOfStreamLogs(c, run, env = process.env) {
  const { problem } = withinSeconds(env);
  const problems = problem ? [problem] : [];
  if (isHeldStream(run.type) && c.answers === 0) problems.push(`the stream logs do not record when a ${run.type} stream's head came: its answers are not judged`);
  return judged(c, problems);
}

module.exports = { AnswerCriterion, answerCriterionOfCsv, answerCriterionOfStreamLogs, withinSeconds, allowance, WITHIN_SECONDS_DEFAULT, QUANTILE, MAX_ERROR_SHARE };
