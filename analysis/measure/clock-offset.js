'use strict';
// Clock offset between a load engine and the server (protocol.md, "Time stamper"). The server read its
// clock about half-way through the round trip JMeter measured, so
//   offset = server - client - elapsed / 2
// and a server time t corresponds to the client time t - offset.

function clockOffset({ server, client, elapsed }) {
  return server - client - (elapsed || 0) / 2;
}

function serverToClient(serverMs, offset) {
  return serverMs - offset;
}

// Picks the best of several time-stamp measurements: the one with the shortest round trip has the
// smallest error bound (elapsed / 2).
function bestOffset(measurements) {
  const usable = measurements.filter((m) => Number.isFinite(m.server) && Number.isFinite(m.client));
  if (usable.length === 0) return null;
  usable.sort((a, b) => (a.elapsed ?? Infinity) - (b.elapsed ?? Infinity));
  const m = usable[0];
  return { offset: clockOffset(m), elapsed: m.elapsed ?? null, errorBoundMs: m.elapsed == null ? null : m.elapsed / 2,
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
  const r3 = (v) => Math.round(v * 1000) / 1000;
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

module.exports = { clockOffset, serverToClient, bestOffset, offsetsByEngine, engineOffsets, offsetDrift };
