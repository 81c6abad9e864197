'use strict';
// Every tail attributed (docs/validity.md "The tail"): of the trip times beyond the run's p99 (long polls'
// and pulls' `tripTime`, comet records' `tripTime.comet`; measure/trip-time.js counts them per second of
// arrival), what share arrived in seconds that had
//   enginePause  an engine JVM stopped (a safepoint, or a GC pause where no safepoints are logged) for at
//                least TAIL_PAUSE_MS, any engine;
//   serverPause  the server's JVM (a Tomcat) stopped that long;
//   serverCpu    the server process at or above SATURATED_CPU_PERCENT of what it can use (Node.js: one core;
//                measure/workload.js serverCapacityPercent), or the SUT host at or above SATURATED_CPU_PERCENT;
//   unexplained  none of these.
// A second with several causes counts under each. A stop counts in every second it overlapped (the stop's
// start is its logged end minus its length). An engine's stop that ended before the load began (its JVM
// loading the plan, JMeter's collection before the threads start) held no record back and counts nowhere.
// Records are whole only in total: the records of the bucket that holds p99 are shared out over their
// seconds (measure/trip-time.js TailCounts), so a cause's count is rounded.

const { r3 } = require('./per-second');

// Which elapsed seconds [0, seconds) a stop of at least minMs overlapped; stops: [{ startMs, epochMs,
// pauseMs }] on the run's clock less shiftMs (a server's stops: shiftMs = the clock offset server - client).
function pausedSeconds(stops, startMs, seconds, minMs, shiftMs = 0) {
  const out = new Array(seconds).fill(false);
  for (const s of stops) {
    if (s.pauseMs < minMs) continue;
    const from = Math.max(0, Math.floor((s.startMs - shiftMs - startMs) / 1000));
    const to = Math.min(seconds - 1, Math.floor((s.epochMs - shiftMs - startMs) / 1000));
    for (let i = from; i <= to; i++) out[i] = true;
  }
  return out;
}

// The longest stop (ms) that overlapped [fromMs, toMs) (less shiftMs), or null.
function longest(stops, fromMs, toMs, shiftMs = 0) {
  let max = null;
  for (const s of stops ?? []) {
    if (s.epochMs - shiftMs < fromMs || s.startMs - shiftMs >= toMs) continue;
    if (max === null || s.pauseMs > max) max = s.pauseMs;
  }
  return r3(max);
}

// One kind's tail ({ beyondMs, records, perSecond }: TripTimes.result's) against the seconds of each
// cause (boolean arrays, or null where the cause is unknown). Returns { beyondMs, records, causes }.
function attributeKind(tail, causes) {
  const weights = tail.perSecond;
  const placed = weights.reduce((a, b) => a + b, 0);
  const share = (n) => (placed > 0 ? r3(n / placed) : null);
  const out = {};
  const explained = new Array(weights.length).fill(false);
  for (const [name, seconds] of Object.entries(causes)) {
    if (!seconds) { out[name] = null; continue; }
    let n = 0;
    weights.forEach((w, i) => { if (seconds[i]) { n += w; explained[i] = true; } });
    out[name] = { records: Math.round(n), share: share(n) };
  }
  const none = weights.reduce((a, w, i) => a + (explained[i] ? 0 : w), 0);
  out.unexplained = { records: Math.round(none), share: share(none) };
  return { beyondMs: tail.beyondMs, records: Math.round(placed), causes: out };
}

// tails: { tripTime, comet } (TripTimes.result's tail, or null); engines: [{ name, stops (epoch ms of the
// client clock, read/engines.js) or null, safepointsLogged }]; server: { jvm, stops (epoch ms of the server's
// clock) or null, safepointsLogged }; offset: server - client (ms); processCpu, hostCpu: per second (%);
// capacityPercent: what the server process can use (pidstat %); loadStartMs: the load's first request (client
// ms) or null; t: the validity thresholds.
// Stops are counted (and the longest taken) only within the run's seconds. Returns { summary
// (data/summary.json `tail`, or null without trip times), causes: { enginePause, serverPause, serverCpu }
// (per second: true where the cause was there; null where unknown) }.
function attributeTail({ tails, engines, server, t0, offset, seconds, loadStartMs = null, processCpu, hostCpu, capacityPercent, t }) {
  const minMs = t.TAIL_PAUSE_MS;
  const duringLoad = (stops) => (loadStartMs === null ? stops : stops.filter((s) => s.epochMs >= loadStartMs));
  const logged = engines.filter((e) => e.stops).map((e) => ({ ...e, stops: duringLoad(e.stops) }));
  const engineSeconds = logged.length ? new Array(seconds).fill(false) : null;
  for (const e of logged) pausedSeconds(e.stops, t0, seconds, minMs).forEach((p, i) => { if (p) engineSeconds[i] = true; });
  const serverSeconds = server.stops ? pausedSeconds(server.stops, t0, seconds, minMs, offset) : null;
  const cpuSeconds = Array.from({ length: seconds }, (_, i) => {
    const p = processCpu?.[i];
    const h = hostCpu?.[i];
    return (capacityPercent > 0 && p !== null && p !== undefined && p >= capacityPercent * (t.SATURATED_CPU_PERCENT / 100))
      || (h !== null && h !== undefined && h >= t.SATURATED_CPU_PERCENT);
  });
  const causes = { enginePause: engineSeconds, serverPause: serverSeconds, serverCpu: cpuSeconds };
  const kinds = Object.fromEntries(Object.entries(tails).map(([k, tail]) => [k, tail && tail.records > 0 ? attributeKind(tail, causes) : null]));
  const engineWord = !engines.length ? 'unknown: no engine monitors'
    : logged.length < engines.length ? `unknown for ${engines.length - logged.length} of ${engines.length} engines (no gc.log)`
      : logged.every((e) => e.safepointsLogged) ? 'safepoints' : 'GC pauses (no safepoints logged)';
  const serverWord = !server.jvm ? 'none: not a JVM'
    : !server.stops ? 'unknown: no sut/gc.log' : server.safepointsLogged ? 'safepoints' : 'GC pauses (no safepoints logged)';
  const summary = Object.values(kinds).some(Boolean) ? {
    pauseAtLeastMs: minMs,
    enginePauses: engineWord,
    serverPauses: serverWord,
    longestEnginePauseMs: logged.length ? longest(logged.flatMap((e) => e.stops), t0, t0 + seconds * 1000) : null,
    longestServerPauseMs: longest(server.stops, t0, t0 + seconds * 1000, offset),
    ...kinds,
  } : null;
  return { summary, causes };
}

module.exports = { attributeTail, attributeKind, pausedSeconds };
