'use strict';
// A run's validity (issue #19) as the sweep and the comparison figures read it: the verdict that
// analysis/ writes into data/summary.json (`validity.verdict`, with `reasons` [{ rule, verdict, text }]).
// A summary without one (analysed before validity existed, or unreadable) counts as 'unknown'. Only
// 'valid' counts as valid: every other verdict, 'unknown' included, is drawn and counted as not valid.

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

module.exports = { VERDICTS, VALID, verdictOf, reasonTexts, isValid, countVerdicts, formatCounts, notValidNote };
