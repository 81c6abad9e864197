'use strict';
// One run's JSON line of bench/peers.sh (issues #38 item 6, #48 item 4), derived from what the bench
// measured (its counters, the server's /status before and after the window, the generator's report): the
// one place its figures are defined (bench/peers.sh's header and docs/engine.md "Against the peers" name
// them).
//   node bench/peers/run-line.js <measured.json>     prints the line (measured: the fields of `line` below)
//
// measured: { repeat, generator, transport, connections, interval, pinned, serverCpus, generatorCpus,
//   processes (the generator processes counted), opened (watch-open.js's line), report (the generator's:
//   received, failed, tripP50Ms, tripP99Ms, reconnections), statusBefore, statusAfter (GET /status at the
//   window's ends), heap0, rss0 (KB before any stream; heap null for a process that is no JVM), heap1, rss1
//   (KB with the streams held), cpuTicks, serverTicks (utime + stime over the window, clock ticks),
//   windowNs, idleTicks, idleNs (the generator's over its idle window), hz (clock ticks a second) }
const fs = require('node:fs');

const r1 = (x) => Math.round(x * 10) / 10;
const r2 = (x) => Math.round(x * 100) / 100;
const event1 = (status) => status.events.find((e) => e.name === 'event1');

// The messages the server sent in the window: its emit cycles in the window x the last cycle's records.
function windowMessages(before, after) {
  return (event1(after).cycle - event1(before).cycle) * event1(after).lastCycle.total;
}

function line(m) {
  const w = m.windowNs / 1e9;
  const idleW = m.idleNs / 1e9;
  const msgs = windowMessages(m.statusBefore, m.statusAfter);
  const cpuUs = (m.cpuTicks / m.hz) * 1e6;
  const serverUs = (m.serverTicks / m.hz) * 1e6;
  const idleUs = (m.idleTicks / m.hz) * 1e6;
  // net: the window's CPU less the idle CPU scaled to the window's length
  const netUs = cpuUs - (idleUs * w) / idleW;
  const perMessage = (us) => (msgs > 0 ? r2(us / msgs) : null);
  const tripMeasures = { gatling: 'check wait', 'gatling-bare': null }[m.generator];
  return {
    repeat: m.repeat, generator: m.generator, transport: m.transport, connections: m.connections,
    interval: m.interval, pinned: m.pinned, serverCpus: m.serverCpus, generatorCpus: m.generatorCpus,
    processes: m.processes,
    open: m.opened.open, openSeconds: m.opened.openSeconds, openedPerSecond: m.opened.openedPerSecond,
    windowS: r1(w), messages: msgs, messagesPerSecond: r1(msgs / w),
    cpuPercent: r1(cpuUs / w / 1e4),
    idleWindowS: r1(idleW), idleCpuPercent: r2(idleUs / idleW / 1e4), netCpuPercent: r1(netUs / w / 1e4),
    usPerMessage: perMessage(cpuUs), netUsPerMessage: perMessage(netUs),
    serverCpuPercent: r1(serverUs / w / 1e4), serverUsPerMessage: perMessage(serverUs),
    heapKbPerConnection: m.heap0 === null || m.heap1 === null ? null : r2((m.heap1 - m.heap0) / m.connections),
    rssKbPerConnection: r2((m.rss1 - m.rss0) / m.connections),
    heapBaselineKb: m.heap0, rssBaselineKb: m.rss0,
    tripP50Ms: m.report.tripP50Ms ?? null, tripP99Ms: m.report.tripP99Ms ?? null,
    tripMeasures: tripMeasures === undefined ? 'arrival - created' : tripMeasures,
    received: m.report.received ?? null, failed: m.report.failed ?? null,
    reconnections: m.report.reconnections ?? null,
  };
}

module.exports = { line, windowMessages };

if (require.main === module) {
  const args = process.argv.slice(2);
  if (args.length !== 1) {
    console.error('usage: node bench/peers/run-line.js <measured.json>');
    process.exit(2);
  }
  console.log(JSON.stringify(line(JSON.parse(fs.readFileSync(args[0], 'utf8')))));
}
