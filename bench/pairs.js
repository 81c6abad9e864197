#!/usr/bin/env node
'use strict';
// The closing tables of a side-by-side bench (bench/target-cost.sh, bench/tls-cost.sh): from its JSON lines
// (one run each: repeat, level, kind, engineMicrosPerMessage, engineCpuPercent, messagesPerSecond, missed,
// tripP99Ms, verdict, and where the bench has them kbPerConnection, failedSubscriptions), per (level, kind)
// the median and range over the repeats, then per level the second kind over the first, pair by pair (one
// repeat's two runs). A column no run has is left out.
//
//   node bench/pairs.js <runs.jsonl> <first kind> <second kind>
const fs = require('node:fs');

const median = (v) => { const s = v.filter((x) => x !== null && x !== undefined).sort((a, b) => a - b); return s.length ? s[Math.floor((s.length - 1) / 2)] : null; };
const range = (v) => { const s = v.filter((x) => x !== null && x !== undefined); return s.length ? `${Math.min(...s)}-${Math.max(...s)}` : '-'; };
const list = (v) => v.map((x) => x ?? '-').join(', ');

// [heading, (runs of one level and kind) -> cell, the field it needs]
const COLUMNS = [
  ['engine µs/message median (range)', (g) => `${median(g.map((r) => r.engineMicrosPerMessage))} (${range(g.map((r) => r.engineMicrosPerMessage))})`, 'engineMicrosPerMessage'],
  ['engine CPU %', (g) => median(g.map((r) => r.engineCpuPercent)), 'engineCpuPercent'],
  ['KB/conn (repeat 1)', (g) => g.find((r) => r.repeat === 1)?.kbPerConnection ?? '-', 'kbPerConnection'],
  ['messages/s', (g) => median(g.map((r) => r.messagesPerSecond)), 'messagesPerSecond'],
  ['missed', (g) => list(g.map((r) => r.missed)), 'missed'],
  ['failed subscriptions', (g) => list(g.map((r) => r.failedSubscriptions)), 'failedSubscriptions'],
  ['trip p99 ms', (g) => median(g.map((r) => r.tripP99Ms)), 'tripP99Ms'],
  ['verdicts', (g) => list(g.map((r) => r.verdict)), 'verdict'],
];

function tables(rows, [first, second]) {
  const columns = COLUMNS.filter(([, , field]) => rows.some((r) => r[field] !== undefined));
  const out = [`| level | kind | ${columns.map(([h]) => h).join(' | ')} |`, `|---|---|${columns.map(() => '---|').join('')}`];
  const levels = [...new Set(rows.map((r) => r.level))];
  for (const level of levels) for (const kind of [first, second]) {
    const g = rows.filter((r) => r.level === level && r.kind === kind);
    out.push(`| ${level} | ${kind} | ${columns.map(([, cell]) => cell(g)).join(' | ')} |`);
  }
  out.push('', `| level | ${second} / ${first} per message, pair by pair: median (range) | pairs |`, '|---|---|---|');
  for (const level of levels) {
    const ratios = [...new Set(rows.map((r) => r.repeat))].map((rep) => {
      const [a, b] = [first, second].map((k) => rows.find((r) => r.level === level && r.kind === k && r.repeat === rep)?.engineMicrosPerMessage);
      return a && b ? Math.round((b / a) * 100) / 100 : null;
    });
    out.push(`| ${level} | ${median(ratios)} (${range(ratios)}) | ${ratios.filter((x) => x !== null).length} |`);
  }
  return out.join('\n');
}

if (require.main === module) {
  const [file, first, second] = process.argv.slice(2);
  if (!file || !first || !second) { process.stderr.write('usage: node bench/pairs.js <runs.jsonl> <first kind> <second kind>\n'); process.exit(2); }
  const rows = fs.readFileSync(file, 'utf8').split('\n').filter(Boolean).map((l) => JSON.parse(l));
  process.stdout.write(`\n${tables(rows, [first, second])}\n`);
}

module.exports = { tables };
