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

module.exports = { clockOffset, serverToClient, bestOffset };
