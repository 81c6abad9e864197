'use strict';
// lib/jmeter-heap.sh: the heap and the mux threads each JMeter engine gets (docs/engine.md). Too small a
// heap does not fail a run, it starves it (the engine spends its CPU collecting garbage and the server sees
// fewer connections than asked), so the estimate grows with the connections, at the rate of the sampler:
// a mux connection's state, or a JMeter thread per connection; nothing grows with a stream's records.
const { test } = require('node:test');
const assert = require('node:assert/strict');
const path = require('node:path');
const { spawnSync } = require('node:child_process');

const ROOT = path.join(__dirname, '..', '..');

// Runs a bash snippet with lib/config.sh and lib/jmeter-heap.sh sourced; env overrides the defaults.
function sh(snippet, env = {}) {
  const r = spawnSync('bash', ['-c', `set -euo pipefail; source lib/config.sh; source lib/jmeter-heap.sh; ${snippet}`],
    { cwd: ROOT, encoding: 'utf8', env: { ...process.env, PB_JMETER_HEAP: 'auto', PB_JMETER_HEAP_BASE_MB: '512',
      PB_JMETER_HEAP_PER_THREAD_KB: '128', PB_JMETER_MUX_HEAP_BASE_MB: '256', PB_JMETER_MUX_HEAP_PER_CONNECTION_KB: '16',
      PB_REQUEST_SAMPLER: 'push', PB_MUX_CONNECTIONS_PER_THREAD: '20000', ...env } });
  return { code: r.status, out: r.stdout.trim(), err: r.stderr.trim() };
}
const heap = (args, env) => {
  const r = sh(`jmeter_heap_mb ${args}`, env);
  assert.equal(r.code, 0, r.err);
  return Number(r.out);
};

test('a thread per connection: the base plus a share per thread, rounded up to whole MB', () => {
  assert.equal(heap('0'), 512);
  assert.equal(heap('1'), 513);
  assert.equal(heap('8'), 513);                     // 8 x 128 KB = 1 MB exactly
  assert.equal(heap('9'), 514);
  assert.equal(heap('15000'), 512 + Math.ceil(15000 * 128 / 1024));
  assert.equal(heap('15000', { PB_JMETER_HEAP_PER_THREAD_KB: '512' }), 512 + 15000 / 2);
  assert.equal(heap('15000 http'), heap('15000 push'));
});

test('mux: its own base plus a share per connection; the sampler from its argument or PB_REQUEST_SAMPLER', () => {
  assert.equal(heap('0 mux'), 256);
  assert.equal(heap('15000 mux'), 256 + Math.ceil(15000 * 16 / 1024));
  assert.equal(heap('15000', { PB_REQUEST_SAMPLER: 'mux' }), heap('15000 mux'));
  assert.equal(heap('15000 push', { PB_REQUEST_SAMPLER: 'mux' }), 512 + Math.ceil(15000 * 128 / 1024));
  assert.ok(heap('15000 mux') * 4 < heap('15000 push'), 'a fraction of the thread-per-connection heap');
});

test('mux threads: one per PB_MUX_CONNECTIONS_PER_THREAD connections, at least 1, at most one per core', () => {
  const threads = (n, env) => Number(sh(`jmeter_mux_threads ${n}`, env).out);
  const cores = Number(sh('nproc').out);
  assert.equal(threads(1), 1);
  assert.equal(threads(19800), 1);
  assert.equal(threads(40000), Math.min(2, cores));
  assert.equal(threads(15000, { PB_MUX_CONNECTIONS_PER_THREAD: '5000' }), Math.min(3, cores));
  assert.equal(threads(1000000), cores);
});

test('extra arguments or an unknown sampler are refused', () => {
  const r = sh('jmeter_heap_mb 10000 comet 600 1000');
  assert.equal(r.code, 2, r.out);
  assert.match(r.err, /usage: jmeter_heap_mb <connections> \[<sampler>\]/);
  for (const bad of ['', 'x', '-1']) {
    const b = sh(`jmeter_heap_mb '${bad}'`);
    assert.equal(b.code, 2, `${bad}: ${b.out}`);
  }
  const u = sh('jmeter_heap_mb 10 ws');
  assert.equal(u.code, 2);
  assert.match(u.err, /unknown sampler 'ws'/);
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
