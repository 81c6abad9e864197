'use strict';
// docs/study's verdicts in a form a reviewer can recompute and diff (issue #50): one entry per check of the
// at-scale sitting, written by charts/study.js to docs/study/verdicts.json beside the page, which shows the
// same conclusions; the threat the machine's change of CPU makes, in numbers from the runs; and the list of
// conditions left out for too few usable runs. Plain functions of the evaluated findings
// (charts/study-finding.js evaluateFinding) and the runs.
const { table, escapeHtml, fmt } = require('./page');
const { metricValue } = require('./study-metrics');
const { isUsable, cpuOf, JUDGE_MIN_RUNS } = require('./study-finding');
const { describe } = require('./study-stats');

// One entry per check: finding (id) and source, check (id) and text, verdict (its conclusion), withinNoise,
// reason (the why, '; '-joined), studyLevel (connections at which the study saw it), levels (the
// connection levels of the runs it rests on), cpu (the CPU model it is judged on), n (usable runs per side
// per condition), conditions (the conditions it rests on), leftOut (conditions on its CPU left out:
// { condition, n, why }), shownApart (how many conditions on another CPU).
function verdictsOf(evaluated) {
  return evaluated.flatMap((e) => e.checks.map((c) => ({
    finding: e.finding.id, source: e.finding.source, check: c.check.id, text: c.check.text,
    verdict: c.conclusion, withinNoise: c.withinNoise, reason: c.why.join('; '),
    studyLevel: c.studyLevel, levels: c.levels, cpu: c.cpu, n: c.n, conditions: c.conditions,
    leftOut: c.rows.filter((r) => !r.otherCpu && r.leftOut).map((r) => ({ condition: r.label, n: r.n, why: r.leftOut })),
    shownApart: c.rows.filter((r) => r.otherCpu).length,
  })));
}

// The JSON text of verdicts.json (stable: the same evaluation gives the same bytes).
const verdictsJson = (evaluated) => `${JSON.stringify(verdictsOf(evaluated), null, 1)}\n`;

// Runs' permutation on one CPU without the CPU: what two CPUs' runs of one condition share (the server's
// pinning kept: RQ4's runs on both cores are another condition).
const sameCondition = (r) => [r.params.server, r.params.type, r.params.connections, r.params.events ? r.params.emitIntervalMs : 'none',
  r.params.type === 'poll' && !r.params.events ? r.params.maxDurationMs : '-', r.provenance?.settings?.PB_SERVER_CPUS ?? 'any'].join('|');

const median = (v) => { const s = [...v].sort((a, b) => a - b); return s.length % 2 ? s[(s.length - 1) / 2] : (s[s.length / 2 - 1] + s[s.length / 2]) / 2; };

// The threat of the machine's change of CPU, from the runs at scale and the evaluated checks: { id, title,
// text }, or null when every run is on one CPU. The ratio is of the server's mean CPU (serverCpu) over the
// usable runs of each condition run on both CPUs, the second CPU's (by name) over the first's.
function cpuThreat(runs, evaluated) {
  const cpus = [...new Set(runs.map((r) => cpuOf(r) ?? 'unknown CPU'))].sort();
  if (cpus.length < 2) return null;
  const count = (cpu) => runs.filter((r) => (cpuOf(r) ?? 'unknown CPU') === cpu).length;
  const groups = new Map();
  for (const r of runs.filter(isUsable)) {
    const k = sameCondition(r);
    if (!groups.has(k)) groups.set(k, new Map());
    const byCpu = groups.get(k);
    byCpu.set(cpuOf(r) ?? 'unknown CPU', [...(byCpu.get(cpuOf(r) ?? 'unknown CPU') ?? []), metricValue('serverCpu', r)]);
  }
  const [first, second] = cpus;
  const ratios = [...groups.values()].filter((m) => m.has(first) && m.has(second))
    .map((m) => describe(m.get(second)).mean / describe(m.get(first)).mean).filter(Number.isFinite);
  const checks = evaluated.flatMap((e) => e.checks).filter((c) => c.conclusion !== 'not run yet');
  const judgedOn = cpus.map((cpu) => `${checks.filter((c) => c.cpu === cpu).length} on the ${cpu}`).join(', ');
  const apart = checks.filter((c) => c.rows.some((r) => r.otherCpu)).length;
  return { id: 'cpu', title: 'The CPU changed mid-sitting',
    text: `The machine's CPU changed between sessions: ${cpus.map((cpu) => `${count(cpu)} runs ran on the ${cpu}`).join(', ')} (the same 2 cores, memory and pinning; docs/study/README.md, part 7). `
      + (ratios.length ? `In the ${ratios.length} conditions with usable runs on both, the server's mean CPU on the ${second} is ${fmt(Math.min(...ratios), 2)}\u2013${fmt(Math.max(...ratios), 2)} times that on the ${first} (median ${fmt(median(ratios), 2)}), so the two are not repeats of one another. ` : '')
      + `A condition's sides come from one host set and a check's conditions from one CPU model, never pooled: of the ${checks.length} checks with runs, ${judgedOn}; ${apart} show conditions on the other CPU apart. Each conclusion names its CPU (and docs/study/verdicts.json). Conditions run only on one CPU cannot be paired with those of the other: a comparison whose sides ran on different CPUs is not made.` };
}

// The conditions left out of the at-scale checks for fewer than JUDGE_MIN_RUNS usable runs on a side, and
// the permutations at scale with fewer than JUDGE_MIN_RUNS usable runs: a section's HTML.
function leftOutSection(evaluated, runs, byPermutation) {
  // one row per condition (its label and usable runs a side), with every check that left it out
  const byCondition = new Map();
  for (const e of evaluated) {
    for (const c of e.checks) {
      for (const r of c.rows.filter((x) => !x.otherCpu && x.leftOut === 'too few')) {
        const key = `${r.label}|${r.n.join('/')}`;
        if (!byCondition.has(key)) byCondition.set(key, { row: r, checks: [] });
        byCondition.get(key).checks.push(`<a href="#${escapeHtml(e.finding.id)}">${escapeHtml(e.finding.source)}</a> ${escapeHtml(c.check.id)}`);
      }
    }
  }
  const rows = [...byCondition.values()].map(({ row: r, checks }) => [`<td>${escapeHtml(r.label)}</td>`, `<td class="num">${escapeHtml(r.n.join('/'))}</td>`,
    `<td>${escapeHtml(r.unusable ?? '')}</td>`, `<td>${checks.join(', ')}</td>`]);
  const perms = [...byPermutation(runs).values()];
  const usable = perms.map((g) => g.filter(isUsable).length);
  const short = usable.filter((n) => n < JUDGE_MIN_RUNS).length;
  const one = usable.filter((n) => n <= 1).length;
  return [
    `<h3 id="left-out">Conditions left out: fewer than ${JUDGE_MIN_RUNS} usable runs on a side</h3>`,
    `<p>The sitting asked for 3 repeats of every permutation, but ${short} of its ${perms.length} permutations at scale have fewer than ${JUDGE_MIN_RUNS} usable (valid or server-limited) runs, ${one} one or none: some sets ran fewer passes on one CPU, and runs the load generator bound or the machine disturbed are not usable. A condition with fewer than ${JUDGE_MIN_RUNS} usable runs on a side is shown beside its check and left out of the judgement; these are they, on the CPU each check is judged on (${rows.length} conditions; to be taken again in a later session), each with the checks it is left out of.</p>`,
    rows.length ? table(rows, { head: ['Condition', { text: 'Usable runs a side', num: true }, 'Not usable', 'Left out of'] }) : '<p class="none">none</p>',
  ].join('\n');
}

module.exports = { verdictsOf, verdictsJson, cpuThreat, leftOutSection };
