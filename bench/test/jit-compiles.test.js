// bench/jit-compiles.js on compiles cut from a real HotSpot compilation log (bench/test/fixtures/
// jit-compiles.log: a pinned engine at 15,000 comet streams, among them openDue recompiled at 55 s after its
// unstable-if trap): compiles paired and timed, windows summed, the longest first, usage errors.
'use strict';
const test = require('node:test');
const assert = require('node:assert');
const fs = require('node:fs');
const path = require('node:path');
const { spawnSync } = require('node:child_process');
const { compiles, windowOf } = require('../jit-compiles');

const LOG = path.join(__dirname, 'fixtures', 'jit-compiles.log');

test('each compile from its task to its task_done, in seconds', () => {
  const all = compiles(fs.readFileSync(LOG, 'utf8'));
  assert.deepEqual(all.map((c) => c.method.split(' ')[0]), ['pushbench.jmeter.TripSample', 'java.io.ObjectOutputStream',
    'pushbench.jmeter.MuxEngine', 'pushbench.jmeter.MuxStates']);
  assert.deepEqual(all[2], { method: 'pushbench.jmeter.MuxEngine openDue (J)V', startS: 55.291, seconds: 0.233, nmsize: 50176 });
  assert.equal(all[0].seconds, 0);
  assert.deepEqual(compiles("<task compile_id='1' method='a b ()V' stamp='1.0'>\n"), [], 'a compile never done is left out');
});

test('a window sums the compiles that started in it, the longest first', () => {
  const all = compiles(fs.readFileSync(LOG, 'utf8'));
  const steady = windowOf(all, 38, 98, 1);
  assert.equal(steady.compiles, 2);
  assert.equal(steady.seconds, 0.317);   // 0.084 + 0.233
  assert.deepEqual(steady.longest.map((c) => c.startS), [55.291]);
  assert.deepEqual(windowOf(all, 0, 10), { from: 0, to: 10, compiles: 0, seconds: 0, longest: [] });
});

test('the command: a line per window; usage errors exit 2', () => {
  const cli = (...args) => spawnSync(process.execPath, [path.join(__dirname, '..', 'jit-compiles.js'), ...args], { encoding: 'utf8' });
  const r = cli(LOG, '0-38', '38-98', '--longest', '0');
  assert.equal(r.status, 0, r.stderr);
  assert.deepEqual(r.stdout.trim().split('\n').map((l) => JSON.parse(l)).map((w) => [w.compiles, w.seconds, w.longest.length]), [[1, 0, 0], [2, 0.317, 0]]);
  assert.equal(cli(LOG).status, 2);
  assert.equal(cli(LOG, '38..98').status, 2);
});
