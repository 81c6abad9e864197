'use strict';
// Stage 1, samples: JMeter's results.csv (read/jmeter-csv.js) in one pass, folded (measure/sample-fold.js)
// into what later stages need of it: sample counts by label, failures (errors, and timeout failures:
// read/jmeter-csv.js isTimeoutAssertion), errors per second, the end of every request sample (the trip-time
// join, measure/trip-time.js), each thread's requests (measure/client-threads.js) and the time-stamp
// samples' round trips (the clock offset, stage/clock.js). Study 3.4.1.
// Stage 2b, answers (after the archives): with the mux engine the answers are no JMeter samples; results.csv
// holds the engines' summary samples instead, and the stream logs alone record each answer
// (measure/stream-answers.js, folded in the archives' workers). joinAnswers adds those to results.csv's
// other samples through the same fold, and answerTotals checks them against the summaries' counts.
// results.csv is read before the archives because they need its request samples' ends (runs of one file
// per sample) and the run start it may give; the answers join right after them, before the clocks.
const { readResultsCsv } = require('../read/jmeter-csv');
const { SampleFold } = require('../measure/sample-fold');

// file: results.csv or null; baseMs: the first time the error time line keeps (stage/clock.js timelineBase).
// Returns { csv (a SampleFold; null without a readable file), problem }.
async function readSamples(file, baseMs) {
  if (file === null) return { csv: null, problem: null };
  const csv = new SampleFold(baseMs);
  let counts;
  try {
    counts = await readResultsCsv(file, (s) => csv.add(s));
  } catch (err) {
    return { csv: null, problem: `results.csv unreadable: ${err.message}` };
  }
  csv.badRows = counts.badRows;
  csv.damage = counts.damage;
  return { csv, problem: null };
}

// Where a run's answers are read from (docs/run-layout.md "Stream logs"): results.csv's request samples
// when it has any (a sample per answer); else the stream logs' when results.csv holds the engines' summary
// samples or the stream logs hold answers with their verdicts (with or without a results.csv). Returns
// 'results.csv', 'stream logs', or null (no answers anywhere, no results.csv).
// csv: readSamples'; answers: stage/archives.js's (measure/stream-answers.js).
function answersSource(csv, answers) {
  if (csv?.byLabel.request) return 'results.csv';
  if (csv?.summaries.rows > 0 || answers.counts.answers > 0) return 'stream logs';
  return csv ? 'results.csv' : null;
}

// The run's samples with its answers. From the stream logs, their fold is added to results.csv's (its
// Init, Clean Up and time-stamp samples stay as they are), or stands alone without a results.csv.
// Returns { csv (the fold the later stages read, or null), source (answersSource) }.
function joinAnswers(csv, answers) {
  const source = answersSource(csv, answers);
  if (source !== 'stream logs') return { csv, source };
  const joined = csv ?? new SampleFold(null);
  joined.merge(answers.samples.partial());
  return { csv: joined, source };
}

const n = (v) => v.toLocaleString('en-US');

// The totals check of a run with the engines' summary samples: the answers (and failed ones) they count
// against those the stream logs hold. A difference is data lost between an engine and its archive (or
// summary samples lost on their way to results.csv). Returns null without summary samples, else
// { summaries: { rows, answers, failed, uncounted }, streamLogs: { answers, failed }, agree (null when
// summaries without counts leave it unknown), problem (null when they agree) }.
function answerTotals(csv, answers) {
  const summaries = csv?.summaries;
  if (!summaries || summaries.rows === 0) return null;
  const streamLogs = answers.counts;
  if (summaries.uncounted > 0) {
    return { summaries, streamLogs, agree: null,
      problem: `${n(summaries.uncounted)} of ${n(summaries.rows)} summary samples without SampleCount or ErrorCount: the answers' totals are not checked` };
  }
  const agree = summaries.answers === streamLogs.answers && summaries.failed === streamLogs.failed;
  return { summaries, streamLogs, agree, problem: agree ? null
    : `answers lost: the stream logs hold ${n(streamLogs.answers)} answers (${n(streamLogs.failed)} failed), `
      + `the engines' summaries count ${n(summaries.answers)} (${n(summaries.failed)} failed)` };
}

module.exports = { readSamples, joinAnswers, answersSource, answerTotals };
