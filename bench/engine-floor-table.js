'use strict';
// The table of bench/engine-floor.sh: its runs (JSON lines, one a run) grouped by server, level and mode
// (a line without a server is Node.js's: the comet modes ran on it only), each figure the median and the
// range over the repeats; with --engine, the engine's µs per record from bench/engine-stops.js's lines
// (docs/engine/stops-pinned.jsonl: the engine JVM's and the server's CPU in % of a core over a run's steady
// window at --engine-level streams, a record a second each) and the engine / floor ratio against the count
// mode's median at that level; with --share, per pull group the engine's µs per answer in the pinned share
// runs (bench/engine-share.js's lines, docs/engine/share.jsonl: type pull, same server and connections)
// against the floor's median: engine − floor (µs per answer) and engine / floor.
//   node bench/engine-floor-table.js <runs.jsonl> [--engine <stops.jsonl> --setting decided --engine-level 15000]
//                                    [--share <share.jsonl>]
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

// A run's level: its streams (count, log) or connections (pull); its server, node when not named; its mode
// as the table names it: a coalescing reader's (coalesceMicros > 0) is "<mode> coalesced <µs> µs".
const levelOf = (r) => r.streams ?? r.connections;
const serverOf = (r) => r.server ?? 'node';
const modeOf = (r) => (r.coalesceMicros > 0 ? `${r.mode} coalesced ${r.coalesceMicros} µs` : r.mode);

// Runs grouped by (server, level, mode) in first-seen order: { server, level, mode, runs, <figure>: stat }.
function groups(runs) {
  const out = new Map();
  for (const r of runs) {
    const key = `${serverOf(r)}/${levelOf(r)}/${modeOf(r)}`;
    if (!out.has(key)) out.set(key, { server: serverOf(r), level: levelOf(r), mode: modeOf(r), rows: [] });
    out.get(key).rows.push(r);
  }
  return [...out.values()].map(({ server, level, mode, rows }) => {
    const g = { server, level, mode, runs: rows.length };
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

// Per pull group with share runs of its server at its level: the engine's µs per answer (each share run's
// engineMicrosPerAnswer, a stat), the floor's median, engine − floor and engine / floor (of the engine's
// median and range), and the floor's and the engine's share of the server.
function pullDistance(shareRows, floorGroups) {
  const out = [];
  for (const g of floorGroups) {
    if (g.mode !== 'pull' || !g.floorUsPerRecord) continue;
    const rows = shareRows.filter((r) => r.type === 'pull' && r.server === g.server && r.connections === g.level);
    const engine = stat(rows.map((r) => r.engineMicrosPerAnswer));
    if (!engine) continue;
    const f = g.floorUsPerRecord.median;
    out.push({
      server: g.server, level: g.level, runs: engine.n, engineUsPerAnswer: engine, floorUsPerAnswer: f,
      engineMinusFloor: { median: engine.median - f, min: engine.min - f, max: engine.max - f },
      engineOverFloor: { median: engine.median / f, min: engine.min / f, max: engine.max / f },
      engineOverServer: stat(rows.map((r) => r.engineOverServer)),
      floorOverServer: g.floorOverServer,
    });
  }
  return out;
}

const cell = (s, places) => (s ? `${round(s.median, places)} (${round(s.min, places)}–${round(s.max, places)})` : '-');

function table(runs, engine, shareRows) {
  const gs = groups(runs);
  const lines = ['| server | level | mode | runs | floor µs/record | server µs/record | floor/server | floor CPU % | server CPU % | records/s | other processes % |',
    '|---|---|---|---|---|---|---|---|---|---|---|'];
  for (const g of gs) {
    lines.push(`| ${g.server} | ${g.level} | ${g.mode} | ${g.runs} | ${cell(g.floorUsPerRecord, 2)} | ${cell(g.serverUsPerRecord, 2)} | ` +
      `${cell(g.floorOverServer, 2)} | ${cell(g.floorCpuPercent, 1)} | ${cell(g.serverCpuPercent, 1)} | ` +
      `${cell(g.recordsPerSecond, 0)} | ${cell(g.otherCpuPercent, 0)} |`);
  }
  if (engine) {
    const ratio = engineOverFloor(engine, gs.find((g) => g.level === engine.level && g.mode === 'count'));
    lines.push('', `engine (${engine.setting}, ${engine.runs} runs at ${engine.level}): ${cell(engine.engineUsPerRecord, 2)} µs/record, ` +
      `server ${cell(engine.serverUsPerRecord, 2)} µs/record, engine/server ${cell(engine.engineOverServer, 2)}, ` +
      `engine/floor ${cell(ratio, 2)}`);
  }
  if (shareRows) {
    const ds = pullDistance(shareRows, gs);
    if (ds.length > 0) {
      lines.push('', '| server | connections | share runs | engine µs/answer | floor µs/answer | engine − floor µs | engine/floor | engine/server | floor/server |',
        '|---|---|---|---|---|---|---|---|---|');
      for (const d of ds) {
        lines.push(`| ${d.server} | ${d.level} | ${d.runs} | ${cell(d.engineUsPerAnswer, 1)} | ${round(d.floorUsPerAnswer, 1)} | ` +
          `${cell(d.engineMinusFloor, 1)} | ${cell(d.engineOverFloor, 2)} | ${cell(d.engineOverServer, 2)} | ${cell(d.floorOverServer, 2)} |`);
      }
    }
  }
  return lines.join('\n');
}

const readLines = (file) => fs.readFileSync(file, 'utf8').split('\n').filter(Boolean).map((l) => JSON.parse(l));

if (require.main === module) {
  const args = process.argv.slice(2);
  const opt = (name, fallback) => { const i = args.indexOf(name); return i < 0 ? fallback : args[i + 1]; };
  if (!args[0] || args[0].startsWith('--')) {
    console.error('usage: node bench/engine-floor-table.js <runs.jsonl> [--engine <stops.jsonl> --setting decided --engine-level 15000] [--share <share.jsonl>]');
    process.exit(2);
  }
  const enginePath = opt('--engine', null);
  const engine = enginePath ? engineFigures(readLines(enginePath), opt('--setting', 'decided'), Number(opt('--engine-level', 15000))) : null;
  const sharePath = opt('--share', null);
  console.log(table(readLines(args[0]), engine, sharePath ? readLines(sharePath) : null));
}

module.exports = { median, stat, groups, engineFigures, engineOverFloor, pullDistance, table };
