'use strict';
// Stage 5, emit cycles: every (event, cycle) the archives showed, on the run's time axis, with how long
// its emit loop took (the largest event.timings.duration of its records) and how many requests it reached;
// the per-second emit duration and requests per cycle (the study's emit charts, 3.4.2) at each cycle's
// start second; and emit duration by place in the queue.
const { r2 } = require('../measure/per-second');

// col: the archives' collector result; clock: { t0, offset }; seconds: the time axis' length.
// Returns { cycles (in time order), startsMs (each cycle's start on the client clock, ms, unrounded), emitDuration,
// requestsPerCycle, places }.
function emitCycles(col, { t0, offset }, seconds) {
  const created = [...col.cycles.values()].filter((c) => Number.isFinite(c.created))
    .sort((a, b) => a.created - b.created || a.cycle - b.cycle);
  const startsMs = created.map((c) => c.created - offset);
  const cycles = created.map((c) => ({ event: c.name, cycle: c.cycle, createdSecond: r2((c.created - offset - t0) / 1000),
    duration: Number.isFinite(c.duration) ? c.duration : null, requests: c.requests, total: c.total }));
  const emitDuration = new Array(seconds).fill(null);
  const requestsPerCycle = new Array(seconds).fill(null);
  for (const c of cycles) {
    const s = Math.floor(c.createdSecond);
    if (s < 0 || s >= seconds) continue;
    if (c.duration !== null) emitDuration[s] = Math.max(emitDuration[s] ?? 0, c.duration);
    requestsPerCycle[s] = Math.max(requestsPerCycle[s] ?? 0, c.requests);   // two cycles in one second: the larger
  }
  const places = {
    meanDuration: col.places.count.map((n, i) => (n ? r2(col.places.sum[i] / n) : null)),
    maxDuration: col.places.count.map((n, i) => (n ? col.places.max[i] : null)),
    count: col.places.count,
  };
  return { cycles, startsMs, emitDuration, requestsPerCycle, places };
}

module.exports = { emitCycles };
