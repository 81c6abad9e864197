'use strict';
// Stage 1, samples: JMeter's results.csv (read/jmeter-csv.js) in one pass, folded into what later stages
// need of it: sample counts by label, failures (errors, and timeout failures: read/jmeter-csv.js
// isTimeoutAssertion), errors per second, the end of every request sample (the trip-time join,
// measure/trip-time.js), each thread's requests (measure/client-threads.js) and the time-stamp samples'
// round trips (the clock offset, stage/clock.js). Study 3.4.1.
const { readResultsCsv, responseFilePlace, isTimeoutAssertion } = require('../read/jmeter-csv');
const { Timeline } = require('../measure/timeline');
const { SampleEnds } = require('../measure/trip-time');
const { ClientThreads } = require('../measure/client-threads');

// file: results.csv or null; baseMs: the first time the error time line keeps (stage/clock.js timelineBase).
// Returns { csv (null without a readable file), problem }.
async function readSamples(file, baseMs) {
  if (file === null) return { csv: null, problem: null };
  const csv = { rows: 0, badRows: 0, byLabel: {}, failed: 0, errors: 0, timeoutFailures: 0, first: null, last: null, firstRequest: null,
    timestampRows: [], errorTimeline: new Timeline(baseMs, 'sum'), sampleEnds: new SampleEnds(), clientThreads: new ClientThreads() };
  let counts;
  try {
    counts = await readResultsCsv(file, (s) => addSample(csv, s));
  } catch (err) {
    return { csv: null, problem: `results.csv unreadable: ${err.message}` };
  }
  csv.rows = counts.rows;
  csv.badRows = counts.badRows;
  csv.damage = counts.damage;
  return { csv, problem: null };
}

function addSample(csv, s) {
  const end = s.timeStamp + s.elapsed;
  if (csv.first === null || s.timeStamp < csv.first) csv.first = s.timeStamp;
  if (s.label === 'request' && (csv.firstRequest === null || s.timeStamp < csv.firstRequest)) csv.firstRequest = s.timeStamp;
  if (csv.last === null || end > csv.last) csv.last = end;
  const l = (csv.byLabel[s.label] ??= { samples: 0, failed: 0 });
  l.samples++;
  if (!s.success) {
    csv.failed++;
    l.failed++;
    if (isTimeoutAssertion(s.failureMessage)) csv.timeoutFailures++;
    else { csv.errors++; csv.errorTimeline.add(end); }
  }
  if (s.label === 'request' && s.responseFile) csv.sampleEnds.add(s.responseFile, end);
  if (s.label === 'request') csv.clientThreads.add(s.threadName, s.timeStamp, s.elapsed);
  if (s.label === 'timestamp' && s.responseFile) {
    const { engine, file } = responseFilePlace(s.responseFile);
    csv.timestampRows.push({ file, engine, threadName: s.threadName, timeStamp: s.timeStamp, elapsed: s.elapsed });
  }
}

module.exports = { readSamples };
