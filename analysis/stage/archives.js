'use strict';
// Stage 2, archives: every engine's response archive (read/responses.js), one after the other through one
// collector (measure/collect.js), which folds each record into time lines, emit cycles and message
// counts. Each record that carries an event also gives a trip time (measure/trip-time.js): from its
// arrival where the push sampler stamped one, else from the end of its JMeter sample (polls only).
// Study 3.4.1.
const { readArchive } = require('../read/responses');
const { createCollector } = require('../measure/collect');
const { TripTimes } = require('../measure/trip-time');
const { pullEvents } = require('../measure/pull-messages');

// files: the archives; baseMs: the first time the time lines keep (stage/clock.js timelineBase);
// sampleEnds: the request samples' ends (stage/samples.js), or null.
// Returns { col (the collector's result), trips (long polls and pulls), cometTrips, stats (one per archive) }.
async function readArchives(files, { baseMs, sampleEnds }) {
  const collector = createCollector(baseMs);
  const trips = new TripTimes(baseMs);
  const cometTrips = new TripTimes(baseMs);
  const sampleEnd = (st) => (sampleEnds ? sampleEnds.get(st.engine, st.name) : null);
  const visitor = { ...collector.visitor, record(obj, type, st) {
    collector.visitor.record(obj, type, st);
    if (type === 'pull') for (const e of pullEvents(obj)) trips.add(st.arrivalMs ?? sampleEnd(st), e.timings?.created, { engine: st.engine, event: e });
    if (type !== 'event') return;
    const trip = { engine: st.engine, event: obj.response.event };   // whose clock, which emit cycle
    if (st.arrivalMs !== undefined) (st.type === 'comet' ? cometTrips : trips).add(st.arrivalMs, obj.response.event.timings?.created, trip);
    else if (st.type === 'poll' && sampleEnds) trips.add(sampleEnd(st), obj.response.event.timings?.created, trip);
  } };
  const stats = [];
  for (const file of files) stats.push(await readArchive(file, visitor));
  return { col: collector.result(), trips, cometTrips, stats };
}

module.exports = { readArchives };
