#!/usr/bin/env node
'use strict';
// The five push transports compared per server (issue #38 item 5): comet streaming, long polling, pull
// (short polling), Server-Sent Events and WebSocket, each at the connection levels run, with the figures of
// charts/transport-metrics.js (trip time, messages/s, received, server CPU and its cost per message,
// memory per held connection, network cost per message) as mean and (min–max) over repeats, every run's
// validity beside them, and the highest message rate each transport held valid.
//
//   node charts/transports.js <out-dir> <run-dir|sweep-dir>...   collect the runs into <out-dir>/data/runs.json, then draw
//   node charts/transports.js --rebuild <out-dir>               draw again from <out-dir>/data/runs.json alone
//
// The page is drawn from data/runs.json only (one record per run: its parameters, verdict and figures), so
// a committed page rebuilds byte for byte without the raw runs. Writes <out-dir>/index.html, the OFC2 JSON
// of its charts under <out-dir>/charts/ and the chart scripts under <out-dir>/assets/, every file whole.
// Exit 0, 1 when no run was found, 2 on a usage error.
const fs = require('node:fs');
const path = require('node:path');
const { page, chartCard, table, copyAssets, escapeHtml, fmt } = require('./page');
const { loadRuns } = require('./collect-runs');
const { TRANSPORTS, TRANSPORT_METRICS, transportValue } = require('./transport-metrics');
const { lineChart } = require('../analysis/chart/ofc');
const { serverName, typeName, thousands, PALETTE } = require('../analysis/chart/vocabulary');
const { verdictOf, reasonTexts, isValid } = require('../analysis/verdict');
const { differences, formatDifferences } = require('../lib/provenance');
const { writeFileAtomic } = require('../lib/atomic-write');

const SERVER_ORDER = ['node', 'node-cluster', 'tc6', 'tc6-bio', 'tc7', 'tc7-bio'];
const TABLE_METRICS = ['messagesPerSecond', 'tripP50Ms', 'tripP99Ms', 'receivedPercent', 'missed', 'serverCpu', 'cpuPerMessageUs',
  'memoryPerConnectionKB', 'segmentsPerMessage', 'bytesPerMessage'];
const CHART_METRICS = ['cpuPerMessageUs', 'tripP99Ms', 'memoryPerConnectionKB', 'bytesPerMessage'];

const round3 = (v) => (v === null ? null : Math.round(v * 1000) / 1000);

// One run as data/runs.json keeps it.
function runRecord(run) {
  const p = run.params;
  return {
    id: path.basename(run.dir), server: p.server, type: p.type, connections: p.connections, emitIntervalMs: p.emitIntervalMs,
    maxDurationMs: p.maxDurationMs, pullIntervalMs: p.pullIntervalMs, durationS: p.durationS,
    verdict: verdictOf(run.summary), reasons: reasonTexts(run.summary),
    figures: Object.fromEntries(Object.keys(TRANSPORT_METRICS).map((k) => [k, round3(transportValue(k, run))])),
    provenance: run.provenance ?? null,
  };
}

const byLevel = (a, b) => a.connections - b.connections;
const serverRank = (s) => (SERVER_ORDER.includes(s) ? SERVER_ORDER.indexOf(s) : SERVER_ORDER.length);
const groupKey = (r) => `${r.server}|${r.type}|${r.connections}`;

// Records of one server, grouped by (transport, level), in transport then level order.
function groups(records) {
  const map = new Map();
  for (const r of [...records].sort(byLevel)) {
    if (!map.has(groupKey(r))) map.set(groupKey(r), []);
    map.get(groupKey(r)).push(r);
  }
  return [...map.values()].sort((a, b) => TRANSPORTS.indexOf(a[0].type) - TRANSPORTS.indexOf(b[0].type) || byLevel(a[0], b[0]));
}

const finite = (values) => values.filter((v) => v !== null && Number.isFinite(v));
const meanOf = (v) => (v.length ? v.reduce((a, b) => a + b, 0) / v.length : null);

// A permutation's values of one figure as the page shows them: its valid runs', all runs' when none is valid.
function shownValues(group, key) {
  const valid = group.filter((r) => isValid(r.verdict));
  return finite((valid.length ? valid : group).map((r) => r.figures[key]));
}

// A cell: the mean of shownValues, with (min–max) when several.
function cell(group, key) {
  const v = shownValues(group, key);
  if (!v.length) return '<td class="num">\u2013</td>';
  const m = fmt(meanOf(v));
  const range = v.length > 1 ? ` <span class="none">(${fmt(Math.min(...v))}\u2013${fmt(Math.max(...v))})</span>` : '';
  return `<td class="num">${m}${range}</td>`;
}

function verdictCell(group) {
  return `<td>${group.map((r) => (isValid(r.verdict) ? `<span class="ok">${escapeHtml(r.verdict)}</span>`
    : `<span class="bad" title="${escapeHtml(r.reasons.join('; '))}">${escapeHtml(r.verdict)}</span>`)).join(', ')}</td>`;
}

function serverTable(records) {
  const rows = groups(records).map((g) => [`<td>${escapeHtml(typeName(g[0].type))}</td>`, `<td class="num">${fmt(g[0].connections)}</td>`,
    `<td class="num">${g.length}</td>`, verdictCell(g), ...TABLE_METRICS.map((k) => cell(g, k))]);
  const head = ['Transport', { text: 'Connections', num: true }, { text: 'Runs', num: true }, 'Validity',
    ...TABLE_METRICS.map((k) => ({ text: `${TRANSPORT_METRICS[k].name} (${TRANSPORT_METRICS[k].unit})`, num: true }))];
  return table(rows, { head });
}

// The highest messages/s among a transport's valid runs on this server, with its level; or why none.
function heldValid(records) {
  return TRANSPORTS.filter((t) => records.some((r) => r.type === t)).map((t) => {
    const valid = records.filter((r) => r.type === t && isValid(r.verdict) && r.figures.messagesPerSecond !== null);
    if (!valid.length) return [`<td>${escapeHtml(typeName(t))}</td>`, '<td class="num">\u2013</td>', '<td class="none">no valid run</td>'];
    const best = valid.reduce((a, b) => (b.figures.messagesPerSecond > a.figures.messagesPerSecond ? b : a));
    return [`<td>${escapeHtml(typeName(t))}</td>`, `<td class="num">${fmt(best.figures.messagesPerSecond)}</td>`,
      `<td>${fmt(best.connections)} connections (${escapeHtml(best.id)})</td>`];
  });
}

// One chart per figure: x the connection levels run on this server, one line per transport (the mean of
// each level's shownValues, as the table's cells).
function serverCharts(server, records) {
  const levels = [...new Set(records.map((r) => r.connections))].sort((a, b) => a - b);
  return CHART_METRICS.map((key, i) => {
    const m = TRANSPORT_METRICS[key];
    const series = TRANSPORTS.filter((t) => records.some((r) => r.type === t)).map((t, j) => ({
      name: typeName(t), colour: PALETTE[j % PALETTE.length],
      values: levels.map((n) => meanOf(shownValues(records.filter((r) => r.type === t && r.connections === n), key))),
    }));
    const ofc = lineChart({ title: `${serverName(server)} \u2013 ${m.name}`, xLegend: 'Connections', yLegend: `${m.name} (${m.unit})`,
      series, xLabels: levels.map(thousands) });
    return { canvas: `${server}-${i}`, ofc, source: `charts/${server}-${key}.json` };
  });
}

function provenanceNote(records) {
  const diffs = differences(records.map((r) => r.provenance));
  return diffs.length ? `<p class="bad">Warning: the runs differ in ${escapeHtml(formatDifferences(diffs))}.</p>` : '';
}

const definitions = () => `<h2>Figures</h2><table>${Object.values(TRANSPORT_METRICS).map((m) =>
  `<tr><td>${escapeHtml(m.name)}</td><td>${escapeHtml(m.unit)}</td><td>${escapeHtml(m.definition)}</td></tr>`).join('')}</table>`;

// The page from data/runs.json's records: writes index.html and the charts, returns the index's path.
function render(outDir, records) {
  copyAssets(path.join(outDir, 'assets'));
  fs.mkdirSync(path.join(outDir, 'charts'), { recursive: true });
  const servers = [...new Set(records.map((r) => r.server))].sort((a, b) => serverRank(a) - serverRank(b) || a.localeCompare(b));
  const charts = [];
  const sections = servers.map((s) => {
    const mine = records.filter((r) => r.server === s);
    const drawn = serverCharts(s, mine);
    charts.push(...drawn);
    return [`<h2 id="${escapeHtml(s)}">${escapeHtml(serverName(s))}</h2>`, serverTable(mine),
      '<h3>Highest message rate held valid</h3>', table(heldValid(mine), { head: ['Transport', { text: 'Messages/s', num: true }, 'At'] }),
      `<div class="charts small">${drawn.map((c) => chartCard(c.canvas, c.source)).join('')}</div>`].join('\n');
  });
  charts.forEach((c) => writeFileAtomic(path.join(outDir, c.source), JSON.stringify(c.ofc) + '\n'));
  const body = [
    '<p>Cells: the mean over the valid runs of a permutation, (min\u2013max) when there are several; where no run is valid, over all its runs (its verdict in red, the reasons on hover). Charts draw the same means.</p>',
    provenanceNote(records), ...sections, definitions(),
  ].join('\n');
  const index = path.join(outDir, 'index.html');
  writeFileAtomic(index, page({ title: 'pushbench \u2013 five push transports compared',
    subtitle: `${records.length} runs: comet, long poll, pull, SSE and WebSocket on each server`, body, charts, assets: 'assets' }));
  return index;
}

async function collect(outDir, args) {
  const { runs, problems } = await loadRuns(args);
  const records = runs.filter((r) => TRANSPORTS.includes(r.params.type)).map(runRecord)
    .sort((a, b) => serverRank(a.server) - serverRank(b.server) || a.id.localeCompare(b.id));
  fs.mkdirSync(path.join(outDir, 'data'), { recursive: true });
  writeFileAtomic(path.join(outDir, 'data', 'runs.json'), JSON.stringify({ runs: records }, null, 1) + '\n');
  return { records, problems };
}

const USAGE = 'usage: node charts/transports.js <out-dir> <run-dir|sweep-dir>...  |  node charts/transports.js --rebuild <out-dir>';

async function main(argv) {
  if (argv[0] === '--rebuild' && argv.length === 2) {
    const outDir = path.resolve(argv[1]);
    const records = JSON.parse(fs.readFileSync(path.join(outDir, 'data', 'runs.json'), 'utf8')).runs;
    console.log(render(outDir, records));
    return records.length ? 0 : 1;
  }
  if (argv.length < 2 || argv.some((a) => a.startsWith('-'))) {
    console.error(USAGE);
    return 2;
  }
  const outDir = path.resolve(argv[0]);
  const { records, problems } = await collect(outDir, argv.slice(1));
  for (const p of problems) console.error(`transports: left out ${p.dir}: ${p.problem}`);
  console.log(`${records.length} runs${problems.length ? `, ${problems.length} left out` : ''}`);
  console.log(render(outDir, records));
  return records.length ? 0 : 1;
}

if (require.main === module) {
  main(process.argv.slice(2)).then((code) => { process.exitCode = code; }, (err) => {
    console.error(`transports: ${err.code ? err.message : err.stack || err}`);
    process.exitCode = 1;
  });
}

module.exports = { runRecord, render, collect };
