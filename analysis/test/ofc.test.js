'use strict';
const test = require('node:test');
const assert = require('node:assert/strict');
const { lineChart, niceStep, niceMax } = require('../chart/ofc');

test('nice steps and maxima', () => {
  assert.equal(niceStep(0.7), 1);
  assert.equal(niceStep(13), 20);
  assert.equal(niceStep(45), 50);
  assert.equal(niceMax(87), 90);
  assert.equal(niceMax(0), 1);
});

test('OFC2 line chart structure of the study (3.4.2) with axis legends', () => {
  const c = lineChart({ title: 'Comet \u2013 No Events \u2013 CPU Usage', xLegend: 'Elapsed time (seconds)', yLegend: 'CPU used (%)',
    series: [{ name: 'Node.js', values: [1, 2.345, null, 40] }, { name: 'Tomcat 6', values: [3, 4] }], yMax: 100 });
  assert.equal(c.title.text, 'Comet \u2013 No Events \u2013 CPU Usage');
  assert.equal(c.elements.length, 2);
  const e = c.elements[0];
  assert.equal(e.type, 'line');
  assert.match(e.colour, /^#[0-9A-F]{6}$/i);
  assert.deepEqual(e.values, [1, 2.35, null, 40]);
  assert.deepEqual(e['dot-style'].type, 'dot');
  assert.equal(e.width, 1);
  assert.equal(e.text, 'Node.js');
  assert.deepEqual(c.x_axis, { min: 0, max: 3, steps: 1, labels: { steps: 1, 'visible-steps': 2 } });
  assert.equal(c.y_axis.min, 0);
  assert.equal(c.y_axis.max, 100);
  assert.equal(c.bg_colour, '#FFFFFF');
  assert.equal(c.x_legend.text, 'Elapsed time (seconds)');
  assert.equal(c.y_legend.text, 'CPU used (%)');
  // without a fixed top the y axis ends at a nice value above the data
  const d = lineChart({ title: 't', xLegend: 'x', yLegend: 'y', series: [{ name: 'a', values: [0, 437] }] });
  assert.equal(d.y_axis.max, 450);
  assert.equal(d.y_axis.steps, 50);
});
