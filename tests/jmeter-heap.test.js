'use strict';
// lib/jmeter-heap.sh: the heap each JMeter engine gets. Too small a heap does not fail a run, it
// starves it (the engine spends its CPU collecting garbage and the server sees fewer connections than
// asked), so the estimate must grow with the threads; with the push sampler nothing grows with a
// stream's records (bench/engine-heap.sh measures that), so the estimate takes the threads alone.
const { test } = require('node:test');
const assert = require('node:assert/strict');
const path = require('node:path');
const { spawnSync } = require('node:child_process');

const ROOT = path.join(__dirname, '..');

// Runs a bash snippet with lib/config.sh and lib/jmeter-heap.sh sourced; env overrides the defaults.
function sh(snippet, env = {}) {
  const r = spawnSync('bash', ['-c', `set -euo pipefail; source lib/config.sh; source lib/jmeter-heap.sh; ${snippet}`],
    { cwd: ROOT, encoding: 'utf8', env: { ...process.env, PB_JMETER_HEAP: 'auto', PB_JMETER_HEAP_BASE_MB: '512',
      PB_JMETER_HEAP_PER_THREAD_KB: '128', ...env } });
  return { code: r.status, out: r.stdout.trim(), err: r.stderr.trim() };
}
const heap = (args, env) => {
  const r = sh(`jmeter_heap_mb ${args}`, env);
  assert.equal(r.code, 0, r.err);
  return Number(r.out);
};

test('the base plus a share per thread, rounded up to whole MB', () => {
  assert.equal(heap('0'), 512);
  assert.equal(heap('1'), 513);
  assert.equal(heap('8'), 513);                     // 8 x 128 KB = 1 MB exactly
  assert.equal(heap('9'), 514);
  assert.equal(heap('15000'), 512 + Math.ceil(15000 * 128 / 1024));
  assert.equal(heap('15000', { PB_JMETER_HEAP_PER_THREAD_KB: '512' }), 512 + 15000 / 2);
});

test('extra arguments are refused: nothing but the threads sizes the heap', () => {
  // The per-record term (2 x 450 B for every record a comet stream would receive, 528 KB a thread for
  // the study's 600 s stream at 1 s) went with the HTTP sampler's whole-stream buffer; tests/run-local
  // checks that a comet run's engine gets this heap.
  const r = sh('jmeter_heap_mb 10000 comet 600 1000');
  assert.equal(r.code, 2, r.out);
  assert.match(r.err, /usage: jmeter_heap_mb <threads>/);
  for (const bad of ['', 'x', '-1']) {
    const b = sh(`jmeter_heap_mb '${bad}'`);
    assert.equal(b.code, 2, `${bad}: ${b.out}`);
  }
});

test('PB_JMETER_HEAP set to a size overrides the estimate', () => {
  assert.equal(heap('15000', { PB_JMETER_HEAP: '3g' }), 3072);
  assert.equal(heap('1', { PB_JMETER_HEAP: '700m' }), 700);
  assert.equal(heap('1', { PB_JMETER_HEAP: '2G' }), 2048);
  assert.equal(heap('1', { PB_JMETER_HEAP: String(1024 * 1048576) }), 1024);
});

test('a PB_JMETER_HEAP that is not a size: exit 1 with a message', () => {
  for (const bad of ['lots', '3gb', '-1g', '0', '3 g', 'g']) {
    const r = sh('jmeter_heap_mb 10', { PB_JMETER_HEAP: bad });
    assert.equal(r.code, 1, `${bad}: ${r.out}`);
    assert.match(r.err, /not a heap size/);
  }
});
