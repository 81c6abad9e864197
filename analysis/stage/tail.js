'use strict';
// Stage 7b, the tail: the JVMs' pauses (each engine's gc.log, read with the load generator's monitors, and
// the server's sut/gc.log where the server is a JVM: a Tomcat) beside the trip times beyond p99, and which
// of them each explains (measure/tail.js; docs/validity.md "The tail"); and, from the same sut/gc.log, the
// server JVM's stops, full collections and live heap over the steady window (measure/server-gc.js).
const fs = require('node:fs');
const path = require('node:path');
const { parseGcLogFile, stopsOf, longestPerSecond } = require('../read/gc-log');
const { attributeTail } = require('../measure/tail');
const { serverGcOf } = require('../measure/server-gc');
const { serverCapacityPercent } = require('../measure/workload');
const { thresholds: validityThresholds } = require('../measure/validity');

// The servers that run on a JVM (servers/tomcat-common.sh logs their pauses); Node.js has no such log.
const JVM_SERVERS = new Set(['tc6', 'tc7', 'tc6-bio', 'tc7-bio']);

// The server's pauses: { jvm, gc (read/gc-log.js's) and stops (epoch ms, the server's clock) or null,
// safepointsLogged, skipped }.
async function readServerPauses(runDir, run) {
  const file = path.join(runDir, 'sut', 'gc.log');
  let exists = false;
  try { exists = fs.statSync(file).isFile(); } catch { /* none */ }
  const jvm = JVM_SERVERS.has(run.server) || exists;
  if (!exists) return { jvm, gc: null, stops: null, safepointsLogged: false, skipped: 0 };
  const gc = await parseGcLogFile(file);
  return { jvm, gc, stops: stopsOf(gc), safepointsLogged: gc.safepoints.length > 0, skipped: gc.skipped };
}

// run; clock: stage/clock.js runClock's; axis; series: stage/series.js'; tails: { tripTime, comet }
// (TripTimes.result's tail); loadGenerator: stage/monitors.js readLoadGenerator's; serverCores: the cores the
// server may use (stage/monitors.js). Returns
// { tail (data/summary.json `tail`, or null), serverGc (data/summary.json `serverGc`: the server JVM's
// collections over the steady window, measure/server-gc.js; null without sut/gc.log or a window),
// pauses: { engines: [{ name, longestMs[] }], server: longestMs[] or null } (the longest stop per elapsed
// second, client clock), skipped (unreadable lines of sut/gc.log), notes }.
async function tailStage({ runDir, run, clock, axis, series, tails, loadGenerator, serverCores }) {
  const { t0, offset } = clock;
  const { seconds, loadStartMs, window } = axis;
  const server = await readServerPauses(runDir, run);
  const { thresholds: t } = validityThresholds();
  const { summary } = attributeTail({ tails, engines: loadGenerator.engines, server, t0, offset, seconds, loadStartMs,
    processCpu: series.processCpu, hostCpu: series.cpu, capacityPercent: serverCapacityPercent(run.server, serverCores), t });
  const toClient = (stops) => stops.map((s) => ({ ...s, startMs: s.startMs - offset, epochMs: s.epochMs - offset }));
  // a JVM whose pauses were logged and that did not stop in a second stopped 0 ms then
  const perSecond = (stops) => longestPerSecond(stops, t0, seconds).map((v) => v ?? 0);
  const pauses = {
    engines: loadGenerator.engines.filter((e) => e.stops).map((e) => ({ name: e.name, longestMs: perSecond(e.stops) })),
    server: server.stops ? perSecond(toClient(server.stops)) : null,
  };
  // the steady window on the server's clock
  const serverGc = server.gc && window?.seconds > 0 ? serverGcOf({ gc: server.gc, stops: server.stops,
    fromMs: t0 + window.fromSecond * 1000 + offset, toMs: t0 + window.toSecond * 1000 + offset }) : null;
  const notes = server.jvm && !server.stops ? ['the server is a JVM but the run has no sut/gc.log: its pauses are unknown'] : [];
  return { tail: summary, serverGc, pauses, skipped: server.skipped, notes };
}

module.exports = { tailStage, readServerPauses, JVM_SERVERS };
