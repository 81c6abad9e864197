'use strict';
// Stage 6, series: the per-second data set of the run (data/series.json, study 3.4.1): the SUT host's CPU,
// steal and memory, the server process' CPU and RSS, connections, responses, events, timeouts, clears,
// errors, emit duration, requests per cycle and the trip times (analysis/README.md defines each).
const { memoryPercent } = require('../read/vmstat');
const { memorySeries } = require('../read/memory-log');
const { pad, forwardFill, r2 } = require('../measure/per-second');

// sut: stage/monitors.js readSutMonitors'; col: the archives' collector result; csv: stage/samples.js';
// trips, cometTrips: stage/archives.js'; clock: { t0, offset, best }; axis: { seconds, window };
// emit: stage/cycles.js'. Returns { series, tripTime, cometTrip (its summary), tripCycles (the figures per
// emit cycle of each), tails (each one's records beyond p99 per second: TripTimes.result's tail), cometSeries
// (the comet records' mean and max per second), notes }.
function perSecondSeries({ sut, col, csv, trips, cometTrips, clock, axis, emit }) {
  const { t0, offset } = clock;
  const { seconds, window } = axis;
  const tl = col.timelines;
  const perSecond = (timeline) => timeline.toSeconds(t0, seconds, offset);
  const server = processSeries(sut.pidstat, clock, seconds);
  const responses = perSecond(tl.records);
  let total = 0;
  const errorBoundMs = clock.best?.errorBoundMs ?? null;
  const tripTime = trips.result(offset, t0, seconds, errorBoundMs, window, clock.byEngine);
  const cometTrip = cometTrips.result(offset, t0, seconds, errorBoundMs, window, clock.byEngine);
  const series = {
    cpu: pad(sut.vmstat.samples.map((s) => s.cpu), seconds),
    steal: pad(sut.vmstat.samples.map((s) => s.steal), seconds),
    memory: memoryOf(sut, clock, seconds),
    processCpu: server.cpu,
    processRssMB: server.rssMB.map(r2),
    connections: forwardFill(perSecond(tl.connections)),
    responses,
    responsesCumulative: responses.map((v) => (total += v)),
    events: perSecond(tl.events),
    timeouts: perSecond(tl.timeouts),
    clears: perSecond(tl.clears),
    errors: csv ? csv.errorTimeline.toSeconds(t0, seconds, 0) : new Array(seconds).fill(0),
    emitDuration: emit.emitDuration,
    requestsPerCycle: emit.requestsPerCycle,
    tripMean: tripTime.series.mean,
    tripMax: tripTime.series.max,
  };
  return { series, tripTime, cometTrip: cometTrip.summary, tripCycles: { poll: tripTime.cycles, comet: cometTrip.cycles },
    tails: { tripTime: tripTime.tail, comet: cometTrip.tail }, cometSeries: cometTrip.series, notes: server.notes };
}

// Memory % in use per second, from the source the monitors stage chose.
function memoryOf(sut, { t0, offset }, seconds) {
  if (sut.memorySource === 'memory.log') return memorySeries(sut.memoryLog.samples, t0, offset, seconds).map(r2);
  if (sut.memorySource === 'vmstat') return pad(sut.vmstat.samples.map((s) => r2(memoryPercent(s.active, sut.memTotalMB))), seconds);
  return new Array(seconds).fill(null);
}

// The server process' %CPU and RSS per second. A pidstat sample closes its second and is placed by its
// time on the run's clock; when those times do not fit the run, the samples go one per second from 0.
function processSeries(pidstat, { t0, offset }, seconds) {
  const cpu = new Array(seconds).fill(null);
  const rssMB = new Array(seconds).fill(null);
  const notes = [];
  const pidSecond = (s) => Math.round((s.epochMs - offset - t0) / 1000) - 1;
  const aligned = pidstat.samples.length > 0 && pidstat.samples[0].epochMs !== null
    && pidSecond(pidstat.samples[0]) > -120 && pidSecond(pidstat.samples[0]) < seconds;
  if (pidstat.samples.length > 0 && !aligned) notes.push('pidstat times do not match the run: samples placed one per second from the start');
  pidstat.samples.forEach((s, i) => {
    const sec = aligned ? pidSecond(s) : i;
    if (sec >= 0 && sec < seconds) { cpu[sec] = s.cpu; rssMB[sec] = s.rssMB; }
  });
  return { cpu, rssMB, notes };
}

module.exports = { perSecondSeries, processSeries };
