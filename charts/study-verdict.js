'use strict';
// Whether pushbench's runs confirm one of the study's findings (issue #25; the study's sections 5 and 6.1).
// A finding (charts/study-findings.js) is a list of checks; a check compares one metric (study-metrics.js)
// between two sets of runs, along a trend, or against a threshold. The rules, in one place:
//
// - judge(a, b, expect): the difference of the means with its 95% interval (Welch, study-stats.js).
//   'greater' / 'less' hold when the interval lies wholly on the expected side, are reversed when it lies
//   wholly on the other, and are 'within noise' otherwise; 'similar' holds when the interval lies within
//   +-tolerance (default 10%) of b's mean, is reversed when it lies wholly outside, within noise otherwise.
//   Fewer than two runs on a side: 'too few'.
// - a check holds when every comparison it makes holds; one reversed comparison reverses it.
// - the runs: only valid runs (sweep/validity.js) when each side has at least two; otherwise all runs, and
//   the verdict is marked provisional with the verdicts of the runs it rests on. A figure's line or a
//   table's row (one permutation) follows the same rule alone (usableRuns).
// - a check's verdict: 'not run yet' (no runs for it); 'not comparable' when the study's effect needs a
//   scale the runs do not reach (minThreads), depends on the study's machine (machine), answers a question
//   the study left open (noStudyResult), when every run
//   got the load it asked for so a throughput difference cannot show (keepsUp), or with too few repeats;
//   else 'confirmed' (holds) or 'not confirmed' (reversed, or within noise).
// - a finding's verdict: 'not confirmed' if any check is, else 'not comparable' if any is, else
//   'confirmed'; checks not run yet are left out ('not run yet' when all are).
const { describe, welch } = require('./study-stats');
const { metricValue } = require('./study-metrics');
const { selectRuns, valueName } = require('./figure-data');
const { verdictOf, isValid, formatCounts } = require('../sweep/validity');

const TOLERANCE = 0.1;          // 'similar': within 10% of the reference mean
const KEEPS_UP_SHARE = 0.95;    // a run that got at least 95% of the answers it asked for kept up with its load
const MIN_REPEATS = 2;          // fewer runs on a side give no interval

const VERDICTS = ['confirmed', 'not confirmed', 'not comparable', 'not run yet'];

function judge(a, b, expect, tolerance = TOLERANCE) {
  const x = describe(a);
  const y = describe(b);
  const ratio = x.mean !== null && y.mean ? x.mean / y.mean : null;
  const base = { a: x, b: y, ratio, diff: null };
  if (x.n < MIN_REPEATS || y.n < MIN_REPEATS) return { ...base, outcome: 'too few' };
  const w = welch(a, b);
  const out = (outcome) => ({ ...base, diff: w, outcome });
  if (expect === 'greater' || expect === 'less') {
    const sign = expect === 'greater' ? 1 : -1;
    const [low, high] = sign > 0 ? [w.low, w.high] : [-w.high, -w.low];
    return out(low > 0 ? 'holds' : high < 0 ? 'reversed' : 'within noise');
  }
  if (expect === 'similar') {
    const tol = tolerance * Math.abs(y.mean || x.mean || 0);
    if (w.low >= -tol && w.high <= tol) return out('holds');
    return out(w.low > tol || w.high < -tol ? 'reversed' : 'within noise');
  }
  throw new Error(`judge: unknown expectation ${expect}`);
}

// values against a threshold: 'below' holds when the mean's 95% interval lies wholly under it, 'above'
// when wholly over it; the interval wholly on the other side reverses it.
function judgeThreshold(values, threshold, side) {
  const d = describe(values);
  if (d.n < MIN_REPEATS) return { a: d, outcome: 'too few' };
  const under = d.high < threshold;
  const over = d.low > threshold;
  if (side === 'below') return { a: d, outcome: under ? 'holds' : over ? 'reversed' : 'within noise' };
  if (side === 'above') return { a: d, outcome: over ? 'holds' : under ? 'reversed' : 'within noise' };
  throw new Error(`judgeThreshold: unknown side ${side}`);
}

// One outcome for a check from its comparisons' outcomes.
function combine(outcomes) {
  if (!outcomes.length) return null;
  if (outcomes.includes('reversed')) return 'reversed';
  if (outcomes.every((o) => o === 'holds')) return 'holds';
  if (outcomes.includes('too few')) return 'too few';
  return 'within noise';
}

// A check's verdict from what its comparisons showed and what limits them. context: { outcomes,
// scale, machine, keepsUp, provisional } (strings say why; provisional: the verdicts of the runs used).
function checkVerdict({ outcomes, scale = null, machine = null, keepsUp = false, noStudyResult = false, provisional = null }) {
  const indicative = combine(outcomes);
  if (indicative === null) return { verdict: 'not run yet', why: [], indicative, withinNoise: false, provisional: null };
  const why = [];
  if (noStudyResult) why.push('no study result: the study left this question open');
  if (machine) why.push(`machine: ${machine}`);
  if (scale) why.push(`scale: ${scale}`);
  if (keepsUp) why.push(`scale: every server answered at least ${KEEPS_UP_SHARE * 100}% of the load asked, so no throughput difference can show`);
  if (indicative === 'too few') why.push(`too few runs: fewer than ${MIN_REPEATS} on a side`);
  const withinNoise = indicative === 'within noise';
  let verdict;
  if (why.length) verdict = 'not comparable';
  else verdict = indicative === 'holds' ? 'confirmed' : 'not confirmed';
  if (verdict === 'not confirmed') why.push(withinNoise ? 'within noise: the difference is not beyond the 95% interval' : 'reversed beyond noise');
  if (provisional) why.push(`provisional: rests on runs not valid (${provisional})`);
  return { verdict, why, indicative, withinNoise, provisional };
}

function findingVerdict(checks) {
  const evaluated = checks.filter((c) => c.verdict !== 'not run yet');
  const pick = (v) => evaluated.some((c) => c.verdict === v);
  const verdict = !evaluated.length ? 'not run yet'
    : pick('not confirmed') ? 'not confirmed' : pick('not comparable') ? 'not comparable' : 'confirmed';
  return { verdict, withinNoise: evaluated.some((c) => c.withinNoise), provisional: evaluated.some((c) => c.provisional),
    notRun: checks.length - evaluated.length };
}

// ---- applying a check to runs ----

// What makes two runs the same condition; the duration is not among them: every compared metric is per
// second or per cycle over each run's steady window (docs/sweep.md), or a peak.
const CONDITION_KEYS = ['server', 'type', 'events', 'interval', 'maxDuration', 'threads'];

// The poll duration tells permutations apart only for long polls without events (as in
// collect-runs.js's permutationKey): with events a poll is held until the event.
const conditionValue = (params, k) => (k === 'maxDuration' && !(params.type === 'poll' && !params.events) ? '-' : params[k] ?? '');

function conditionKey(params, skip) {
  return CONDITION_KEYS.filter((k) => !skip.includes(k)).map((k) => `${k}=${conditionValue(params, k)}`).join('|');
}

// "Tomcat 6, Comet, 1 s events, 400 connections" from the parameters a condition fixes.
function conditionLabel(params, skip) {
  const parts = [];
  if (!skip.includes('server')) parts.push(valueName('server', params.server));
  if (!skip.includes('type')) parts.push(valueName('type', params.type));
  if (!skip.includes('interval') && !skip.includes('events')) {
    if (params.events) parts.push(`${params.interval / 1000} s events`);
    else parts.push(params.type === 'poll' && params.maxDuration ? `no events, ${params.maxDuration / 1000} s polls` : 'no events');
  }
  if (!skip.includes('threads')) parts.push(`${params.threads.toLocaleString('en-GB')} connections`);
  return parts.join(', ');
}

function groupRuns(runs, skip) {
  const groups = new Map();
  for (const r of runs) {
    const key = conditionKey(r.params, skip);
    if (!groups.has(key)) groups.set(key, { params: r.params, runs: [] });
    groups.get(key).runs.push(r);
  }
  return [...groups.values()];
}

// Valid runs on every side when each has enough; else every run, and the verdicts they carry.
function chooseRuns(sides) {
  const valid = sides.map((s) => s.filter((r) => isValid(verdictOf(r.summary))));
  if (valid.every((s) => s.length >= MIN_REPEATS)) return { sides: valid, provisional: null };
  const used = sides.flat();
  const bad = used.map((r) => verdictOf(r.summary)).filter((v) => !isValid(v));
  return { sides, provisional: bad.length ? formatCounts(bad) : null };
}

// The runs one permutation's line or row rests on: its valid runs when at least MIN_REPEATS are, else all.
function usableRuns(runs) {
  const valid = runs.filter((r) => isValid(verdictOf(r.summary)));
  return valid.length >= MIN_REPEATS ? valid : runs;
}

const values = (runs, metric) => runs.map((r) => metricValue(metric, r)).filter((v) => v !== null);

// The comparisons a check makes over `runs`: [{ label, a, b, outcome, ... }] and the runs it used.
function comparisons(check, runs) {
  const base = selectRuns({ filter: check.select ?? {} }, runs);
  const rows = [];
  const push = (label, sideRuns, judgeWith) => {
    const { sides, provisional } = chooseRuns(sideRuns);
    rows.push({ label, ...judgeWith(sides.map((s) => values(s, check.metric))), provisional, runs: sides.flat() });
  };
  if (check.kind === 'compare') {
    const differ = [...new Set([...Object.keys(check.a), ...Object.keys(check.b)])];
    const pick = (side) => base.filter((r) => Object.entries(side).every(([k, v]) => [].concat(v).includes(r.params[k])));
    let groups = groupRuns([...pick(check.a), ...pick(check.b)], differ);
    if (check.at === 'max') {
      const top = Math.max(...groups.map((g) => g.params.threads));
      groups = groups.filter((g) => g.params.threads === top);
    }
    for (const g of groups) {
      const a = g.runs.filter((r) => pick(check.a).includes(r));
      const b = g.runs.filter((r) => pick(check.b).includes(r));
      if (a.length && b.length) push(conditionLabel(g.params, differ), [a, b], ([x, y]) => judge(x, y, check.expect, check.tolerance));
    }
  } else if (check.kind === 'trend') {
    for (const g of groupRuns(base, [check.by])) {
      const xs = [...new Set(g.runs.map((r) => r.params[check.by]))].sort((p, q) => p - q);
      if (xs.length < 2) continue;
      const at = (x) => g.runs.filter((r) => r.params[check.by] === x);
      const expect = { up: 'greater', down: 'less', flat: 'similar' }[check.expect];
      const label = `${conditionLabel(g.params, [check.by])}: ${xs[xs.length - 1].toLocaleString('en-GB')} against ${xs[0].toLocaleString('en-GB')}`;
      push(label, [at(xs[xs.length - 1]), at(xs[0])], ([x, y]) => judge(x, y, expect, check.tolerance));
    }
  } else if (check.kind === 'below' || check.kind === 'above') {
    for (const g of groupRuns(base, [])) push(conditionLabel(g.params, []), [g.runs], ([x]) => judgeThreshold(x, check.threshold, check.kind));
  } else if (check.kind === 'none' || check.kind === 'some') {
    // how many runs show a yes/no metric (a crash): 'none' holds when no run does, 'some' when one does
    if (base.length) {
      const hits = base.filter((r) => metricValue(check.metric, r));
      const seen = hits.length > 0;
      rows.push({ label: `${base.length} run${base.length === 1 ? '' : 's'}`, count: hits.length,
        outcome: seen === (check.kind === 'some') ? 'holds' : 'reversed', provisional: null, runs: base });
    }
  } else {
    throw new Error(`check ${check.id}: unknown kind ${check.kind}`);
  }
  return rows;
}

// A check applied: its comparisons and verdict.
function evaluateCheck(check, runs) {
  const rows = comparisons(check, runs);
  const used = rows.flatMap((r) => r.runs);
  const maxThreads = Math.max(0, ...used.map((r) => r.params.threads));
  const scale = check.minThreads && maxThreads < check.minThreads
    ? `the study saw this at ${check.minThreads.toLocaleString('en-GB')} connections or more; these runs reach ${maxThreads.toLocaleString('en-GB')}` : null;
  const keepsUp = Boolean(check.keepsUp) && used.length > 0
    && used.every((r) => (metricValue('loadShare', r) ?? 0) >= KEEPS_UP_SHARE);
  // provisional: the verdicts of the runs not valid that the comparisons resting on them used
  const leaning = [...new Set(rows.filter((r) => r.provisional).flatMap((r) => r.runs))].map((r) => verdictOf(r.summary)).filter((v) => !isValid(v));
  const provisional = leaning.length ? formatCounts(leaning) : null;
  const verdict = checkVerdict({ outcomes: rows.map((r) => r.outcome), scale, machine: check.machine ?? null, keepsUp,
    noStudyResult: Boolean(check.noStudyResult), provisional });
  // how many conditions' means lie the way the study says, beyond noise or not (a sign, not a verdict)
  const directed = rows.filter((r) => r.diff && (check.kind === 'compare' || check.kind === 'trend'));
  const wants = { greater: 1, up: 1, less: -1, down: -1 }[check.expect];
  const agree = wants ? { k: directed.filter((r) => Math.sign(r.diff.diff) === wants).length, n: directed.length } : null;
  return { check, rows, ...verdict, agree };
}

function evaluateFinding(finding, runs) {
  const checks = finding.checks.map((c) => evaluateCheck(c, runs));
  return { finding, checks, ...findingVerdict(checks) };
}

module.exports = { judge, judgeThreshold, combine, checkVerdict, findingVerdict, evaluateCheck, evaluateFinding, comparisons, usableRuns,
  conditionLabel, VERDICTS, TOLERANCE, KEEPS_UP_SHARE };
