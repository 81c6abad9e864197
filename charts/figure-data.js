'use strict';
// Turns one figure definition (figures.js) and the loaded runs into small-multiple charts: pick the runs,
// split them into panels, one line per series value, repeats averaged second by second. Each run's series
// starts at its load start (summary.loadStartSecond), so runs line up whatever their start-up took.
// A line or point built from any run whose validity verdict is not 'valid' (analysis/verdict.js) is
// drawn dashed / hollow (OFC2 'line-style' dash, 'hollow-dot' dots), and each figure counts its runs
// that are not valid. Runs on host sets that differ (params.hostSet, lib/provenance.js) get lines of their own.
const { lineChart, scatterChart } = require('../analysis/chart/ofc');
const { permutationKey } = require('./collect-runs');
const { serverName, typeName, seconds, thousands, join, PALETTE, SERVER_COLOURS, NOT_VALID_LINE, NOT_VALID_DOT,
  X_SINCE_LOAD_START } = require('../analysis/chart/vocabulary');
const { METRICS } = require('./figures');
const { verdictOf, isValid, notValidNote } = require('../analysis/verdict');

const allValid = (runs) => runs.every((r) => isValid(verdictOf(r.summary)));

// Restyles the OFC2 elements of `lines` (same order): a line not valid gets a dashed line and hollow dots;
// in an xy chart each point not valid gets a hollow dot, and a line whose points are all not valid a dash.
function markNotValid(chart, lines) {
  chart.elements.forEach((e, i) => {
    const line = lines[i];
    if (line.points) {
      line.points.forEach((p, j) => { if (!p.valid) e.values[j] = { ...e.values[j], type: NOT_VALID_DOT }; });
      if (line.points.some((p) => p.valid)) return;
    } else if (line.valid) {
      return;
    }
    e['line-style'] = { ...NOT_VALID_LINE };
    e['dot-style'] = { ...e['dot-style'], type: NOT_VALID_DOT };
  });
  return chart;
}

const asList = (v) => (Array.isArray(v) ? v : [v]);

function matches(params, filter, skip = []) {
  for (const [key, want] of Object.entries(filter)) {
    if (skip.includes(key)) continue;
    if (key === 'connections' && typeof want === 'string') continue;   // relative level: resolved below
    if (!asList(want).includes(params[key])) return false;
  }
  return true;
}

// 'level:N' / 'max' / 'min' -> the thread count among the candidate runs.
function resolveLevel(want, runs) {
  const levels = [...new Set(runs.map((r) => r.params.connections).filter(Number.isFinite))].sort((a, b) => a - b);
  if (levels.length === 0) return null;
  if (want === 'max') return levels[levels.length - 1];
  if (want === 'min') return levels[0];
  const m = /^level:(\d+)$/.exec(want);
  if (m) return levels[Number(m[1]) - 1] ?? null;
  return null;
}

function selectRuns(figure, runs) {
  let chosen = runs.filter((r) => matches(r.params, figure.filter));
  const want = figure.filter.connections;
  if (typeof want === 'string') {
    const threads = resolveLevel(want, chosen);
    chosen = threads === null ? [] : chosen.filter((r) => r.params.connections === threads);
  }
  return chosen;
}

function valueName(key, value) {
  switch (key) {
    case 'server': return serverName(value);
    case 'type': return typeName(value);
    case 'connections': return `${thousands(value)} Requests`;
    case 'emitIntervalMs': return value ? `${seconds(value)} Emit Interval` : 'No Events';
    case 'maxDurationMs': return value ? `${seconds(value)} Request Duration` : 'no request duration';
    case 'pullIntervalMs': return value ? `Every ${seconds(value)}` : null;   // only pulls have one
    case 'events': return value ? 'With Events' : 'No Events';
    case 'hostSet': return `on ${value ?? 'unknown hosts'}`;
    default: return `${key} ${value}`;
  }
}

const compareValues = (a, b) => (typeof a === 'number' && typeof b === 'number' ? a - b : String(a).localeCompare(String(b)));

function compareKeys(a, b) {
  for (let i = 0; i < a.length; i++) { const c = compareValues(a[i], b[i]); if (c) return c; }
  return 0;
}

// Mean per second over the non-null values of the runs; also the spread (max - min) per second.
function averageSeries(arrays) {
  const length = Math.max(0, ...arrays.map((a) => a.length));
  const mean = new Array(length).fill(null);
  for (let i = 0; i < length; i++) {
    const v = arrays.map((a) => a[i]).filter((x) => x !== null && x !== undefined);
    if (v.length) mean[i] = v.reduce((s, x) => s + x, 0) / v.length;
  }
  return mean;
}

// Shifts each line so that all start where the lowest one starts (the study removed differences in the
// initial memory usage of the compared servers).
function alignStarts(lines) {
  const firsts = lines.map((l) => l.values.find((v) => v !== null));
  const base = Math.min(...firsts.filter((v) => v !== undefined));
  return lines.map((l, i) => (firsts[i] === undefined ? l : { ...l, values: l.values.map((v) => (v === null ? null : v - firsts[i] + base)) }));
}

// Runs grouped by the values of `keys`, in the order of those values.
function groupBy(runs, keys) {
  const groups = new Map();
  for (const r of runs) {
    const key = keys.map((k) => r.params[k]);
    const id = JSON.stringify(key);
    if (!groups.has(id)) groups.set(id, { key, runs: [] });
    groups.get(id).runs.push(r);
  }
  return [...groups.values()].sort((a, b) => compareKeys(a.key, b.key));
}

const mean = (values) => values.reduce((a, b) => a + b, 0) / values.length;

// An xy figure's points for one line: one per permutation, x and y the means over its repeats that have
// both; permutations without both are left out. In the order of x.
function linePoints(runs, xMetric, yMetric) {
  const byPermutation = new Map();
  for (const r of runs) {
    const x = xMetric.point(r.summary);
    const y = yMetric.point(r.summary);
    if (!Number.isFinite(x) || !Number.isFinite(y)) continue;
    const key = permutationKey(r.params);
    if (!byPermutation.has(key)) byPermutation.set(key, []);
    byPermutation.get(key).push({ x, y, dir: r.dir, valid: allValid([r]) });
  }
  // a point is valid only when every repeat in it is
  return [...byPermutation.values()]
    .map((g) => ({ x: mean(g.map((p) => p.x)), y: mean(g.map((p) => p.y)), runs: g.map((p) => p.dir), valid: g.every((p) => p.valid) }))
    .sort((a, b) => a.x - b.x);
}

// Returns { runs: [...used], panels: [{ key, label, lines: [{name, runs, values | points}], chart }] }.
function buildFigure(figure, allRuns) {
  const metric = METRICS[figure.metric];
  if (!metric) throw new Error(`figure ${figure.id}: unknown metric ${figure.metric}`);
  const xMetric = figure.kind === 'xy' ? METRICS[figure.x] : null;
  if (figure.kind === 'xy' && !(xMetric?.point && metric.point)) throw new Error(`figure ${figure.id}: x and metric need a summary point`);
  if (figure.kind !== 'xy' && !metric.data) throw new Error(`figure ${figure.id}: metric ${figure.metric} has no per-second data`);
  const runs = selectRuns(figure, allRuns);
  const panelKey = figure.panels;
  // Runs on host sets that differ (lanes of different machines) are drawn as lines of their own.
  const hostSets = new Set(runs.map((r) => r.params.hostSet ?? null));
  const seriesKeys = [...asList(figure.series), ...(hostSets.size > 1 ? ['hostSet'] : [])];
  // One colour per series value across all panels (Node.js keeps its colour in every small chart).
  const allKeys = [...new Set(runs.map((r) => JSON.stringify(seriesKeys.map((k) => r.params[k]))))]
    .map((k) => JSON.parse(k)).sort(compareKeys);
  const colourOf = (key) => (seriesKeys.length === 1 && seriesKeys[0] === 'server' && SERVER_COLOURS[key[0]])
    || PALETTE[allKeys.findIndex((k) => JSON.stringify(k) === JSON.stringify(key)) % PALETTE.length];
  const lineName = (g) => g.key.map((v, i) => valueName(seriesKeys[i], v)).filter(Boolean).join(' ');
  const panelValues = panelKey ? [...new Set(runs.map((r) => r.params[panelKey]))].sort(compareValues) : [null];
  const panels = panelValues.map((pv) => {
    const inPanel = panelKey ? runs.filter((r) => r.params[panelKey] === pv) : runs;
    const ordered = groupBy(inPanel, seriesKeys);
    const label = panelKey ? valueName(panelKey, pv) : null;
    if (figure.kind === 'xy') {
      const lines = ordered.map((g) => ({ name: lineName(g), colour: colourOf(g.key), points: linePoints(g.runs, xMetric, metric) }))
        .filter((l) => l.points.length)
        .map((l) => ({ ...l, runs: l.points.flatMap((p) => p.runs) }));
      const chart = scatterChart({ title: join(figure.title, label), xLegend: xMetric.y, yLegend: metric.y,
        series: lines.map((l) => ({ name: l.name, points: l.points, colour: l.colour })) });
      return { key: pv, label, lines, chart: markNotValid(chart, lines) };
    }
    let lines = ordered.map((g) => ({
      name: lineName(g) + (g.runs.length > 1 ? ` (mean of ${g.runs.length})` : ''),
      runs: g.runs.map((r) => r.dir),
      valid: allValid(g.runs),   // repeats averaged: valid only when every one is
      colour: colourOf(g.key),
      values: averageSeries(g.runs.map((r) => (r.series[metric.data] ?? []).slice(r.loadStart ?? 0))),
    }));
    if (metric.alignStart) lines = alignStarts(lines);
    const chart = lineChart({ title: join(figure.title, label), xLegend: X_SINCE_LOAD_START, yLegend: metric.y,
      series: lines.map((l) => ({ name: l.name, values: l.values, colour: l.colour })), yMax: metric.yMax ?? null });
    return { key: pv, label, lines, chart: markNotValid(chart, lines) };
  });
  const drawn = panels.filter((p) => p.lines.length);
  const used = new Set(drawn.flatMap((p) => p.lines.flatMap((l) => l.runs)));
  const usedRuns = runs.filter((r) => used.has(r.dir));
  const verdicts = usedRuns.map((r) => verdictOf(r.summary));
  return { runs: usedRuns, panels: drawn, notValid: verdicts.filter((v) => !isValid(v)).length, validityNote: notValidNote(verdicts) };
}

module.exports = { buildFigure, selectRuns, resolveLevel, averageSeries, alignStarts, linePoints, valueName,
  SERVER_COLOURS };
