'use strict';
// Whether pushbench's runs confirm one of the study's findings (issues #25, #35 and #50; the study's sections
// 5 and 6.1): each finding's and check's conclusion ('confirmed', 'not confirmed', …; a "verdict" is a run's
// validity, analysis/verdict.js). A finding (charts/study-findings.js) is a list of checks; a check compares
// one metric (study-metrics.js) between two sets of runs, along a trend, or against a threshold, in each
// condition (every other parameter equal, the same hosts and pinning). The rules, in one place:
//
// - The runs: only usable runs: valid ones, and server-limited ones whose reasons name no limit of the load
//   generator (the server could not keep up and the engine could: a real server result; analysis/verdict.js).
//   Runs the load generator bound, server-limited runs with the engine at its limit too (a reason whose own
//   verdict is generator-bound), and runs the machine disturbed are left out.
// - One condition, judge(a, b, expect): the difference of the means with its 95% interval (Welch,
//   study-stats.js). 'greater' / 'less' hold when the interval lies wholly on the expected side, are
//   reversed when it lies wholly on the other, and are 'within noise' otherwise. 'similar' holds when the
//   interval lies within +-margin, the larger of 10% of b's mean and the metric's margin in the study's own
//   units (one point of the study host's CPU or memory: study-metrics.js), is reversed when it lies wholly
//   outside, within noise otherwise. A condition is judged only with JUDGE_MIN_RUNS (3) usable runs on each
//   side; one with fewer is shown with its runs and left out of the judgement, and named among the
//   conditions left out.
// - One CPU per check: a condition's sides come from one host set (its key holds it), and a check's judged
//   conditions from one CPU model: the one with the most conditions that can be judged (then the most runs,
//   then by name). Conditions on another CPU are shown apart, never pooled, and the conclusion names its CPU.
// - Across conditions, acrossConditions: for a directed claim with 5 or more conditions, an exact
//   one-sided sign test over the conditions: the claim holds when the number of conditions whose means lie
//   the study's way is more than chance allows (p <= 0.05 under "either way equally likely": at least 5 of
//   5, 6 of 6, 7 of 8, 9 of 10, 12 of 16 …), and is reversed by the same test the other way. With 1-4
//   conditions the sign test cannot reach p <= 0.05: then a pooled estimate decides, the random-effects
//   mean (DerSimonian-Laird, study-stats.js) of the conditions' relative differences ((a - b) / |b|, or
//   (mean - threshold) / |threshold|), each with the standard error its own 95% interval gives (half the
//   interval over 1.96): the claim holds when the pooled 95% interval lies wholly on the study's side of 0,
//   is reversed when it lies wholly on the other, within noise otherwise. For 'similar': holds when most
//   conditions hold and none is reversed, reversed when most are. Otherwise within noise.
// - Scale: a check's runs are selected first (a 'level:N' among all the runs given), then judged on those
//   at or above the level at which the study saw its effect (minConnections; at least the study's
//   smallest level, 1,000 connections). A trend over connections has every level there. Runs below it give
//   an *indicative* conclusion only, never a 'not confirmed'. A study level beyond what this machine holds
//   (MACHINE_LARGEST_LEVEL, 15,000: the open-file limit) is judged at that level and is indicative.
// - Saturation (keepsUp: a claim that shows only where the load saturates something, a throughput or an
//   open question's contrast): a condition in which each side's runs got at least 95% of the answers they
//   asked for on average is shown but left out of the judgement, since nothing saturated there; when every
//   condition kept up, the check is judged on them all and is not comparable.
// - Own cores (ownCores: a claim about a server using the cores it is given): when every judged run's
//   server shares a core with the load generator (PB_SERVER_CPUS and PB_ENGINE_CPUS overlap, or no pinning),
//   no run can show the server saturating cores of its own: the host is the limit, not comparable (machine).
// - A check's conclusion: 'not run yet' (no runs for it); 'indicative' (runs only below its scale, or its
//   study level beyond this machine's); 'not comparable' when the effect depends on the study's machine
//   (machine), software versions (versions) or clients (client), every condition kept up with its load
//   (keepsUp), or no condition has enough usable runs; else, for a question the study left open
//   (noStudyResult), 'answered' (pushbench's answer: yes when it holds, no when reversed, no difference
//   within noise); else 'confirmed' (holds) or 'not confirmed' (reversed, or within noise).
// - A finding's conclusion: 'not confirmed' if any check is, else 'not comparable' if any is, else
//   'indicative' if any is, else 'answered' if any is, else 'confirmed'; checks not run yet are left out
//   ('not run yet' when all are).
// - A figure's line or a table's row (one permutation) rests on its usable runs when it has two (a band
//   needs two), else on all of them, drawn dashed (usableRuns).
const { describe, welch, randomEffects, Z975 } = require('./study-stats');
const { metricValue, STUDY_METRICS } = require('./study-metrics');
const { selectRuns, valueName } = require('./figure-data');
const { verdictOf, formatCounts } = require('../analysis/verdict');

const TOLERANCE = 0.1;          // 'similar': within 10% of the reference mean (or the metric's study margin)
const KEEPS_UP_SHARE = 0.95;    // a run that got at least 95% of the answers it asked for kept up with its load
const INTERVAL_MIN_RUNS = 2;    // fewer runs on a side give no interval
const JUDGE_MIN_RUNS = 3;       // usable runs a side a judged condition needs: the sitting's 3 repeats
// A server-limited run whose reasons also name a limit of the load generator: the engine was at its limit too.
const engineLimited = (run) => (run.summary?.validity?.reasons ?? []).some((r) => r.verdict === 'generator-bound');
// A run whose numbers are the server's: valid, or server-limited with the engine not at its limit.
const isUsable = (run) => verdictOf(run.summary) === 'valid' || (verdictOf(run.summary) === 'server-limited' && !engineLimited(run));
// Why a run is not usable, as counted on the page: its verdict, or that the engine was at its limit too.
const unusableKind = (run) => (verdictOf(run.summary) === 'server-limited' ? 'server-limited with the engine at its limit' : verdictOf(run.summary));
const SIGN_TEST_P = 0.05;       // the one-sided level of the sign test across conditions
const SIGN_TEST_MIN = 5;        // conditions the sign test needs to reach SIGN_TEST_P (0.5^5 = 0.031)
const STUDY_SMALLEST_LEVEL = 1000;   // the study's smallest connection level (section 4.2)
// The study's emit intervals (section 4.2: 1, 5, 10 and 30 s). A run with another one (sweep.sh
// --emit-intervals, e.g. docs/study's scale-rq4) lies beyond the study's grid: only a check that asks for
// such runs (beyondGrid) uses it, so a finding about the study's intervals is judged on the study's.
const STUDY_EMIT_INTERVALS_MS = [1000, 5000, 10000, 30000];
const inStudyGrid = (run) => !run.params.events || STUDY_EMIT_INTERVALS_MS.includes(run.params.emitIntervalMs);
const MACHINE_LARGEST_LEVEL = 15000; // the most connections this machine holds (20,000 open files a process: docs/limits.md)

// The CPU model of a run's server host (lib/provenance.js hosts), or null when the run does not say.
function cpuOf(run) {
  if (run.params?.cpu) return run.params.cpu;
  const sut = (run.provenance?.hosts ?? []).find((h) => String(h.role).split(',').includes('sut'));
  return sut?.cpuModel ?? null;
}

// The CPUs a pinning names ("0-1", "0,2") as a set of numbers; null when not pinned.
function cpuSet(spec) {
  if (!spec) return null;
  const out = new Set();
  for (const part of String(spec).split(',')) {
    const [a, b] = part.split('-').map(Number);
    for (let c = a; c <= (Number.isFinite(b) ? b : a); c++) out.add(c);
  }
  return out;
}

// Whether the server shares a core with the load generator: their pinnings overlap, or either is unpinned.
function sharesEngineCores(run) {
  const server = cpuSet(run.provenance?.settings?.PB_SERVER_CPUS);
  const engine = cpuSet(run.provenance?.settings?.PB_ENGINE_CPUS);
  return !server || !engine || [...server].some((c) => engine.has(c));
}

// Where a run ran, for labels: "AMD EPYC, server on CPU 1" ('' when the run does not say).
function placeOf(run) {
  const cpu = cpuOf(run);
  const pin = run.provenance?.settings?.PB_SERVER_CPUS;
  return [cpu, pin ? `server on CPU ${pin}` : null].filter(Boolean).join(', ');
}

const CONCLUSIONS = ['confirmed', 'not confirmed', 'not comparable', 'indicative', 'answered', 'not run yet'];
// An open question's answer from what its conditions showed.
const ANSWERS = { holds: 'answered: yes, beyond noise', reversed: 'answered: no, the opposite beyond noise',
  'within noise': 'answered: no difference beyond noise' };

function judge(a, b, expect, { tolerance = TOLERANCE, margin = 0 } = {}) {
  const x = describe(a);
  const y = describe(b);
  const ratio = x.mean !== null && y.mean ? x.mean / y.mean : null;
  const base = { a: x, b: y, ratio, diff: null };
  if (x.n < INTERVAL_MIN_RUNS || y.n < INTERVAL_MIN_RUNS) return { ...base, outcome: 'too few' };
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
  if (d.n < INTERVAL_MIN_RUNS) return { a: d, outcome: 'too few' };
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

// A condition's relative difference and its standard error, for the pooled estimate: { d, se } with d =
// (a - b) / |b| from a comparison's Welch interval, or (mean - threshold) / |threshold| from a threshold's;
// se = half the 95% interval over 1.96, over the same reference. null without an interval or a reference.
function relativeDifference(row, threshold = null) {
  if (threshold !== null) {
    if (!row.a || row.a.low === null || !threshold) return null;
    const ref = Math.abs(threshold);
    return { d: (row.a.mean - threshold) / ref, se: (row.a.high - row.a.low) / 2 / Z975 / ref };
  }
  if (!row.diff || !row.b?.mean) return null;
  const ref = Math.abs(row.b.mean);
  return { d: row.diff.diff / ref, se: (row.diff.high - row.diff.low) / 2 / Z975 / ref };
}

// One outcome for a check from its conditions (the header's rule). rows: [{ outcome, sign, rel }] where sign
// is +1 when the condition's mean lies the study's way, -1 the other way, 0 or null undecided, and rel its
// relative difference (relativeDifference); similar: a 'similar' claim; direction: +1 when the study's way is
// a positive relative difference, -1 a negative one. Returns { outcome, k, n, p, pooled } (k, n, p: the sign
// test's counts; p when it decided; pooled: the random-effects mean of the relative differences, when it decided).
function acrossConditions(rows, { similar = false, direction = 1 } = {}) {
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
    return { outcome, k, n, p: outcome === 'reversed' ? pAgainst : pFor, pooled: null };
  }
  const pooled = randomEffects(rows.map((r) => r.rel).filter(Boolean));
  if (!pooled) return { outcome: count('too few') ? 'too few' : 'within noise', k, n, p: null, pooled: null };
  const [low, high] = direction > 0 ? [pooled.low, pooled.high] : [-pooled.high, -pooled.low];
  return { outcome: low > 0 ? 'holds' : high < 0 ? 'reversed' : 'within noise', k, n, p: null, pooled };
}

// The level a check is judged at: { level, studyLevel, beyond } (beyond: the study's level is more than
// this machine holds, so the check is judged at MACHINE_LARGEST_LEVEL and is indicative there).
function scaleGate(check) {
  const studyLevel = Math.max(check.minConnections ?? STUDY_SMALLEST_LEVEL, STUDY_SMALLEST_LEVEL);
  if (studyLevel <= MACHINE_LARGEST_LEVEL) return { level: studyLevel, studyLevel, beyond: false };
  return { level: MACHINE_LARGEST_LEVEL, studyLevel, beyond: true };
}

// The reason a check at a study level beyond this machine's is indicative (the limit itself is named once,
// under the page's threats: scale).
const beyondMachine = (studyLevel) => `the study saw this at ${studyLevel.toLocaleString('en-GB')} connections; these runs reach ${MACHINE_LARGEST_LEVEL.toLocaleString('en-GB')}, the most this machine holds (the open-file limit: threats, scale)`;

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
  if (unusable) why.push(`too few usable runs: no condition has ${JUDGE_MIN_RUNS} valid or server-limited runs on a side (${unusable})`);
  if (keepsUp) why.push(`scale: every server answered at least ${KEEPS_UP_SHARE * 100}% of the load asked, so no throughput difference can show`);
  if (indicative === 'too few') why.push(`too few runs: fewer than ${INTERVAL_MIN_RUNS} on a side`);
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
  if (conclusion === 'not confirmed') why.push(withinNoise ? 'within noise: the conditions do not show it beyond the 95% interval, the pooled estimate or the sign test' : 'reversed beyond noise');
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
// second or per cycle over each run's steady window (docs/sweep.md), or a peak. hostSet: the hosts, their
// CPU model and the CPUs the server and the engines were pinned to (lib/provenance.js hostSet).
const CONDITION_KEYS = ['server', 'type', 'events', 'emitIntervalMs', 'maxDurationMs', 'connections', 'hostSet'];

// The poll duration tells permutations apart only for long polls without events (as in
// collect-runs.js's permutationKey): with events a poll is held until the event.
const conditionValue = (params, k) => (k === 'maxDurationMs' && !(params.type === 'poll' && !params.events) ? '-' : params[k] ?? '');

function conditionKey(params, skip) {
  return CONDITION_KEYS.filter((k) => !skip.includes(k)).map((k) => `${k}=${conditionValue(params, k)}`).join('|');
}

// "Tomcat 6, Comet, 1 s events, 400 connections (AMD EPYC, server on CPU 1)" from the parameters a
// condition fixes and where its runs ran (placeOf; none when '').
function conditionLabel(params, skip, place = '') {
  const parts = [];
  if (!skip.includes('server')) parts.push(valueName('server', params.server));
  if (!skip.includes('type')) parts.push(valueName('type', params.type));
  if (!skip.includes('emitIntervalMs') && !skip.includes('events')) {
    if (params.events) parts.push(`${params.emitIntervalMs / 1000} s events`);
    else parts.push(params.type === 'poll' && params.maxDurationMs ? `no events, ${params.maxDurationMs / 1000} s polls` : 'no events');
  }
  if (!skip.includes('connections')) parts.push(`${params.connections.toLocaleString('en-GB')} connections`);
  return `${parts.join(', ')}${place ? ` (${place})` : ''}`;
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

// The runs a condition's sides are shown with: each side's usable runs when every side has one, else every
// run. n: usable runs per side; enough: every side has JUDGE_MIN_RUNS of them (the condition can be judged);
// unusable: the kinds of the runs not usable ('' when none).
const unusableCounts = (runs) => formatCounts(runs.filter((r) => !isUsable(r)).map(unusableKind));
function chooseRuns(sides) {
  const usable = sides.map((s) => s.filter(isUsable));
  const n = usable.map((s) => s.length);
  return { sides: n.every((k) => k > 0) ? usable : sides, n, enough: n.every((k) => k >= JUDGE_MIN_RUNS),
    unusable: unusableCounts(sides.flat()) || null };
}

// The runs one permutation's line or row rests on: its usable runs when at least INTERVAL_MIN_RUNS are
// (a band needs two), else all.
function usableRuns(runs) {
  const valid = runs.filter(isUsable);
  return valid.length >= INTERVAL_MIN_RUNS ? valid : runs;
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

// +1 when the study's way is a larger a (or a value above the threshold), -1 when a smaller one.
const directionOf = (check) => (check.kind === 'below' || ['less', 'down'].includes(check.expect) ? -1 : 1);

// Whether a condition's means lie the study's way (+1), the other way (-1), or neither (0); null without
// two runs a side.
function rowSign(check, row) {
  if (row.outcome === 'too few' || !row.a || row.a.mean === null) return null;
  if (check.kind === 'below' || check.kind === 'above') return Math.sign(row.a.mean - check.threshold) * directionOf(check);
  if (!row.b || row.b.mean === null) return null;
  return ['greater', 'up', 'less', 'down'].includes(check.expect) ? Math.sign(row.a.mean - row.b.mean) * directionOf(check) : null;
}

// The comparisons a check makes over its selected runs `base`: [{ label, cpu, a, b, outcome, sign, rel, n,
// enough, unusable, runs (shown), allRuns, keptUp? }], each condition's runs from one host set.
function comparisons(check, base) {
  const rows = [];
  const push = (params, skip, sideRuns, judgeWith, suffix = '') => {
    const first = sideRuns.flat()[0];
    const { sides, n, enough, unusable } = chooseRuns(sideRuns);
    const row = { label: `${conditionLabel(params, skip, placeOf(first))}${suffix}`, cpu: cpuOf(first),
      ...judgeWith(sides.map((s) => values(s, check.metric))), n, enough, unusable, runs: sides.flat(), allRuns: sideRuns.flat(),
      ...(check.keepsUp && keptUp(sides) ? { keptUp: true } : {}) };
    const threshold = check.kind === 'below' || check.kind === 'above' ? check.threshold : null;
    rows.push({ ...row, sign: rowSign(check, row), rel: relativeDifference(row, threshold) });
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
      if (a.length && b.length) push(g.params, differ, [a, b], ([x, y]) => judge(x, y, check.expect, similarOptions(check)));
    }
  } else if (check.kind === 'trend') {
    for (const g of groupRuns(base, [check.by])) {
      const xs = [...new Set(g.runs.map((r) => r.params[check.by]))].sort((p, q) => p - q);
      if (xs.length < 2) continue;
      const at = (x) => g.runs.filter((r) => r.params[check.by] === x);
      const expect = { up: 'greater', down: 'less', flat: 'similar' }[check.expect];
      push(g.params, [check.by], [at(xs[xs.length - 1]), at(xs[0])], ([x, y]) => judge(x, y, expect, similarOptions(check)),
        `: ${xs[xs.length - 1].toLocaleString('en-GB')} against ${xs[0].toLocaleString('en-GB')}`);
    }
  } else if (check.kind === 'below' || check.kind === 'above') {
    for (const g of groupRuns(base, [])) push(g.params, [], [g.runs], ([x]) => judgeThreshold(x, check.threshold, check.kind));
  } else if (check.kind === 'none' || check.kind === 'some') {
    // how many runs on one CPU show a yes/no metric (a crash): 'none' holds when no run does, 'some' when one does
    const byCpu = new Map();
    for (const r of base) byCpu.set(cpuOf(r), [...(byCpu.get(cpuOf(r)) ?? []), r]);
    for (const [cpu, list] of byCpu) {
      const hits = list.filter((r) => metricValue(check.metric, r));
      rows.push({ label: `${list.length} run${list.length === 1 ? '' : 's'}${cpu ? ` (${cpu})` : ''}`, cpu, count: hits.length,
        outcome: (hits.length > 0) === (check.kind === 'some') ? 'holds' : 'reversed', n: [list.length], enough: true, unusable: null, runs: list, allRuns: list });
    }
  } else {
    throw new Error(`check ${check.id}: unknown kind ${check.kind}`);
  }
  return rows;
}

// The CPU a check is judged on: among the rows given, the CPU model with the most of them, then the most
// runs, then the first by name.
function chooseCpu(rows) {
  const by = new Map();
  for (const r of rows) {
    const e = by.get(r.cpu) ?? { cpu: r.cpu, rows: 0, runs: 0 };
    e.rows += 1;
    e.runs += r.runs.length;
    by.set(r.cpu, e);
  }
  const order = [...by.values()].sort((p, q) => q.rows - p.rows || q.runs - p.runs || String(p.cpu).localeCompare(String(q.cpu)));
  return order.length ? order[0].cpu : null;
}

const maxConnectionsOf = (runs) => Math.max(0, ...runs.map((r) => r.params.connections));
const plural = (n, word) => `${n} ${word}${n === 1 ? '' : 's'}`;

// Why a check's runs cannot show a server saturating cores of its own (ownCores), or null when one can.
function ownCoresLimit(check, judged) {
  const runs = judged.flatMap((r) => r.runs);
  if (!check.ownCores || !runs.length || !runs.every(sharesEngineCores)) return null;
  const pins = [...new Set(runs.map((r) => `server on CPU ${r.provenance?.settings?.PB_SERVER_CPUS ?? 'any'}, engine on CPU ${r.provenance?.settings?.PB_ENGINE_CPUS ?? 'any'}`))];
  return `the host is the limit: in every run the server shares a core with the load generator (${pins.join('; ')}), so no run shows it saturating cores of its own`;
}

// A check applied: its comparisons and conclusion, judged at its scale (scaleGate) on one CPU when runs
// reach it, else indicative from the runs there are. Returns { check, rows (every condition, each marked
// leftOut / otherCpu), conclusion, why, indicative, withinNoise, agree, pooled, level, studyLevel, cpu,
// judged (the rows the conclusion rests on), levels, n, conditions }.
function evaluateCheck(check, allRuns) {
  const runs = check.beyondGrid ? allRuns : allRuns.filter(inStudyGrid);
  const selected = selectRuns({ filter: check.select ?? {} }, runs);   // a 'level:N' resolved before the gate
  const gate = scaleGate(check);
  let rows = comparisons(check, selected.filter((r) => r.params.connections >= gate.level));
  let scale = gate.beyond && rows.length ? beyondMachine(gate.studyLevel) : null;
  if (!rows.length) {
    rows = comparisons(check, selected);
    if (rows.length) scale = `the study saw this at ${gate.level.toLocaleString('en-GB')} connections or more; these runs reach ${maxConnectionsOf(rows.flatMap((r) => r.runs)).toLocaleString('en-GB')}`;
  }
  // Conditions shown but left out of the judgement: those with fewer than JUDGE_MIN_RUNS usable runs on a
  // side (whether they kept up is not known from so few), for keepsUp those in which both sides kept up;
  // then those on another CPU than the one the
  // check is judged on. With none left on its CPU, the check is judged on every condition there and is not
  // comparable.
  rows = rows.map((r) => ({ ...r, leftOut: !r.enough ? 'too few' : r.keptUp ? 'kept up' : null }));
  const judgeable = rows.filter((r) => !r.leftOut);
  const cpu = chooseCpu(judgeable.length ? judgeable : rows);
  rows = rows.map((r) => ({ ...r, otherCpu: r.cpu !== cpu }));
  const onCpu = rows.filter((r) => !r.otherCpu);
  const keptUpRows = onCpu.filter((r) => r.leftOut === 'kept up');
  const fewRows = onCpu.filter((r) => r.leftOut === 'too few');
  const onAll = onCpu.length > 0 && keptUpRows.length + fewRows.length === onCpu.length;
  const judged = onAll ? onCpu : onCpu.filter((r) => !r.leftOut);
  const notUsable = unusableCounts(fewRows.flatMap((r) => r.allRuns));
  const fewText = `usable runs a side ${fewRows.map((r) => r.n.join('/')).join(', ')}${notUsable ? `; not usable: ${notUsable}` : ''}`;
  const keepsUp = onAll && !fewRows.length;
  const across = check.kind === 'none' || check.kind === 'some'
    ? { outcome: judged.length ? judged[0].outcome : null }
    : acrossConditions(judged, { similar: check.expect === 'similar' || check.expect === 'flat', direction: directionOf(check) });
  const machine = [check.machine, ownCoresLimit(check, judged)].filter(Boolean).join('; ') || null;
  const conclusion = checkConclusion({ outcome: across.outcome, scale, machine, versions: check.versions ?? null, client: check.client ?? null, keepsUp,
    noStudyResult: Boolean(check.noStudyResult), unusable: onAll && !keepsUp ? fewText : null });
  const others = rows.filter((r) => r.otherCpu);
  if (others.length) {
    conclusion.why.push(`cpu: judged on the ${cpu ?? 'unknown CPU'} alone; ${plural(others.length, 'condition')} on the ${[...new Set(others.map((r) => r.cpu ?? 'unknown CPU'))].join(', ')} shown apart, not pooled`);
  }
  if (!onAll) {
    const n = (list) => `${list.length} of ${plural(onCpu.length, 'condition')} left out`;
    if (fewRows.length) conclusion.why.push(`${n(fewRows)}: fewer than ${JUDGE_MIN_RUNS} valid or server-limited runs on a side (${fewText})`);
    if (keptUpRows.length) conclusion.why.push(`${n(keptUpRows)}: each side's runs got ${KEEPS_UP_SHARE * 100}% of the load asked or more on average, so nothing saturated`);
  }
  // how many conditions' means lie the way the study says, beyond noise or not
  const signed = judged.filter((r) => r.sign === 1 || r.sign === -1);
  const agree = signed.length ? { k: signed.filter((r) => r.sign === 1).length, n: signed.length, p: across.p ?? null } : null;
  const levels = [...new Set(judged.flatMap((r) => r.runs.map((x) => x.params.connections)))].sort((p, q) => p - q);
  return { check, rows, ...conclusion, agree, pooled: across.pooled ?? null, level: gate.level, studyLevel: gate.studyLevel, cpu,
    judged, levels, n: judged.map((r) => r.n), conditions: judged.map((r) => r.label) };
}

function evaluateFinding(finding, runs) {
  const checks = finding.checks.map((c) => evaluateCheck(c, runs));
  return { finding, checks, ...findingConclusion(checks) };
}

module.exports = { judge, judgeThreshold, signTestP, acrossConditions, relativeDifference, scaleGate, checkConclusion, findingConclusion, evaluateCheck, evaluateFinding,
  comparisons, usableRuns, isUsable, engineLimited, inStudyGrid, conditionLabel, cpuOf, placeOf, sharesEngineCores, directionOf,
  CONCLUSIONS, TOLERANCE, KEEPS_UP_SHARE, JUDGE_MIN_RUNS, STUDY_SMALLEST_LEVEL, MACHINE_LARGEST_LEVEL };
