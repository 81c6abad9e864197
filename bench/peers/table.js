'use strict';
// The table of bench/peers.sh (issues #38 item 6, #48 item 4): its runs (JSON lines, one a run) grouped by
// level, transport, pinning and generator, each figure as the median (min-max) over the repeats, and beside
// it the ratio to pushbench's engine, taken pair by pair within a repeat (the generator's figure / the
// engine's at the same level, transport, pinning and repeat), then its median (min-max). Runs written
// before the idle baseline have no net CPU ("-"); before the pinning, pinned reads "no".
//   node bench/peers/table.js [--markdown] <runs.jsonl>
const fs = require('node:fs');

// [field, heading, with a ratio to the engine's]
const FIGURES = [
  ['netUsPerMessage', 'net CPU µs/msg', true],
  ['usPerMessage', 'CPU µs/msg', true],
  ['idleCpuPercent', 'idle CPU %', false],
  ['heapKbPerConnection', 'heap KB/conn', true],
  ['rssKbPerConnection', 'RSS KB/conn', true],
  ['openedPerSecond', 'opened/s', true],
  ['tripP50Ms', 'p50 ms', true],
  ['tripP99Ms', 'p99 ms', true],
  ['cpuPercent', 'CPU % of a core', false],
  ['serverUsPerMessage', 'server µs/msg', false],
  ['messagesPerSecond', 'msgs/s', false],
];
const BASE = 'engine';

function median(sorted) {
  const m = Math.floor(sorted.length / 2);
  return sorted.length % 2 ? sorted[m] : (sorted[m - 1] + sorted[m]) / 2;
}

function fmt(x) {
  if (Math.abs(x) >= 100) return String(Math.round(x));
  if (Math.abs(x) >= 10) return x.toFixed(1);
  return x.toFixed(2);
}

// "median (min-max)" of the finite numbers among values; the one value alone; "-" for none.
function spread(values) {
  const v = values.filter((x) => typeof x === 'number' && Number.isFinite(x)).sort((a, b) => a - b);
  if (v.length === 0) return '-';
  if (v.length === 1) return fmt(v[0]);
  return `${fmt(median(v))} (${fmt(v[0])}-${fmt(v[v.length - 1])})`;
}

const pinning = (r) => (r.pinned ? 'yes' : 'no');
const groupKey = (r) => `${r.connections}\t${r.transport}\t${pinning(r)}\t${r.generator}`;

// Per group of runs: the median (min-max) of each figure and, for the figures that have one, of the
// ratios to the engine's figure in the same repeat (none for the engine itself, "-" when no pair exists).
function rows(runs) {
  const keys = [...new Set(runs.map(groupKey))];
  return keys.map((key) => {
    const [connections, transport, pinned, generator] = key.split('\t');
    const group = runs.filter((r) => groupKey(r) === key);
    const cells = {};
    for (const [field, , withRatio] of FIGURES) {
      cells[field] = spread(group.map((r) => r[field]));
      if (!withRatio || generator === BASE) continue;
      const ratios = [];
      for (const r of group) {
        const base = runs.find((b) => b.generator === BASE && b.repeat === r.repeat
          && String(b.connections) === connections && b.transport === transport && pinning(b) === pinned);
        if (base && typeof r[field] === 'number' && typeof base[field] === 'number' && base[field] !== 0) {
          ratios.push(r[field] / base[field]);
        }
      }
      cells[`${field}Ratio`] = spread(ratios);
    }
    return { connections: Number(connections), transport, pinned, generator, runs: group.length, cells };
  });
}

// The table as text (or a Markdown table): one line per group, each figure followed by its ratio to the
// engine's (×engine).
function render(runs, { markdown = false } = {}) {
  const head = ['level', 'transport', 'pinned', 'generator', 'runs'];
  for (const [, heading, withRatio] of FIGURES) {
    head.push(heading);
    if (withRatio) head.push('×engine');
  }
  const lines = [head];
  for (const g of rows(runs)) {
    const line = [String(g.connections), g.transport, g.pinned, g.generator, String(g.runs)];
    for (const [field, , withRatio] of FIGURES) {
      line.push(g.cells[field]);
      if (withRatio) line.push(g.generator === BASE ? '1' : g.cells[`${field}Ratio`]);
    }
    lines.push(line);
  }
  if (markdown) {
    return [lines[0], lines[0].map(() => '---'), ...lines.slice(1)].map((l) => `| ${l.join(' | ')} |`).join('\n');
  }
  const width = head.map((_, i) => Math.max(...lines.map((l) => l[i].length)));
  return lines.map((l) => l.map((v, i) => v.padEnd(width[i])).join('  ').trimEnd()).join('\n');
}

function readRuns(file) {
  return fs.readFileSync(file, 'utf8').split('\n').filter((l) => l.trim()).map((l) => JSON.parse(l));
}

module.exports = { FIGURES, spread, rows, render, readRuns };

if (require.main === module) {
  const args = process.argv.slice(2);
  const markdown = args[0] === '--markdown';
  if (markdown) args.shift();
  if (args.length !== 1) {
    console.error('usage: node bench/peers/table.js [--markdown] <runs.jsonl>');
    process.exit(2);
  }
  console.log(render(readRuns(args[0]), { markdown }));
}
