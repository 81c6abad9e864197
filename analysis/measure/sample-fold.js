'use strict';
// The fold of a run's samples (study 3.4.1): what the later stages need of them, taken one sample at a time
// whatever its source, so that each rule has one place: results.csv's rows (stage/samples.js) and the answers
// that only the stream logs hold (the mux engine's: measure/stream-answers.js). A sample is
// { timeStamp, elapsed (ms, engine clock; a fraction is kept), label, success, failureMessage, threadName,
// responseFile (or null), sampleCount, errorCount (or null) } (read/jmeter-csv.js toSample's fields).
// Folded: counts by label, failures (errors, by kind: errorKind, and timeout failures: read/jmeter-csv.js isTimeoutAssertion),
// the errors in time (at each one's end), the first and last times and the first request, the request
// samples' ends by saved-response file (measure/trip-time.js SampleEnds: runs of one file per sample), each
// thread's requests and its connection's first connect (measure/client-threads.js) and the time-stamp samples' rows (the clock offset,
// stage/clock.js).
// The engines' summary samples (read/jmeter-csv.js SUMMARY_LABEL) are no samples and count nowhere else:
// their SampleCount and ErrorCount are summed apart (summaries), to be checked against the stream logs'
// answers (stage/samples.js answerTotals).
// partial() and merge(): a fold of other samples (a worker's) added, as one fold over both would give.
const { responseFilePlace, isTimeoutAssertion, SUMMARY_LABEL } = require('../read/jmeter-csv');
const { Timeline } = require('./timeline');
const { SampleEnds } = require('./trip-time');
const { ClientThreads, STAMP_RESOLUTION_MS } = require('./client-threads');

// The kinds of error kept apart; beyond them errors count as OTHER_KIND.
const MAX_ERROR_KINDS = 20;
const OTHER_KIND = 'other kinds';

// The kind of a failed sample (not a timeout failure): its HTTP status outside 2xx/3xx ("HTTP 503"), else its
// response code when it names the network error ("Non HTTP response code: java.net.ConnectException"), else
// its failure message; numbers in a message read <n>, so that one cause is one kind.
function errorKind(s) {
  const code = String(s.responseCode ?? '');
  const isStatus = /^[1-5][0-9][0-9]$/.test(code);
  if (isStatus && !/^[23]/.test(code)) return `HTTP ${code}`;
  const text = isStatus ? s.failureMessage || `HTTP ${code}` : code || s.failureMessage || 'no message';
  return text.replace(/[0-9]+/g, '<n>').slice(0, 100);
}

const earlier = (a, b) => (a === null || (b !== null && b < a) ? b : a);
const later = (a, b) => (a === null || (b !== null && b > a) ? b : a);

class SampleFold {
  // baseMs: the first time the error time line keeps (stage/clock.js timelineBase), or null (it anchors on
  // its first error); resolutionMs: how finely the source stamps its samples (client-threads.js)
  constructor(baseMs, resolutionMs = STAMP_RESOLUTION_MS) {
    this.rows = 0;                 // samples folded
    this.badRows = 0;              // results.csv's damaged rows (stage/samples.js sets them, with damage)
    this.byLabel = {};             // label -> { samples, failed }
    this.failed = 0;
    this.errors = 0;
    this.timeoutFailures = 0;
    this.errorKinds = {};          // errorKind -> errors of that kind
    this.first = null;             // the earliest start, the latest end, the earliest request's start (ms)
    this.last = null;
    this.firstRequest = null;
    this.timestampRows = [];
    this.errorTimeline = new Timeline(baseMs, 'sum');
    this.sampleEnds = new SampleEnds();
    this.clientThreads = new ClientThreads(resolutionMs);
    // the engines' summary samples: rows, the sums of their SampleCount and ErrorCount, and the rows
    // without a number in either (not summed)
    this.summaries = { rows: 0, answers: 0, failed: 0, uncounted: 0 };
  }

  // One sample of either source.
  add(s) {
    if (s.label === SUMMARY_LABEL) { this.addSummary(s); return; }
    this.rows++;
    const end = s.timeStamp + s.elapsed;
    this.first = earlier(this.first, s.timeStamp);
    if (s.label === 'request') this.firstRequest = earlier(this.firstRequest, s.timeStamp);
    this.last = later(this.last, end);
    const l = (this.byLabel[s.label] ??= { samples: 0, failed: 0 });
    l.samples++;
    if (!s.success) {
      this.failed++;
      l.failed++;
      if (isTimeoutAssertion(s.failureMessage)) this.timeoutFailures++;
      else {
        this.errors++;
        this.errorTimeline.add(end);
        this.countKind(errorKind(s), 1);
      }
    }
    if (s.label === 'request' && s.responseFile) this.sampleEnds.add(s.responseFile, end);
    if (s.label === 'request') this.clientThreads.add(s.threadName, s.timeStamp, s.elapsed);
    if (s.label === 'request' && Number.isFinite(s.connectedMs)) this.clientThreads.connected(s.connectedMs);
    if (s.label === 'timestamp' && s.responseFile) {
      const { engine, file } = responseFilePlace(s.responseFile);
      this.timestampRows.push({ file, engine, threadName: s.threadName, timeStamp: s.timeStamp, elapsed: s.elapsed });
    }
  }

  countKind(kind, n) {
    const k = kind in this.errorKinds || Object.keys(this.errorKinds).length < MAX_ERROR_KINDS ? kind : OTHER_KIND;
    this.errorKinds[k] = (this.errorKinds[k] ?? 0) + n;
  }

  // A summary sample: the answers that ended in its interval (SampleCount) and the failed ones (ErrorCount).
  addSummary(s) {
    const m = this.summaries;
    m.rows++;
    if (!Number.isFinite(s.sampleCount) || !Number.isFinite(s.errorCount)) { m.uncounted++; return; }
    m.answers += s.sampleCount;
    m.failed += s.errorCount;
  }

  // Plain data of the fold (structured-clone-able). Sample ends are left out: only results.csv's runs of one
  // file per sample have them, and those are folded on the main thread, never merged.
  partial() {
    const { rows, byLabel, failed, errors, timeoutFailures, errorKinds, first, last, firstRequest, timestampRows, summaries } = this;
    return { rows, byLabel, failed, errors, timeoutFailures, errorKinds, first, last, firstRequest, timestampRows, summaries,
      errorTimeline: this.errorTimeline.partial(), clientThreads: this.clientThreads.partial() };
  }

  // Adds a fold of other samples (partial()). Its error time line must count from this one's base (or
  // either may have none yet: Timeline.merge).
  merge(p) {
    for (const k of ['rows', 'failed', 'errors', 'timeoutFailures']) this[k] += p[k];
    for (const [kind, n] of Object.entries(p.errorKinds ?? {})) this.countKind(kind, n);
    for (const [label, l] of Object.entries(p.byLabel)) {
      const mine = (this.byLabel[label] ??= { samples: 0, failed: 0 });
      mine.samples += l.samples;
      mine.failed += l.failed;
    }
    this.first = earlier(this.first, p.first);
    this.last = later(this.last, p.last);
    this.firstRequest = earlier(this.firstRequest, p.firstRequest);
    for (const r of p.timestampRows) this.timestampRows.push(r);
    for (const k of Object.keys(this.summaries)) this.summaries[k] += p.summaries[k];
    this.errorTimeline.merge(p.errorTimeline);
    this.clientThreads.merge(p.clientThreads);
  }
}

module.exports = { SampleFold, errorKind };
