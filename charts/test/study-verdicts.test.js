'use strict';
// docs/study's verdicts file, CPU threat and list of conditions left out (charts/study-verdicts.js, issue
// #50), on fixture runs: one entry per check with its CPU, levels and usable runs a side; the server's CPU
// ratio between two CPUs over the conditions run on both; each condition left out listed once with the
// checks that leave it out.
const test = require('node:test');
const assert = require('node:assert/strict');
const { verdictsOf, cpuThreat, leftOutSection } = require('../study-verdicts');
const { evaluateFinding } = require('../study-finding');
const { permutationKey } = require('../collect-runs');

// A run as charts/collect-runs.js loads it, on a host with this CPU model (server on CPU 1, engine on CPU 0).
function run(params, cpuModel, { cpu = 10, verdict = 'valid' } = {}) {
  const p = { server: 'node', type: 'comet', connections: 1000, events: true, emitIntervalMs: 1000, maxDurationMs: null, durationS: 40,
    hostSet: `${cpuModel}; server on CPU 1`, ...params };
  return { dir: `/r/${Math.random()}`, params: p,
    provenance: { hosts: [{ role: 'sut,engine', cpuModel }], settings: { PB_SERVER_CPUS: '1', PB_ENGINE_CPUS: '0' } },
    summary: { id: `${cpuModel}-${JSON.stringify(params)}-${cpu}`, steadyWindow: { fromSecond: 0, toSecond: 13, seconds: 13 }, loadStartSecond: 0,
      workload: { answers: { share: 1 } }, validity: { verdict, reasons: [] } },
    series: { processCpu: [...new Array(10).fill(999), cpu, cpu, cpu], processRssMB: new Array(13).fill(100), responses: new Array(13).fill(50) } };
}
const repeats = (params, cpuModel, values) => values.map((cpu) => run(params, cpuModel, { cpu }));
const byPermutation = (runs) => runs.reduce((m, r) => m.set(permutationKey(r.params), [...(m.get(permutationKey(r.params)) ?? []), r]), new Map());

const poll = { type: 'poll', maxDurationMs: 180000 };
const runs = [
  ...repeats(poll, 'AMD EPYC', [30, 31, 32]), ...repeats({}, 'AMD EPYC', [10, 11, 12]),
  ...repeats({ ...poll, connections: 5000 }, 'AMD EPYC', [50, 51, 52]), ...repeats({ connections: 5000 }, 'AMD EPYC', [20, 21, 22]),
  ...repeats(poll, 'Intel Xeon', [15, 15.5, 16]), run({}, 'Intel Xeon', { cpu: 20 }),
];
const finding = { id: 'f', source: 'Figure 0', checks: [
  { id: 'cpu', text: 'long polls cost more CPU', kind: 'compare', a: { type: 'poll' }, b: { type: 'comet' }, expect: 'greater', metric: 'serverCpu', select: {} },
  { id: 'cpu-max', text: 'at the largest level', kind: 'compare', a: { type: 'poll' }, b: { type: 'comet' }, expect: 'greater', at: 'max', minConnections: 20000, metric: 'serverCpu', select: {} },
] };

test('verdicts: one entry per check, with its CPU, study level, levels, usable runs a side and conditions', () => {
  const [v, max] = verdictsOf([evaluateFinding(finding, runs)]);
  assert.equal(v.finding, 'f');
  assert.equal(v.check, 'cpu');
  assert.equal(v.verdict, 'confirmed');
  assert.equal(v.cpu, 'AMD EPYC');
  assert.equal(v.studyLevel, 1000);
  assert.deepEqual(v.levels, [1000, 5000]);
  assert.deepEqual(v.n, [[3, 3], [3, 3]]);
  assert.deepEqual(v.conditions, ['Node.js, 1 s events, 1,000 connections (AMD EPYC, server on CPU 1)', 'Node.js, 1 s events, 5,000 connections (AMD EPYC, server on CPU 1)']);
  assert.equal(v.shownApart, 1, 'the Intel condition');
  assert.match(v.reason, /^cpu: judged on the AMD EPYC alone; 1 condition on the Intel Xeon shown apart, not pooled/);
  // the study's 20,000: indicative at 15,000 ... here the runs reach 5,000 only, below the gate
  assert.equal(max.verdict, 'indicative');
  assert.equal(max.studyLevel, 20000);
});

test('the CPU threat: runs per CPU, the server CPU ratio over conditions run on both, checks per CPU', () => {
  const t = cpuThreat(runs, [evaluateFinding(finding, runs)]);
  assert.equal(t.id, 'cpu');
  assert.match(t.text, /12 runs ran on the AMD EPYC, 4 runs ran on the Intel Xeon/);
  // poll at 1,000: 15.5 / 31 = 0.5; comet at 1,000: 20 / 11 = 1.82
  assert.match(t.text, /In the 2 conditions with usable runs on both, the server's mean CPU on the Intel Xeon is 0\.5\u20131\.82 times that on the AMD EPYC/);
  assert.match(t.text, /of the 2 checks with runs, 2 on the AMD EPYC, 0 on the Intel Xeon; 1 show/);
  assert.equal(cpuThreat(runs.filter((r) => r.params.hostSet.startsWith('AMD')), []), null, 'one CPU: no threat');
});

test('conditions left out: each once, with the checks that leave it out, and the permutations short of 3 usable runs', () => {
  const short = [...runs.slice(0, 11), run({ connections: 5000 }, 'AMD EPYC', { cpu: 22, verdict: 'disturbed' })];
  const html = leftOutSection([evaluateFinding(finding, short)], short, byPermutation);
  assert.equal((html.match(/<tr><td>Node\.js, 1 s events, 5,000 connections \(AMD EPYC, server on CPU 1\)<\/td><td class="num">3\/2<\/td><td>disturbed 1<\/td>/g) ?? []).length, 1);
  assert.match(html, /Figure 0<\/a> cpu, <a href="#f">Figure 0<\/a> cpu-max<\/td>/, 'both checks leave it out');
  assert.match(html, /but 1 of its 4 permutations at scale have fewer than 3 usable/);
});
