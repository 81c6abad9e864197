'use strict';
// Whether pushbench's runs confirm one of the study's findings (issues #25 and #35; the study's sections 5
// and 6.1): each finding's and check's conclusion ('confirmed', 'not confirmed', …; a "verdict" is a run's
// validity, analysis/verdict.js). A finding (charts/study-findings.js) is a list of checks; a check compares one metric
// (study-metrics.js) between two sets of runs, along a trend, or against a threshold, in each condition
// (every other parameter equal). The rules, in one place:
//
// - One condition, judge(a, b, expect): the difference of the means with its 95% interval (Welch,
//   study-stats.js). 'greater' / 'less' hold when the interval lies wholly on the expected side, are
//   reversed when it lies wholly on the other, and are 'within noise' otherwise. 'similar' holds when the
//   interval lies within +-margin, the larger of 10% of b's mean and the metric's margin in the study's own
//   units (one point of the study host's CPU or memory: study-metrics.js), is reversed when it lies wholly
//   outside, within noise otherwise. Fewer than two runs on a side: 'too few'.
// - Across conditions, acrossConditions: for a directed claim, an exact one-sided sign test over the
//   conditions: the claim holds when the number of conditions whose means lie the study's way is more than
//   chance allows (p <= 0.05 under "either way equally likely": at least 5 of 5, 6 of 6, 7 of 7, 7 of 8,
//   8 of 9, 9 of 10, 10 of 12, 12 of 15, 12 of 16), and is reversed by the same test the other way. Fewer than 5
//   conditions cannot reach p <= 0.05 by signs alone: then the claim holds when each condition holds
//   beyond noise and is reversed when one is reversed beyond noise and none holds. For 'similar': holds
//   when most conditions hold and none is reversed, reversed when most are. Otherwise within noise.
// - Scale: a check is judged on the runs at or above the smallest level at which the study saw its effect
//   (minConnections; at least the study's smallest level, 1,000 connections; a study level above what this
//   machine holds, 15,000, is judged at 15,000 and says so). A trend over connections needs its largest
//   level there and its smallest at 1,000 or more. Runs below it give an *indicative* conclusion only, never
//   a 'not confirmed'.
// - The runs: only usable runs: valid ones, and server-limited ones (the server could not keep up: a real
//   server result; analysis/verdict.js); runs the load generator bound or the machine disturbed are left
//   out. A condition with fewer than two usable runs on a side is shown with every run and the verdicts
//   they carry, but left out of the judgement; when no condition has enough, the check is not comparable
//   (too few usable runs). A figure's line or a table's row (one permutation) rests on its usable runs when
//   it has two, else on all of them, drawn dashed (usableRuns).
// - Saturation (keepsUp: a claim that shows only where the load saturates something, a throughput or an
//   open question's contrast): a condition in which each side's runs got at least 95% of the answers they
//   asked for on average is shown but left out of the judgement, since nothing saturated there; when every
//   condition kept up, the check is judged on them all and is not comparable.
// - A check's conclusion: 'not run yet' (no runs for it); 'indicative' (runs only below its scale); 'not
//   comparable' when the effect depends on the study's machine (machine), software versions (versions) or
//   clients (client), every condition kept up with its load (keepsUp), no condition has enough usable
//   runs, or with too few repeats; else, for a question the study left open (noStudyResult),
//   'answered' (pushbench's answer: yes when it holds, no when reversed, no difference within noise);
//   else 'confirmed' (holds) or 'not confirmed' (reversed, or within noise).
// - A finding's conclusion: 'not confirmed' if any check is, else 'not comparable' if any is, else
//   'indicative' if any is, else 'answered' if any is, else 'confirmed'; checks not run yet are left out
//   ('not run yet' when all are).
const { describe, welch } = require('./study-stats');
const { metricValue, STUDY_METRICS } = require('./study-metrics');
const { selectRuns, valueName } = require('./figure-data');
const { verdictOf, formatCounts } = require('../analysis/verdict');

const TOLERANCE = 0.1;          // 'similar': within 10% of the reference mean (or the metric's study margin)
const KEEPS_UP_SHARE = 0.95;    // a run that got at least 95% of the answers it asked for kept up with its load
const MIN_REPEATS = 2;          // fewer runs on a side give no interval
// A run whose numbers are the server's: valid, or server-limited.
const isUsable = (run) => ['valid', 'server-limited'].includes(verdictOf(run.summary));
const SIGN_TEST_P = 0.05;       // the one-sided level of the sign test across conditions
const SIGN_TEST_MIN = 5;        // conditions the sign test needs to reach SIGN_TEST_P (0.5^5 = 0.031)
const STUDY_SMALLEST_LEVEL = 1000;   // the study's smallest connection level (section 4.2)
// The study's emit intervals (section 4.2: 1, 5, 10 and 30 s). A run with another one (sweep.sh
// --emit-intervals, e.g. docs/study's scale-rq4) lies beyond the study's grid: only a check that asks for
// such runs (beyondGrid) uses it, so a finding about the study's intervals is judged on the study's.
const STUDY_EMIT_INTERVALS_MS = [1000, 5000, 10000, 30000];
const inStudyGrid = (run) => !run.params.events || STUDY_EMIT_INTERVALS_MS.includes(run.params.emitIntervalMs);
const MACHINE_LARGEST_LEVEL = 15000; // the most connections this machine holds (20,000 open files a process: docs/limits.md)

const CONCLUSIONS = ['confirmed', 'not confirmed', 'not comparable', 'indicative', 'answered', 'not run yet'];
// An open question's answer from what its conditions showed.
const ANSWERS = { holds: 'answered: yes, beyond noise', reversed: 'answered: no, the opposite beyond noise',
  'within noise': 'answered: no difference beyond noise' };

function judge(a, b, expect, { tolerance = TOLERANCE, margin = 0 } = {}) {
  const x = describe(a);
  const y = describe(b);
  const ratio = x.mean !== null && y.mean ? x.mean / y.mean : null;
  const base = { a: x, b: y, ratio, diff: null };
  if (x.n < MIN_REPEATS || y.n < MIN_REPEATS) return { ...base, outcome: 'too few' };
  const w = welch(a, b);
  const out = (outcome, extra = {}) => ({ ...base, diff: w, outcome, ...extra });
  if (expect === 'greater' || expect === 'less') {
    const sign = expect === 'greater' ? 1 : -1;
    const [low, high] = sign > 0 ? [w.low, w.high] : [-w.high, -w.low];
    return out(low > 0 ? 'holds' : high < 0 ? 'reversed' : 'within noise');
  }
  if (expect === 'similar') {
    const tol = Math.max(tolerance * Math.abs(y.mean || x.mean || 0), margin);
    if (w.low >= -tol && w.high <= tol) return out('holds', { margin: tol });
    return out(w.low > tol || w.high < -tol ? 'reversed' : 'within noise', { margin: tol });
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

// P(X >= k) for X ~ Binomial(n, 1/2): the one-sided p of k agreeing signs of n.
function signTestP(k, n) {
  let sum = 0;
  let c = 1;   // C(n, 0)
  for (let i = 0; i <= n; i++) {
    if (i >= k) sum += c;
    c = c * (n - i) / (i + 1);
  }
  return sum / 2 ** n;
}

// One outcome for a check from its conditions (the header's rule). rows: [{ outcome, sign }] where sign is
// +1 when the condition's mean lies the study's way, -1 the other way, 0 or null undecided; similar: a
// 'similar' claim. Returns { outcome, k, n, p } (k, n, p: the sign test's, when it was used).
function acrossConditions(rows, { similar = false } = {}) {
  if (!rows.length) return { outcome: null };
  const outcomes = rows.map((r) => r.outcome);
  if (outcomes.every((o) => o === 'too few')) return { outcome: 'too few' };
  const count = (o) => outcomes.filter((x) => x === o).length;
  if (similar) {
    const half = rows.length / 2;
    if (count('holds') > half && !count('reversed')) return { outcome: 'holds' };
    return { outcome: count('reversed') > half ? 'reversed' : count('too few') ? 'too few' : 'within noise' };
  }
  const signed = rows.filter((r) => r.sign === 1 || r.sign === -1);
  const n = signed.length;
  const k = signed.filter((r) => r.sign === 1).length;
  if (n >= SIGN_TEST_MIN) {
    const pFor = signTestP(k, n);
    const pAgainst = signTestP(n - k, n);
    const outcome = pFor <= SIGN_TEST_P ? 'holds' : pAgainst <= SIGN_TEST_P ? 'reversed' : 'within noise';
    return { outcome, k, n, p: outcome === 'reversed' ? pAgainst : pFor };
  }
  if (count('holds') === rows.length) return { outcome: 'holds' };
  if (count('reversed') && !count('holds')) return { outcome: 'reversed' };
  return { outcome: count('too few') && !count('reversed') && !count('holds') ? 'too few' : 'within noise' };
}

// The level a check is judged at: { level, note } (note: why it differs from the study's, or null).
function scaleGate(check) {
  const asked = Math.max(check.minConnections ?? STUDY_SMALLEST_LEVEL, STUDY_SMALLEST_LEVEL);
  if (asked <= MACHINE_LARGEST_LEVEL) return { level: asked, note: null };
  return { level: MACHINE_LARGEST_LEVEL,
    note: `scale: the study saw this at ${asked.toLocaleString('en-GB')} connections; judged at ${MACHINE_LARGEST_LEVEL.toLocaleString('en-GB')}, the most one process here holds (20,000 open files each)` };
}

// A check's conclusion from what its conditions showed and what limits them. context: { outcome (from
// acrossConditions), scale (why the runs are below the check's scale: indicative), machine, versions,
// client, keepsUp, noStudyResult, unusable (no condition has enough usable runs: the verdicts of those that
// are not) }.
function checkConclusion({ outcome, scale = null, machine = null, versions = null, client = null, keepsUp = false, noStudyResult = false, unusable = null }) {
  const indicative = outcome ?? null;
  if (indicative === null) return { conclusion: 'not run yet', why: [], indicative, withinNoise: false };
  const why = [];
  if (machine) why.push(`machine: ${machine}`);
  if (versions) why.push(`versions: ${versions}`);
  if (client) why.push(`client: ${client}`);
  if (unusable) why.push(`too few usable runs: no condition has ${MIN_REPEATS} valid or server-limited runs on a side (${unusable})`);
  if (keepsUp) why.push(`scale: every server answered at least ${KEEPS_UP_SHARE * 100}% of the load asked, so no throughput difference can show`);
  if (indicative === 'too few') why.push(`too few runs: fewer than ${MIN_REPEATS} on a side`);
  const withinNoise = indicative === 'within noise';
  let conclusion;
  if (scale) {
    conclusion = 'indicative';
    why.unshift(`scale: ${scale}; ${indicative === 'holds' ? 'the runs there agree' : indicative === 'reversed' ? 'the runs there disagree' : `the runs there are ${indicative}`}`);
  } else if (why.length) conclusion = 'not comparable';
  else if (noStudyResult) conclusion = 'answered';
  else conclusion = indicative === 'holds' ? 'confirmed' : 'not confirmed';
  if (noStudyResult) why.unshift('no study result: the study left this question open');
  if (conclusion === 'answered') why.push(ANSWERS[indicative]);
  if (conclusion === 'not confirmed') why.push(withinNoise ? 'within noise: the conditions do not show it beyond the 95% interval or the sign test' : 'reversed beyond noise');
  return { conclusion, why, indicative, withinNoise };
}

function findingConclusion(checks) {
  const evaluated = checks.filter((c) => c.conclusion !== 'not run yet');
  const pick = (v) => evaluated.some((c) => c.conclusion === v);
  const conclusion = !evaluated.length ? 'not run yet'
    : pick('not confirmed') ? 'not confirmed' : pick('not comparable') ? 'not comparable' : pick('indicative') ? 'indicative'
      : pick('answered') ? 'answered' : 'confirmed';
  return { conclusion, withinNoise: evaluated.some((c) => c.withinNoise),
    notRun: checks.length - evaluated.length };
}

// ---- applying a check to runs ----

// What makes two runs the same condition; the duration is not among them: every compared metric is per
// second or per cycle over each run's steady window (docs/sweep.md), or a peak. hostSet: the hosts and the
// CPUs the server and the engines were pinned to (lib/provenance.js hostSet).
const CONDITION_KEYS = ['server', 'type', 'events', 'emitIntervalMs', 'maxDurationMs', 'connections', 'hostSet'];

// The poll duration tells permutations apart only for long polls without events (as in
// collect-runs.js's permutationKey): with events a poll is held until the event.
const conditionValue = (params, k) => (k === 'maxDurationMs' && !(params.type === 'poll' && !params.events) ? '-' : params[k] ?? '');

function conditionKey(params, skip) {
  return CONDITION_KEYS.filter((k) => !skip.includes(k)).map((k) => `${k}=${conditionValue(params, k)}`).join('|');
}

// "Tomcat 6, Comet, 1 s events, 400 connections" from the parameters a condition fixes.
function conditionLabel(params, skip) {
  const parts = [];
  if (!skip.includes('server')) parts.push(valueName('server', params.server));
  if (!skip.includes('type')) parts.push(valueName('type', params.type));
  if (!skip.includes('emitIntervalMs') && !skip.includes('events')) {
    if (params.events) parts.push(`${params.emitIntervalMs / 1000} s events`);
    else parts.push(params.type === 'poll' && params.maxDurationMs ? `no events, ${params.maxDurationMs / 1000} s polls` : 'no events');
  }
  if (!skip.includes('connections')) parts.push(`${params.connections.toLocaleString('en-GB')} connections`);
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

// Usable runs on every side when each has enough; else every run (shown, not judged) and the verdicts of
// those that are not usable.
const unusableCounts = (runs) => formatCounts(runs.filter((r) => !isUsable(r)).map((r) => verdictOf(r.summary)));
function chooseRuns(sides) {
  const valid = sides.map((s) => s.filter(isUsable));
  if (valid.every((s) => s.length >= MIN_REPEATS)) return { sides: valid, unusable: null };
  const bad = unusableCounts(sides.flat());
  return { sides, unusable: bad || null };
}

// The runs one permutation's line or row rests on: its usable runs when at least MIN_REPEATS are, else all.
function usableRuns(runs) {
  const valid = runs.filter(isUsable);
  return valid.length >= MIN_REPEATS ? valid : runs;
}

// Each side's runs got, on average, at least KEEPS_UP_SHARE of the answers they asked for: nothing
// saturated in that condition.
const keptUp = (sides) => sides.every((s) => s.length > 0 && describe(s.map((r) => metricValue('loadShare', r) ?? 0)).mean >= KEEPS_UP_SHARE);

const values = (runs, metric) => runs.map((r) => metricValue(metric, r)).filter((v) => v !== null);

// A 'similar' claim's margin: the check's tolerance (share of the reference mean) and its metric's margin
// in the study's own units (one point of the study host's measure, in pushbench's unit).
function similarOptions(check) {
  const study = STUDY_METRICS[check.metric]?.study;
  return { tolerance: check.tolerance ?? TOLERANCE, margin: study ? study.per : 0 };
}

// Whether a condition's means lie the study's way (+1), the other way (-1), or neither (0); null without
// two runs a side.
function rowSign(check, row) {
  if (row.outcome === 'too few' || !row.a || row.a.mean === null) return null;
  if (check.kind === 'below' || check.kind === 'above') return Math.sign(row.a.mean - check.threshold) * (check.kind === 'above' ? 1 : -1);
  if (!row.b || row.b.mean === null) return null;
  const wants = { greater: 1, up: 1, less: -1, down: -1 }[check.expect];
  return wants ? Math.sign(row.a.mean - row.b.mean) * wants : null;
}

// The comparisons a check makes over `runs`: [{ label, a, b, outcome, sign, ... }] and the runs it used.
function comparisons(check, runs) {
  const base = selectRuns({ filter: check.select ?? {} }, runs);
  const rows = [];
  const push = (label, sideRuns, judgeWith) => {
    const { sides, unusable } = chooseRuns(sideRuns);
    const row = { label, ...judgeWith(sides.map((s) => values(s, check.metric))), unusable, runs: sides.flat(),
      ...(check.keepsUp && keptUp(sides) ? { keptUp: true } : {}) };
    rows.push({ ...row, sign: rowSign(check, row) });
  };
  if (check.kind === 'compare') {
    const differ = [...new Set([...Object.keys(check.a), ...Object.keys(check.b)])];
    const pick = (side) => base.filter((r) => Object.entries(side).every(([k, v]) => [].concat(v).includes(r.params[k])));
    let groups = groupRuns([...pick(check.a), ...pick(check.b)], differ);
    if (check.at === 'max') {
      const top = Math.max(...groups.map((g) => g.params.connections));
      groups = groups.filter((g) => g.params.connections === top);
    }
    for (const g of groups) {
      const a = g.runs.filter((r) => pick(check.a).includes(r));
      const b = g.runs.filter((r) => pick(check.b).includes(r));
      if (a.length && b.length) push(conditionLabel(g.params, differ), [a, b], ([x, y]) => judge(x, y, check.expect, similarOptions(check)));
    }
  } else if (check.kind === 'trend') {
    for (const g of groupRuns(base, [check.by])) {
      const xs = [...new Set(g.runs.map((r) => r.params[check.by]))].sort((p, q) => p - q);
      if (xs.length < 2) continue;
      const at = (x) => g.runs.filter((r) => r.params[check.by] === x);
      const expect = { up: 'greater', down: 'less', flat: 'similar' }[check.expect];
      const label = `${conditionLabel(g.params, [check.by])}: ${xs[xs.length - 1].toLocaleString('en-GB')} against ${xs[0].toLocaleString('en-GB')}`;
      push(label, [at(xs[xs.length - 1]), at(xs[0])], ([x, y]) => judge(x, y, expect, similarOptions(check)));
    }
  } else if (check.kind === 'below' || check.kind === 'above') {
    for (const g of groupRuns(base, [])) push(conditionLabel(g.params, []), [g.runs], ([x]) => judgeThreshold(x, check.threshold, check.kind));
  } else if (check.kind === 'none' || check.kind === 'some') {
    // how many runs show a yes/no metric (a crash): 'none' holds when no run does, 'some' when one does
    if (base.length) {
      const hits = base.filter((r) => metricValue(check.metric, r));
      const seen = hits.length > 0;
      rows.push({ label: `${base.length} run${base.length === 1 ? '' : 's'}`, count: hits.length,
        outcome: seen === (check.kind === 'some') ? 'holds' : 'reversed', unusable: null, runs: base });
    }
  } else {
    throw new Error(`check ${check.id}: unknown kind ${check.kind}`);
  }
  return rows;
}

// A check applied: its comparisons and conclusion, judged at its scale (scaleGate) when runs reach it, else
// indicative from the runs there are.
const maxConnectionsOf = (runs) => Math.max(0, ...runs.map((r) => r.params.connections));

function rowsAtScale(check, runs, level) {
  if (check.kind === 'trend' && check.by === 'connections') {
    // a trend over connections: its smallest level the study's smallest or more, its largest at the gate
    return comparisons(check, runs.filter((r) => r.params.connections >= STUDY_SMALLEST_LEVEL)).filter((row) => maxConnectionsOf(row.runs) >= level);
  }
  return comparisons(check, runs.filter((r) => r.params.connections >= level));
}

function evaluateCheck(check, allRuns) {
  const runs = check.beyondGrid ? allRuns : allRuns.filter(inStudyGrid);
  const gate = scaleGate(check);
  let rows = rowsAtScale(check, runs, gate.level);
  let scale = null;
  if (!rows.length) {
    rows = comparisons(check, runs);
    if (rows.length) scale = `the study saw this at ${gate.level.toLocaleString('en-GB')} connections or more; these runs reach ${maxConnectionsOf(rows.flatMap((r) => r.runs)).toLocaleString('en-GB')}`;
  }
  // Conditions shown but left out of the judgement: for keepsUp those in which both sides kept up, and
  // those with too few usable runs on a side. With none left, the check is judged on every condition and
  // is not comparable.
  const keptUpRows = rows.filter((r) => r.keptUp);
  const unusableRows = rows.filter((r) => r.unusable && !r.keptUp);
  const unusableRuns = unusableCounts(unusableRows.flatMap((r) => r.runs));
  const onAll = rows.length > 0 && keptUpRows.length + unusableRows.length === rows.length;
  const judged = onAll ? rows : rows.filter((r) => !r.keptUp && !r.unusable);
  const keepsUp = onAll && !unusableRows.length;
  const unusable = onAll && !keepsUp ? unusableRuns : null;
  const across = check.kind === 'none' || check.kind === 'some'
    ? { outcome: judged.length ? judged[0].outcome : null }
    : acrossConditions(judged, { similar: check.expect === 'similar' || check.expect === 'flat' });
  const conclusion = checkConclusion({ outcome: across.outcome, scale, machine: check.machine ?? null, versions: check.versions ?? null, client: check.client ?? null, keepsUp,
    noStudyResult: Boolean(check.noStudyResult), unusable });
  if (!scale && gate.note && rows.length) conclusion.why.push(gate.note);
  if (!onAll) {
    const n = (list) => `${list.length} of ${rows.length} condition${rows.length === 1 ? '' : 's'} left out`;
    if (unusableRows.length) conclusion.why.push(`${n(unusableRows)}: fewer than ${MIN_REPEATS} valid or server-limited runs on a side (${unusableRuns})`);
    if (keptUpRows.length) conclusion.why.push(`${n(keptUpRows)}: each side's runs got ${KEEPS_UP_SHARE * 100}% of the load asked or more on average, so nothing saturated`);
  }
  // how many conditions' means lie the way the study says, beyond noise or not
  const signed = judged.filter((r) => r.sign === 1 || r.sign === -1);
  const agree = signed.length ? { k: signed.filter((r) => r.sign === 1).length, n: signed.length, p: across.p ?? null } : null;
  return { check, rows, ...conclusion, agree, level: gate.level };
}

function evaluateFinding(finding, runs) {
  const checks = finding.checks.map((c) => evaluateCheck(c, runs));
  return { finding, checks, ...findingConclusion(checks) };
}

module.exports = { judge, judgeThreshold, signTestP, acrossConditions, scaleGate, checkConclusion, findingConclusion, evaluateCheck, evaluateFinding,
  comparisons, usableRuns, isUsable, inStudyGrid, conditionLabel, CONCLUSIONS, TOLERANCE, KEEPS_UP_SHARE, STUDY_SMALLEST_LEVEL, MACHINE_LARGEST_LEVEL };
