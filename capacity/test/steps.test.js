'use strict';
// capacity/steps.js: doubling, then bisecting to the resolution; each way the search stops.
const test = require('node:test');
const assert = require('node:assert/strict');
const { judgeStep, nextLevel } = require('../steps');

// Runs the rule against a server that holds up to `limit` connections (and a generator that gives up at
// `generatorAt`): the levels it ran and how it stopped.
function search(limit, opts, generatorAt = Infinity) {
  const steps = [];
  for (let i = 0; i < 50; i++) {
    const next = nextLevel(steps, opts);
    if (next.stop) return { levels: steps.map((s) => s.level), ...next };
    const outcome = next.level >= generatorAt ? 'generator' : next.level <= limit ? 'held' : 'failed';
    steps.push({ level: next.level, outcome });
  }
  throw new Error('no end');
}

test('a step\'s outcome from its verdict and thresholds', () => {
  assert.equal(judgeStep({ verdict: 'valid' }), 'held');
  assert.equal(judgeStep({ verdict: 'valid', thresholdsFailed: 1 }), 'failed');
  assert.equal(judgeStep({ verdict: 'server-limited' }), 'failed');
  assert.equal(judgeStep({ verdict: 'failed' }), 'failed');
  assert.equal(judgeStep({ verdict: 'generator-bound' }), 'generator');
  assert.equal(judgeStep({ verdict: 'disturbed' }), 'disturbed');
  assert.equal(judgeStep({ verdict: null }), 'incomplete');
  assert.equal(judgeStep({ verdict: 'valid', complete: false }), 'incomplete');
});

test('doubling, then bisecting to within the resolution of the limit', () => {
  const r = search(1300, { start: 100, resolution: 0.1 });
  assert.deepEqual(r.levels, [100, 200, 400, 800, 1600, 1200, 1400, 1300]);
  assert.equal(r.stop, 'server');
  assert.match(r.reason, /1300 connections held and 1400 did not \(within 130, the resolution\)/);
});

test('the first level failing, the generator, max and disturbed stop the search', () => {
  assert.deepEqual(search(50, { start: 100 }), { levels: [100], stop: 'server', reason: 'the first level, 100 connections, did not hold: the capacity is below it' });
  const g = search(10000, { start: 100 }, 800);
  assert.equal(g.stop, 'generator');
  assert.deepEqual(g.levels, [100, 200, 400, 800]);
  const m = search(10000, { start: 100, max: 500 });
  assert.deepEqual(m.levels, [100, 200, 400, 500]);
  assert.equal(m.stop, 'max');
  assert.deepEqual(nextLevel([{ level: 100, outcome: 'disturbed' }], { start: 100 }), { level: 100 }, 'a disturbed step is taken again');
  assert.equal(nextLevel([{ level: 100, outcome: 'disturbed' }, { level: 100, outcome: 'disturbed' }], { start: 100 }).stop, 'disturbed');
  assert.equal(nextLevel([{ level: 100, outcome: 'incomplete' }], { start: 100 }).stop, 'incomplete');
});
