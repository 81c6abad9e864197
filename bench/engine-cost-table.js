'use strict';
// The figures and the table of bench/engine-cost.sh: a run's JSON line from its summary.json, gc.log and
// the bench's own watches (runLine; the script's header defines each figure), and the runs (JSON lines, one
// a run) grouped by level, type and sampler, each figure as the median and the range over the repeats, and
// per group the ratio mux / push of the engine's CPU per answer (repeat by repeat, when both ran in that
// repeat).
//   node bench/engine-cost-table.js <runs.jsonl>
const fs = require('node:fs');

const FIGURES = [
  ['engineMicrosPerAnswer', 'engine µs/answer'],
  ['serverMicrosPerAnswer', 'server µs/answer'],
  ['ratio', 'engine/server'],
  ['answersShare', 'answers achieved/expected'],
  ['engineCpuPercent', 'engine CPU %'],
  ['serverCpuPercent', 'server CPU %'],
  ['kbPerConnection', 'live KB/conn'],
  ['threads', 'OS threads'],
  ['openedPerSecond', 'opened/s engine'],
  ['serverOpenedPerSecond', 'opened/s server'],
  ['maxPauseMs', 'max pause ms'],
];

function median(values) {
  const v = [...values].sort((a, b) => a - b);
  if (v.length === 0) return null;
  const m = Math.floor(v.length / 2);
  return v.length % 2 ? v[m] : (v[m - 1] + v[m]) / 2;
}

// "median (min-max)" of the numbers among values, or "-".
function spread(values) {
  const v = values.filter((x) => typeof x === 'number' && Number.isFinite(x));
  if (v.length === 0) return '-';
  const fmt = (x) => (Math.abs(x) >= 100 ? String(Math.round(x)) : String(Math.round(x * 100) / 100));
  return v.length === 1 ? fmt(v[0]) : `${fmt(median(v))} (${fmt(Math.min(...v))}-${fmt(Math.max(...v))})`;
}

// The longest stop (ms) in a JVM's -Xlog:gc,safepoint text (analysis/read/gc-log.js's format) that ended
// at or after fromMs (epoch ms: the bench passes the steady window's start, so JMeter's own System.gc() at
// the test's start and the first metadata collections of the ramp-up are left out), leaving out the stops
// the bench itself caused (jcmd GC.class_histogram: "Heap Inspection Initiated GC", safepoint
// "GC_HeapInspection"); null when none.
function longestStopMs(gcLogText, fromMs = 0) {
  let longest = null;
  for (const line of gcLogText.split('\n')) {
    if (/Heap Inspection|GC_HeapInspection/.test(line)) continue;
    const stamp = /^\[(\d{12,})ms\]/.exec(line);
    if (!stamp || Number(stamp[1]) < fromMs) continue;
    const gc = /\bPause\b.*\s(\d+(?:\.\d+)?)ms\s*$/.exec(line);
    const sp = /\bSafepoint "[^"]*".*\bTotal: (\d+) ns\s*$/.exec(line);
    const ms = gc ? Number(gc[1]) : sp ? Number(sp[1]) / 1e6 : null;
    if (ms !== null && (longest === null || ms > longest)) longest = Math.round(ms * 1000) / 1000;
  }
  return longest;
}

// One run's JSON line. summary: its data/summary.json (null when the run left none); gcLogText: its engine's
// gc.log ('' without); figures: the engine watch's key=value figures ({ threads, idle, loaded }: bytes);
// serverOpened: bench/peers/watch-open.js's line (null without); the run's repeat, level, type, sampler,
// exit code and results directory. A figure its source lacks is null.
function runLine({ summary: s, gcLogText = '', figures = {}, serverOpened = null, repeat, level, type, sampler, exit, run }) {
  const w = s?.workload;
  const perSecond = w?.answers?.achievedPerSecond ?? null;
  const micros = (cpuPercent) => (cpuPercent == null || !perSecond ? null : Math.round((cpuPercent / 100) * 1e6 / perSecond * 10) / 10);
  const engine = micros(w?.engines?.[0]?.jvmCpuMean);
  const server = micros(w?.server?.cpuMean);
  const from = s?.steadyWindow ? s.startedAt + s.steadyWindow.fromSecond * 1000 : null;
  const idle = Number(figures.idle), loaded = Number(figures.loaded);
  return { repeat, level, type, sampler, exit, run,
    verdict: s?.validity?.verdict ?? null, answersPerSecond: perSecond, answersShare: w?.answers?.share ?? null,
    engineCpuPercent: w?.engines?.[0]?.jvmCpuMean ?? null, serverCpuPercent: w?.server?.cpuMean ?? null,
    engineMicrosPerAnswer: engine, serverMicrosPerAnswer: server, ratio: engine != null && server ? Math.round(engine / server * 100) / 100 : null,
    kbPerConnection: idle > 0 && loaded > 0 ? Math.round((loaded - idle) / level / 1024 * 100) / 100 : null,
    threads: Number(figures.threads) || null,
    openedPerSecond: w?.rampup?.openedPerSecond ?? null,
    serverOpenedPerSecond: serverOpened?.openedPerSecond ?? null,
    maxPauseMs: from === null || !gcLogText ? null : longestStopMs(gcLogText, from) };
}

function table(runs) {
  const groups = new Map();
  for (const r of runs) {
    const key = `${r.level} ${r.type} ${r.sampler}`;
    if (!groups.has(key)) groups.set(key, []);
    groups.get(key).push(r);
  }
  const lines = [];
  const head = ['level', 'type', 'sampler', 'runs', 'verdicts', ...FIGURES.map(([, name]) => name)];
  lines.push(`| ${head.join(' | ')} |`, `|${head.map(() => '---').join('|')}|`);
  for (const [key, rs] of groups) {
    const verdicts = rs.map((r) => r.verdict ?? `exit ${r.exit}`).join(', ');
    lines.push(`| ${key.split(' ').join(' | ')} | ${rs.length} | ${verdicts} | ${FIGURES.map(([f]) => spread(rs.map((r) => r[f]))).join(' | ')} |`);
  }
  const ratios = [];
  for (const r of runs.filter((x) => x.sampler === 'mux')) {
    const push = runs.find((x) => x.sampler === 'push' && x.repeat === r.repeat && x.level === r.level && x.type === r.type);
    if (push?.engineMicrosPerAnswer && r.engineMicrosPerAnswer != null) {
      ratios.push({ key: `${r.level} ${r.type}`, ratio: r.engineMicrosPerAnswer / push.engineMicrosPerAnswer });
    }
  }
  const byKey = new Map();
  for (const { key, ratio } of ratios) byKey.set(key, [...(byKey.get(key) ?? []), ratio]);
  if (byKey.size) {
    lines.push('', 'engine µs per answer, mux / push, pair by pair within a repeat:');
    for (const [key, rs] of byKey) lines.push(`  ${key}: ${spread(rs)} over ${rs.length} pair(s)`);
  }
  return lines.join('\n');
}

if (require.main === module) {
  const file = process.argv[2];
  if (!file) { console.error('usage: node bench/engine-cost-table.js <runs.jsonl>'); process.exit(2); }
  const runs = fs.readFileSync(file, 'utf8').split('\n').filter((l) => l.trim()).map((l) => JSON.parse(l));
  console.log(table(runs));
}

module.exports = { table, spread, median, longestStopMs, runLine };
