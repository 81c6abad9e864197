'use strict';
// Figures C1-C3 and RQ2.4 / RQ4.4: reference 003's capacity criterion (data/summary.json capacityCriterion)
// across servers and connection levels, one point per permutation (repeats averaged), from the figure
// definitions in charts/figures.js through charts/figure-data.js.
const test = require('node:test');
const assert = require('node:assert/strict');
const { FIGURES, METRICS } = require('../figures');
const { buildFigure } = require('../figure-data');

// A run as charts/collect-runs.js loads it; share null: a run analysed before the criterion existed.
function run(server, threads, share, { type = 'poll', interval = 1000, verdict = 'valid', dir } = {}) {
  const summary = { parameters: { server, type, threads, event: 'event1', interval, maxDuration: 180000 },
    validity: { verdict, reasons: [] }, ...(share === null ? {} : { capacityCriterion: { share, withinSeconds: 6 } }) };
  return { dir: dir ?? `${server}-${threads}-${share}-${Math.random()}`, summary, series: {},
    params: { server, type, connections: threads, emitIntervalMs: interval, maxDurationMs: 180000, events: true, durationS: 60 }, loadStart: 0 };
}

const figure = (id) => FIGURES.find((f) => f.id === id);

test('the criterion\'s metric is the share of answers within T, in percent', () => {
  assert.equal(METRICS.answersWithin.point({ capacityCriterion: { share: 0.953 } }), 95.3);
  assert.equal(METRICS.answersWithin.point({ capacityCriterion: { share: null } }), null);
  assert.equal(METRICS.answersWithin.point({}), null);
  assert.equal(METRICS.connectionLevel.point({ parameters: { threads: 5000 } }), 5000);
});

test('C1: one line per server, a point per level at its own x, repeats averaged, runs without the criterion left out', () => {
  const runs = [run('node', 1000, 1), run('node', 5000, 0.99), run('node', 5000, 0.97), run('tc6', 1000, 0.98), run('tc6', 5000, 0.6),
    run('tc7', 5000, null), run('tc6', 1000, 0.5, { type: 'comet' })];
  const r = buildFigure(figure('cap01'), runs);
  assert.equal(r.panels.length, 1);   // one emit interval
  const lines = Object.fromEntries(r.panels[0].lines.map((l) => [l.name, l.points.map((p) => [p.x, Math.round(p.y * 10) / 10])]));
  assert.deepEqual(lines, { 'Node.js': [[1000, 100], [5000, 98]], 'Tomcat 6': [[1000, 98], [5000, 60]] });
  assert.equal(r.runs.length, 5);     // tc7 without the criterion and the comet run are not drawn
  const chart = r.panels[0].chart;
  assert.equal(chart.elements.length, 2);
  assert.deepEqual(chart.elements[1].values.map((v) => v.x), [1000, 5000]);
});

test('RQ2.4 holds the NIO and blocking Tomcats only, RQ4.4 Node.js and node-cluster only', () => {
  const runs = ['node', 'node-cluster', 'tc6', 'tc6-bio', 'tc7', 'tc7-bio'].map((s) => run(s, 1000, 0.99));
  const servers = (id) => buildFigure(figure(id), runs).runs.map((x) => x.params.server).sort();
  assert.deepEqual(servers('rq2-04'), ['tc6', 'tc6-bio', 'tc7', 'tc7-bio']);
  assert.deepEqual(servers('rq4-04'), ['node', 'node-cluster']);
  assert.equal(buildFigure(figure('cap01'), runs).runs.length, 6);
});
