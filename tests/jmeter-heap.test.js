'use strict';
// lib/jmeter-heap.sh: the heap each JMeter engine gets. Too small a heap does not fail a run, it
// starves it (the engine spends its CPU collecting garbage and the server sees fewer connections than
// asked), so the estimate must grow with the threads and with what comet streams pile up.
const { test } = require('node:test');
const assert = require('node:assert/strict');
const path = require('node:path');
const { spawnSync } = require('node:child_process');

const ROOT = path.join(__dirname, '..');

// Runs a bash snippet with lib/config.sh and lib/jmeter-heap.sh sourced; env overrides the defaults.
function sh(snippet, env = {}) {
  const r = spawnSync('bash', ['-c', `set -euo pipefail; source lib/config.sh; source lib/jmeter-heap.sh; ${snippet}`],
    { cwd: ROOT, encoding: 'utf8', env: { ...process.env, PB_JMETER_HEAP: 'auto', PB_JMETER_HEAP_BASE_MB: '512',
      PB_JMETER_HEAP_PER_THREAD_KB: '128', PB_COMET_RECORD_BYTES: '450', ...env } });
  return { code: r.status, out: r.stdout.trim(), err: r.stderr.trim() };
}
const heap = (args, env) => {
  const r = sh(`jmeter_heap_mb ${args}`, env);
  assert.equal(r.code, 0, r.err);
  return Number(r.out);
};

test('poll: the base plus a share per thread, rounded up to whole MB', () => {
  assert.equal(heap('0 poll 60 ""'), 512);
  assert.equal(heap('1 poll 60 ""'), 513);
  assert.equal(heap('8 poll 60 ""'), 513);                     // 8 x 128 KB = 1 MB exactly
  assert.equal(heap('15000 poll 109 ""'), 512 + Math.ceil(15000 * 128 / 1024));
  // An event changes nothing for poll: each answer is one record.
  assert.equal(heap('15000 poll 109 2000'), heap('15000 poll 109 ""'));
});

test('comet with an event: each stream holds duration / interval records, and room for its buffer to double', () => {
  const records = 600 * 1000 / 1000 + 2;
  const perThreadKb = 128 + Math.floor(2 * records * 450 / 1024);
  assert.equal(heap('10000 comet 600 1000'), 512 + Math.ceil(10000 * perThreadKb / 1024));
  // Twice the interval, about half the records; twice the duration, about twice.
  assert.ok(heap('1000 comet 600 2000') < heap('1000 comet 600 1000'));
  assert.ok(heap('1000 comet 1200 1000') > heap('1000 comet 600 1000'));
  // Comet without an event holds one record per stream, like poll.
  assert.equal(heap('1000 comet 600 ""'), heap('1000 poll 600 ""'));
});

test('PB_JMETER_HEAP set to a size overrides the estimate', () => {
  assert.equal(heap('15000 comet 600 1000', { PB_JMETER_HEAP: '3g' }), 3072);
  assert.equal(heap('1 poll 1 ""', { PB_JMETER_HEAP: '700m' }), 700);
  assert.equal(heap('1 poll 1 ""', { PB_JMETER_HEAP: '2G' }), 2048);
  assert.equal(heap('1 poll 1 ""', { PB_JMETER_HEAP: String(1024 * 1048576) }), 1024);
});

test('a PB_JMETER_HEAP that is not a size: exit 1 with a message', () => {
  for (const bad of ['lots', '3gb', '-1g', '0', '3 g', 'g']) {
    const r = sh('jmeter_heap_mb 10 poll 10 ""', { PB_JMETER_HEAP: bad });
    assert.equal(r.code, 1, `${bad}: ${r.out}`);
    assert.match(r.err, /not a heap size/);
  }
});
