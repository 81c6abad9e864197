#!/usr/bin/env node
'use strict';
// node charts/compare.js <out-dir> <run-dir|sweep-dir>...: the study's comparison figures (figures.js)
// drawn from many runs, one page per figure (small multiples), and an index page linking every figure and
// every run's report, with repeats of a permutation averaged and their spread shown. Lines and points built
// from runs that are not valid (their validity verdict, analysis/verdict.js) are drawn dashed / hollow
// (figure-data.js), and every figure says how many of its runs are not valid. A figure whose runs differ in
// their provenance (commit, versions, hosts, settings: lib/provenance.js) or in their duration says so.
// Every file is written whole (lib/atomic-write.js), index.html last; a run analysed again on loading
// (collect-runs.js) gets its report written again.
const fs = require('node:fs');
const path = require('node:path');
const { page, chartCard, table, copyAssets, escapeHtml, fmt } = require('./page');
const { FIGURES } = require('./figures');
const { loadRuns, permutationKey } = require('./collect-runs');
const { buildFigure, valueName } = require('./figure-data');
const { writeReport } = require('./report');
const { serverName, typeName } = require('../analysis/chart/vocabulary');
const { verdictOf, reasonTexts, isValid } = require('../analysis/verdict');
const { differences, formatDifferences } = require('../lib/provenance');
const { writeFileAtomic } = require('../lib/atomic-write');

const link = (href, text) => `<a href="${escapeHtml(href)}">${escapeHtml(text)}</a>`;
const td = (html, cls) => `<td${cls ? ` class="${cls}"` : ''}>${html}</td>`;

function spread(values) {
  const v = values.filter((x) => x !== null && x !== undefined && Number.isFinite(x));
  if (!v.length) return '\u2013';
  const mean = v.reduce((a, b) => a + b, 0) / v.length;
  if (v.length === 1) return fmt(mean);
  return `${fmt(mean)} <span class="none">(${fmt(Math.min(...v))}\u2013${fmt(Math.max(...v))})</span>`;
}

// A run's verdict as a cell: highlighted when not valid, the reasons as a tooltip.
function verdictCell(summary) {
  const v = verdictOf(summary);
  if (isValid(v)) return `<span class="ok">${escapeHtml(v)}</span>`;
  return `<span class="bad" title="${escapeHtml(reasonTexts(summary).join('; '))}">${escapeHtml(v)}</span>`;
}

// Where the runs of one figure differ in what produced them, as one sentence, or '' when they do not.
// Different durations are compared by per-second figures, each over its run's steady window.
function provenanceWarning(runs) {
  const diffs = differences(runs.map((r) => r.provenance));
  const durations = [...new Set(runs.map((r) => r.params.durationS))].sort((a, b) => a - b);
  if (durations.length > 1) {
    diffs.push({ what: 'duration (s)', values: durations.map(String), note: 'rates are per second over each run\'s steady window' });
  }
  if (!diffs.length) return '';
  const notes = diffs.filter((d) => d.note).map((d) => d.note);
  return `The runs drawn here differ in ${formatDifferences(diffs)}${notes.length ? ` (${notes.join('; ')})` : ''}`;
}

// A run parameter as a subtitle names it (its run schema name, lib/run-schema.js, is no word).
const PARAM_WORDS = { connections: 'connection level', emitIntervalMs: 'emit interval', maxDurationMs: 'max duration', pullIntervalMs: 'pull interval' };
const paramWord = (k) => PARAM_WORDS[k] ?? k;

function figurePage(figure, result, outDir, reportOf) {
  const charts = result.panels.map((p, i) => ({ canvas: `panel-${i}`, ofc: p.chart, source: `charts/${figure.id}-${i + 1}.json` }));
  charts.forEach((c) => writeFileAtomic(path.join(outDir, c.source), JSON.stringify(c.ofc) + '\n'));
  const summaryOf = new Map(result.runs.map((r) => [r.dir, r.summary]));
  const used = result.panels.flatMap((p) => p.lines.map((l) => [
    td(escapeHtml(p.label ?? '')), td(escapeHtml(l.name)),
    td(l.runs.map((dir) => link(reportOf(dir), path.basename(dir))).join(', ')),
    td(l.runs.map((dir) => verdictCell(summaryOf.get(dir))).join(', ')),
  ]));
  const body = [
    `<p>${link('index.html', '\u2190 all figures')}</p>`,
    `<p class="validity-note${result.notValid ? ' bad' : ''}">${escapeHtml(result.validityNote)}${result.notValid
      ? ' \u2013 dashed lines and hollow points are built from at least one run that is not valid' : ''}.</p>`,
    result.provenanceWarning ? `<p class="provenance-note bad">Warning: ${escapeHtml(result.provenanceWarning)}.</p>` : '',
    `<div class="charts small">${charts.map((c) => chartCard(c.canvas, c.source)).join('')}</div>`,
    '<h2>Runs drawn</h2>',
    table(used, { head: ['Panel', 'Line', 'Runs (reports)', 'Validity'] }),
  ].join('\n');
  const what = figure.kind === 'xy' ? `${figure.metric} against ${figure.x}, one point per permutation` : `metric ${figure.metric}`;
  const html = page({ title: `Figure ${figure.number}: ${figure.title}`, subtitle: `${what}; one line per ${[].concat(figure.series).map(paramWord).join(' + ')}${figure.panels ? `; one chart per ${paramWord(figure.panels)}` : ''}; ${result.validityNote}`, body, charts, assets: 'assets' });
  writeFileAtomic(path.join(outDir, `${figure.id}.html`), html);
}

function permutationRows(runs, reportOf) {
  const groups = new Map();
  for (const r of runs) {
    const key = permutationKey(r.params);
    if (!groups.has(key)) groups.set(key, []);
    groups.get(key).push(r);
  }
  return [...groups.values()].sort((a, b) => permutationKey(a[0].params).localeCompare(permutationKey(b[0].params), 'en', { numeric: true })).map((g) => {
    const p = g[0].params;
    const bad = g.filter((r) => {
      const f = r.summary.flags;
      return f.serverCrashed || f.incomplete || f.missingInputs.length || f.archivesUnreadable.length || f.archivesTruncated.length;
    });
    return [
      td(escapeHtml(serverName(p.server))), td(escapeHtml(typeName(p.type))), td(fmt(p.connections), 'num'),
      td(escapeHtml(p.events ? valueName('emitIntervalMs', p.emitIntervalMs) : p.type === 'poll' && p.maxDurationMs ? valueName('maxDurationMs', p.maxDurationMs) : 'No Events')),
      td(fmt(g.length), 'num'),
      td(spread(g.map((r) => r.summary.responsesPerSecond)), 'num'),
      td(spread(g.map((r) => r.summary.peakConnections)), 'num'),
      td(spread(g.map((r) => r.summary.peakCpu)), 'num'),
      td(spread(g.map((r) => r.summary.totals.errors)), 'num'),
      td(bad.length ? `<span class="bad">${bad.length} flagged</span>` : '<span class="ok">ok</span>'),
      td(g.map((r) => verdictCell(r.summary)).join(', ')),
      td(g.map((r) => link(reportOf(r.dir), path.basename(r.dir))).join('<br>')),
    ];
  });
}

async function writeComparison(outDir, args, figures = FIGURES) {
  fs.mkdirSync(path.join(outDir, 'charts'), { recursive: true });
  copyAssets(path.join(outDir, 'assets'));
  // a target run (docs/targets.md) has none of the built-in figures' quantities: left out, named (a target
  // sweep's run index, sweep/report.js, compares its levels)
  const loaded = await loadRuns(args);
  const runs = loaded.runs.filter((r) => !r.summary.target);
  const problems = [...loaded.problems, ...loaded.runs.filter((r) => r.summary.target)
    .map((r) => ({ dir: r.dir, problem: 'a target run: its figures are in its own report and a target sweep\'s run index, not in the built-in comparison' }))];
  for (const r of runs) if (r.reanalysed || !fs.existsSync(path.join(r.dir, 'report', 'index.html'))) await writeReport(r.dir);
  const reportOf = (dir) => path.relative(outDir, path.join(dir, 'report', 'index.html'));
  const figureRows = [];
  const results = {};
  for (const figure of figures) {
    const result = buildFigure(figure, runs);
    result.provenanceWarning = provenanceWarning(result.runs);
    results[figure.id] = result;
    if (result.runs.length) figurePage(figure, result, outDir, reportOf);
    figureRows.push([
      td(String(figure.number), 'num'),
      td(result.runs.length ? link(`${figure.id}.html`, figure.title) : escapeHtml(figure.title)),
      td(result.runs.length ? fmt(result.runs.length) : '<span class="none">no runs</span>', 'num'),
      td(result.notValid ? `<span class="bad">${escapeHtml(result.validityNote)}</span>` : escapeHtml(result.runs.length ? result.validityNote : '')),
      td(result.provenanceWarning ? `<span class="bad" title="${escapeHtml(result.provenanceWarning)}">runs differ</span>` : ''),
      td(result.runs.length ? fmt(result.panels.length) : '', 'num'),
    ]);
  }
  const body = [
    problems.length ? `<div class="flags"><strong>Runs left out</strong><ul>${problems.map((p) => `<li>${escapeHtml(p.dir)}: ${escapeHtml(p.problem)}</li>`).join('')}</ul></div>` : '',
    '<h2>Figures</h2>',
    table(figureRows, { head: [{ text: 'Fig.', num: true }, 'Title', { text: 'Runs', num: true }, 'Validity', 'Provenance', { text: 'Charts', num: true }] }),
    '<h2>Runs by permutation</h2>',
    '<p class="none">Repeats of one permutation are averaged in the figures; cells show the mean and (min\u2013max).</p>',
    table(permutationRows(runs, reportOf), { head: ['Server', 'Type', { text: 'Threads', num: true }, 'Events', { text: 'Runs', num: true },
      { text: 'Responses/s', num: true }, { text: 'Peak conn.', num: true }, { text: 'Peak CPU %', num: true }, { text: 'Errors', num: true }, 'Flags', 'Validity', 'Reports'] }),
  ].join('\n');
  writeFileAtomic(path.join(outDir, 'index.html'), page({ title: 'pushbench \u2013 comparison', subtitle: `${runs.length} runs`, body, charts: [], assets: 'assets' }));
  return { index: path.join(outDir, 'index.html'), runs, problems, results };
}

async function main(argv) {
  if (argv.length < 2 || argv.some((a) => a.startsWith('-'))) {
    console.error('usage: node charts/compare.js <out-dir> <run-dir|sweep-dir>...');
    return 2;
  }
  const outDir = path.resolve(argv[0]);
  const { index, runs, problems, results } = await writeComparison(outDir, argv.slice(1));
  const drawn = Object.values(results).filter((r) => r.runs.length).length;
  console.log(`${runs.length} runs, ${drawn} of ${Object.keys(results).length} figures drawn${problems.length ? `, ${problems.length} runs left out` : ''}`);
  console.log(index);
  return runs.length ? 0 : 1;
}

if (require.main === module) {
  main(process.argv.slice(2)).then((code) => { process.exitCode = code; }, (err) => {
    console.error(`compare: ${err.code ? err.message : err.stack || err}`);
    process.exitCode = 1;
  });
}

module.exports = { writeComparison };
