'use strict';
// CometD's latency against clients for every pushed message (issue #22 item 4): comparison figures T3/T4
// (trip time p50 / p99 against the connection level, one line per server, one chart per emit interval)
// drawn from a fixture sweep of comet runs in the push sampler's format (analysis/tools/stream-run.js),
// each analysed for real. Each server delivers at its own known delay, two engines per run have clocks of
// their own: the analysis must find each engine's offset and give trip times that are the delays within
// the offset's error bound and HdrHistogram's precision, and the figures must draw those points.
const test = require('node:test');
const assert = require('node:assert/strict');
const path = require('node:path');
const { scratchDir } = require('../../analysis/test/helpers');
const { makeStreamRun } = require('../../analysis/tools/stream-run');
const { percentile } = require('../../analysis/measure/trip-time');
const { analyzeAndWrite } = require('../../analysis/run-analysis');
const { FIGURES } = require('../figures');
const { buildFigure } = require('../figure-data');

const SLOWER = { node: 1, tc6: 2, tc7: 3 };   // each server's delays, a multiple of node's
const ENGINES = [{ name: 'gen1', offsetMs: 4.2 }, { name: 'gen2', offsetMs: -2.6 }];
const CYCLES = 6;
// The delivery delay of the record at place p of cycle c (ms): grows with the place in the emit loop.
const delayOf = (server) => (c, p) => SLOWER[server] * (2 + p / 4 + (c % 3));

test('trip time against connections: one line per server, points at the known delays, each engine with its own offset', async () => {
  const dir = scratchDir('pb-trip-figure-');
  const runs = [];
  for (const server of Object.keys(SLOWER)) {
    for (const connections of [20, 40]) {
      const runDir = path.join(dir, `${server}-${connections}`);
      await makeStreamRun(runDir, connections * CYCLES, { connections, server, engines: ENGINES, delayMs: delayOf(server) });
      const { summary } = await analyzeAndWrite(runDir);
      const c = summary.tripTime.comet;
      assert.equal(c.records, connections * CYCLES, `${server} ${connections}: every record timed`);
      // each engine's offset found within its bound (the server answers in whole ms: up to 0.5 ms more)
      for (const e of ENGINES) {
        const found = summary.clockOffset.byEngine.find((b) => b.engine === e.name);
        assert.ok(Math.abs(found.ms - e.offsetMs) <= found.errorBoundMs + 0.5, `${e.name}: ${found.ms} vs ${e.offsetMs}`);
      }
      assert.ok(c.errorBoundMs > 0, 'the bound stands beside the figures');
      const delays = [];
      for (let cycle = 1; cycle <= CYCLES; cycle++) for (let place = 1; place <= connections; place++) delays.push(delayOf(server)(cycle, place));
      delays.sort((a, b) => a - b);
      for (const [key, p] of [['p50Ms', 50], ['p99Ms', 99]]) {
        const allowed = c.errorBoundMs + 0.5 + 0.002 * percentile(delays, p) + 0.01;
        assert.ok(Math.abs(c[key] - percentile(delays, p)) <= allowed, `${server} ${connections} ${key}: ${c[key]} vs ${percentile(delays, p)}`);
      }
      runs.push({ id: summary.id, summary, series: {}, params: { ...summary.parameters, events: true } });
    }
  }
  for (const [id, key] of [['trip03', 'p50Ms'], ['trip04', 'p99Ms']]) {
    const result = buildFigure(FIGURES.find((f) => f.id === id), runs);
    assert.equal(result.panels.length, 1, 'one emit interval: one chart');
    assert.equal(result.panels[0].label, '1 Second Emit Interval');
    const lines = result.panels[0].lines;
    assert.deepEqual(lines.map((l) => l.name), ['Node.js', 'Tomcat 6', 'Tomcat 7']);
    for (const line of lines) {
      const server = { 'Node.js': 'node', 'Tomcat 6': 'tc6', 'Tomcat 7': 'tc7' }[line.name];
      const expected = runs.filter((r) => r.params.server === server).map((r) => ({ x: r.params.connections, y: r.summary.tripTime.comet[key] }));
      assert.deepEqual(line.points.map(({ x, y }) => ({ x, y })), expected, `${id} ${line.name}`);
    }
    // a slower server lies above at every connection level, and more connections wait longer
    for (const i of [0, 1]) assert.ok(lines[0].points[i].y < lines[1].points[i].y && lines[1].points[i].y < lines[2].points[i].y, id);
    for (const line of lines) assert.ok(line.points[0].y < line.points[1].y, `${id} ${line.name} grows with connections`);
  }
});
