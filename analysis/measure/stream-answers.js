'use strict';
// The answers the stream logs alone record (study 3.4.1): with the mux engine or the push sampler no answer
// is a results.csv row, and each one is a B ... E pair of label `request` in its engine's stream log whose E
// line carries the 11th field, the answer's verdict against the plan's assertions (docs/run-layout.md
// "Stream logs"). Each such answer becomes the sample results.csv would have held and goes through the same
// folds as results.csv's: measure/sample-fold.js (counts, failures, errors in time, each connection's
// requests) and measure/answer-criterion.js (reference 003's capacity criterion). An E line of 10 fields (an
// older push run's) has no verdict: its sample is in that run's results.csv, and it is not taken here.
// One per archive, in its worker (measure/archive-measures.js); partial() / merge() as the collector's.
const { SampleFold } = require('./sample-fold');
const { AnswerCriterion } = require('./answer-criterion');
const { MICROS_RESOLUTION_MS } = require('./client-threads');

// The sample of one answer, from its stream-log sample st (read/responses.js: engine, thread and beganUs
// from its B line, endUs, responseCode, ok and failure from its E line): start B, elapsed E - B, in ms with
// the µs kept. Its connection is the engine's thread (a B line's thread is unique per engine only). Its
// latency, as JMeter's: from B to the answer's head (the E line's 12th field), null where the log has none.
// connectedMs: when its connection's first connect completed (the C line, ms with the µs kept), on the one
// sample per connection that has it, else null.
function answerSample(st) {
  const timeStamp = st.beganUs / 1000;
  const latency = Number.isFinite(st.headersUs) ? (st.headersUs - st.beganUs) / 1000 : null;
  return { timeStamp, elapsed: (st.endUs - st.beganUs) / 1000, label: 'request', responseCode: st.responseCode,
    success: st.ok, failureMessage: st.failure, threadName: `${st.engine} ${st.thread}`, latency, responseFile: null,
    sampleCount: 1, errorCount: st.ok ? 0 : 1, connectedMs: Number.isFinite(st.connectedUs) ? st.connectedUs / 1000 : null };
}

class StreamAnswers {
  // errorsBaseMs: the first time the errors' time line keeps (it must be that of the fold the answers join:
  // stage/samples.js); criterion: { run, seconds } (answer-criterion.js: the run's type and T)
  constructor(errorsBaseMs, { run = {}, seconds } = {}) {
    this.samples = new SampleFold(errorsBaseMs, MICROS_RESOLUTION_MS);
    this.criterion = new AnswerCriterion(run, seconds);
  }

  // A sample of a stream log ended (read/responses.js endStream): taken when it is an answer with its verdict.
  ended(st) {
    if (st.kind !== 'request' || typeof st.failure !== 'string' || !Number.isFinite(st.endUs) || !Number.isFinite(st.beganUs)) return;
    const s = answerSample(st);
    this.samples.add(s);
    this.criterion.add(s);
  }

  // The answers taken: byLabel.request of the fold, or none.
  get counts() {
    const r = this.samples.byLabel.request;
    return { answers: r?.samples ?? 0, failed: r?.failed ?? 0 };
  }

  partial() {
    return { samples: this.samples.partial(), criterion: this.criterion.partial() };
  }

  merge(p) {
    this.samples.merge(p.samples);
    this.criterion.merge(p.criterion);
  }
}

module.exports = { StreamAnswers, answerSample };
