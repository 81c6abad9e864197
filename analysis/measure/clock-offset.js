'use strict';
// Clock offset between a load engine and the server (protocol.md, "Time stamper"). The server read its
// clock about half-way through the round trip the engine measured, so
//   offset = server - client - elapsed / 2
// and a server time t corresponds to the client time t - offset.
// Stamps in whole ms stand for the ms they name: a server time s was read in [s, s + 1), so s + 0.5 is
// used, and the error bound is half the round trip plus half of each whole-ms stamp's resolution. The
// server's times are always whole ms (protocol.md); the engine's are whole ms from JMeter (__time(),
// results.csv's elapsed), µs from the push sampler (clientResolutionMs 0).
const { r3 } = require('./per-second');

const SERVER_RESOLUTION_MS = 1;

function clockOffset({ server, client, elapsed, clientResolutionMs = 0 }) {
  return server + SERVER_RESOLUTION_MS / 2 - (client + clientResolutionMs / 2) - (elapsed || 0) / 2;
}

// How far the true offset can lie from clockOffset's (ms, to the µs the finest stamps carry): null while
// the round trip is unknown.
function offsetErrorBound({ elapsed, clientResolutionMs = 0 }) {
  if (elapsed == null) return null;
  return Math.round((elapsed / 2 + (SERVER_RESOLUTION_MS + clientResolutionMs) / 2) * 1000) / 1000;
}

function serverToClient(serverMs, offset) {
  return serverMs - offset;
}

// Picks the best of several time-stamp measurements: the one with the smallest error bound (the shortest
// round trip, stamps alike).
function bestOffset(measurements) {
  const usable = measurements.filter((m) => Number.isFinite(m.server) && Number.isFinite(m.client));
  if (usable.length === 0) return null;
  const bound = (m) => offsetErrorBound(m) ?? Infinity;
  usable.sort((a, b) => bound(a) - bound(b));
  const m = usable[0];
  return { offset: clockOffset(m), elapsed: m.elapsed ?? null, errorBoundMs: offsetErrorBound(m),
    engine: m.engine ?? null, measurements: usable.length };
}

// Each engine's own offset: the best (shortest round trip) of its measurements, since every engine host
// has a clock of its own. Map engine -> bestOffset's answer.
function offsetsByEngine(measurements) {
  const byEngine = new Map();
  for (const m of measurements) {
    if (!byEngine.has(m.engine)) byEngine.set(m.engine, []);
    byEngine.get(m.engine).push(m);
  }
  const out = new Map();
  for (const [engine, list] of byEngine) {
    const best = bestOffset(list);
    if (best) out.set(engine, best);
  }
  return out;
}

// summary.clockOffset.byEngine: each engine's offset (ms), its error bound and how many exchanges gave it;
// nothing for a run without a time-stamp answer.
function engineOffsets(byEngine) {
  if (!byEngine?.size) return {};
  return { byEngine: [...byEngine].map(([engine, b]) => ({ engine, ms: r3(b.offset),
    errorBoundMs: b.errorBoundMs === null ? null : r3(b.errorBoundMs), measurements: b.measurements })) };
}

// Drift of the clock offset over a run, per engine: the best offset (shortest round trip) of the exchanges
// in the first half of the engine's run against that of the second half. Needs exchanges stamped in time
// (atMs: the push sampler's, repeated through the run); null with fewer than two per engine.
function offsetDrift(measurements) {
  const byEngine = new Map();
  for (const m of measurements) {
    if (!Number.isFinite(m.atMs)) continue;
    if (!byEngine.has(m.engine)) byEngine.set(m.engine, []);
    byEngine.get(m.engine).push(m);
  }
  const out = [];
  for (const [engine, list] of byEngine) {
    if (list.length < 2) continue;
    list.sort((a, b) => a.atMs - b.atMs);
    const half = Math.ceil(list.length / 2);
    const early = bestOffset(list.slice(0, half));
    const late = bestOffset(list.slice(half));
    const round = (v) => Math.round(v * 1000) / 1000;
    out.push({ engine, exchanges: list.length, overSeconds: round((list[list.length - 1].atMs - list[0].atMs) / 1000),
      driftMs: round(late.offset - early.offset), errorBoundMs: round(early.errorBoundMs + late.errorBoundMs) });
  }
  return out.length ? out : null;
}

module.exports = { clockOffset, offsetErrorBound, serverToClient, bestOffset, offsetsByEngine, engineOffsets, offsetDrift };
