'use strict';
// Faults that need hosts reached over ssh (docs/faults.md): a SUT and an engine, each a network
// namespace with its own sshd (tests/lib/netns.sh, prefix pf<pid>), and run.sh driving them as in
// tests/multihost.test.js; and ssh's host-key rule (lib/remote.sh). Needs root, openssh-server, JMeter
// and Node; about a minute.

const { test, before, after } = require('node:test');
const assert = require('node:assert/strict');
const fs = require('node:fs');
const path = require('node:path');
const { spawnSync } = require('node:child_process');
const { parse } = require('csv-parse/sync');
const { NetnsHosts, ROOT } = require('./lib/hosts-netns');
const { runSh } = require('./lib/runsh');

const STATE = process.env.PB_STATE || path.join(ROOT, 'build', 'state');
const RESULTS = path.join(process.env.PB_RESULTS || path.join(ROOT, 'build', 'results'), `faults-netns-${process.pid}`);
const hosts = new NetnsHosts(2, path.join(STATE, `netns-pf${process.pid}`), `pf${process.pid}`);

before(() => { hosts.start(); });
after(() => {
  if (hosts.up) hosts.down();
  fs.rmSync(RESULTS, { recursive: true, force: true });
});

const readRun = (runDir) => JSON.parse(fs.readFileSync(path.join(runDir, 'run.json'), 'utf8'));
const tarMembers = (file) => {
  const r = spawnSync('tar', ['-tzf', file], { encoding: 'utf8' });
  return r.status === 0 ? r.stdout.split('\n').filter(Boolean) : [];
};

// Before the sshd test below: it kills the SUT namespace's sshd.
test('the sut\'s server listening where the engine host cannot reach it (bind=127.0.0.1 in its namespace): refused before any load, naming the engine host and the address', async () => {
  const file = path.join(hosts.state, 'hosts-bound-inside.conf');
  fs.writeFileSync(file, fs.readFileSync(hosts.hostsFile, 'utf8').replace(/^(sut\s.*)$/m, '$1 bind=127.0.0.1'));
  const r = await runSh(['node', '2', '12', '40', 'comet', '-', 'event1', '1000'], {
    env: { ...hosts.env, PB_HOSTS: file, PB_RESULTS: RESULTS }, timeoutMs: 180000 });
  assert.equal(r.code, 1, r.stdout + r.stderr);
  const [eng] = hosts.engines;
  const port = Number(process.env.PB_PORT_NODE || 8080);
  assert.match(r.stdout, new RegExp(`refused: engine ${eng.name} \\(${eng.address.replace(/\./g, '\\.')}\\) cannot reach the server under test at `
    + `${hosts.sut.address.replace(/\./g, '\\.')}:${port}: cannot connect to .*; no load was sent`));
  const run = readRun(r.runDir);
  assert.equal(run.status, 'incomplete');
  assert.equal(run.steps.run_controller, undefined, 'the controller ran');
  assert.deepEqual(hosts.strangers(hosts.sut).map((p) => p.cmd).filter((c) => !/sshd/.test(c)), [], 'something was left running on the sut');
});

test('the SUT host\'s sshd gone mid-run: the test runs its course, the engine\'s responses are kept, the SUT\'s files noted where they stay', async () => {
  let killed = [];
  const r = await runSh(['node', '2', '12', '40', 'comet', '-', 'event1', '1000'], {
    env: { ...hosts.env, PB_RESULTS: RESULTS },
    timeoutMs: 240000,
    onLine: (line) => {
      if (killed.length === 0 && /^ {2}wait: [0-9]+\//.test(line)) {
        // Every sshd of the SUT's namespace: the listener and the session behind run.sh's master connection.
        killed = hosts.processes(hosts.sut).filter((p) => /^sshd/.test(p.cmd) || /\/sshd /.test(`${p.cmd} `)).map((p) => p.pid);
        for (const pid of killed) process.kill(pid, 'SIGKILL');
      }
    },
  });
  assert.ok(killed.length > 0, `no sshd was killed:\n${r.stdout}\n${r.stderr}`);
  assert.equal(r.code, 1, r.stdout + r.stderr);
  const run = readRun(r.runDir);
  assert.equal(run.status, 'incomplete');
  assert.equal(run.serverCrashed, false, 'an unreachable host is not a crashed server');
  assert.ok(run.notes.some((n) => n.startsWith(`the SUT host sut (${hosts.sut.address}) does not answer ssh`)), run.notes.join('; '));
  assert.ok(run.notes.some((n) => /^the SUT's monitor files not copied back; kept in \S+ on sut \(/.test(n)), run.notes.join('; '));
  // The engine was reachable all along: its responses and the controller's results are here.
  assert.ok(tarMembers(path.join(r.runDir, 'responses', 'eng1.tar.gz')).length > 0, 'the engine\'s responses are missing');
  // (the mux engine's summaries: every one of the 40 streams counted once it ended)
  const rows = parse(fs.readFileSync(path.join(r.runDir, 'jmeter', 'results.csv')), { columns: true, skip_empty_lines: true });
  const answers = rows.filter((row) => row.label === 'request-summary').reduce((n, row) => n + Number(row.SampleCount), 0);
  assert.equal(answers, 40, `results.csv counts ${answers} answers`);
  assert.ok(fs.existsSync(path.join(r.runDir, 'report', 'index.html')), 'no report of what was collected');
});

// lib/remote.sh's remote_open against the engine's sshd, with a known_hosts file that lacks its key.
function openWithUnknownKey(setting) {
  const known = path.join(hosts.state, `known_hosts-${setting}`);
  fs.writeFileSync(known, '');
  const script = 'source lib/config.sh; source lib/hosts.sh; source lib/remote.sh; read_hosts_file "$PB_HOSTS"; ' +
    'remote_init 0; remote_open 1; rc=$?; remote_close_all; exit $rc';
  const r = spawnSync('bash', ['-c', script], {
    cwd: ROOT,
    encoding: 'utf8',
    env: { ...process.env, ...hosts.env, PB_SSH_OPTS: `-o UserKnownHostsFile=${known}`, PB_SSH_NEW_HOST_KEYS: setting },
  });
  return { ...r, known: fs.readFileSync(known, 'utf8') };
}

test('a host key not in known_hosts is refused by default, with what to do; PB_SSH_NEW_HOST_KEYS=accept records it', () => {
  const refused = openWithUnknownKey('refuse');
  assert.equal(refused.status, 1, refused.stdout + refused.stderr);
  assert.match(refused.stdout, /Host key verification failed/);
  assert.match(refused.stdout, /not in known_hosts: add it \(ssh-keyscan, checked by hand\) or set PB_SSH_NEW_HOST_KEYS=accept/);
  assert.equal(refused.known, '', 'a key was recorded though refused');
  const accepted = openWithUnknownKey('accept');
  assert.equal(accepted.status, 0, accepted.stdout + accepted.stderr);
  // ssh may hash the host name (HashKnownHosts): one line with the host's key is what counts.
  assert.equal(accepted.known.trim().split('\n').filter((l) => / (ssh-ed25519|ssh-rsa|ecdsa-\S+) /.test(l)).length, 1,
    `the key was not recorded: ${accepted.known}`);
});
