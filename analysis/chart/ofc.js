'use strict';
// Open Flash Chart 2 JSON (study 3.4.2): line elements with colour, values, dot-style and width, a title,
// x/y axes with min, max, steps and label steps, a background colour, and axis legends. In a line element
// x is the index of a value in `values` (elapsed seconds for time series); null leaves a gap. A
// scatter_line element gives each point's x and y. A series without a colour of its own takes the next of
// the vocabulary's palette (chart/vocabulary.js).
const { PALETTE } = require('./vocabulary');

// 1, 2 or 5 times a power of ten, at least `raw`.
function niceStep(raw) {
  if (!(raw > 0)) return 1;
  const p = 10 ** Math.floor(Math.log10(raw));
  for (const m of [1, 2, 5, 10]) if (m * p >= raw) return m * p;
  return 10 * p;
}

function niceMax(max) {
  if (!(max > 0)) return 1;
  const step = niceStep(max / 10);
  return Math.ceil(max / step) * step;
}

const round = (v) => (v === null || v === undefined || !Number.isFinite(v) ? null : Math.round(v * 100) / 100);

// The parts every chart shares: one element per series, the axes, the legends.
function element(type, s, i, values, { dotSize, width }) {
  const colour = s.colour ?? PALETTE[i % PALETTE.length];
  return { type, colour, values, 'dot-style': { type: 'dot', colour, 'dot-size': dotSize }, width, text: s.name, 'font-size': 11 };
}

const axis = (min, max, step) => ({ min, max, steps: step, labels: { steps: step, 'visible-steps': 2 } });

function chart({ title, xLegend, yLegend, elements, xAxis, yAxis }) {
  const style = 'font-size: 12px; color: #333333;';
  return {
    title: { text: title, style: 'font-size: 15px; font-weight: bold; color: #222222;' },
    elements,
    x_axis: xAxis,
    y_axis: yAxis,
    x_legend: { text: xLegend, style },
    y_legend: { text: yLegend, style },
    bg_colour: '#FFFFFF',
  };
}

// series: [{ name, values, colour? }]; options: title, xLegend, yLegend, yMax (fixed, e.g. 100 for %),
// xLabels (a label per index, OFC2's x_axis labels: categories in place of numbers)
function lineChart({ title, xLegend, yLegend, series, yMax = null, yMin = 0, xLabels = null }) {
  const length = Math.max(1, ...series.map((s) => s.values.length));
  const dataMax = Math.max(0, ...series.flatMap((s) => s.values.filter((v) => Number.isFinite(v))));
  const yTop = yMax !== null && dataMax <= yMax ? yMax : niceMax(dataMax);
  const xMax = length - 1;
  const xStep = Math.max(1, niceStep(xMax / 10));   // x is an index: whole steps
  return chart({ title, xLegend, yLegend,
    elements: series.map((s, i) => element('line', s, i, s.values.map(round), { dotSize: 2, width: 1 })),
    xAxis: xLabels ? { min: 0, max: xMax, steps: 1, labels: { steps: 1, labels: xLabels } } : axis(0, xMax, xStep),
    yAxis: axis(yMin, yTop, niceStep((yTop - yMin) / 10)) });
}

// One value against another, e.g. latency against throughput, one point per run: OFC2's scatter_line
// elements, values [{ x, y }] in the order drawn. series: [{ name, points: [{ x, y }], colour? }].
function scatterChart({ title, xLegend, yLegend, series }) {
  const points = series.flatMap((s) => s.points).filter((p) => Number.isFinite(p.x) && Number.isFinite(p.y));
  // 10% of room beyond the largest point, so no point sits on the chart's edge
  const xTop = niceMax(1.1 * Math.max(0, ...points.map((p) => p.x)));
  const yTop = niceMax(1.1 * Math.max(0, ...points.map((p) => p.y)));
  return chart({ title, xLegend, yLegend,
    elements: series.map((s, i) => element('scatter_line', s, i, s.points.map((p) => ({ x: round(p.x), y: round(p.y) })), { dotSize: 4, width: 2 })),
    xAxis: axis(0, xTop, niceStep(xTop / 10)), yAxis: axis(0, yTop, niceStep(yTop / 10)) });
}

module.exports = { lineChart, scatterChart, niceStep, niceMax };
