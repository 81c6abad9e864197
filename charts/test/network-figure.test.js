'use strict';
// Push against pull (issue #26): the network cost per delivered message from a fixture sweep. Each run of
// comet, long poll and pull (at two pull intervals) at two connection levels gets a sut/netstat.log whose
// byte and segment counters grow at a known rate per kind; the analysis must give each run's bytes over its
// steady window and per delivered message, and comparison figure N1 must draw one line per type and pull
// interval with those points.
const test = require('node:test');
const assert = require('node:assert/strict');
const fs = require('node:fs');
const path = require('node:path');
const { scratchDir } = require('../../analysis/test/helpers');
const { makeSweep } = require('./sweep-fixture');
const { FIGURES } = require('../figures');
const { buildFigure } = require('../figure-data');
const { analyzeAndWrite } = require('../../analysis/run-analysis');

const KINDS = [
  { type: 'comet', rate: 100, line: 'Comet' },
  { type: 'poll', rate: 1000, line: 'Long Poll' },
  { type: 'pull', pullInterval: 1000, rate: 5000, line: 'Pull Every 1 Second' },
  { type: 'pull', pullInterval: 500, rate: 9000, line: 'Pull Every 500 ms' },
];   // rate: bytes per second on the SUT host

// One sample a second around the run: counters proportional to time, segments a tenth of the bytes.
function writeNetstat(runDir, rate) {
  const run = JSON.parse(fs.readFileSync(path.join(runDir, 'run.json'), 'utf8'));
  const lines = [];
  for (let i = -30; i <= 90; i++) {
    const ms = run.startedAt + i * 1000;
    const bytes = (i + 30) * rate;
    lines.push([ms, i + 30, 2 * (i + 30), bytes / 10, bytes / 10, 0, bytes / 2, bytes / 2].join(' '));
  }
  fs.mkdirSync(path.join(runDir, 'sut'), { recursive: true });
  fs.writeFileSync(path.join(runDir, 'sut', 'netstat.log'), lines.join('\n') + '\n');
}

test('network cost per message in each summary, and figure N1 draws comet, long poll and pull (per pull interval) against threads', async () => {
  const dir = scratchDir('pb-network-figure-');
  const perms = [];
  const kinds = [];
  for (const kind of KINDS) {
    for (const threads of [3, 6]) {
      perms.push({ server: 'node', type: kind.type, threads, interval: 1000, ...(kind.pullInterval ? { pullInterval: kind.pullInterval } : {}) });
      kinds.push(kind);
    }
  }
  const runDirs = makeSweep(dir, perms);
  const runs = [];
  for (const [i, runDir] of runDirs.entries()) {
    writeNetstat(runDir, kinds[i].rate);
    const { summary } = await analyzeAndWrite(runDir);
    const n = summary.network;
    assert.equal(n.available, true, JSON.stringify(n));
    assert.equal(n.inBytes + n.outBytes, Math.round(kinds[i].rate * n.seconds), 'bytes over the window at the known rate');
    assert.equal(summary.parameters.pullIntervalMs, kinds[i].pullInterval ?? null);
    assert.equal(n.newConnections, 3 * n.seconds, 'ActiveOpens + PassiveOpens');
    assert.ok(n.messages > 0, 'the fixture delivers messages in its window');
    assert.equal(n.perMessage.bytes, Math.round(((n.inBytes + n.outBytes) / n.messages) * 1000) / 1000);
    assert.equal(n.sharedWithEngine, true, 'the fixture ran everything on one host');
    runs.push({ summary, runDir, kind: kinds[i] });
  }
  const figure = FIGURES.find((f) => f.id === 'net01');
  const result = buildFigure(figure, runs.map(({ summary, runDir }) => ({ id: summary.id, dir: runDir, summary, series: {},
    params: { ...summary.parameters, events: true } })));
  assert.equal(result.panels.length, 1, 'one emit interval: one chart');
  const lines = result.panels[0].lines;
  assert.deepEqual(lines.map((l) => l.name).sort(), KINDS.map((k) => k.line).sort());
  for (const line of lines) {
    const expected = runs.filter(({ kind }) => kind.line === line.name)
      .map(({ summary }) => ({ x: summary.parameters.connections, y: summary.network.perMessage.bytes }));
    assert.equal(expected.length, 2, line.name);
    assert.deepEqual(line.points.map(({ x, y }) => ({ x, y })), expected, line.name);
  }
});
