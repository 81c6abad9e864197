#!/usr/bin/env node
'use strict';
// The engine's stops in finished runs, one JSON line per run (docs/engine.md "Stops under pinning"): what the
// collector and the pinning chosen for the engine JVM leave of its stops during the load, beside the CPU
// figures that say whether the run had the machine to itself.
//
//   node bench/engine-stops.js <setting>=<run directory> ...
//
// <setting> names the JVM options the run's engine had (the bench's own label). Each line:
//   setting, run          the label and the run's id
//   collector             the engine JVM's collector, from its gc.log's "Using <name>" line
//   verdict, rules        the run's validity verdict and the rules of its reasons
//   stops                 the engine's stops (safepoints: analysis/read/gc-log.js stopsOf) that ended at or
//                         after the load's first request (results.csv's earliest timeStamp) and before the
//                         run's last second: those that can hold a record back
//   longestStopMs         the longest of them (ms)
//   tailLongestMs         data/summary.json's tail.longestEnginePauseMs: the same from the analysis's own load
//                         start (the first request of the load, which may come after JMeter's start-of-test
//                         collections that longestStopMs counts)
//   p99StopMs             their 99th percentile (ms; nearest rank)
//   over20, over50        how many lasted >= 20 ms (the tail rule's TAIL_PAUSE_MS) and > 50 ms
//   engineCpuPercent      the engine JVM's mean CPU in the steady window (% of one core: pidstat)
//   serverCpuPercent      the server's (% of one core)
//   engineOverServer      engineCpuPercent / serverCpuPercent
//   otherCpuPercent       the host's CPU taken by processes other than the server and the engines (% of the
//                         host: vmstat less pidstat; over 30 the run is judged disturbed)
//   cometP99Ms            the comet records' trip-time p99 (ms)
const fs = require('node:fs');
const path = require('node:path');
const { parseGcLogText, stopsOf } = require('../analysis/read/gc-log');

const r1 = (v) => (v === null || v === undefined ? null : Math.round(v * 10) / 10);

// The earliest timeStamp (epoch ms) of results.csv, or null.
function firstRequestMs(csvFile) {
  if (!fs.existsSync(csvFile)) return null;
  let min = null;
  for (const line of fs.readFileSync(csvFile, 'utf8').split('\n').slice(1)) {
    const t = Number(line.slice(0, line.indexOf(',')));
    if (line && Number.isFinite(t) && t > 0 && (min === null || t < min)) min = t;
  }
  return min;
}

// Nearest-rank percentile of numbers (q in 0..1), or null.
function percentile(values, q) {
  if (!values.length) return null;
  const s = [...values].sort((a, b) => a - b);
  return s[Math.max(0, Math.ceil(q * s.length) - 1)];
}

function runLine(setting, dir) {
  const summary = JSON.parse(fs.readFileSync(path.join(dir, 'data', 'summary.json'), 'utf8'));
  const engineDir = path.join(dir, 'engines', fs.readdirSync(path.join(dir, 'engines'))[0]);
  const text = fs.readFileSync(path.join(engineDir, 'gc.log'), 'utf8');
  const collector = /\] Using (.+)$/m.exec(text)?.[1].trim() ?? null;
  const loadStart = firstRequestMs(path.join(dir, 'jmeter', 'results.csv'));
  const end = summary.startedAt + summary.durationSeconds * 1000;
  const stops = stopsOf(parseGcLogText(text)).filter((s) => (loadStart === null || s.epochMs >= loadStart) && s.startMs < end)
    .map((s) => s.pauseMs);
  const w = summary.workload ?? {};
  const engine = w.engines?.[0]?.jvmCpuMean ?? null;
  const server = w.server?.cpuMean ?? null;
  return {
    setting, run: summary.id, collector, verdict: summary.validity?.verdict ?? null,
    rules: (summary.validity?.reasons ?? []).map((r) => r.rule),
    stops: stops.length, longestStopMs: stops.length ? Math.max(...stops) : null, tailLongestMs: summary.tail?.longestEnginePauseMs ?? null,
    p99StopMs: percentile(stops, 0.99),
    over20: stops.filter((v) => v >= 20).length, over50: stops.filter((v) => v > 50).length,
    engineCpuPercent: engine, serverCpuPercent: server, engineOverServer: engine !== null && server ? Math.round((engine / server) * 100) / 100 : null,
    otherCpuPercent: r1(w.hosts?.[0]?.otherCpuMean), cometP99Ms: summary.tripTime?.comet?.p99Ms ?? null,
  };
}

if (require.main === module) {
  const args = process.argv.slice(2);
  if (!args.length || args.some((a) => !/^[^=]+=.+/.test(a))) {
    process.stderr.write('usage: node bench/engine-stops.js <setting>=<run directory> ...\n');
    process.exit(2);
  }
  for (const a of args) {
    const i = a.indexOf('=');
    process.stdout.write(`${JSON.stringify(runLine(a.slice(0, i), a.slice(i + 1)))}\n`);
  }
}

module.exports = { runLine, percentile, firstRequestMs };
