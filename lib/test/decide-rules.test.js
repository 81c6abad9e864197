'use strict';
// The decisions run.sh takes as data from lib/decide.js (issue #51 item 3): its exit code for each outcome
// (lib/decide-exit.js, README's table; bash gets them by name and exits by no bare code of the table), the
// wait's rules (lib/decide-jmeter.js waitRules, handed to lib/run-wait.sh as RUN_WAIT_*), and each engine's
// own JMeter properties (engineProperties, given by load/engine.sh with -J) per engine of a two-engine plan.
// Called in this process and through the CLI bash runs; no run is started.
const test = require('node:test');
const assert = require('node:assert/strict');
const fs = require('node:fs');
const path = require('node:path');
const { spawnSync } = require('node:child_process');
const { EXIT_CODES, exitCodeName, runExit } = require('../decide-exit');
const { WAIT_RULES, waitRules, waitSeconds, engineProperties, ENGINE_PROPERTY_NAMES } = require('../decide-jmeter');
const { decide, shellForm } = require('../decide');
const { settings } = require('../config');

const ROOT = path.join(__dirname, '..', '..');
const HOSTS = 'lib/test/fixtures/decide/two-engines.conf';   // relative: read from the checkout, as run.sh does
const cli = (...args) => spawnSync(process.execPath, ['lib/decide.js', ...args],
  { cwd: ROOT, encoding: 'utf8', env: { ...process.env, PB_MUX_CONNECTIONS_PER_THREAD: '1000' } });

test('exit codes: each outcome of a run that ran every step, in their order', () => {
  const ok = { status: 'complete', runjsonFailed: false, crashed: false, verdict: 'valid', thresholdsFailed: false };
  for (const [facts, outcome, code] of [
    [ok, 'complete', 0],
    [{ ...ok, verdict: 'disturbed' }, 'complete', 0],
    [{ ...ok, status: 'incomplete' }, 'incomplete', 1],
    [{ ...ok, runjsonFailed: true }, 'incomplete', 1],
    [{ ...ok, status: 'incomplete', crashed: true, verdict: 'failed', thresholdsFailed: true }, 'incomplete', 1],
    [{ ...ok, crashed: true }, 'server-crashed', 4],
    [{ ...ok, crashed: true, verdict: 'failed', thresholdsFailed: true }, 'server-crashed', 4],
    [{ ...ok, verdict: 'failed' }, 'measured-nothing', 1],
    [{ ...ok, verdict: 'failed', thresholdsFailed: true }, 'measured-nothing', 1],
    [{ ...ok, thresholdsFailed: true }, 'thresholds-failed', 7],
  ]) {
    const r = runExit(facts);
    assert.deepEqual([r.outcome, r.code], [outcome, code], JSON.stringify(facts));
  }
  assert.match(runExit({ ...ok, verdict: 'failed' }).message, /^run failed: it measured nothing of the server/);
  assert.match(runExit({ ...ok, thresholdsFailed: true }).message, /^thresholds failed \(above; results in junit\.xml\)$/);
  assert.equal(runExit(ok).message, '');
});

test('exit codes: the CLI run.sh asks after its last step prints "<code> <message>"', () => {
  const ask = (...facts) => cli('--exit', ...facts).stdout;
  assert.equal(ask('status=complete', 'runjson_failed=0', 'crashed=0', 'verdict=valid', 'thresholds_failed=0'), '0 \n');
  assert.equal(ask('status=incomplete', 'runjson_failed=0', 'crashed=1', 'verdict=', 'thresholds_failed=0'), '1 \n');
  assert.equal(ask('status=complete', 'runjson_failed=0', 'crashed=1', 'verdict=valid', 'thresholds_failed=1'), '4 \n');
  assert.match(ask('status=complete', 'runjson_failed=0', 'crashed=0', 'verdict=failed', 'thresholds_failed=1'), /^1 run failed: /);
  assert.match(ask('status=complete', 'runjson_failed=0', 'crashed=0', 'verdict=valid', 'thresholds_failed=1'), /^7 thresholds failed/);
  assert.equal(cli('--exit', 'nonsense').status, 2);
});

test("exit codes: README's table lists exactly the module's codes", () => {
  const readme = fs.readFileSync(path.join(ROOT, 'README.md'), 'utf8');
  const table = readme.slice(readme.indexOf('| exit | meaning |'));
  const rows = [...table.matchAll(/^\| (\d+) \|/gm)].map((m) => Number(m[1]));
  assert.ok(rows.length > 0, 'the table is found');
  assert.deepEqual([...new Set(rows)].sort((a, b) => a - b), [...new Set(Object.values(EXIT_CODES))].sort((a, b) => a - b));
});

test('exit codes by name: --exit-codes, evaluated by bash as run.sh evaluates it, gives every code of the table', () => {
  const r = spawnSync('bash', ['-c', 'set -euo pipefail; PB_ROOT=$PWD; source lib/decisions.sh; decisions_exit_codes; compgen -v EXIT_ | while read -r n; do echo "$n=${!n}"; done'],
    { cwd: ROOT, encoding: 'utf8' });
  assert.equal(r.status, 0, r.stderr);
  const got = Object.fromEntries(r.stdout.trim().split('\n').map((l) => l.split('=')).map(([k, v]) => [k, Number(v)]));
  assert.deepEqual(got, Object.fromEntries(Object.entries(EXIT_CODES).map(([o, c]) => [exitCodeName(o), c])));
  assert.equal(got.EXIT_REFUSED, 2);
  assert.equal(got.EXIT_PREFLIGHT_FAILED, 3);
  assert.equal(got.EXIT_BUSY, 5);
  assert.equal(got.EXIT_STALE, 6);
  assert.equal(got.EXIT_INTERRUPTED, 130);
});

// A bash exit with a bare number that the table names (besides 0 and 1, every shell's success and failure):
// "exit 5", also inside a trap's quoted command; comments skipped. run.sh and lib/ exit by EXIT_* instead.
const BARE_EXIT = new RegExp(`\\bexit\\s+(${[...new Set(Object.values(EXIT_CODES))].filter((c) => c > 1).join('|')})\\b`);
function bareExits(text) {
  return text.split('\n').flatMap((line, i) => {
    const m = line.replace(/^\s*#.*$/, '').replace(/\s#\s.*$/, '').match(BARE_EXIT);
    return m ? [`${i + 1}: exit ${m[1]}`] : [];
  });
}

test('exit codes: run.sh and lib/*.sh exit by name, never by a bare code of the table', () => {
  const files = ['run.sh', ...fs.readdirSync(path.join(ROOT, 'lib')).filter((f) => f.endsWith('.sh')).map((f) => `lib/${f}`)];
  assert.ok(files.length > 10);
  const bare = files.flatMap((f) => bareExits(fs.readFileSync(path.join(ROOT, f), 'utf8')).map((e) => `${f}:${e}`));
  assert.deepEqual(bare, []);
  // the check itself: each planted form is found, a name, a comment, another code and a return are not
  assert.deepEqual(bareExits(['  exit 5', "trap 'RUN_INTERRUPTED=SIGINT; exit 130' INT", 'x || { echo no; exit 3; }', 'exit 2'].join('\n')),
    ['1: exit 5', '2: exit 130', '3: exit 3', '4: exit 2']);
  assert.deepEqual(bareExits(['exit "$EXIT_BUSY"', '# exit 5 in a comment', 'exit 97', 'exit 1', 'return 3', 'exit 20'].join('\n')), []);
});

test('the wait rules: the thresholds, the deadline from the run, and the shell form run.sh evaluates', () => {
  assert.deepEqual(WAIT_RULES, { checkEveryS: 5, startupLimitS: 180, csvUnchangedChecks: 2, crashStopS: 5 });
  const p = { durationS: 600, maxDurationMs: 30000, emitIntervalMs: 1000 };
  // 600 s of test, 30 s of the last poll, 10 s of tail, 60 s and a fifth of the duration to spare; 5 s of clear margin with 2 engines
  assert.equal(waitRules(p, 1).deadlineS, 600 + 30 + 10 + 60 + 120);
  assert.equal(waitRules(p, 2).deadlineS, 600 + 30 + 5 + 10 + 60 + 120);
  assert.equal(waitRules(p, 2).deadlineS, waitSeconds(p, 2));
  const d = decide({ argv: ['node', '30', '600', '1000', 'comet', '-', 'event1', '1000'], env: { ...process.env, PB_HOSTS: HOSTS }, limits: {} });
  assert.ok(!d.refused, JSON.stringify(d.refused));
  const shell = shellForm(d).split('\n');
  for (const line of [`RUN_WAIT_S='${waitSeconds(d.parameters, 2)}'`, "RUN_WAIT_CHECK_EVERY_S='5'", "RUN_WAIT_STARTUP_LIMIT_S='180'",
    "RUN_WAIT_CSV_UNCHANGED_CHECKS='2'", "RUN_WAIT_CRASH_STOP_S='5'"]) assert.ok(shell.includes(line), line);
  // evaluated as run.sh evaluates it
  const r = spawnSync('bash', ['-c', 'eval "$(node lib/decide.js --shell -- "$@")"; echo "$RUN_WAIT_STARTUP_LIMIT_S $RUN_WAIT_CSV_UNCHANGED_CHECKS $RUN_WAIT_CRASH_STOP_S $RUN_WAIT_CHECK_EVERY_S"',
    '-', 'node', '1', '10', '10', 'comet'], { cwd: ROOT, encoding: 'utf8', env: { ...process.env, PB_HOSTS: HOSTS } });
  assert.equal(r.stdout, '180 2 5 5\n', r.stderr);
});

test('engine properties: each engine of a two-engine run gets its share, its role and its selector threads', () => {
  const s = settings({ ...process.env, PB_MUX_CONNECTIONS_PER_THREAD: '500' });
  const d = decide({ argv: ['node', '30', '600', '1001', 'comet', '-', 'event1', '1000'], env: { ...process.env, PB_HOSTS: HOSTS }, limits: {} });
  assert.equal(d.engines.length, 2);
  const props = d.engines.map((e) => Object.fromEntries(engineProperties({ connections: e.connections, cores: 2, responses: `/w/${e.name}/responses`,
    init: e.init, cleanup: e.cleanup }, s)));
  assert.deepEqual(props.map((x) => x['threads.num']), [501, 500]);
  assert.deepEqual(props.map((x) => x['log.dir.res']), d.engines.map((e) => `/w/${e.name}/responses`));
  // one engine sets the event, the other clears it (JMeter's start order)
  assert.deepEqual(props.map((x) => x['init.threads'] + x['cleanup.threads']), [1, 1]);
  assert.deepEqual(props.map((x) => x['init.threads']).sort(), [0, 1]);
  assert.deepEqual(props.map((x) => x['mux.threads']), [2, 1]);   // 501 / 500 per thread, at most 2 cores
  assert.ok(props.every((x) => !('target.spec' in x)));
  const one = Object.keys(Object.fromEntries(engineProperties({ connections: 10, cores: 8, responses: '/r', init: true, cleanup: true, targetSpec: 'QUJD' }, s)));
  assert.deepEqual(one, ENGINE_PROPERTY_NAMES);
  assert.throws(() => engineProperties({ connections: 1, cores: 1, responses: '/a\nb', init: true, cleanup: true }, s), /log\.dir\.res: a value holding a line break/);
});

test('engine properties: the CLI load/engine.sh reads, one name=value a line; bad input exit 2', () => {
  const r = cli('--engine-properties', '2500', '4', '/tmp/x y/responses', '0', '1', 'QUJD');
  assert.equal(r.status, 0, r.stderr);
  // 2500 connections at 1000 a selector thread on 4 cores
  assert.equal(r.stdout, 'threads.num=2500\nmux.threads=3\nlog.dir.res=/tmp/x y/responses\ninit.threads=0\ncleanup.threads=1\ntarget.spec=QUJD\n');
  for (const bad of [['2500', '4', '/r', '2', '1'], ['x', '4', '/r', '0', '1'], ['10', '0', '/r', '0', '1'], ['10', '1', '', '0', '1'], ['10', '1', '/r', '0']]) {
    assert.equal(cli('--engine-properties', ...bad).status, 2, bad.join(' '));
  }
  assert.equal(cli('--engine-property-names').stdout, `${ENGINE_PROPERTY_NAMES.join('\n')}\n`);
});
