'use strict';
// A real run made by run.sh (Node.js, comet, 100 threads, event every 2 s, 15 s): the analyzer's counts
// against an independent reading of the same archive with GNU tar, and of the monitors' files.
process.env.TZ = 'UTC';
const test = require('node:test');
const assert = require('node:assert/strict');
const fs = require('node:fs');
const path = require('node:path');
const { execFileSync } = require('node:child_process');
const { analyzeRun } = require('../run-analysis');
const { copyRun, REAL_RUN } = require('./helpers');

const archive = path.join(REAL_RUN, 'responses', 'local.tar.gz');
// every request_ body, decoded by GNU tar, one JSON record per line
const records = execFileSync('tar', ['-xzOf', archive, '--wildcards', '*request_*'], { encoding: 'utf8', maxBuffer: 1 << 26 })
  .split('\n').filter((l) => l.startsWith('{')).map((l) => JSON.parse(l));
let result;
test.before(async () => { result = await analyzeRun(copyRun(undefined, REAL_RUN)); });

test('every record of the real archive is counted by type', () => {
  const t = result.summary.totals;
  assert.ok(records.length > 500);
  assert.equal(t.responsesSent, records.length);
  assert.equal(t.events, records.filter((r) => r.response.event).length);
  assert.equal(t.clears, records.filter((r) => r.response.clear).length);
  assert.equal(t.timeouts, records.filter((r) => r.response.timeout).length);
  const files = execFileSync('tar', ['-tzf', archive], { encoding: 'utf8' }).split('\n').filter((f) => /request_/.test(f));
  assert.equal(t.requestResponses, files.length);
});

test('emit cycles, peak connections and messages match the records', () => {
  const cycles = new Map();
  for (const r of records.filter((x) => x.response.event)) {
    const e = r.response.event;
    const c = cycles.get(e.cycle) ?? { n: 0, max: 0 };
    c.n++;
    c.max = Math.max(c.max, e.timings.duration);
    cycles.set(e.cycle, c);
  }
  assert.equal(result.datasets.cycles.length, cycles.size);
  for (const c of result.datasets.cycles) {
    assert.equal(c.requests, cycles.get(c.cycle).n);
    assert.equal(c.duration, cycles.get(c.cycle).max);
  }
  assert.equal(result.summary.peakConnections, Math.max(...records.flatMap((r) => [r.connections.start, r.connections.finish])));
  const m = result.datasets.messages.comet;
  assert.equal(m.streams, 100);
  assert.equal(m.received, records.filter((r) => r.response.event).length);
  assert.equal(m.missed, m.expected - m.unique);
});

test('monitors: one CPU sample per vmstat line after the since-boot one, pidstat on the same time line', () => {
  const vmLines = fs.readFileSync(path.join(REAL_RUN, 'sut', 'vmstat.log'), 'utf8').split('\n').filter((l) => /^\s*\d/.test(l));
  assert.equal(result.datasets.series.cpu.filter((v) => v !== null).length, vmLines.length - 1);
  assert.equal(result.summary.flags.linesSkipped, 0);
  assert.deepEqual(result.summary.flags.missingInputs, []);
  assert.ok(!result.summary.notes.some((n) => /pidstat/.test(n)), result.summary.notes.join('; '));
  assert.ok(result.datasets.series.processRssMB.filter((v) => v !== null).length >= 10);
  assert.ok(Math.abs(result.summary.clockOffset.ms) < 1000);
});

test('load start is the first request sample, in elapsed seconds from the run start', () => {
  const rows = fs.readFileSync(path.join(REAL_RUN, 'jmeter', 'results.csv'), 'utf8').trim().split('\n').slice(1)
    .map((l) => l.split(',')).filter((f) => f[2] === 'request').map((f) => Number(f[0]));
  const startedAt = JSON.parse(fs.readFileSync(path.join(REAL_RUN, 'run.json'), 'utf8')).startedAt;
  assert.equal(result.summary.loadStartSecond, Math.floor((Math.min(...rows) - startedAt) / 1000));
  // the first connection the server reports falls in that second or the next
  const firstConnection = result.datasets.series.connections.findIndex((v) => v !== null);
  assert.ok(firstConnection - result.summary.loadStartSecond <= 1 && firstConnection >= result.summary.loadStartSecond);
});

test('memory in use from sut/memory.log: MemTotal - MemAvailable, each sample in its elapsed second', () => {
  const lines = fs.readFileSync(path.join(REAL_RUN, 'sut', 'memory.log'), 'utf8').trim().split('\n').map((l) => l.split(' ').map(Number));
  const startedAt = JSON.parse(fs.readFileSync(path.join(REAL_RUN, 'run.json'), 'utf8')).startedAt;
  const offset = result.summary.clockOffset.ms;
  assert.equal(result.summary.memorySource, 'memory.log');
  const memory = result.datasets.series.memory;
  for (const [t, total, , available] of lines) {
    const second = Math.floor((t - offset - startedAt) / 1000);
    if (second >= memory.length) continue;
    assert.equal(memory[second], Math.round(((total - available) / total) * 10000) / 100, `second ${second}`);
  }
  // JMeter and the server filling up on this one machine: the line moves (vmstat's memory columns did not)
  const values = memory.filter((v) => v !== null);
  assert.ok(Math.max(...values) - Math.min(...values) > 0.5, `memory ${values}`);
  assert.equal(result.summary.memTotalMB, Math.round((lines[0][1] / 1024) * 100) / 100);
});
