'use strict';
// The sweep's report: charts/compare.js over every run of the sweep (the comparison figures), and an
// index of the permutations with their key figures from each run's data/summary.json, repeats
// aggregated as mean ± standard deviation, each run's validity verdict (validity.js) and the lanes its
// runs ran on (lanes.js). Writes
// <sweep dir>/report/{runs.html,runs.csv}, each whole (lib/atomic-write.js). charts/compare.js analyses
// again a finished run whose analysis' outputs are not whole (charts/collect-runs.js) before the index
// reads its summary.
// A target sweep (issue #47) has no comparison figures (charts/compare.js draws the built-in servers'):
// its index shows each level with the target summary's figures (TARGET_FIGURES). A run with thresholds
// (issue #49) adds a column: each run's thresholds failed, from its summary.

const fs = require('node:fs');
const path = require('node:path');
const { spawnSync } = require('node:child_process');

const { SweepState } = require('./state');
const { permutations, matchesFilters } = require('./permutations');
const { verdictOf, reasonTexts, isValid, formatCounts } = require('../analysis/verdict');
const { writeFileAtomic } = require('../lib/atomic-write');

const ROOT = path.resolve(__dirname, '..');

// [label, how to read it from summary.json, decimals]
const FIGURES = [
  ['responses/s', (s) => s.responsesPerSecond, 1],
  ['peak connections', (s) => s.peakConnections, 0],
  ['errors', (s) => s.totals?.errors, 0],
  ['error bodies', (s) => s.totals?.errorBodies, 0],
  ['peak CPU %', (s) => s.peakCpu, 1],
  ['peak server RSS MB', (s) => s.peakProcessRssMB, 0],
  ['peak emit ms', (s) => s.peakEmitDuration, 0],
];

// The figures of a target run (docs/targets.md "What is measured"), from data/summary.json's target.
const TARGET_FIGURES = [
  ['subscribers', (s) => s.target?.subscribers, 0],
  ['delivered %', (s) => s.target?.messages?.deliveredPercent, 2],
  ['missed', (s) => s.target?.messages?.missed, 0],
  ['trip p50 ms', (s) => s.target?.tripTime?.p50Ms, 1],
  ['trip p99 ms', (s) => s.target?.tripTime?.p99Ms, 1],
  ['publishes/s', (s) => s.target?.publish?.achievedPerSecond, 1],
];

function readJson(file) {
  try {
    return JSON.parse(fs.readFileSync(file, 'utf8'));
  } catch {
    return null;
  }
}

function meanSd(values) {
  const v = values.filter((x) => typeof x === 'number' && Number.isFinite(x));
  if (v.length === 0) return null;
  const mean = v.reduce((a, b) => a + b, 0) / v.length;
  const sd = v.length > 1 ? Math.sqrt(v.reduce((a, b) => a + (b - mean) ** 2, 0) / (v.length - 1)) : null;
  return { mean, sd, n: v.length };
}

function fmt(ms, decimals) {
  if (!ms) return '';
  const m = ms.mean.toFixed(decimals);
  return ms.sd === null ? m : `${m} ± ${ms.sd.toFixed(decimals)}`;
}

// A run's thresholds (data/summary.json's, lib/thresholds.js) in a line: "2 passed", "1 of 2 failed:
// received>=100 (98.5 %, wanted >= 100)"; null for a run without thresholds or summary.
function thresholdText(summary) {
  const t = summary?.thresholds;
  if (!t || !Array.isArray(t.results)) return null;
  const failed = t.results.filter((r) => !r.pass);
  if (!failed.length) return `${t.results.length} passed`;
  return `${failed.length} of ${t.results.length} failed: ${failed.map((r) => `${r.text} (${r.why})`).join(', ')}`;
}

const thresholdsFailedIn = (summary) => (summary?.thresholds?.failed ?? 0) > 0;

const esc = (t) => String(t).replace(/[&<>"]/g, (c) => ({ '&': '&amp;', '<': '&lt;', '>': '&gt;', '"': '&quot;' }[c]));
const csvCell = (t) => (/[",\n]/.test(String(t)) ? `"${String(t).replace(/"/g, '""')}"` : String(t));

// One row per permutation (command line): its repeats' statuses, figures and run directories; figures:
// FIGURES, or TARGET_FIGURES for a target sweep.
function indexRows(dir, figures = FIGURES) {
  const state = new SweepState(dir);
  const groups = new Map();
  // Appendix A's order for the saved selection; anything else in the state after it.
  const saved = readJson(path.join(dir, 'sweep.json'))?.selection;
  if (saved) {
    for (const p of permutations(saved).filter((q) => matchesFilters(q.command, saved.filters ?? []))) {
      groups.set(p.command, { command: p.command, entries: [] });
    }
  }
  for (const [key, e] of state.entries) {
    const command = key.replace(/ #\d+$/, '');
    if (!groups.has(command)) groups.set(command, { command, entries: [] });
    groups.get(command).entries.push({ key, ...e });
  }
  const rows = [];
  for (const g of groups.values()) {
    if (g.entries.length === 0) continue;
    const runs = g.entries.filter((e) => e.runDir).map((e) => {
      const abs = path.resolve(dir, e.runDir);
      return { ...e, abs, summary: readJson(path.join(abs, 'data', 'summary.json')), run: readJson(path.join(abs, 'run.json')) };
    });
    const counted = runs.filter((r) => r.summary && (r.status === 'done' || r.status === 'crashed'));
    const verdicts = counted.map((r) => verdictOf(r.summary));
    const statuses = {};
    for (const e of g.entries) statuses[e.status] = (statuses[e.status] ?? 0) + 1;
    rows.push({
      command: g.command,
      statuses: Object.entries(statuses).map(([s, n]) => `${n} ${s}`).join(', '),
      crashed: runs.filter((r) => r.summary?.serverCrashed || r.run?.serverCrashed || r.status === 'crashed').length,
      reasons: [...new Set(g.entries.map((e) => e.reason).filter(Boolean))],
      figures: figures.map(([label, get, d]) => [label, fmt(meanSd(counted.map((r) => get(r.summary))), d)]),
      // one run: its verdict; repeats: each verdict with its count ("valid 2, disturbed 1")
      validity: verdicts.length === 1 ? verdicts[0] : formatCounts(verdicts),
      verdicts,
      validityReasons: [...new Set(counted.filter((r) => !isValid(verdictOf(r.summary))).flatMap((r) => reasonTexts(r.summary)))],
      // each analysed run's thresholds, in its order (null: it had none)
      thresholds: counted.map((r) => thresholdText(r.summary)),
      thresholdsFailed: counted.filter((r) => thresholdsFailedIn(r.summary)).length,
      lanes: [...new Set(g.entries.map((e) => e.lane).filter(Boolean))],
      n: counted.length,
      runs,
    });
  }
  return rows;
}

// The verdict(s), highlighted when any run is not valid, with the reasons as a tooltip and a small line.
function validityCell(r) {
  if (!r.n) return '<td class="validity"></td>';
  const bad = r.verdicts.some((v) => !isValid(v));
  const reasons = r.validityReasons.join('; ');
  return `<td class="validity${bad ? ' notvalid' : ''}"${reasons ? ` title="${esc(reasons)}"` : ''}>${esc(r.validity)}`
    + `${bad && reasons ? `<small>${esc(reasons)}</small>` : ''}</td>`;
}

// The thresholds cell: each analysed run's thresholds (runs without any left out), highlighted when one failed.
function thresholdsCell(r) {
  const texts = r.thresholds.filter(Boolean);
  return `<td${r.thresholdsFailed ? ' class="notvalid"' : ''}>${texts.map(esc).join('<br>')}</td>`;
}

// Is dir a target sweep: its saved selection has a target, or a run of its state is a target run?
function isTargetSweep(dir, state) {
  if (readJson(path.join(dir, 'sweep.json'))?.selection?.target) return true;
  return [...state.entries.values()].some((e) => e.runDir && readJson(path.join(path.resolve(dir, e.runDir), 'run.json'))?.server === 'target');
}

function writeIndex(dir, reportDir, target) {
  const rows = indexRows(dir, target ? TARGET_FIGURES : FIGURES);
  // the thresholds column only when a run had thresholds, so a sweep without keeps its columns
  const withThresholds = rows.some((r) => r.thresholds.some(Boolean));
  const head = ['run.sh command line', 'status', 'runs analysed', 'validity', ...(withThresholds ? ['thresholds'] : []), 'server crashed',
    ...(target ? TARGET_FIGURES : FIGURES).map((f) => f[0]), 'run directories', 'notes', 'lanes'];
  const csv = [head.map(csvCell).join(',')];
  for (const r of rows) {
    csv.push([r.command, r.statuses, r.n, r.validity, ...(withThresholds ? [r.thresholds.filter(Boolean).join('; ')] : []), r.crashed,
      ...r.figures.map((f) => f[1]), r.runs.map((x) => x.runDir).join(' '), r.reasons.join('; '), r.lanes.join(' ')].map(csvCell).join(','));
  }
  writeFileAtomic(path.join(reportDir, 'runs.csv'), `${csv.join('\n')}\n`);

  const link = (x) => {
    const rel = path.relative(reportDir, path.join(x.abs, 'report', 'index.html'));
    const name = esc(path.basename(x.abs));
    return fs.existsSync(path.join(x.abs, 'report', 'index.html')) ? `<a href="${esc(rel)}">${name}</a>` : name;
  };
  const html = `<!doctype html>
<html lang="en"><head><meta charset="utf-8"><title>pushbench sweep: runs</title>
<style>
body { font: 14px/1.4 system-ui, sans-serif; margin: 1.5em; }
table { border-collapse: collapse; } th, td { border: 1px solid #ccc; padding: 3px 6px; vertical-align: top; }
th { background: #f3f3f3; position: sticky; top: 0; } td.num { text-align: right; white-space: nowrap; }
tr.crashed td { background: #fff0f0; } tr.skipped td, tr.failed td { color: #888; }
td.validity { white-space: nowrap; } td.notvalid { background: #fff4d6; color: #8a4b00; font-weight: 600; }
td.validity small { display: block; font-weight: normal; white-space: normal; max-width: 28em; }
code { font-size: 12px; }
</style></head><body>
<h1>Sweep ${esc(path.basename(dir))}: ${rows.length} permutations</h1>
<p>Figures from each run's <code>data/summary.json</code>; with repeats, mean ± standard deviation over the analysed runs.
Validity: the analysis' verdict per run (<code>valid</code>, <code>generator-bound</code>, <code>disturbed</code>, <code>server-limited</code>;
<code>unknown</code> for a run analysed before verdicts existed); anything but <code>valid</code> is highlighted, with the reasons.
${target ? `Target runs (docs/targets.md): subscribers = connections that subscribed; delivered % = messages received of those expected, each once, × 100;
missed = messages expected and never received; trip p50/p99 ms = a message's arrival − its send stamp, 50th/99th percentile; publishes/s = publishes
answered 2xx per second over the publishing window.
` : ''}${withThresholds ? `Thresholds (docs/thresholds.md): each analysed run's, failed ones named with the value measured; a failed one is highlighted.
` : ''}${fs.existsSync(path.join(reportDir, 'index.html')) ? 'Comparison figures: <a href="index.html">index.html</a>.' : ''}</p>
<table><thead><tr>${head.map((h) => `<th>${esc(h)}</th>`).join('')}</tr></thead><tbody>
${rows.map((r) => `<tr class="${r.crashed ? 'crashed' : /skipped/.test(r.statuses) ? 'skipped' : /failed|interrupted/.test(r.statuses) && !r.n ? 'failed' : ''}">`
    + `<td><code>${esc(r.command)}</code></td><td>${esc(r.statuses)}</td><td class="num">${r.n}</td>${validityCell(r)}${withThresholds ? thresholdsCell(r) : ''}<td class="num">${r.crashed || ''}</td>`
    + r.figures.map((f) => `<td class="num">${esc(f[1])}</td>`).join('')
    + `<td>${r.runs.map(link).join('<br>')}</td><td>${esc(r.reasons.join('; '))}</td><td>${esc(r.lanes.join(' '))}</td></tr>`).join('\n')}
</tbody></table></body></html>
`;
  writeFileAtomic(path.join(reportDir, 'runs.html'), html);
  return rows;
}

// Returns the path of the page to open (the comparison index when charts/compare.js wrote one).
function writeReport(dir, { log = () => {} } = {}) {
  // The runs the state records as finished (done, or crashed: a result too). A failed or interrupted
  // attempt also left a directory under runs/, but it is no repeat of its permutation.
  const state = new SweepState(dir);
  if (state.rebuilt) log(`${state.rebuilt.line} (for this report; the next ./sweep.sh --dir saves it)`);
  const reportDir = path.join(dir, 'report');
  fs.mkdirSync(reportDir, { recursive: true });
  const target = isTargetSweep(dir, state);
  const finished = [...state.entries.values()]
    .filter((e) => (e.status === 'done' || e.status === 'crashed') && e.runDir)
    .map((e) => path.resolve(dir, e.runDir))
    .filter((d) => fs.existsSync(d));
  const compare = path.join(ROOT, 'charts', 'compare.js');
  if (target) {
    log('a target sweep: no comparison figures (charts/compare.js draws the built-in servers\'); the run index shows each level\'s figures');
  } else if (!fs.existsSync(compare)) {
    log('charts/compare.js not found: no comparison figures, only the run index');
  } else if (finished.length) {
    const r = spawnSync(process.execPath, [compare, reportDir, ...finished], { cwd: ROOT, encoding: 'utf8' });
    if (r.status !== 0) log(`charts/compare.js failed (exit ${r.status}): ${(r.stderr || '').trim().split('\n').slice(-3).join(' | ')}`);
  }
  const rows = writeIndex(dir, reportDir, target);
  log(`run index: ${path.join(reportDir, 'runs.html')} (${rows.length} permutations)`);
  const index = path.join(reportDir, 'index.html');
  return fs.existsSync(index) ? index : path.join(reportDir, 'runs.html');
}

// The verdicts of the finished (done or crashed) runs among state entries [{ status, runDir }], for the
// sweep's closing summary; a run without a readable summary counts as 'unknown'.
function finishedVerdicts(dir, entries) {
  return entries.filter((e) => e && (e.status === 'done' || e.status === 'crashed') && e.runDir)
    .map((e) => verdictOf(readJson(path.join(path.resolve(dir, e.runDir), 'data', 'summary.json'))));
}

// The finished runs among state entries whose thresholds failed, and how many had thresholds: { failed,
// judged }, for the sweep's closing summary and exit code.
function thresholdCounts(dir, entries) {
  const summaries = entries.filter((e) => e && (e.status === 'done' || e.status === 'crashed') && e.runDir)
    .map((e) => readJson(path.join(path.resolve(dir, e.runDir), 'data', 'summary.json')))
    .filter((s) => s?.thresholds);
  return { failed: summaries.filter(thresholdsFailedIn).length, judged: summaries.length };
}

// A finished run's thresholds in a line (thresholdText), from its run directory; null without any.
const runThresholdText = (runDir) => thresholdText(readJson(path.join(runDir, 'data', 'summary.json')));

module.exports = { writeReport, indexRows, finishedVerdicts, thresholdCounts, runThresholdText, TARGET_FIGURES };
