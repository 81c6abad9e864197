'use strict';
// A lost control channel is not a dead engine (docs/faults.md): an engine host whose sshd dies mid-run
// while its engine JVM still answers on RMI. Hosts are network namespaces with an sshd each
// (tests/lib/netns.sh, prefix ps<pid>); the sshd is killed with every session process, so run.sh's ssh
// master connection to it ends too, and started again when the test says. Needs root, openssh-server,
// JMeter and Node; about a minute and a half.

const { test, before, after } = require('node:test');
const assert = require('node:assert/strict');
const fs = require('node:fs');
const os = require('node:os');
const path = require('node:path');
const { spawnSync } = require('node:child_process');
const { parse } = require('csv-parse/sync');
const { NetnsHosts, ROOT } = require('./lib/hosts-netns');
const { runSh } = require('./lib/runsh');

const BASE = process.env.PB_STATE || path.join(ROOT, 'build', 'state');
// A state directory of its own: a run left stale on purpose must not refuse anyone else's run. Short, under
// the temporary directory: ssh's control sockets live in it (<state>/ssh/cm-<40 hex>.<16>), and a Unix
// socket's path has at most 107 bytes.
const STATE = fs.mkdtempSync(path.join(os.tmpdir(), 'pbsl-'));
const RESULTS = path.join(process.env.PB_RESULTS || path.join(ROOT, 'build', 'results'), `faults-ssh-netns-${process.pid}`);
const hosts = new NetnsHosts(2, path.join(BASE, `netns-ps${process.pid}`), `ps${process.pid}`);
// 14 s of load: the wait checks the engines every 5 s, so one check falls after the kill (at its first line) while
// the load still runs
const ARGS = ['node', '1', '14', '20', 'comet', '-', 'event1', '1000'];

before(() => { hosts.start(); });
after(() => {
  if (hosts.up) hosts.down();
  fs.rmSync(RESULTS, { recursive: true, force: true });
  fs.rmSync(STATE, { recursive: true, force: true });
});

const env = () => ({ ...hosts.env, PB_RESULTS: RESULTS, PB_STATE: STATE });
const readRun = (runDir) => JSON.parse(fs.readFileSync(path.join(runDir, 'run.json'), 'utf8'));
const tarMembers = (file) => {
  const r = spawnSync('tar', ['-tzf', file], { encoding: 'utf8' });
  return r.status === 0 ? r.stdout.split('\n').filter(Boolean) : [];
};
const answers = (runDir) => parse(fs.readFileSync(path.join(runDir, 'jmeter', 'results.csv')), { columns: true, skip_empty_lines: true })
  .filter((row) => row.label === 'request-summary').reduce((n, row) => n + Number(row.SampleCount), 0);
// What runs in the engine's namespace besides its sshd (the listener and its sessions).
const leftOnEngine = (eng) => hosts.processes(eng).filter((p) => !/^sshd|\/sshd /.test(`${p.cmd} `));
const staleStates = () => (fs.existsSync(path.join(STATE, 'runs')) ? fs.readdirSync(path.join(STATE, 'runs')) : [])
  .filter((id) => fs.existsSync(path.join(STATE, 'runs', id, 'run-state.sh')));
const esc = (s) => s.replace(/[.()]/g, '\\$&');

test('an engine host\'s sshd gone mid-run and back in the teardown: unreachable, not died; the load runs its course and everything is collected', async () => {
  const [eng] = hosts.engines;
  let killed = [];
  let restarted = null;
  const r = await runSh(ARGS, {
    env: env(),
    timeoutMs: 240000,
    onLine: (line) => {
      if (killed.length === 0 && /^ {2}wait: [0-9]+\//.test(line)) killed = hosts.stopSshd(eng);
      if (!restarted && new RegExp(`engine host ${eng.name} \\S+ does not answer ssh: retrying`).test(line)) restarted = hosts.startSshd(eng);
    },
  });
  if (restarted) await restarted;
  assert.ok(killed.length >= 2, `not the listener and a session killed: ${killed}\n${r.stdout}\n${r.stderr}`);
  assert.ok(restarted, `run.sh never retried the engine host:\n${r.stdout}\n${r.stderr}`);
  assert.match(r.stdout, new RegExp(`engine host ${eng.name} \\(${esc(eng.address)}\\) does not answer ssh \\(found at \\d+s\\), but its engine answers on RMI port \\d+: the load runs on`));
  assert.doesNotMatch(r.stdout, /died during the test|no JMeter engine is left/);
  assert.match(r.stdout, new RegExp(`engine host ${eng.name} answers ssh again: stopping and collecting there`));
  const run = readRun(r.runDir);
  assert.equal(run.status, 'complete', `${r.stdout}\n${r.stderr}`);
  // The load ran its whole course: every one of the 20 streams counted.
  assert.equal(answers(r.runDir), 20);
  assert.ok(tarMembers(path.join(r.runDir, 'responses', `${eng.name}.tar.gz`)).length > 0, 'the engine\'s responses are missing');
  assert.ok(fs.statSync(path.join(r.runDir, 'engines', eng.name, 'vmstat.log')).size > 0, 'the engine\'s vmstat.log is missing');
  assert.ok(fs.existsSync(path.join(r.runDir, 'data', 'summary.json')), 'not analysed');
  assert.deepEqual(leftOnEngine(eng), [], 'something of the run was left running on the engine host');
  assert.deepEqual(staleStates(), [], 'the run left its state behind');
});

test('an engine host\'s sshd gone mid-run for good: incomplete naming the host, its processes recorded; the next run is refused and ./run.sh --stop-stale stops them once sshd is back', async () => {
  const [eng] = hosts.engines;
  let killed = [];
  const r = await runSh(ARGS, {
    env: env(),
    timeoutMs: 240000,
    onLine: (line) => { if (killed.length === 0 && /^ {2}wait: [0-9]+\//.test(line)) killed = hosts.stopSshd(eng); },
  });
  assert.ok(killed.length >= 2, `not the listener and a session killed: ${killed}\n${r.stdout}`);
  assert.equal(r.code, 1, r.stdout + r.stderr);
  assert.doesNotMatch(r.stdout, /died during the test|no JMeter engine is left/);
  const run = readRun(r.runDir);
  assert.equal(run.status, 'incomplete');
  const lost = `engine host ${eng.name} (${eng.address}) did not answer ssh again within 15s`;
  assert.ok(run.notes.some((n) => n.startsWith(lost)), run.notes.join('; '));
  // The load ran its course on the engine the controller still reached over RMI.
  assert.equal(answers(r.runDir), 20);
  // Left running there (the engine's JVM, its vmstat and pidstat) and recorded in the run's state.
  const left = leftOnEngine(eng).map((p) => p.cmd);
  assert.ok(left.some((c) => /java .*ApacheJMeter\.jar/.test(c)), `the engine JVM is not running there: ${left.join('\n')}`);
  assert.ok(left.some((c) => /^vmstat/.test(c)), `its vmstat is not running there: ${left.join('\n')}`);
  assert.deepEqual(staleStates(), [path.basename(r.runDir)]);
  const state = fs.readFileSync(path.join(STATE, 'runs', path.basename(r.runDir), 'run-state.sh'), 'utf8');
  assert.match(state, /stop_engines\\? 1/, 'stop_engines of the lost host not recorded');

  // The next run's check finds it, names the host, and starts nothing.
  const next = await runSh(ARGS, { env: env(), timeoutMs: 60000 });
  assert.equal(next.code, 6, next.stdout + next.stderr);
  assert.match(next.stderr, new RegExp(`run ${path.basename(r.runDir)} left processes on hosts ssh did not reach: ${eng.name} \\(${esc(eng.address)}\\)`));
  assert.match(next.stderr, /\.\/run\.sh --stop-stale/);

  // sshd back: --stop-stale stops what the run left there and collects its files.
  await hosts.startSshd(eng);
  const stop = spawnSync(path.join(ROOT, 'run.sh'), ['--stop-stale'], { cwd: ROOT, encoding: 'utf8', env: { ...process.env, ...env() }, timeout: 120000 });
  assert.equal(stop.status, 0, stop.stdout + stop.stderr);
  assert.match(stop.stdout, new RegExp(`it left processes on hosts ssh did not reach: ${eng.name} \\(${esc(eng.address)}\\); stopping what it recorded there`));
  assert.deepEqual(leftOnEngine(eng), [], 'something of the run still runs on the engine host');
  const after = readRun(r.runDir);
  assert.equal(after.status, 'incomplete');
  assert.ok(after.notes.some((n) => new RegExp(`^\\./run\\.sh --stop-stale at .* stopped and collected what the run had left on ${eng.name} \\(${esc(eng.address)}\\)$`).test(n)), after.notes.join('; '));
  assert.ok(tarMembers(path.join(r.runDir, 'responses', `${eng.name}.tar.gz`)).length > 0, 'the engine\'s responses were not collected');
  assert.ok(fs.statSync(path.join(r.runDir, 'engines', eng.name, 'vmstat.log')).size > 0, 'the engine\'s vmstat.log was not collected');
  assert.deepEqual(staleStates(), []);
  const again = spawnSync(path.join(ROOT, 'run.sh'), ['--stop-stale'], { cwd: ROOT, encoding: 'utf8', env: { ...process.env, ...env() } });
  assert.equal(again.status, 0, again.stdout + again.stderr);
  assert.match(again.stdout, /no stale run/);
});
