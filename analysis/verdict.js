#!/usr/bin/env node
'use strict';
// A run's validity verdict (docs/validity.md; analysis/measure/validity.js decides it and writes it into
// data/summary.json as `validity.verdict`, with `reasons` [{ rule, verdict, text }]) as everyone else
// reads it: its words, how a summary's verdict and reasons are read, how verdicts are counted, and the
// closing lines run.sh prints. The sweep, the comparison figures and the study page take the words from
// here, never their own.
// A summary without a verdict (analysed before validity existed, or unreadable) counts as 'unknown'. Only
// 'valid' counts as valid: every other verdict, 'unknown' included, is drawn and counted as not valid.
//
// node analysis/verdict.js <run-dir>: prints the run's verdict as run.sh's closing lines:
//   validity: generator-bound (steady window 15-70 s, 55 s)
//     - engine local's host CPU >= 95% in 48 of 55 steady seconds ...
//     - not known: ...
//   thresholds: 1 of 2 failed            (a run with thresholds, lib/thresholds.js)
//     - FAIL trip.p99<=250: 310 ms, wanted <= 250
// Exit 0 when it printed a verdict, 1 when the run has none (not analysed, or analysed before verdicts),
// 2 for a usage error.
const fs = require('node:fs');
const path = require('node:path');

const VERDICTS = ['valid', 'generator-bound', 'disturbed', 'server-limited', 'failed', 'unknown'];
const VALID = 'valid';

// The verdict of one summary.json (or null): one of VERDICTS; a verdict analysis/ adds later is kept as is.
function verdictOf(summary) {
  const v = summary?.validity?.verdict;
  return typeof v === 'string' && v ? v : 'unknown';
}

// The reasons' texts of one summary (what made it not valid, and what could not be checked).
function reasonTexts(summary) {
  const validity = summary?.validity;
  if (!validity) return ['no validity verdict in data/summary.json (analysed before validity existed)'];
  const reasons = Array.isArray(validity.reasons) ? validity.reasons : [];
  const unknowns = Array.isArray(validity.unknowns) ? validity.unknowns : [];
  return [...reasons.map((r) => (typeof r === 'string' ? r : r?.text)), ...unknowns].filter(Boolean).map(String);
}

const isValid = (verdict) => verdict === VALID;

// verdicts -> [[verdict, count]], in VERDICTS' order (others after, by name); zero counts left out.
function countVerdicts(verdicts) {
  const counts = new Map();
  for (const v of verdicts) counts.set(v, (counts.get(v) ?? 0) + 1);
  const rank = (v) => (VERDICTS.includes(v) ? VERDICTS.indexOf(v) : VERDICTS.length);
  return [...counts.entries()].sort((a, b) => rank(a[0]) - rank(b[0]) || a[0].localeCompare(b[0]));
}

// "valid 10, generator-bound 2, disturbed 1"
const formatCounts = (verdicts) => countVerdicts(verdicts).map(([v, n]) => `${v} ${n}`).join(', ');

// "3 of 12 runs not valid: 2 generator-bound, 1 disturbed", or "all 12 runs valid".
function notValidNote(verdicts) {
  const bad = verdicts.filter((v) => !isValid(v));
  const runs = (n) => `${n} run${n === 1 ? '' : 's'}`;
  if (bad.length === 0) return `${verdicts.length === 1 ? 'the' : 'all'} ${runs(verdicts.length)} valid`;
  return `${bad.length} of ${runs(verdicts.length)} not valid: ${countVerdicts(bad).map(([v, n]) => `${n} ${v}`).join(', ')}`;
}

// run.sh's closing lines for one summary: the verdict, its window, each reason and each unknown; null without a verdict.
function verdictLines(summary) {
  const v = summary.validity;
  if (!v) return null;
  const w = summary.steadyWindow;
  const lines = [`validity: ${v.verdict}${v.confidence === 'reduced' ? ' (confidence reduced)' : ''}`
    + (w ? ` (steady window ${w.fromSecond}-${w.toSecond} s, ${w.seconds} s)` : '')];
  for (const r of v.reasons) lines.push(`  - ${r.text}`);
  for (const u of v.unknowns) lines.push(`  - not known: ${u}`);
  return [...lines, ...thresholdLines(summary.thresholds)];
}

// The thresholds' lines (lib/thresholds.js, summary.thresholds): "thresholds: 1 of 2 failed" (run.sh reads
// that word) and one line each; none for a run without thresholds.
function thresholdLines(t) {
  if (!t || !Array.isArray(t.results) || t.results.length === 0) return [];
  const failed = t.results.filter((r) => !r.pass).length;
  return [`thresholds: ${failed ? `${failed} of ${t.results.length} failed` : `all ${t.results.length} passed`}`,
    ...t.results.map((r) => `  - ${r.pass ? 'pass' : 'FAIL'} ${r.text}: ${r.why}`)];
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
module.exports = { VERDICTS, VALID, verdictOf, reasonTexts, isValid, countVerdicts, formatCounts, notValidNote, verdictLines, thresholdLines };
