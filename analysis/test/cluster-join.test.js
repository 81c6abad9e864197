'use strict';
// node-cluster's emit cycles joined across workers (issue #23 item 1), on a real captured run.sh run
// (2 workers, 200 comet streams, an event every 2 s): the analysis must see one cycle per id with every
// worker's records in it, its emit duration the slowest record's, its start the shared `created`, and
// must sum the primary's and workers' pidstat lines. The cycle and place tables are compared with goldens
// (PB_UPDATE_GOLDEN=1 rewrites them).
process.env.TZ = 'UTC';
const test = require('node:test');
const assert = require('node:assert/strict');
const fs = require('node:fs');
const path = require('node:path');
const zlib = require('node:zlib');
const { analyzeAndWrite } = require('../run-analysis');
const { copyRun, readJson } = require('./helpers');

const FIXTURE = path.join(__dirname, 'fixtures', 'real-node-cluster-comet-200-20');
const GOLDEN = path.join(__dirname, 'golden', 'real-node-cluster-comet-200-20');
const TABLES = ['data/emit-cycles.json', 'data/emit-places.json'];

// Event records straight from the response archive (tar: 512-byte headers, files padded to 512).
function eventRecords() {
  const tar = zlib.gunzipSync(fs.readFileSync(path.join(FIXTURE, 'responses', 'local.tar.gz')));
  const records = [];
  for (let at = 0; at + 512 <= tar.length;) {
    const name = tar.toString('utf8', at, at + 100).replace(/\0.*$/s, '');
    if (!name) break;
    const size = parseInt(tar.toString('utf8', at + 124, at + 136).replace(/\0.*$/s, '').trim(), 8);
    const body = tar.toString('utf8', at + 512, at + 512 + size);
    if (/request_/.test(name)) {
      for (const line of body.split('\n')) if (line.startsWith('{"response":{"event"')) records.push(JSON.parse(line).response.event);
    }
    at += 512 + Math.ceil(size / 512) * 512;
  }
  return records;
}

test('node-cluster: one cycle per id across the workers, duration the slowest, the tables match the goldens', async () => {
  const run = copyRun(undefined, FIXTURE);
  await analyzeAndWrite(run);
  const records = eventRecords();
  const byCycle = new Map();
  for (const e of records) {
    if (!byCycle.has(e.cycle)) byCycle.set(e.cycle, []);
    byCycle.get(e.cycle).push(e);
  }
  const { cycles } = readJson(path.join(run, 'data/emit-cycles.json'));
  assert.equal(cycles.length, byCycle.size);
  for (const c of cycles) {
    const own = byCycle.get(c.cycle);
    assert.ok(own, `cycle ${c.cycle} is not in the records`);
    assert.equal(c.requests, own.length);
    assert.equal(c.total, own[0].connections.total);
    assert.deepEqual(own.map((e) => e.connections.place).sort((a, b) => a - b), Array.from({ length: c.total }, (_, i) => i + 1),
      `cycle ${c.cycle}: places 1..total once each`);
    assert.equal(new Set(own.map((e) => e.timings.created)).size, 1, 'one start time per cycle');
    const slowest = Math.max(...own.map((e) => e.timings.duration));
    const durationOf = c.durationMs ?? c.duration;
    assert.equal(durationOf, slowest, `cycle ${c.cycle}: the slowest worker's record`);
  }
  // pidstat: the primary and both workers in every second, summed into one sample.
  const summary = readJson(path.join(run, 'data/summary.json'));
  assert.ok(summary.peakProcessRssMB > 120, `RSS of three node processes, got ${summary.peakProcessRssMB} MB`);
  if (process.env.PB_UPDATE_GOLDEN === '1') {
    for (const f of TABLES) {
      fs.mkdirSync(path.dirname(path.join(GOLDEN, f)), { recursive: true });
      fs.writeFileSync(path.join(GOLDEN, f), JSON.stringify(readJson(path.join(run, f)), null, 1) + '\n');
    }
  }
  for (const f of TABLES) assert.deepEqual(readJson(path.join(run, f)), readJson(path.join(GOLDEN, f)), f);
});
