'use strict';
// The run titles of analysis/chart/vocabulary.js (study 3.4.2: "Comet – With Events – 10 Second Emit
// Interval – …"), which every run chart and the report's heading carry.
const test = require('node:test');
const assert = require('node:assert/strict');
const { runTitle } = require('../chart/vocabulary');

test('a run title names the server, the type, the events and the connections in the study\'s style', () => {
  assert.equal(runTitle({ server: 'tc7', type: 'comet', event: 'event1', emitIntervalMs: 10000, connections: 5000 }),
    'Tomcat 7 \u2013 Comet \u2013 With Events \u2013 10 Second Emit Interval \u2013 5,000 Requests');
  assert.equal(runTitle({ server: 'node', type: 'poll', maxDurationMs: 3000, connections: 20 }),
    'Node.js \u2013 Long Poll \u2013 No Events \u2013 3 Second Request Duration \u2013 20 Requests');
});

test('a pull run\'s title names its pull interval after the type', () => {
  assert.equal(runTitle({ server: 'node', type: 'pull', pullIntervalMs: 1000, event: 'event1', emitIntervalMs: 2000, connections: 500 }),
    'Node.js \u2013 Pull \u2013 Every 1 Second \u2013 With Events \u2013 2 Second Emit Interval \u2013 500 Requests');
  assert.equal(runTitle({ server: 'tc6', type: 'pull', pullIntervalMs: 500, connections: 20 }),
    'Tomcat 6 \u2013 Pull \u2013 Every 500 ms \u2013 No Events \u2013 20 Requests');
});
