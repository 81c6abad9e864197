'use strict';
// What the analysis takes from the response archives (study 3.4.1): a collector (collect.js) of every
// record, the trip times (trip-time.js) of long polls and pulls and those of held streams (comet, SSE and WebSocket,
// lib/test-types.js: cometTrips, the summary's tripTime.comet), and the answers that only the stream logs
// record (stream-answers.js: the mux engine's). Each record that carries an event gives a trip time: from
// its arrival where the push sampler stamped one, else from the end of its JMeter sample (polls only). A
// replay record (a resumed SSE or WebSocket stream's) gives none: its delay is the reconnection's, and the cycle it
// brings was no live delivery (collect.js counts it as a message, once). Fed by read/responses.js's
// visitor; one per archive, each in a worker thread (stage/archive-worker.js), their partial results merged
// in archive order (stage/archives.js).
const { Collector } = require('./collect');
const { TripTimes } = require('./trip-time');
const { pullEvents } = require('./pull-messages');
const { StreamAnswers } = require('./stream-answers');
const { isHeldStream } = require('../../lib/test-types');

class ArchiveMeasures {
  // baseMs: the first time the time lines keep (stage/clock.js timelineBase); sampleEnds: the request
  // samples' ends (trip-time.js SampleEnds), or null; bases: the time lines' bases already fixed (bases()):
  // the collector's by name, answerErrors the answers' errors' (without one, baseMs); criterion: { run,
  // seconds } of the capacity criterion (stream-answers.js)
  constructor(baseMs, { sampleEnds = null, bases = {}, criterion = {} } = {}) {
    const collector = new Collector(baseMs, bases);
    const trips = new TripTimes(baseMs);
    const cometTrips = new TripTimes(baseMs);
    const answers = new StreamAnswers(bases.answerErrors ?? baseMs, criterion);
    Object.assign(this, { collector, trips, cometTrips, answers });
    const sampleEnd = (st) => (sampleEnds ? sampleEnds.get(st.engine, st.name) : null);
    const collect = collector.visitor;
    this.visitor = { ...collect,
      endStream(st) {
        collect.endStream(st);
        answers.ended(st);
      },
      event(f, st) {
        collect.event(f, st);
        if (st.arrivalMs !== undefined) (isHeldStream(st.type) ? cometTrips : trips).add(st.arrivalMs, f.eventCreated, st.engine, f.name, f.cycle);
        else if (st.type === 'poll' && sampleEnds) trips.add(sampleEnd(st), f.eventCreated, st.engine, f.name, f.cycle);
      },
      record(obj, type, st) {
        collect.record(obj, type, st);
        if (type !== 'pull') return;
        for (const e of pullEvents(obj)) trips.add(st.arrivalMs ?? sampleEnd(st), e.timings?.created, st.engine, e.name, e.cycle);
      } };
  }

  // The time lines' bases fixed so far: what the measures of a later archive are given (constructor).
  bases() {
    return { ...this.collector.bases(), answerErrors: this.answers.samples.errorTimeline.base };
  }

  // Plain data of everything so far (structured-clone-able).
  partial() {
    return { collector: this.collector.partial(), trips: this.trips.partial(), cometTrips: this.cometTrips.partial(),
      answers: this.answers.partial() };
  }

  // Adds the partial of later archives (partial()).
  merge(p) {
    this.collector.merge(p.collector);
    this.trips.merge(p.trips);
    this.cometTrips.merge(p.cometTrips);
    this.answers.merge(p.answers);
  }

  // { col (the collector's result), trips (long polls and pulls), cometTrips, answers (stream-answers.js) }
  result() {
    return { col: this.collector.result(), trips: this.trips, cometTrips: this.cometTrips, answers: this.answers };
  }
}

module.exports = { ArchiveMeasures };
