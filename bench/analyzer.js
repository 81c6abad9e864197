#!/usr/bin/env node
'use strict';
// Analyzer benchmark (issue #22 item 5; study section 3.4, the analysis of a run): builds the response archives
// of a comet run as the push sampler and run.sh leave them (analysis/tools/stream-run.js: 2,000 streams over
// two engines, one emit cycle a second, each engine's stream log inside its <engine>.tar.gz) and times the analyzer over it against `gzip -dc` over the same archive bytes, the floor of
// reading them at all: gzip -dc over each archive, then over each stream log it holds (the two layers of
// compression, one after the other). Speed = archive MB (10^6 bytes, the .tar.gz files) / wall seconds.
// Ratio = analyzer speed / gzip -dc speed (goal >= 50%), by wall seconds; CPU ratio = gzip -dc CPU s /
// analyzer CPU s, the steadier of the two on a shared machine. Peak RSS = the analyzer process's maximum resident
// set (all its threads: the main one and one worker per archive), which must stay flat as the run grows. Each is timed
// PB_BENCH_ROUNDS times (default 3), interleaved so a burst of other work on this shared machine hits both
// alike; printed as the median and the spread (min-max) of the rounds. CPU s = user + system seconds.
//   node bench/analyzer.js [messages...]          default: 100000 500000 2000000
// PB_BENCH_BASELINE=<dir>: also times the analyzer of another checkout (e.g. `git archive <commit>` unpacked,
// with node_modules) in the same rounds, interleaved, on the same run; its rows are marked "baseline".
// Raw archives live under $PB_STATE or the system temp dir and are removed at the end.
const fs = require('node:fs');
const os = require('node:os');
const path = require('node:path');
const { spawnSync } = require('node:child_process');
const { makeStreamRun } = require('../analysis/tools/stream-run');

const ROOT = path.join(__dirname, '..');
const ROUNDS = Number(process.env.PB_BENCH_ROUNDS || 3);
const GOAL_FROM = 500_000;   // the speed goal's sizes: 500k and 2M messages
const ANALYZERS = [{ label: '', root: ROOT }, ...(process.env.PB_BENCH_BASELINE ? [{ label: 'baseline', root: path.resolve(process.env.PB_BENCH_BASELINE) }] : [])];

// Wall and CPU seconds of a command (the CPU of its children included).
function timed(cmd, args) {
  const t = process.hrtime.bigint();
  const r = spawnSync('/usr/bin/time', ['-f', 'CPU %U %S', cmd, ...args], { encoding: 'utf8', maxBuffer: 1 << 24 });
  const seconds = Number(process.hrtime.bigint() - t) / 1e9;
  if (r.status !== 0) throw new Error(`${cmd} ${args.join(' ')} failed: ${r.stderr}`);
  const m = /CPU ([\d.]+) ([\d.]+)/.exec(r.stderr);
  return { seconds, cpu: Number(m[1]) + Number(m[2]), stderr: r.stderr };
}

const median = (v) => { const s = [...v].sort((a, b) => a - b); return s.length % 2 ? s[(s.length - 1) / 2] : (s[s.length / 2 - 1] + s[s.length / 2]) / 2; };
const spread = (v, digits) => `${median(v).toFixed(digits)} (${Math.min(...v).toFixed(digits)}-${Math.max(...v).toFixed(digits)})`;

async function main() {
  const work = fs.mkdtempSync(path.join(process.env.PB_STATE || os.tmpdir(), 'pb-bench-'));
  console.log(`${ROUNDS} rounds each, median (min-max). gzip -dc: each engine's .tar.gz, then each stream log in it, one after the other.`);
  console.log('messages   archive MB  gzip -dc s          MB/s    CPU s   analyzer s          MB/s    CPU s                ratio %            CPU ratio %        peak RSS MB');
  const sizes = process.argv.slice(2).map(Number).filter((n) => n > 0);
  if (sizes.length === 0) sizes.push(100_000, 500_000, 2_000_000);
  const rows = [];
  try {
    for (const n of sizes) rows.push(await measure(work, n));
  } finally {
    fs.rmSync(work, { recursive: true, force: true });
  }
  const rss = rows.map((r) => r.peakRssMB);
  // the goal's sizes: 500k messages and more (below that the analyzer's fixed start dominates)
  const goal = rows.some((r) => r.messages >= GOAL_FROM) ? rows.filter((r) => r.messages >= GOAL_FROM) : rows;
  console.log(`peak RSS from ${rows[0].messages} to ${rows[rows.length - 1].messages} messages: ${Math.min(...rss).toFixed(0)}-${Math.max(...rss).toFixed(0)} MB; ` +
    `lowest ratio from ${goal[0].messages} messages: ${Math.min(...goal.map((r) => r.ratioPercent)).toFixed(0)}% by wall, ` +
    `${Math.min(...goal.map((r) => r.cpuRatioPercent)).toFixed(0)}% by CPU (goal >= 50% by wall)`);
}

// One size: the run made, timed ROUNDS times, one line printed per analyzer; returns the first's medians.
async function measure(work, n) {
  const runDir = path.join(work, `run-${n}`);
  const { archives, logs, cycles, connections } = await makeStreamRun(runDir, n);
  const probe = (root) => `require(${JSON.stringify(path.join(root, 'analysis', 'analyze.js'))}).main([${JSON.stringify(runDir)}])` +
    '.then((c) => { process.stderr.write("MAXRSS " + process.resourceUsage().maxRSS + "\\n"); process.exitCode = c; })';
  const floor = [];
  const ana = ANALYZERS.map(() => []);
  for (let round = 0; round < ROUNDS; round++) {
    floor.push(timed('bash', ['-c', 'for f in "$@"; do gzip -dc "$f" > /dev/null || exit 1; done', 'bench', ...archives, ...logs]));
    ANALYZERS.forEach((a, i) => {
      ana[i].push(timed(process.execPath, ['-e', probe(a.root)]));
      const summary = JSON.parse(fs.readFileSync(path.join(runDir, 'data', 'summary.json'), 'utf8'));
      if (summary.tripTime?.comet?.records !== cycles * connections) {
        throw new Error(`analyzer ${a.root} timed ${summary.tripTime?.comet?.records} comet records of ${cycles * connections}`);
      }
    });
  }
  const mb = archives.reduce((s, f) => s + fs.statSync(f).size, 0) / 1e6;
  const rows = ANALYZERS.map((a, i) => row(cycles * connections, a.label, mb, floor, ana[i]));
  fs.rmSync(runDir, { recursive: true, force: true });
  return { messages: cycles * connections, archiveMB: mb, ...rows[0] };
}

// One printed line: the floor's and one analyzer's rounds; returns its medians.
function row(messages, label, mb, floor, ana) {
  const rss = ana.map((a) => Number(/MAXRSS (\d+)/.exec(a.stderr)[1]) / 1024);
  const ratio = floor.map((f, i) => (100 * f.seconds) / ana[i].seconds);   // each round against its own floor
  const cpuRatio = floor.map((f, i) => (100 * f.cpu) / ana[i].cpu);
  const speed = (list) => list.map((x) => mb / x.seconds);
  console.log(`${String(messages).padEnd(10)} ${mb.toFixed(1).padStart(9)}  ${spread(floor.map((x) => x.seconds), 2).padEnd(18)} ${median(speed(floor)).toFixed(0).padStart(5)}` +
    `  ${median(floor.map((x) => x.cpu)).toFixed(2).padStart(6)}   ${spread(ana.map((x) => x.seconds), 2).padEnd(18)} ${median(speed(ana)).toFixed(0).padStart(5)}` +
    `  ${spread(ana.map((x) => x.cpu), 2).padEnd(18)}   ${spread(ratio, 0).padEnd(18)} ${spread(cpuRatio, 0).padEnd(18)} ${spread(rss, 0).padEnd(18)} ${label}`);
  return { gzipMBps: median(speed(floor)), analyzerMBps: median(speed(ana)), ratioPercent: median(ratio), cpuRatioPercent: median(cpuRatio),
    peakRssMB: median(rss) };
}

if (require.main === module) main().catch((err) => { console.error(err); process.exitCode = 1; });

