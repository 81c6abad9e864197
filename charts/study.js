#!/usr/bin/env node
'use strict';
// node charts/study.js [--data docs/study/data] [--out docs/study]: the study reproduced (issues #25, #35, #50)
// as one page, docs/study/index.html, with every check's conclusion also in docs/study/verdicts.json
// (charts/study-verdicts.js), built from the derived data committed under docs/study/data (each run's
// run.json, data/summary.json and data/series.json, copied there by charts/study-collect.js) and nothing
// else, so the same data always gives the same page. For every finding of the study's section 5 (figures
// 5-28, tables 5.1.3 and 5.1.4), section 6.1 and RQ1-RQ4 (charts/study-findings.js): the study's finding
// with its numbers, pushbench's numbers, and the conclusion of charts/study-finding.js. Every comparison
// figure (charts/figures.js) with runs is drawn like the comparison pages, each averaged line with its 95%
// confidence band (study-stats.js); a figure without runs says "not run yet". The repeats section gives
// each permutation's headline metrics with their 95% interval and coefficient of variation.
const fs = require('node:fs');
const path = require('node:path');
const { page, chartCard, table, copyAssets, copyScript, escapeHtml, scriptJson, fmt } = require('./page');
const { FIGURES, METRICS } = require('./figures');
const { loadRuns, permutationKey } = require('./collect-runs');
const { buildFigure, selectRuns, valueName } = require('./figure-data');
const { FINDINGS, THREATS } = require('./study-findings');
const { STUDY_METRICS, HEADLINE, metricValue } = require('./study-metrics');
const { verdictsJson, cpuThreat, leftOutSection } = require('./study-verdicts');
const { evaluateFinding, conditionLabel, usableRuns, isUsable, inStudyGrid, cpuOf, placeOf, CONCLUSIONS, STUDY_SMALLEST_LEVEL, JUDGE_MIN_RUNS } = require('./study-finding');
const { describe, band } = require('./study-stats');
const { leaveOutSuperseded } = require('./study-superseded');
const { heapSection } = require('./study-heap');
const { verdictOf, reasonTexts, isValid, formatCounts } = require('../analysis/verdict');
const { writeFileAtomic } = require('../lib/atomic-write');

const ROOT = path.join(__dirname, '..');
const DEFAULTS = { data: path.join(ROOT, 'docs', 'study', 'data'), out: path.join(ROOT, 'docs', 'study') };
const STUDY_FIGURES = FIGURES.filter((f) => (typeof f.number === 'number' && f.number >= 5 && f.number <= 28) || ['T1', 'T2'].includes(f.number));

// ---- figures: the comparison figures with a 95% band around each averaged line ----

// Adds each line's band (two OFC2 elements, "pb-band" low/high: charts/study-render.js fills between them).
function addBands(figure, result, runsByDir) {
  if (figure.kind === 'xy') return result;
  const metric = METRICS[figure.metric];
  for (const p of result.panels) {
    const extra = [];
    for (const line of p.lines) {
      const runs = line.runs.map((d) => runsByDir.get(d));
      if (runs.length < 2) continue;
      const arrays = runs.map((r) => (r.series[metric.data] ?? []).slice(r.loadStart ?? 0));
      const { low, high } = band(arrays);
      // memory lines are shifted to start together (figure-data.js alignStarts): shift the band alike
      const rawFirst = describe(arrays.map((a) => a.find((v) => v !== null && v !== undefined))).mean;
      const shownFirst = line.values.find((v) => v !== null);
      const shift = metric.alignStart && rawFirst !== null && shownFirst !== undefined ? shownFirst - rawFirst : 0;
      // every metric drawn is non-negative, and a percentage with a fixed top (CPU) cannot pass it: the band is cut there
      const top = metric.yMax ?? Infinity;
      const at = (v) => (v === null ? null : Math.round(Math.min(top, Math.max(0, v + shift)) * 100) / 100);
      const colour = line.colour;
      extra.push({ type: 'line', colour, values: low.map(at), width: 0, text: `${line.name} 95% band`, 'pb-band': 'low', 'dot-style': { type: 'dot', colour, 'dot-size': 0 } });
      extra.push({ type: 'line', colour, values: high.map(at), width: 0, text: `${line.name} 95% band`, 'pb-band': 'high', 'dot-style': { type: 'dot', colour, 'dot-size': 0 } });
    }
    if (!extra.length) continue;
    p.chart.elements.push(...extra);
    const top = Math.max(...extra.flatMap((e) => e.values).filter(Number.isFinite));
    if (typeof p.chart.y_axis.max === 'number' && top > p.chart.y_axis.max) delete p.chart.y_axis.max;   // let the band show
  }
  return result;
}

// ---- text of numbers ----

const withCi = (d) => (d.n === 0 ? '\u2013' : d.low === null ? `${fmt(d.mean)} (n=${d.n})`
  : `${fmt(d.mean)} <span class="none">(95%: ${fmt(d.low)}\u2013${fmt(d.high)}, n=${d.n})</span>`);

function sideLabel(side) {
  return Object.entries(side).map(([k, v]) => [].concat(v).map((x) => (k === 'maxDurationMs' ? `${x / 1000} s polls`
    : k === 'emitIntervalMs' ? `${x / 1000} s events` : k === 'events' ? (x ? 'with events' : 'no events') : valueName(k, x))).join('/')).join(', ');
}

function rowNumbers(check, row) {
  const unit = STUDY_METRICS[check.metric].unit;
  if (check.kind === 'none' || check.kind === 'some') return `${row.count} of ${row.label} crashed`;
  if (check.kind === 'below' || check.kind === 'above') return `${withCi(row.a)} ${escapeHtml(unit)} against ${fmt(check.threshold)}`;
  const [an, bn] = check.kind === 'trend' ? ['largest', 'smallest'] : [sideLabel(check.a), sideLabel(check.b)];
  const ratio = row.ratio !== null && Number.isFinite(row.ratio) ? `; ratio ${fmt(row.ratio)}` : '';
  const study = STUDY_METRICS[check.metric].study;
  const inStudy = study && row.diff ? ` = ${fmt(row.diff.diff / study.per, 2)} ${escapeHtml(study.unit)}` : '';
  const margin = row.margin !== undefined ? `; margin \u00b1${fmt(row.margin)}` : '';
  const diff = row.diff ? `; difference ${fmt(row.diff.diff)} <span class="none">(95%: ${fmt(row.diff.low)}\u2013${fmt(row.diff.high)})${inStudy}${margin}</span>` : '';
  return `${escapeHtml(an)}: ${withCi(row.a)}; ${escapeHtml(bn)}: ${withCi(row.b)} ${escapeHtml(unit)}${ratio}${diff}`;
}

// A relative difference as a signed percentage: "+12.3%".
const pct = (x) => `${x >= 0 ? '+' : ''}${fmt(x * 100, 1)}%`;

// What the page says beside a condition not judged, or judged with runs left out.
function rowMarks(r) {
  const marks = [];
  if (r.leftOut === 'too few') marks.push(`<span class="warn">(usable runs a side: ${escapeHtml(r.n.join('/'))}${r.unusable ? `; not usable: ${escapeHtml(r.unusable)}` : ''}; fewer than ${JUDGE_MIN_RUNS}: left out)</span>`);
  else if (r.unusable) marks.push(`<span class="none">(not usable, left out: ${escapeHtml(r.unusable)})</span>`);
  if (r.leftOut === 'kept up') marks.push('<span class="none">(both sides kept up: left out)</span>');
  if (r.otherCpu) marks.push('<span class="none">(another CPU: shown apart, not judged with the others)</span>');
  return marks.length ? ` ${marks.join(' ')}` : '';
}

const CONCLUSION_CLASS = { confirmed: 'ok', 'not confirmed': 'bad', 'not comparable': 'warn', indicative: 'none', answered: 'ok', 'not run yet': 'none' };
const conclusionBadge = (v, extra = '') => `<span class="conclusion-tag ${CONCLUSION_CLASS[v]}" data-conclusion="${escapeHtml(v)}">${escapeHtml(v)}${extra}</span>`;
const marks = (e) => (e.withinNoise ? ' <span class="none">(within noise)</span>' : '');

// tagged: each check's conclusion carries data-check, data-conclusion and data-cpu (the at-scale sitting's,
// which docs/study/verdicts.json holds too).
function checkTable(evaluated, tagged = true) {
  const rows = [];
  for (const c of evaluated.checks) {
    const metric = STUDY_METRICS[c.check.metric];
    const head = `${escapeHtml(c.check.text)}<br><span class="none">${escapeHtml(metric.name)}</span>`;
    const agree = c.agree?.n ? [`means the study's way in ${c.agree.k} of ${c.agree.n} condition${c.agree.n === 1 ? '' : 's'}${c.agree.p !== null ? ` (sign test p = ${fmt(c.agree.p, 3)})` : ''}`] : [];
    const pooled = c.pooled ? [`pooled relative difference ${pct(c.pooled.mean)} (95%: ${pct(c.pooled.low)} to ${pct(c.pooled.high)}; random effects over ${c.pooled.k} condition${c.pooled.k === 1 ? '' : 's'})`] : [];
    const cpu = c.conclusion === 'not run yet' ? [] : [`CPU: ${c.cpu ?? 'not recorded'}`];
    const why = [...cpu, ...c.why, ...agree, ...pooled];
    const conclusion = !tagged ? `${conclusionBadge(c.conclusion)}${marks(c)}${why.length ? `<br><span class="why">${why.map(escapeHtml).join('<br>')}</span>` : ''}` : `<span data-check="${escapeHtml(`${evaluated.finding.id}/${c.check.id}`)}" data-conclusion="${escapeHtml(c.conclusion)}" data-cpu="${escapeHtml(c.cpu ?? '')}">${conclusionBadge(c.conclusion)}</span>${marks(c)}${why.length ? `<br><span class="why">${why.map(escapeHtml).join('<br>')}</span>` : ''}`;
    if (!c.rows.length) {
      rows.push([`<td>${head}</td>`, '<td class="none">no runs match</td>', '<td></td>', `<td>${conclusion}</td>`]);
      continue;
    }
    c.rows.forEach((r, i) => rows.push([
      i === 0 ? `<td rowspan="${c.rows.length}">${head}</td>` : '',
      `<td>${escapeHtml(r.label)}</td>`,
      `<td>${rowNumbers(c.check, r)}${rowMarks(r)}</td>`,
      i === 0 ? `<td rowspan="${c.rows.length}">${conclusion}</td>` : '',
    ].filter(Boolean)));
  }
  return table(rows, { head: ['Check', 'Condition', 'pushbench (mean, 95% interval)', 'Conclusion'] });
}

// Tables 5.1.3 and 5.1.4: the study's totals and rates beside pushbench's rate at its largest level.
function throughputTable(spec, runs) {
  const chosen = runs.filter((r) => Object.entries(spec.select).every(([k, v]) => [].concat(v).includes(r.params[k])));
  const top = Math.max(0, ...chosen.map((r) => r.params.connections));
  // one row per server and CPU: runs on two CPUs are never averaged together
  const places = [...new Set(chosen.filter((r) => r.params.connections === top).map(placeOf))].sort();
  const rows = spec.rows.flatMap((row) => (places.length ? places : ['']).map((place) => {
    const mine = chosen.filter((r) => r.params.server === row.server && r.params.connections === top && placeOf(r) === place);
    const use = usableRuns(mine);
    const rate = describe(use.map((r) => metricValue('responsesPerSecond', r)));
    return [
      `<td>${escapeHtml(valueName('server', row.server))}${place ? ` <span class="none">(${escapeHtml(place)})</span>` : ''}</td>`,
      `<td class="num">${row.total === null ? `<span class="none">${escapeHtml(row.note)}</span>` : fmt(row.total)}</td>`,
      `<td class="num">${row.perSecond === null ? '' : fmt(row.perSecond)}</td>`,
      `<td class="num">${mine.length ? fmt(top) : ''}</td>`,
      `<td>${mine.length ? withCi(rate) : '<span class="none">not run yet</span>'}${use.some((r) => !isValid(verdictOf(r.summary))) ? ` <span class="warn">(runs not valid: ${escapeHtml(formatCounts(use.map((r) => verdictOf(r.summary))))})</span>` : ''}</td>`,
    ];
  }));
  return table(rows, { head: ['Server', { text: 'Study: responses sent (600 s, 20,000 conn.)', num: true }, { text: 'Study: per second', num: true },
    { text: 'pushbench: connections', num: true }, 'pushbench: responses per second'] });
}

// ---- the scale the runs were made at ----

// The runs of each permutation (collect-runs.js permutationKey -> its runs, in the order given).
function byPermutation(runs) {
  const groups = new Map();
  for (const r of runs) {
    const key = permutationKey(r.params);
    if (!groups.has(key)) groups.set(key, []);
    groups.get(key).push(r);
  }
  return groups;
}

function scaleOf(runs) {
  const list = (key, f = (v) => v) => [...new Set(runs.map((r) => r.params[key]).filter((v) => v !== null && v !== undefined))]
    .sort((a, b) => (typeof a === 'number' ? a - b : String(a).localeCompare(String(b)))).map(f);
  const perms = byPermutation(runs);
  const repeats = [...perms.values()].map((g) => g.length);
  const hosts = [...new Set(runs.map((r) => r.params.hostSet ?? 'unknown hosts'))];
  const commits = [...new Set(runs.map((r) => r.provenance?.pushbench).filter((p) => p?.commit)
    .map((p) => `${p.commit.slice(0, 10)}${p.dirty ? ' (with uncommitted changes)' : ''}`))];
  const starts = runs.map((r) => r.summary.startedAt).filter(Number.isFinite).sort((a, b) => a - b);
  return {
    runs: runs.length, permutations: perms.size, repeats: repeats.length ? [Math.min(...repeats), Math.max(...repeats)] : [0, 0],
    servers: list('server', (v) => valueName('server', v)), types: list('type', (v) => valueName('type', v)),
    levels: list('connections'), intervals: list('emitIntervalMs', (v) => `${v / 1000} s`), durations: list('durationS', (v) => `${v} s`),
    rampups: [...new Set(runs.map((r) => r.params.rampupS).filter(Number.isFinite))].sort((a, b) => a - b).map((v) => `${v} s`),
    hosts, commits,
    serverCpus: [...new Set(runs.map((r) => r.provenance?.settings?.PB_SERVER_CPUS ? `CPU ${r.provenance.settings.PB_SERVER_CPUS}, the load generator on CPU ${r.provenance.settings.PB_ENGINE_CPUS ?? 'any'}` : 'not pinned (server and load generator share the cores)'))],
    from: starts.length ? new Date(starts[0]).toISOString().slice(0, 16).replace('T', ' ') : null,
    to: starts.length ? new Date(starts[starts.length - 1]).toISOString().slice(0, 16).replace('T', ' ') : null,
    verdicts: formatCounts(runs.map((r) => verdictOf(r.summary))),
  };
}

// ---- repeats: every permutation's headline metrics with their spread ----

function repeatsTable(runs) {
  const ordered = [...byPermutation(runs).values()].sort((a, b) => permutationKey(a[0].params).localeCompare(permutationKey(b[0].params), 'en', { numeric: true }));
  const cvs = Object.fromEntries(HEADLINE.map((k) => [k, []]));
  const rows = ordered.map((g) => {
    const p = g[0].params;
    const cells = HEADLINE.map((k) => {
      const d = describe(g.map((r) => metricValue(k, r)));
      if (d.n === 0) return '<td class="num none">\u2013</td>';
      if (d.cv !== null) cvs[k].push(d.cv);
      const half = d.low === null ? '' : ` \u00b1 ${fmt(d.high - d.mean)}`;
      return `<td class="num">${fmt(d.mean)}${half}${d.cv === null ? '' : `<br><span class="none">CV ${fmt(d.cv * 100, 1)}%</span>`}</td>`;
    });
    return [`<td>${escapeHtml(conditionLabel(p, [], placeOf(g[0])))}</td>`, `<td class="num">${g.length}</td>`,
      `<td>${escapeHtml(formatCounts(g.map((r) => verdictOf(r.summary))))}</td>`, ...cells];
  });
  const median = (v) => { const s = [...v].sort((a, b) => a - b); return s.length ? (s.length % 2 ? s[(s.length - 1) / 2] : (s[s.length / 2 - 1] + s[s.length / 2]) / 2) : null; };
  const cvRows = HEADLINE.map((k) => [`<td>${escapeHtml(STUDY_METRICS[k].name)}</td>`, `<td>${escapeHtml(STUDY_METRICS[k].unit)}</td>`,
    `<td class="num">${cvs[k].length}</td>`, `<td class="num">${cvs[k].length ? `${fmt(median(cvs[k]) * 100, 1)}%` : '\u2013'}</td>`,
    `<td class="num">${cvs[k].length ? `${fmt(Math.max(...cvs[k]) * 100, 1)}%` : '\u2013'}</td>`]);
  return {
    permutations: table(rows, { head: ['Permutation', { text: 'Runs', num: true }, 'Validity',
      ...HEADLINE.map((k) => ({ text: `${STUDY_METRICS[k].name} (${STUDY_METRICS[k].unit})`, num: true }))] }),
    cv: table(cvRows, { head: ['Headline metric', 'Unit', { text: 'Permutations', num: true }, { text: 'Median CV', num: true }, { text: 'Largest CV', num: true }] }),
  };
}

// ---- the page ----

const STYLE = `<style>
.conclusion-tag { display: inline-block; padding: 1px 8px; border-radius: 10px; font-weight: 600; font-size: 12px; border: 1px solid; }
.conclusion-tag.ok { background: #ecfdf5; border-color: #a7f3d0; }
.conclusion-tag.bad { background: #fef2f2; border-color: #fecaca; }
.conclusion-tag.warn, .warn { color: #92400e; }
.conclusion-tag.warn { background: #fffbeb; border-color: #fcd34d; }
.conclusion-tag.none { background: #f9fafb; border-color: #e5e7eb; }
.why { color: #6b7280; font-size: 12px; }
section.finding { background: #fff; border: 1px solid #e5e7eb; border-radius: 8px; padding: 4px 16px 14px; margin: 18px 0; }
section.finding h2 { margin-top: 12px; }
.study { border-left: 3px solid #9ca3af; padding-left: 10px; color: #374151; }
</style>`;

// What the checks of an indicative finding lean to: "leans: holds 2, within noise 1".
function indicativeWords(ev) {
  const leans = ev.checks.map((c) => c.indicative).filter(Boolean);
  const n = (o) => leans.filter((x) => x === o).length;
  return `leans: ${['holds', 'within noise', 'reversed', 'too few'].filter((o) => n(o)).map((o) => `${o} ${n(o)}`).join(', ')}`;
}

function findingSection(ev, smallEv, figureHtml, runs) {
  const f = ev.finding;
  const small = smallEv.conclusion === 'not run yet' ? ''
    : `<details class="small-sitting"><summary>The 100/400 sitting: ${conclusionBadge(smallEv.conclusion)} <span class="none">${escapeHtml(indicativeWords(smallEv))}</span></summary>
${checkTable(smallEv, false)}
</details>`;
  return `<section class="finding" id="${escapeHtml(f.id)}" data-conclusion="${escapeHtml(ev.conclusion)}">
<h2>${escapeHtml(f.source)}: ${escapeHtml(f.title)} ${conclusionBadge(ev.conclusion)}${marks(ev)}</h2>
<p class="study"><strong>The study:</strong> ${escapeHtml(f.study)}</p>
${f.table ? throughputTable(f.table, runs) : ''}
<p><strong>pushbench:</strong>${ev.notRun ? ` <span class="none">${ev.notRun} of ${ev.checks.length} checks not run yet.</span>` : ''}</p>
${checkTable(ev)}
${small}
${figureHtml}
</section>`;
}

function figureBlock(figure, result, charts) {
  if (!result || !result.runs.length) {
    return `<div class="figure" data-figure="${escapeHtml(figure.id)}" data-drawn="no"><p class="none">Figure ${escapeHtml(String(figure.number))} (${escapeHtml(figure.title)}): not run yet \u2013 no run matches its selection.</p></div>`;
  }
  const cards = result.panels.map((p, i) => {
    const canvas = `${figure.id}-${i + 1}`;
    charts.push({ canvas, ofc: p.chart, source: `figures/${figure.id}-${i + 1}.json` });
    return chartCard(canvas, `figures/${figure.id}-${i + 1}.json`);
  });
  return `<div class="figure" data-figure="${escapeHtml(figure.id)}" data-drawn="yes">
<h3>Figure ${escapeHtml(String(figure.number))}: ${escapeHtml(figure.title)}</h3>
<p class="none">${escapeHtml(result.validityNote)}${result.notValid ? ' \u2013 dashed lines are built from at least one run that is not valid' : ''}; shaded: the 95% confidence band of the mean over repeats.</p>
<div class="charts small">${cards.join('')}</div></div>`;
}

// The runs under <data>/runs, ordered by id, each run's dir named relative to the data directory
// (runs/<id>), so the page does not depend on where the repository lies; the runs of superseded sweeps
// (study-superseded.js) left out. Returns { runs, problems, superseded: { leftOut, sweeps } }.
async function loadStudyRuns(data) {
  const { runs: loaded, problems } = await loadRuns([path.join(data, 'runs')]);
  const { kept, leftOut, sweeps } = leaveOutSuperseded(loaded, data);
  const runs = kept.sort((a, b) => a.summary.id.localeCompare(b.summary.id));
  for (const r of runs) r.dir = `runs/${path.basename(r.dir)}`;
  return { runs, problems, superseded: { leftOut, sweeps } };
}

// The superseded sweeps, each with why and how many of its runs the page leaves out; '' when none.
function supersededBlock({ leftOut, sweeps }) {
  const items = Object.entries(sweeps).map(([sweep, why]) => {
    const n = leftOut.filter((r) => r.sweep === sweep).length;
    return `<li>${escapeHtml(sweep)} (${n} run${n === 1 ? '' : 's'}): ${escapeHtml(why)}</li>`;
  });
  return items.length ? `<div class="flags" id="superseded"><strong>Sweeps superseded</strong> (their data stay in data/; data/superseded.json lists them)<ul>${items.join('')}</ul></div>` : '';
}

// Every comparison figure (id -> its figure-data.js result, bands added) drawn from the runs at scale in
// the study's grid of emit intervals: each permutation's lines rest on its valid runs when it has two or
// more, as the conclusions do.
function figureResults(atScale, runs) {
  const runsByDir = new Map(runs.map((r) => [r.dir, r]));
  const figureRuns = [...byPermutation(atScale.filter(inStudyGrid)).values()].flatMap(usableRuns);
  return new Map(FIGURES.map((f) => {
    const shown = titledAtLevel(f, figureRuns);
    return [f.id, { ...addBands(shown, buildFigure(shown, figureRuns), runsByDir), figure: shown }];
  }));
}

// A figure whose selection names one connection level ('level:N', 'max') titled with the level drawn:
// the study's level in its caption ("5,000 Requests", "@ 20,000 connections") replaced by it, or the level
// added; other figures as they are.
function titledAtLevel(figure, runs) {
  if (typeof figure.filter.connections !== 'string') return figure;
  const levels = [...new Set(selectRuns(figure, runs).map((r) => r.params.connections))];
  if (levels.length !== 1) return figure;
  const level = levels[0].toLocaleString('en-GB');
  const named = /[\d,]+ (Requests|connections)/;
  return { ...figure, title: named.test(figure.title) ? figure.title.replace(named, `${level} $1`) : `${figure.title} @ ${level} connections` };
}

// The page's groups of findings: a title and whether a finding belongs to it.
const GROUPS = [
  ['Section 5: the figures and tables', (f) => f.figure && /^(Figure|Table)/.test(f.source)],
  ['Section 6.1: conclusions', (f) => f.source.startsWith('Section 6.1')],
  ['Section 6.2: the research questions', (f) => f.source.startsWith('RQ')],
];

// The findings' sections, group by group, each finding's figure drawn with the first finding that names
// it; then the study's figures no finding drew (beyond). Returns { sections, beyond, charts: every chart
// drawn, in the page's order }.
function findingSections(evaluated, smallEvaluated, results, atScale) {
  const charts = [];
  const drawn = new Set();
  const figureHtml = (id) => {
    if (!id || drawn.has(id)) return '';
    drawn.add(id);
    return figureBlock(results.get(id).figure, results.get(id), charts);
  };
  const sections = [];
  for (const [title, holds] of GROUPS) {
    sections.push(`<h2 class="group">${escapeHtml(title)}</h2>`);
    evaluated.forEach((e, i) => { if (holds(e.finding)) sections.push(findingSection(e, smallEvaluated[i], figureHtml(e.finding.figure), atScale)); });
  }
  const beyond = STUDY_FIGURES.filter((f) => !drawn.has(f.id)).map((f) => figureHtml(f.id));
  return { sections, beyond, charts };
}

// How many findings got each conclusion, in CONCLUSIONS' order.
const conclusionCounts = (list) => Object.fromEntries(CONCLUSIONS.map((v) => [v, list.filter((e) => e.conclusion === v).length]));
const countLine = (c) => Object.entries(c).map(([v, n]) => `${conclusionBadge(v)} ${n}`).join(' &nbsp; ');

// The conclusions table: each finding, its conclusion at scale and why, and the 100/400 sitting's beside it.
function summaryRows(evaluated, smallEvaluated) {
  const whyWords = (e) => [...new Set(e.checks.flatMap((c) => c.why.map((w) => w.split(':')[0])))].join(', ');
  return evaluated.map((e, i) => [`<td><a href="#${escapeHtml(e.finding.id)}">${escapeHtml(e.finding.source)}</a></td>`,
    `<td>${escapeHtml(e.finding.title)}</td>`, `<td>${conclusionBadge(e.conclusion)}${marks(e)}</td>`,
    `<td class="why">${escapeHtml(whyWords(e))}</td>`,
    `<td>${conclusionBadge(smallEvaluated[i].conclusion)}${smallEvaluated[i].checks.some((c) => c.indicative) ? ` <span class="none">${escapeHtml(indicativeWords(smallEvaluated[i]))}</span>` : ''}</td>`]);
}

// The figures table: each comparison figure's number, title, runs and validity note.
function figureRows(results) {
  return FIGURES.map((f) => {
    const r = results.get(f.id);
    return [`<td class="num">${escapeHtml(String(f.number))}</td>`, `<td>${escapeHtml(r.figure.title)}</td>`,
      r.runs.length ? `<td class="num">${r.runs.length}</td>` : '<td class="num none">not run yet</td>',
      `<td>${r.runs.length ? escapeHtml(r.validityNote) : ''}</td>`];
  });
}

// The runs table: each run's id, permutation, duration, validity, reasons and flags.
function runRows(runs) {
  return runs.map((r) => [`<td>${escapeHtml(r.summary.id)}</td>`, `<td>${escapeHtml(conditionLabel(r.params, [], placeOf(r)))}</td>`,
    `<td class="num">${fmt(r.params.durationS)}</td>`,
    `<td>${isValid(verdictOf(r.summary)) ? '<span class="ok">valid</span>' : `<span class="warn">${escapeHtml(verdictOf(r.summary))}</span>`}</td>`,
    `<td class="why">${escapeHtml(reasonTexts(r.summary).join('; '))}</td>`,
    `<td>${r.summary.flags?.serverCrashed ? '<span class="bad">crashed</span>' : ''}${r.summary.flags?.incomplete ? '<span class="bad"> incomplete</span>' : ''}</td>`]);
}

// The checks decided within noise, each with its finding: [{ id, source, text }].
function withinNoiseOf(evaluated) {
  return evaluated.flatMap((e) => e.checks.filter((c) => c.withinNoise)
    .map((c) => ({ id: e.finding.id, source: e.finding.source, text: c.check.text })));
}

// A sitting's scale (scaleOf) as a table of headings and values.
function scaleTable(sc) {
  return table([
    ['Runs', `${sc.runs} (${sc.permutations} permutations, ${sc.repeats[0] === sc.repeats[1] ? sc.repeats[0] : sc.repeats.join('\u2013')} runs each)`],
    ['Servers', sc.servers.join(', ')], ['Types', sc.types.join(', ')],
    ['Connections', sc.levels.map((v) => fmt(v)).join(', ') + ' (the study: 1,000, 5,000, 10,000, 15,000, 20,000)'],
    ['Emit intervals', sc.intervals.join(', ') || '\u2013'], ['Durations', `${sc.durations.join(', ')} (the study: 600 s)`],
    ['Ramp-up', sc.rampups.join(', ')], ['Hosts', sc.hosts.join('; ')], ['Server pinned to', sc.serverCpus.join('; ')],
    ['Commit', sc.commits.join(', ') || 'unknown'],
    ['Run between (UTC)', sc.from ? `${sc.from} and ${sc.to}` : '\u2013'], ['Validity', sc.verdicts || '\u2013'],
  ].map(([k, v]) => [`<th>${escapeHtml(k)}</th>`, `<td>${escapeHtml(v)}</td>`]));
}

const INTRO = `<p>Each of the study's findings (reference 000: section 5, section 6.1, RQ1\u2013RQ4) retold with its numbers, beside what pushbench measured
at the study's scale (1,000\u201315,000 connections, 3 repeats asked) and a conclusion: <strong>confirmed</strong> (the conditions show it beyond noise: each
condition's 95% interval of the repeats; across 5 or more conditions a sign test at p \u2264 0.05, across 1\u20134 a random-effects mean of their relative
differences with its 95% interval), <strong>not confirmed</strong> (reversed, or within noise), <strong>not comparable</strong> (it depends on the study's
machine, software versions or clients, every server got all the load asked, or too few usable repeats), <strong>indicative</strong> (only runs below the level
at which the study saw it, or the study's 20,000 connections, which this machine cannot hold: what they lean to is said, never a "not confirmed"),
<strong>answered</strong> (a question the study left open: pushbench's answer, yes, no or no difference beyond noise) or <strong>not run yet</strong>.
Claims about spikes and ceilings are judged on in-window peaks, claims about levels on means; emit cycles of a run's first 10 s of steady load are warm-up
and left out. A conclusion rests only on usable runs (valid, or server-limited with the load generator not at its limit too) and on one CPU model, named beside
it: a condition with fewer than 3 usable runs on a side is shown but left out (listed below the conclusions), so is one in which both sides got 95% of the load
asked or more, for a claim that shows only when something saturates (throughput, RQ2 and RQ4), and so are the conditions on the other CPU. Every check's
conclusion is also in <a href="verdicts.json">verdicts.json</a>. The rules: charts/study-finding.js; how this page was made and how to make the
full study: docs/study/README.md.</p>`;

// The page's body, in its order: the intro, the sittings' scale, threats, conclusions, the findings'
// sections, the figures beyond the study and Tomcat 7's heap over 600 s, the small sitting, repeats, and the tables of figures,
// metrics and runs; then the charts' data and renderer.
function studyBody(p) {
  const threatRows = [...THREATS, ...(p.cpuThreat ? [p.cpuThreat] : [])].map((t) => [`<th id="threat-${escapeHtml(t.id)}">${escapeHtml(t.title)}</th>`, `<td>${escapeHtml(t.text)}</td>`]);
  const metricRows = Object.entries(STUDY_METRICS).map(([, m]) => [`<td>${escapeHtml(m.name)}</td>`, `<td>${escapeHtml(m.unit)}</td>`, `<td>${escapeHtml(m.definition)}</td>`]);
  return [
    STYLE,
    INTRO,
    p.problems.length ? `<div class="flags"><strong>Runs left out</strong><ul>${p.problems.map((x) => `<li>${escapeHtml(path.basename(x.dir))}: ${escapeHtml(x.problem)}</li>`).join('')}</ul></div>` : '',
    supersededBlock(p.superseded),
    '<h2>The sitting at the study\'s scale</h2>', scaleTable(p.scale),
    '<h2>Threats to the comparison</h2>', table(threatRows),
    '<h2>Conclusions</h2>',
    `<p id="conclusion-counts">At the study's scale: ${countLine(p.counts)}</p>`,
    `<p id="small-conclusion-counts">The 100/400 sitting (indicative only): ${countLine(p.smallCounts)}</p>`,
    table(p.summaryRows, { head: ['Source', 'Finding', 'Conclusion at scale', 'Why', 'The 100/400 sitting'] }),
    '<p>Every check\'s conclusion, the CPU it is judged on, its runs\' levels and usable runs per side: <a href="verdicts.json">verdicts.json</a>.</p>',
    p.leftOut,
    ...p.sections,
    '<h2 class="group">Beyond the study</h2>',
    '<p>Reference 001\'s trip time (T1) and reference 002\'s throughput against latency (T2): no finding of the study to hold them against.</p>',
    ...p.beyond,
    p.heap,
    '<h2 class="group" id="small-sitting">The sitting at 100 and 400 connections</h2>',
    `<p>The first sitting (issue #25) ran below the study's smallest level, with server and load generator sharing both cores. Its conclusions are
indicative only: the outcome they lean to is given beside each in the table above, and its runs are listed below; its figures are not drawn
on this page.</p>`,
    scaleTable(p.smallScale),
    '<h2 class="group">Repeats</h2>',
    '<p>Every permutation\'s headline metrics: mean \u00b1 half the 95% interval (Student\'s t), and the coefficient of variation (standard deviation over mean) of its repeats. A comparison whose 95% interval of the difference (Welch) includes zero is within noise; those are marked in the conclusions above.</p>',
    p.repeats.cv,
    `<p id="within-noise"><strong>Within noise</strong> (no difference beyond the 95% interval): ${p.withinNoise.length
      ? p.withinNoise.map((x) => `<a href="#${escapeHtml(x.id)}">${escapeHtml(x.source)}</a>: ${escapeHtml(x.text)}`).join('; ') : 'none of the checks decided'}.</p>`,
    p.repeats.permutations,
    '<h2 class="group">Figures</h2>', table(p.figureRows, { head: [{ text: 'Fig.', num: true }, 'Title', { text: 'Runs', num: true }, 'Validity'] }),
    '<h2 class="group">Metrics</h2>', table(metricRows, { head: ['Metric', 'Unit', 'Definition'] }),
    '<h2 class="group">Runs</h2>', table(p.runRows, { head: ['Run', 'Permutation', { text: 'Duration (s)', num: true }, 'Validity', 'Reasons', 'Flags'] }),
    `<script>window.PB_STUDY_CHARTS = ${scriptJson(p.charts.map(({ canvas, ofc }) => ({ canvas, ofc })))};</script>`,
    '<script src="assets/study-render.js"></script>',
  ].join('\n');
}

// Writes the page into out: the assets, every chart's OFC2 JSON under figures/ (the old ones removed),
// verdicts.json, and index.html last, so a page is there only once its figures are whole.
function writeStudy(out, charts, html, verdicts) {
  fs.mkdirSync(out, { recursive: true });
  copyAssets(path.join(out, 'assets'));
  copyScript(path.join(__dirname, 'study-render.js'), path.join(out, 'assets', 'study-render.js'), 'charts/study.js');
  const figDir = path.join(out, 'figures');
  fs.rmSync(figDir, { recursive: true, force: true });
  fs.mkdirSync(figDir, { recursive: true });
  for (const c of charts) writeFileAtomic(path.join(out, c.source), JSON.stringify(c.ofc) + '\n');
  writeFileAtomic(path.join(out, 'verdicts.json'), verdicts);
  writeFileAtomic(path.join(out, 'index.html'), html);
}

// Builds the page from the runs under data into out. Returns { index, runs, evaluated, results, charts, counts }.
async function buildStudy({ data = DEFAULTS.data, out = DEFAULTS.out } = {}) {
  const { runs, problems, superseded } = await loadStudyRuns(data);
  // two sittings: at the study's scale (its smallest level, 1,000 connections, or more), which the page
  // leads with and draws every figure from, and the small one below it (100 and 400: indicative only)
  const atScale = runs.filter((r) => r.params.connections >= STUDY_SMALLEST_LEVEL);
  const small = runs.filter((r) => r.params.connections < STUDY_SMALLEST_LEVEL);
  const results = figureResults(atScale, runs);
  const evaluated = FINDINGS.map((f) => evaluateFinding(f, atScale));
  const smallEvaluated = FINDINGS.map((f) => evaluateFinding(f, small));
  const scale = scaleOf(atScale);
  const counts = conclusionCounts(evaluated);
  const { sections, beyond, charts } = findingSections(evaluated, smallEvaluated, results, atScale);
  const body = studyBody({ problems, superseded, scale, smallScale: scaleOf(small), counts, smallCounts: conclusionCounts(smallEvaluated),
    summaryRows: summaryRows(evaluated, smallEvaluated), sections, beyond, heap: heapSection(atScale), repeats: repeatsTable(atScale),
    withinNoise: withinNoiseOf(evaluated), figureRows: figureRows(results), runRows: runRows(runs), charts,
    cpuThreat: cpuThreat(atScale, evaluated), leftOut: leftOutSection(evaluated, atScale, byPermutation) });
  writeStudy(out, charts, page({ title: 'pushbench \u2013 the study reproduced',
    subtitle: `${scale.runs} runs at ${scale.levels.map((v) => fmt(v)).join(', ') || 'no'} connections; ${CONCLUSIONS.map((v) => `${counts[v]} ${v}`).join(', ')}`,
    body, charts: [], assets: 'assets' }), verdictsJson(evaluated));
  return { index: path.join(out, 'index.html'), runs, evaluated, results, charts, counts };
}

function parseArgs(argv) {
  const o = { ...DEFAULTS };
  for (let i = 0; i < argv.length; i++) {
    const a = argv[i];
    if ((a === '--data' || a === '--out') && argv[i + 1]) o[a.slice(2)] = path.resolve(argv[++i]);
    else return null;
  }
  return o;
}

async function main(argv) {
  const o = parseArgs(argv);
  if (!o) {
    console.error('usage: node charts/study.js [--data <dir, default docs/study/data>] [--out <dir, default docs/study>]');
    return 2;
  }
  if (!fs.existsSync(path.join(o.data, 'runs'))) {
    console.error(`study: no ${path.join(o.data, 'runs')}: collect runs first (node charts/study-collect.js <sweep-dir>...)`);
    return 1;
  }
  const { index, runs, counts, charts } = await buildStudy(o);
  console.log(`${runs.length} runs, ${charts.length} charts; conclusions: ${Object.entries(counts).map(([v, n]) => `${v} ${n}`).join(', ')}`);
  console.log(index);
  return 0;
}

if (require.main === module) {
  main(process.argv.slice(2)).then((code) => { process.exitCode = code; }, (err) => {
    console.error(`study: ${err.stack || err}`);
    process.exitCode = 1;
  });
}

module.exports = { buildStudy, addBands, STUDY_FIGURES };
