#!/usr/bin/env node
'use strict';
// node analysis/verdict.js <run-dir>: prints the run's validity verdict (data/summary.json, written by
// analysis/analyze.js; docs/validity.md) as run.sh's closing lines:
//   validity: generator-bound (steady window 15-70 s, 55 s)
//     - engine local's host CPU >= 95% in 48 of 55 steady seconds ...
//     - not known: ...
// Exit 0 when it printed a verdict, 1 when the run has none (not analysed, or analysed before verdicts),
// 2 for a usage error.
const fs = require('node:fs');
const path = require('node:path');

function verdictLines(summary) {
  const v = summary.validity;
  if (!v) return null;
  const w = summary.steadyWindow;
  const lines = [`validity: ${v.verdict}${v.confidence === 'reduced' ? ' (confidence reduced)' : ''}`
    + (w ? ` (steady window ${w.fromSecond}-${w.toSecond} s, ${w.seconds} s)` : '')];
  for (const r of v.reasons) lines.push(`  - ${r.text}`);
  for (const u of v.unknowns) lines.push(`  - not known: ${u}`);
  return lines;
}

function main(argv) {
  if (argv.length !== 1 || argv[0].startsWith('-')) {
    console.error('usage: node analysis/verdict.js <run-dir>');
    return 2;
  }
  let summary;
  try {
    summary = JSON.parse(fs.readFileSync(path.join(argv[0], 'data', 'summary.json'), 'utf8'));
  } catch (err) {
    console.error(`verdict: no readable data/summary.json in ${argv[0]} (${err.code ?? err.message})`);
    return 1;
  }
  const lines = verdictLines(summary);
  if (!lines) {
    console.error(`verdict: ${argv[0]} was analysed before runs were judged: run node analysis/analyze.js on it again`);
    return 1;
  }
  console.log(lines.join('\n'));
  return 0;
}

if (require.main === module) process.exitCode = main(process.argv.slice(2));
module.exports = { verdictLines };
