'use strict';
// bench/engine-floor-table.js, the closing table of bench/engine-floor.sh: per (server, level, mode) the
// median and range over the repeats, on real runs of the bench (bench/test/fixtures/engine-floor-runs.jsonl:
// 1,000 and 15,000 streams, count and log; the committed pull runs, docs/engine/floor-pull.jsonl), the
// engine's µs per record from the committed docs/engine/stops-pinned.jsonl against the comet floor, and the
// share runs' engine µs per pull answer (docs/engine/share.jsonl) against the pull floor.
const { test } = require('node:test');
const assert = require('node:assert/strict');
const fs = require('node:fs');
const path = require('node:path');
const { median, stat, groups, engineFigures, engineOverFloor, pullDistance, table } = require('../engine-floor-table');

const lines = (file) => fs.readFileSync(file, 'utf8').split('\n').filter(Boolean).map((l) => JSON.parse(l));
const RUNS = lines(path.join(__dirname, 'fixtures', 'engine-floor-runs.jsonl'));
const STOPS = lines(path.join(__dirname, '..', '..', 'docs', 'engine', 'stops-pinned.jsonl'));

test('median and stat: odd and even counts, non-numbers left out', () => {
  assert.equal(median([3, 1, 2]), 2);
  assert.equal(median([4, 1, 3, 2]), 2.5);
  assert.equal(median([]), null);
  assert.deepEqual(stat([5, null, 2, Number.NaN, 9]), { median: 5, min: 2, max: 9, n: 3 });
  assert.equal(stat([null, undefined]), null);
});

test('groups: one per (server, level, mode) in the order first seen, each figure over its repeats', () => {
  const gs = groups(RUNS);
  assert.deepEqual(gs.map((g) => `${g.server}/${g.level}/${g.mode}/${g.runs}`), ['node/1000/count/2', 'node/1000/log/1', 'node/15000/count/3']);
  const big = gs[2];
  const floors = RUNS.filter((r) => r.streams === 15000).map((r) => r.floorUsPerRecord).sort((a, b) => a - b);
  assert.deepEqual(big.floorUsPerRecord, { median: floors[1], min: floors[0], max: floors[2], n: 3 });
  assert.equal(gs[0].floorUsPerRecord.median, (RUNS[0].floorUsPerRecord + RUNS[3].floorUsPerRecord) / 2);
});

test('the engine from the committed stop runs: % of a core over 15,000 records/s, and its distance to the floor', () => {
  const engine = engineFigures(STOPS, 'decided', 15000);
  const decided = STOPS.filter((r) => r.setting === 'decided');
  assert.equal(engine.runs, decided.length);
  assert.ok(engine.runs >= 1);
  const cpus = decided.map((r) => r.engineCpuPercent);
  assert.equal(engine.engineUsPerRecord.min, (Math.min(...cpus) / 100) * 1e6 / 15000);
  assert.equal(engine.engineUsPerRecord.max, (Math.max(...cpus) / 100) * 1e6 / 15000);
  const floor = groups(RUNS).find((g) => g.level === 15000 && g.mode === 'count');
  const ratio = engineOverFloor(engine, floor);
  assert.equal(ratio.median, engine.engineUsPerRecord.median / floor.floorUsPerRecord.median);
  assert.ok(ratio.min <= ratio.median && ratio.median <= ratio.max);
  assert.equal(engineOverFloor(engineFigures(STOPS, 'no-such-setting', 15000), floor), null);
  assert.equal(engineOverFloor(engine, undefined), null);
});

test('the table: a row per group and the engine line', () => {
  const text = table(RUNS, engineFigures(STOPS, 'decided', 15000));
  const rows = text.split('\n').filter((l) => /^\| node \| \d/.test(l));
  assert.equal(rows.length, 3);
  assert.match(rows[2], /^\| node \| 15000 \| count \| 3 \| \d+(\.\d+)? \(/);
  assert.match(text, /engine \(decided, 4 runs at 15000\): .* engine\/floor \d/);
  assert.doesNotMatch(table(RUNS), /engine \(/);
});

test('pull: the committed floor runs grouped by server and connections, the share runs\' engine against them', () => {
  const pulls = lines(path.join(__dirname, '..', '..', 'docs', 'engine', 'floor-pull.jsonl'));
  const share = lines(path.join(__dirname, '..', '..', 'docs', 'engine', 'share.jsonl'));
  const gs = groups(pulls);
  assert.ok(gs.length >= 2);
  for (const g of gs) {
    assert.equal(g.mode, 'pull');
    assert.equal(g.runs, pulls.filter((r) => r.server === g.server && r.connections === g.level).length);
  }
  const ds = pullDistance(share, gs);
  assert.ok(ds.length >= 2);
  for (const d of ds) {
    const g = gs.find((x) => x.server === d.server && x.level === d.level);
    const engine = share.filter((r) => r.type === 'pull' && r.server === d.server && r.connections === d.level)
      .map((r) => r.engineMicrosPerAnswer);
    assert.equal(d.runs, engine.length);
    assert.equal(d.floorUsPerAnswer, g.floorUsPerRecord.median);
    assert.equal(d.engineMinusFloor.median, median(engine) - g.floorUsPerRecord.median);
    assert.equal(d.engineOverFloor.max, Math.max(...engine) / g.floorUsPerRecord.median);
  }
  assert.deepEqual(pullDistance(share, groups(RUNS)), []);   // comet groups: no pull distance
  const text = table(pulls, null, share);
  assert.match(text, /\| engine − floor µs \|/);
  assert.equal(text.split('\n').filter((l) => /^\| (node|tc6|tc7) \| \d+ \| \d+ \| /.test(l)).length, ds.length);
  assert.doesNotMatch(table(pulls), /engine − floor/);
});

test('coalesced reads: a coalescing reader\'s runs are a row of their own beside the plain count (docs/engine/floor-coalesce.jsonl)', () => {
  const runs = lines(path.join(__dirname, '..', '..', 'docs', 'engine', 'floor-coalesce.jsonl'));
  const gs = groups(runs);
  assert.deepEqual(gs.map((g) => `${g.level}/${g.mode}/${g.runs}`), ['15000/count/3', '15000/count coalesced 250 µs/3']);
  const coalesced = runs.filter((r) => r.coalesceMicros === 250).map((r) => r.floorUsPerRecord).sort((a, b) => a - b);
  assert.deepEqual(gs[1].floorUsPerRecord, { median: coalesced[1], min: coalesced[0], max: coalesced[2], n: 3 });
  // the engine line's floor stays the plain count's
  const text = table(runs, engineFigures(STOPS, 'decided', 15000));
  assert.match(text, /^\| node \| 15000 \| count coalesced 250 µs \| 3 \| /m);
  const ratio = engineOverFloor(engineFigures(STOPS, 'decided', 15000), gs[0]);
  assert.ok(text.includes(`engine/floor ${Math.round(ratio.median * 100) / 100} (`));
});
