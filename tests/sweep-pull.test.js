'use strict';
// Push against pull in the sweep (issue #26, docs/pull.md): ./sweep.sh --types adds pull permutations
// (each emit interval x each pull interval x each level, after each server's long polls) while the study's
// 195 stay the default; and a real mini sweep over comet, long poll and pull at one small level draws the
// comparison figures N1 (bytes per delivered message) and N2 (TCP segments per delivered message).
// The real sweep needs JMeter and Node (./setup.sh); three runs, about 2-3 minutes on 2 busy cores.

const { test, describe, before, after } = require('node:test');
const assert = require('node:assert/strict');
const fs = require('node:fs');
const path = require('node:path');
const { spawnSync } = require('node:child_process');
const { runSweep, readState, SWEEP } = require('./lib/sweep-run');

const ROOT = path.resolve(__dirname, '..');
const BASE = path.join(process.env.PB_RESULTS || path.join(ROOT, 'build', 'results'), `sweep-pull-test-${process.pid}`);

function sweepSync(args) {
  return spawnSync(SWEEP, args, { cwd: ROOT, encoding: 'utf8' });
}

function list(...args) {
  const r = sweepSync(['--list', ...args]);
  assert.equal(r.status, 0, r.stderr);
  return r.stdout.split('\n').filter(Boolean);
}

describe('--types with pull: the permutation list', () => {
  const study = list();

  test('the default stays the study\'s 195, with no pull', () => {
    assert.equal(study.length, 195);
    assert.ok(study.every((l) => !/ pull /.test(l)));
    assert.deepEqual(list('--types', 'comet,poll'), study);
  });

  test('pull adds every emit interval x level per server, pulling at the emit interval, after the long polls', () => {
    const all = list('--types', 'comet,poll,pull');
    const pulls = all.filter((l) => / pull /.test(l));
    assert.equal(pulls.length, 3 * 4 * 5, 'node, tc6, tc7 x 4 emit intervals x 5 levels');
    assert.deepEqual(all.filter((l) => !/ pull /.test(l)), study, 'the study\'s lines, in their order');
    for (const l of pulls) {
      const m = / pull (\d+) event1 (\d+)$/.exec(l);
      assert.ok(m, l);
      assert.equal(m[1], m[2], `pull interval = emit interval: ${l}`);
    }
    // Each server's pulls follow its long polls and come before the next server's lines.
    assert.equal(all[65], './run.sh node 30 600 1000 pull 1000 event1 1000');
    assert.equal(all[84], './run.sh node 30 600 20000 pull 30000 event1 30000');
    assert.equal(all[85], './run.sh tc6 30 600 1000 comet - event1 1000');
    assert.deepEqual(list('--types', 'pull', '--servers', 'tc7', '--levels', '500'), [
      './run.sh tc7 30 600 500 pull 1000 event1 1000', './run.sh tc7 30 600 500 pull 5000 event1 5000',
      './run.sh tc7 30 600 500 pull 10000 event1 10000', './run.sh tc7 30 600 500 pull 30000 event1 30000',
    ]);
  });

  test('--pull-intervals crosses each pull interval (ms, or emit) with every emit interval, each once, ascending', () => {
    assert.deepEqual(list('--types', 'pull', '--servers', 'node', '--levels', '20', '--pull-intervals', '5000,emit,1000', '--filter', 'event1 (1000|10000)$'), [
      './run.sh node 30 600 20 pull 1000 event1 1000', './run.sh node 30 600 20 pull 5000 event1 1000',
      './run.sh node 30 600 20 pull 1000 event1 10000', './run.sh node 30 600 20 pull 5000 event1 10000',
      './run.sh node 30 600 20 pull 10000 event1 10000',
    ]);
    assert.equal(list('--types', 'pull', '--pull-intervals', '500').length, 60);
    assert.ok(list('--types', 'pull', '--pull-intervals', '500').every((l) => / pull 500 event1 /.test(l)));
    assert.equal(list('--study', 'extended', '--types', 'pull', '--pull-intervals', '500,emit').length, 6 * 4 * 2 * 5);
  });

  test('bad pull options: exit 2 with a message, nothing listed', () => {
    for (const [args, message] of [
      [['--types', 'pull,push'], /--types: unknown 'push'/],
      [['--pull-intervals', '1000'], /--pull-intervals needs pull among --types/],
      [['--types', 'comet', '--pull-intervals', '1000'], /--pull-intervals needs pull among --types/],
      [['--types', 'pull', '--pull-intervals', '0'], /--pull-intervals must be a whole number >= 1, got '0'/],
      [['--types', 'pull', '--pull-intervals', '1s'], /--pull-intervals must be a whole number/],
      [['--types', 'pull', '--pull-intervals', ''], /--pull-intervals: empty list/],
    ]) {
      const r = sweepSync(['--list', ...args]);
      assert.equal(r.status, 2, args.join(' '));
      assert.match(r.stderr, message);
      assert.equal(r.stdout, '');
    }
  });

  test('the generator-bound prediction counts a pull per thread per pull interval', () => {
    const capacity = require('../sweep/capacity');
    const { permutations } = require('../sweep/permutations');
    const [fast, slow] = permutations({ servers: ['node'], types: ['pull'], levels: [1000], rampup: 10, pullIntervals: [500, 'emit'] });
    assert.equal(fast.command, './run.sh node 10 600 1000 pull 500 event1 1000');
    assert.deepEqual(capacity.offeredRate(fast), { steady: 2000, starts: 100, peak: 2100 });
    assert.deepEqual(capacity.offeredRate(slow), { steady: 1000, starts: 100, peak: 1100 });
  });
});

describe('a real mini sweep over comet, long poll and pull', () => {
  const dir = path.join(BASE, 'mini');
  before(() => {
    fs.mkdirSync(BASE, { recursive: true });
    // The local default, written out so a user's hosts.conf never changes what the test runs.
    fs.writeFileSync(path.join(BASE, 'hosts.conf'), 'sut local 127.0.0.1 local\nengine local 127.0.0.1 local\n');
  });
  after(() => fs.rmSync(BASE, { recursive: true, force: true }));

  test('20 clients, events every second: three runs, and figures N1/N2 draw one point per type from their summaries', async () => {
    const r = await runSweep(['--dir', dir, '--yes', '--quiet', '--servers', 'node', '--types', 'comet,poll,pull', '--levels', '20',
      '--filter', 'event1 1000$', '--duration', '8', '--rampup', '1'], { env: { PB_HOSTS: path.join(BASE, 'hosts.conf') } });
    assert.equal(r.code, 0, r.out.split('\n').slice(-40).join('\n'));
    const state = readState(dir);
    assert.deepEqual(state.map((s) => [s.key, s.status]), [
      ['./run.sh node 1 8 20 comet - event1 1000 #1', 'done'],
      ['./run.sh node 1 8 20 poll 180000 event1 1000 #1', 'done'],
      ['./run.sh node 1 8 20 pull 1000 event1 1000 #1', 'done'],
    ]);
    const summaries = Object.fromEntries(state.map((s) => {
      const summary = JSON.parse(fs.readFileSync(path.join(dir, s.runDir, 'data', 'summary.json'), 'utf8'));
      return [summary.parameters.type, summary];
    }));
    assert.equal(summaries.pull.parameters.pullIntervalMs, 1000);
    assert.equal(summaries.pull.messages.pull.missed, 0);
    assert.equal(summaries.pull.messages.pull.duplicates, 0);

    const names = { comet: 'Comet', poll: 'Long Poll', pull: 'Pull Every 1 Second' };
    for (const [id, field] of [['net01', 'bytes'], ['net02', 'segments']]) {
      assert.ok(fs.existsSync(path.join(dir, 'report', `${id}.html`)), `report/${id}.html`);
      const chart = JSON.parse(fs.readFileSync(path.join(dir, 'report', 'charts', `${id}-1.json`), 'utf8'));
      assert.deepEqual(chart.elements.map((e) => e.text).sort(), Object.values(names).sort(), `${id}: one line per type`);
      for (const [type, summary] of Object.entries(summaries)) {
        const line = chart.elements.find((e) => e.text === names[type]);
        assert.equal(line.values.length, 1, `${id} ${type}: one point`);
        assert.equal(line.values[0].x, 20);
        const y = summary.network.perMessage[field];
        assert.ok(y > 0, `${type}: ${field} per message ${y}`);
        assert.ok(Math.abs(line.values[0].y - y) <= 0.01 * y, `${id} ${type}: ${line.values[0].y} drawn for ${y}`);
      }
      process.stdout.write(`# ${id}: ${Object.entries(summaries).map(([t, s]) => `${t} ${s.network.perMessage[field]}`).join(', ')} ${field} per message\n`);
    }
  });
});
