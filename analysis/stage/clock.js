'use strict';
// Stage 3, clocks: elapsed time 0 of the run (client clock), the clock offset between the engines and the
// server (measure/clock-offset.js; protocol.md "Time stamper"), and the run's time axis: the seconds it
// covers, the second the load began and its steady window (measure/workload.js). Every per-second data
// set of study 3.4.1 is indexed on this axis.
const path = require('node:path');
const { bestOffset, offsetsByEngine, offsetDrift } = require('../measure/clock-offset');
const { steadyWindow } = require('../measure/workload');
const { STAMP_RESOLUTION_MS } = require('../measure/client-threads');

const MAX_SECONDS = 48 * 3600;
// Server times are kept from an hour before the run start: engine and server clocks need not agree.
const MARGIN_MS = 3600 * 1000;

// The first time (ms) a time line keeps, or null while the run start is unknown.
const timelineBase = (t0) => (t0 === null ? null : t0 - MARGIN_MS);

// Elapsed time 0 as the run and its samples tell it: run.json's startedAt, else the first JMeter sample,
// else null (the server's records decide: runClock). Returns { t0, notes }.
function clientStart(run, csv) {
  if (Number.isFinite(run.startedAt)) return { t0: run.startedAt, notes: [] };
  if (csv?.first !== null && csv?.first !== undefined) {
    return { t0: csv.first, notes: ['run.json has no startedAt: the run start is the first JMeter sample'] };
  }
  return { t0: null, notes: [] };
}

// Pairs each time-stamp answer from an archive with its JMeter sample to learn the round trip: same file
// name, saved by the same engine (the engine in the sample's responseFile path, as for the trip time:
// two engines on one address both save timestamp_1). Samples whose path has another shape fall back on
// the engine's address in the thread name, then on the first of that name; its stamps are whole ms. The
// push sampler's exchange carries its own round trip, stamped in µs (read/responses.js).
function offsetMeasurements(timestamps, rows, engines) {
  return timestamps.map((ts) => {
    if (ts.sentUs !== undefined) {
      return { server: ts.server, client: ts.sentUs / 1000, elapsed: (ts.arrivalUs - ts.sentUs) / 1000, engine: ts.engine,
        atMs: ts.arrivalUs / 1000 };
    }
    const base = path.posix.basename(ts.name);
    const candidates = rows.filter((r) => r.file === base);
    const address = engines.find((e) => e.name === ts.engine)?.address;
    const unplaced = candidates.filter((r) => r.engine === '');
    const row = candidates.find((r) => r.engine !== '' && r.engine === ts.engine)
      ?? unplaced.find((r) => address && r.threadName.includes(address)) ?? unplaced[0];
    const client = Number.isFinite(ts.client) ? ts.client : row?.timeStamp;
    return { server: ts.server, client, elapsed: row ? row.elapsed : null, clientResolutionMs: STAMP_RESOLUTION_MS, engine: ts.engine };
  });
}

// The clock offset (server - client; 0 without a time-stamp answer) and the run start once it is known:
// without one so far, the first server record moved onto the client clock, else 0.
// Returns { t0, offset, best (bestOffset's, or null), byEngine (each engine's own: offsetsByEngine), drift
// (offsetDrift's), notes }.
function runClock({ t0, timestamps, firstServer, timestampRows, engines }) {
  const measurements = offsetMeasurements(timestamps, timestampRows, engines);
  const best = bestOffset(measurements);
  const offset = best ? best.offset : 0;
  const notes = [];
  if (!best) notes.push('no time-stamp answer: server and client clocks are taken as equal');
  else if (best.elapsed === null) notes.push('time-stamp answer without its JMeter sample: round trip unknown');
  let start = t0;
  if (start === null && firstServer !== null) {
    start = firstServer - offset;
    notes.push('no run start known: elapsed time counts from the first server record');
  }
  return { t0: start ?? 0, offset, best, byEngine: offsetsByEngine(measurements), drift: offsetDrift(measurements), notes };
}

// The run's time axis. seconds: the longest of what the SUT's vmstat, the server's records and
// connections, run.json's start and finish and the JMeter samples cover (at most MAX_SECONDS).
// loadStartMs: the first request sample (client ms), else the first request the server saw (on the client's
// clock), else null; loadStartSecond: its second on the axis (0 without it); runs are lined up on it in
// comparisons, since run.sh's start-up steps take different times per server. window: the steady window
// from it (measure/workload.js), over which every rate of the summary counts.
// col: the archives' collector result; vmstatSeconds: the SUT's vmstat samples.
function timeAxis({ run, csv, col, vmstatSeconds, t0, offset }) {
  const candidates = [vmstatSeconds,
    col.timelines.records.lastSecond(t0, offset) + 1,
    col.timelines.connections.lastSecond(t0, offset) + 1];
  if (Number.isFinite(run.finishedAt) && Number.isFinite(run.startedAt)) candidates.push(Math.ceil((run.finishedAt - run.startedAt) / 1000));
  if (csv?.last) candidates.push(Math.ceil((csv.last - t0) / 1000));
  const seconds = Math.min(MAX_SECONDS, Math.max(1, ...candidates.filter(Number.isFinite)));
  const loadStartMs = csv?.firstRequest ? csv.firstRequest : col.firstServer !== null ? col.firstServer - offset : null;
  const loadStartSecond = loadStartMs === null ? 0 : Math.max(0, Math.floor((loadStartMs - t0) / 1000));
  return { seconds, loadStartMs, loadStartSecond, window: steadyWindow(run, loadStartSecond, seconds) };
}

module.exports = { timelineBase, clientStart, offsetMeasurements, runClock, timeAxis };
