'use strict';
// The table of bench/engine-floor.sh: its runs (JSON lines, one a run) grouped by level and mode, each
// figure the median and the range over the repeats; with --engine, the engine's µs per record from
// bench/engine-stops.js's lines (docs/engine/stops-pinned.jsonl: the engine JVM's and the server's CPU in
// % of a core over a run's steady window at --engine-level streams, a record a second each) and the
// engine / floor ratio against the count mode's median at that level.
//   node bench/engine-floor-table.js <runs.jsonl> [--engine <stops.jsonl> --setting decided --engine-level 15000]
const fs = require('node:fs');

function median(values) {
  const v = [...values].sort((a, b) => a - b);
  if (v.length === 0) return null;
  const m = Math.floor(v.length / 2);
  return v.length % 2 ? v[m] : (v[m - 1] + v[m]) / 2;
}

const round = (x, places) => (x === null ? null : Math.round(x * 10 ** places) / 10 ** places);

// { median, min, max, n } of the finite numbers among values; null when there are none.
function stat(values) {
  const v = values.filter((x) => typeof x === 'number' && Number.isFinite(x));
  if (v.length === 0) return null;
  return { median: median(v), min: Math.min(...v), max: Math.max(...v), n: v.length };
}

const FIGURES = ['floorUsPerRecord', 'serverUsPerRecord', 'floorOverServer', 'floorCpuPercent', 'serverCpuPercent',
  'recordsPerSecond', 'otherCpuPercent'];

// Runs grouped by (level, mode) in first-seen order: { level, mode, runs, <figure>: stat }.
function groups(runs) {
  const out = new Map();
  for (const r of runs) {
    const key = `${r.streams}/${r.mode}`;
    if (!out.has(key)) out.set(key, { level: r.streams, mode: r.mode, rows: [] });
    out.get(key).rows.push(r);
  }
  return [...out.values()].map(({ level, mode, rows }) => {
    const g = { level, mode, runs: rows.length };
    for (const f of FIGURES) g[f] = stat(rows.map((r) => r[f]));
    return g;
  });
}

// The engine's runs of one setting in bench/engine-stops.js's lines, as µs per record at `level` records a
// second (a record a second per stream): engine, server and engine/server, each a stat.
function engineFigures(stopsRows, setting, level) {
  const rows = stopsRows.filter((r) => r.setting === setting);
  const us = (percent) => (typeof percent === 'number' ? (percent / 100) * 1e6 / level : null);
  return {
    setting, level, runs: rows.length,
    engineUsPerRecord: stat(rows.map((r) => us(r.engineCpuPercent))),
    serverUsPerRecord: stat(rows.map((r) => us(r.serverCpuPercent))),
    engineOverServer: stat(rows.map((r) => r.engineOverServer)),
  };
}

// engine / floor: each engine figure over the floor's median (count mode, same level).
function engineOverFloor(engine, floorGroup) {
  if (!engine.engineUsPerRecord || !floorGroup?.floorUsPerRecord) return null;
  const f = floorGroup.floorUsPerRecord.median;
  return { median: engine.engineUsPerRecord.median / f, min: engine.engineUsPerRecord.min / f, max: engine.engineUsPerRecord.max / f };
}

const cell = (s, places) => (s ? `${round(s.median, places)} (${round(s.min, places)}–${round(s.max, places)})` : '-');

function table(runs, engine) {
  const gs = groups(runs);
  const lines = ['| level | mode | runs | floor µs/record | server µs/record | floor/server | floor CPU % | server CPU % | records/s | other processes % |',
    '|---|---|---|---|---|---|---|---|---|---|'];
  for (const g of gs) {
    lines.push(`| ${g.level} | ${g.mode} | ${g.runs} | ${cell(g.floorUsPerRecord, 2)} | ${cell(g.serverUsPerRecord, 2)} | ` +
      `${cell(g.floorOverServer, 2)} | ${cell(g.floorCpuPercent, 1)} | ${cell(g.serverCpuPercent, 1)} | ` +
      `${cell(g.recordsPerSecond, 0)} | ${cell(g.otherCpuPercent, 0)} |`);
  }
  if (engine) {
    const ratio = engineOverFloor(engine, gs.find((g) => g.level === engine.level && g.mode === 'count'));
    lines.push('', `engine (${engine.setting}, ${engine.runs} runs at ${engine.level}): ${cell(engine.engineUsPerRecord, 2)} µs/record, ` +
      `server ${cell(engine.serverUsPerRecord, 2)} µs/record, engine/server ${cell(engine.engineOverServer, 2)}, ` +
      `engine/floor ${cell(ratio, 2)}`);
  }
  return lines.join('\n');
}

const readLines = (file) => fs.readFileSync(file, 'utf8').split('\n').filter(Boolean).map((l) => JSON.parse(l));

if (require.main === module) {
  const args = process.argv.slice(2);
  const opt = (name, fallback) => { const i = args.indexOf(name); return i < 0 ? fallback : args[i + 1]; };
  if (!args[0] || args[0].startsWith('--')) {
    console.error('usage: node bench/engine-floor-table.js <runs.jsonl> [--engine <stops.jsonl> --setting decided --engine-level 15000]');
    process.exit(2);
  }
  const enginePath = opt('--engine', null);
  const engine = enginePath ? engineFigures(readLines(enginePath), opt('--setting', 'decided'), Number(opt('--engine-level', 15000))) : null;
  console.log(table(readLines(args[0]), engine));
}

module.exports = { median, stat, groups, engineFigures, engineOverFloor, table };
