#!/usr/bin/env node
'use strict';
// The engine's share of the server's CPU on every server and transport (issue #48 item 2; docs/engine.md
// "Every server and transport"): one JSON line per finished run, and the table of such lines.
//
//   node bench/engine-share.js <run directory> ...        one line per run (stdout); a run without its
//                                                         summary or gc.log is skipped, named, exit 1
//   node bench/engine-share.js --table <lines.jsonl>      the markdown table of those lines
//
// A line holds bench/engine-stops.js's figures of the run (verdict, engine and server CPU in % of a core
// over the steady window, their ratio engineOverServer, the engine's longest stop, other processes' CPU)
// and:
//   server, type, connections   the run's parameters (data/summary.json)
//   answersPerSecond            the workload's achieved answers a second in the steady window (a long-poll or
//                               pull answer, or a held stream's record or message)
//   engineMicrosPerAnswer       engine CPU (% of a core) / 100 × 10^6 / answersPerSecond; serverMicrosPerAnswer
//                               the same for the server process (bench/engine-cost-table.js runLine's figures)
//   pinning, commit, dirty,     the run's conditions from its run.json provenance: the CPUs of server and
//   cpuModel                    engine (PB_SERVER_CPUS, PB_ENGINE_CPUS; null unpinned), the pushbench commit
//                               (7 digits) and whether its tree had changes, the CPU model and count
// The table has a row per (server, type) and, per level, "engine/server (engine µs, server µs) verdict" of each run.
const fs = require('node:fs');
const path = require('node:path');
const { runLine } = require('./engine-stops');
const costLine = require('./engine-cost-table').runLine;

const SERVERS = ['node', 'tc7', 'tc6'];
const TYPES = ['comet', 'poll', 'pull', 'sse', 'ws'];

// The conditions a run records in run.json (a run without one: every figure null).
function conditions(dir) {
  let run = {};
  try { run = JSON.parse(fs.readFileSync(path.join(dir, 'run.json'), 'utf8')); } catch { /* figures null */ }
  const prov = run.provenance ?? {};
  const host = (prov.hosts ?? [])[0];
  return {
    pinning: { server: prov.settings?.PB_SERVER_CPUS ?? null, engine: prov.settings?.PB_ENGINE_CPUS ?? null },
    commit: prov.pushbench?.commit?.slice(0, 7) ?? null, dirty: prov.pushbench?.dirty ?? null,
    cpuModel: host ? `${host.cpuModel}, ${host.cores} CPUs` : null,
  };
}

function shareLine(dir) {
  const summary = JSON.parse(fs.readFileSync(path.join(dir, 'data', 'summary.json'), 'utf8'));
  const p = summary.parameters ?? {};
  const base = runLine('share', dir);
  const cost = costLine({ summary });   // µs per answer as bench/engine-cost.sh computes it
  return {
    run: base.run, server: p.server ?? null, type: p.type ?? null, connections: p.connections ?? null,
    verdict: base.verdict, rules: base.rules, answersPerSecond: cost.answersPerSecond,
    engineCpuPercent: base.engineCpuPercent, serverCpuPercent: base.serverCpuPercent,
    engineMicrosPerAnswer: cost.engineMicrosPerAnswer, serverMicrosPerAnswer: cost.serverMicrosPerAnswer,
    engineOverServer: base.engineOverServer, longestStopMs: base.longestStopMs, otherCpuPercent: base.otherCpuPercent,
    ...conditions(dir),
  };
}

// The markdown table of lines: a row per (server, type) in SERVERS x TYPES order, a column per level; a cell
// holds every run of its (server, type, level) in the order of the lines, separated by "; ".
function table(lines) {
  const levels = [...new Set(lines.map((l) => l.connections))].sort((a, b) => a - b);
  const run = (l) => `${l.engineOverServer ?? '-'} (${l.engineMicrosPerAnswer ?? '-'} / ${l.serverMicrosPerAnswer ?? '-'} µs) ${l.verdict}`;
  const cell = (runs) => (runs.length ? runs.map(run).join('; ') : 'not run');
  const out = [
    `| server | transport | ${levels.map((n) => `${n.toLocaleString('en-US')} connections`).join(' | ')} |`,
    `|---|---|${levels.map(() => '---').join('|')}|`,
  ];
  for (const server of SERVERS) {
    for (const type of TYPES) {
      const row = levels.map((n) => lines.filter((l) => l.server === server && l.type === type && l.connections === n));
      if (row.every((runs) => !runs.length)) continue;
      out.push(`| ${server} | ${type} | ${row.map(cell).join(' | ')} |`);
    }
  }
  return out.join('\n');
}

if (require.main === module) {
  const args = process.argv.slice(2);
  if (args[0] === '--table' && args.length === 2) {
    const lines = fs.readFileSync(args[1], 'utf8').split('\n').filter(Boolean).map((l) => JSON.parse(l));
    process.stdout.write(`${table(lines)}\n`);
  } else if (args.length && !args[0].startsWith('-')) {
    let skipped = 0;
    for (const dir of args) {
      try {
        process.stdout.write(`${JSON.stringify(shareLine(dir))}\n`);
      } catch (e) {   // a run still going, or cut before its analysis: no summary to read
        skipped++;
        process.stderr.write(`engine-share: skipped ${dir}: ${e.code === 'ENOENT' ? `no ${path.relative(dir, e.path)}` : e.message}\n`);
      }
    }
    if (skipped) process.exitCode = 1;
  } else {
    process.stderr.write('usage: node bench/engine-share.js <run directory> ... | --table <lines.jsonl>\n');
    process.exit(2);
  }
}

module.exports = { shareLine, table };
