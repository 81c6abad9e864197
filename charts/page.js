'use strict';
// The HTML shell shared by the run report and the comparison pages: one style sheet, the chart scripts
// copied next to the page (so it opens offline from disk) and the chart JSON embedded in the page
// (browsers refuse fetch() of file:// URLs).
const fs = require('node:fs');
const path = require('node:path');
const { writeFileAtomic } = require('../lib/atomic-write');

// chart.js's package exports hide dist/chart.umd.js; its main entry lives in the same dist/ folder.
const CHART_JS = path.join(path.dirname(require.resolve('chart.js')), 'chart.umd.js');
const RENDERER = path.join(__dirname, 'ofc-render.js');

const escapeHtml = (s) => String(s ?? '').replace(/[&<>"']/g, (c) => ({ '&': '&amp;', '<': '&lt;', '>': '&gt;', '"': '&quot;', "'": '&#39;' })[c]);
// JSON that is safe inside <script>: no "</script>", no HTML comment openers.
const scriptJson = (value) => JSON.stringify(value).replace(/</g, '\\u003c').replace(/\u2028/g, '\\u2028').replace(/\u2029/g, '\\u2029');

// Each copied whole or not at all (lib/atomic-write.js), before the page that loads them is written.
function copyAssets(dir) {
  fs.mkdirSync(dir, { recursive: true });
  writeFileAtomic(path.join(dir, 'chart.umd.js'), fs.readFileSync(CHART_JS));
  writeFileAtomic(path.join(dir, 'ofc-render.js'), fs.readFileSync(RENDERER));
}

const STYLE = `
:root { --ink:#1f2937; --muted:#6b7280; --line:#e5e7eb; --bg:#f5f6f8; --card:#fff; --bad:#b91c1c; --badbg:#fef2f2; --ok:#047857; }
* { box-sizing: border-box; }
body { margin: 0; font: 14px/1.45 system-ui, -apple-system, "Segoe UI", Roboto, "Helvetica Neue", Arial, sans-serif; color: var(--ink); background: var(--bg); }
header { background: #111827; color: #f9fafb; padding: 18px 28px; }
header h1 { margin: 0; font-size: 20px; font-weight: 600; }
header p { margin: 4px 0 0; color: #9ca3af; font-size: 13px; }
main { padding: 20px 28px 40px; max-width: 1500px; margin: 0 auto; }
h2 { font-size: 16px; margin: 26px 0 10px; }
.flags { background: var(--badbg); border: 1px solid #fecaca; color: var(--bad); border-radius: 8px; padding: 10px 16px; margin-bottom: 16px; }
.flags ul { margin: 4px 0 0; padding-left: 20px; }
.verdict { border-radius: 8px; padding: 10px 16px; margin-bottom: 16px; border: 1px solid; }
.verdict ul { margin: 4px 0 0; padding-left: 20px; }
.verdict .why { color: var(--ink); }
.verdict-valid { background: #ecfdf5; border-color: #a7f3d0; color: var(--ok); }
.verdict-generator-bound, .verdict-server-limited { background: #fffbeb; border-color: #fcd34d; color: #92400e; }
.verdict-disturbed { background: #f5f3ff; border-color: #c4b5fd; color: #5b21b6; }
.verdict-failed { background: #fef2f2; border-color: #fca5a5; color: #991b1b; }
.verdict-unknown { background: #f9fafb; border-color: var(--line); color: var(--muted); }
.ok { color: var(--ok); }
.bad { color: var(--bad); font-weight: 600; }
.cards { display: grid; grid-template-columns: repeat(auto-fit, minmax(320px, 1fr)); gap: 16px; }
.card { background: var(--card); border: 1px solid var(--line); border-radius: 8px; padding: 12px 16px; }
.card h3 { margin: 0 0 8px; font-size: 13px; text-transform: uppercase; letter-spacing: .04em; color: var(--muted); }
table { border-collapse: collapse; width: 100%; }
td, th { padding: 4px 8px; border-bottom: 1px solid var(--line); text-align: left; vertical-align: top; }
th { color: var(--muted); font-weight: 500; }
td.num, th.num { text-align: right; font-variant-numeric: tabular-nums; }
.charts { display: grid; grid-template-columns: repeat(auto-fit, minmax(560px, 1fr)); gap: 16px; }
.charts.small { grid-template-columns: repeat(auto-fit, minmax(420px, 1fr)); }
.chart { background: var(--card); border: 1px solid var(--line); border-radius: 8px; padding: 10px 12px 6px; }
.chart .box { position: relative; height: 320px; }
.chart .src { font-size: 11px; color: var(--muted); margin-top: 4px; }
.chart .src a { color: var(--muted); }
a { color: #1d4ed8; text-decoration: none; }
a:hover { text-decoration: underline; }
.none { color: var(--muted); font-style: italic; }
footer { color: var(--muted); font-size: 12px; margin-top: 30px; }
`;

// charts: [{ canvas, ofc, source? }]; body: HTML between header and the chart scripts.
function page({ title, subtitle, body, charts, assets }) {
  return `<!doctype html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<title>${escapeHtml(title)}</title>
<style>${STYLE}</style>
</head>
<body>
<header><h1>${escapeHtml(title)}</h1>${subtitle ? `<p>${escapeHtml(subtitle)}</p>` : ''}</header>
<main>
${body}
<footer>pushbench \u2013 charts are Open Flash Chart 2 JSON rendered with Chart.js; elapsed seconds on every time axis.</footer>
</main>
<script>window.PB_CHARTS = ${scriptJson(charts.map(({ canvas, ofc }) => ({ canvas, ofc })))};</script>
<script src="${assets}/chart.umd.js"></script>
<script src="${assets}/ofc-render.js"></script>
</body>
</html>
`;
}

function chartCard(canvasId, source) {
  const src = source ? `<div class="src">OFC2 JSON: <a href="${escapeHtml(source)}">${escapeHtml(path.basename(source))}</a></div>` : '';
  return `<div class="chart"><div class="box"><canvas id="${escapeHtml(canvasId)}"></canvas></div>${src}</div>`;
}

function table(rows, { head } = {}) {
  const h = head ? `<tr>${head.map((c) => `<th${c.num ? ' class="num"' : ''}>${escapeHtml(c.text ?? c)}</th>`).join('')}</tr>` : '';
  return `<table>${h}${rows.map((r) => `<tr>${r.join('')}</tr>`).join('')}</table>`;
}

const fmt = (v, digits = 2) => {
  if (v === null || v === undefined || Number.isNaN(v)) return '\u2013';
  if (typeof v === 'number') return Number.isInteger(v) ? v.toLocaleString('en-GB') : v.toLocaleString('en-GB', { maximumFractionDigits: digits });
  return String(v);
};

module.exports = { page, chartCard, table, copyAssets, escapeHtml, scriptJson, fmt };
