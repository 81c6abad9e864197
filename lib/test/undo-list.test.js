'use strict';
// lib/cleanup.sh, the undo list run.sh's teardown runs (docs/architecture.md, "Collecting"): phases in the
// order given, the last registered first within a phase, each entry run once with the values it was
// registered with, an entry cut short by a signal run again by the EXIT trap, a dropped phase never run.
// Real bash, no run: the end-to-end behaviour is tests/run-interrupt.test.js and tests/faults.test.js.
const { test } = require('node:test');
const assert = require('node:assert/strict');
const path = require('node:path');
const { spawnSync } = require('node:child_process');

const ROOT = path.join(__dirname, '..', '..');

// Runs <script> in bash -euo pipefail after sourcing lib/cleanup.sh; `say` records what ran.
function bash(script) {
  const r = spawnSync('bash', ['-c', `set -euo pipefail\nsource lib/cleanup.sh\nsay() { printf '%s\\n' "$*"; }\n${script}`],
    { cwd: ROOT, encoding: 'utf8' });
  return { code: r.status, lines: r.stdout.split('\n').filter(Boolean), stderr: r.stderr };
}

test('phases run in their order, each last registered first, with the arguments as given', () => {
  const r = bash(`
    undo_phases jmeter server work-dir
    undo_add server say server
    undo_add jmeter say engines
    undo_add work-dir say "a dir with spaces" '$HOME' "it's"
    undo_add jmeter say controller
    undo_run_all`);
  assert.equal(r.code, 0, r.stderr);
  assert.deepEqual(r.lines, ['controller', 'engines', 'server', "a dir with spaces $HOME it's"]);
});

test('each entry runs once: a phase run by a stop step is not run again by the trap; a dropped one never', () => {
  const r = bash(`
    undo_phases jmeter monitors responses ssh
    undo_add jmeter say stop-jmeter
    undo_add monitors say stop-monitors
    undo_add responses say collect-responses
    undo_add ssh say close-ssh
    undo_run jmeter
    say --
    undo_run monitors
    undo_drop responses
    say --
    undo_run_all
    say --
    undo_run_all`);
  assert.equal(r.code, 0, r.stderr);
  assert.deepEqual(r.lines, ['stop-jmeter', '--', 'stop-monitors', '--', 'close-ssh', '--']);
});

test('entries run with errexit off, as in the trap: a failure goes on to the next; its status is returned', () => {
  const r = bash(`
    undo_phases collect
    first() { false; say "first went on"; return 3; }
    undo_add collect say second
    undo_add collect first
    rc=0; undo_run collect || rc=$?
    say "status $rc"`);
  assert.equal(r.code, 0, r.stderr);
  assert.deepEqual(r.lines, ['first went on', 'second', 'status 3']);
});

test('an entry cut short by a signal is run again by the EXIT trap, then the rest', () => {
  const r = bash(`
    undo_phases jmeter server
    n=0
    stop_engines() { n=$((n + 1)); say "stop engines, try $n"; ((n > 1)) || kill -TERM $$; say "engines stopped"; }
    trap 'exit 130' TERM
    trap 'trap "" TERM; undo_run_all' EXIT
    undo_add server say "server stopped"
    undo_add jmeter stop_engines
    undo_run jmeter
    say "not reached"`);
  assert.equal(r.code, 130, r.stderr);
  assert.deepEqual(r.lines, ['stop engines, try 1', 'stop engines, try 2', 'engines stopped', 'server stopped']);
});

test('an unknown phase is refused', () => {
  const r = bash(`
    undo_phases jmeter
    rc=0; undo_add jmetr say x || rc=$?
    say "status $rc"; undo_run_all`);
  assert.deepEqual(r.lines, ['status 2']);
  assert.match(r.stderr, /undo_add: unknown phase 'jmetr'/);
});

test('undo_on_change runs after every change of the list: each add, each entry run, each drop', () => {
  const r = bash(`
    undo_phases jmeter responses
    saved() { say "saved \${#UNDO[@]}"; }
    undo_on_change saved
    undo_add jmeter say engines
    undo_add responses say collect
    undo_drop responses
    undo_run jmeter`);
  assert.equal(r.code, 0, r.stderr);
  assert.deepEqual(r.lines, ['saved 1', 'saved 2', 'saved 1', 'engines', 'saved 0']);
});
