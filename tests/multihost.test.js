'use strict';
// run.sh across several hosts through the real ssh path: a SUT and two JMeter engines, each a network
// namespace with its own sshd (tests/lib/netns.sh), reached only over ssh with a key.
//
// Needs root, openssh-server, JMeter (load/install-jmeter.sh) and Node. Takes 1.5-2.5 minutes.

const { test, before, after } = require('node:test');
const assert = require('node:assert/strict');
const fs = require('node:fs');
const path = require('node:path');
const { spawn, spawnSync } = require('node:child_process');
const { parse } = require('csv-parse/sync');

const { NetnsHosts, ROOT } = require('./lib/hosts-netns');

const STATE = process.env.PB_STATE || path.join(ROOT, 'build', 'state');
const RESULTS = path.join(process.env.PB_RESULTS || path.join(ROOT, 'build', 'results'), `multihost-${process.pid}`);
const NODE_PORT = process.env.PB_PORT_NODE || '8080';

const hosts = new NetnsHosts(3, path.join(STATE, `netns-pb${process.pid}`));

// Runs ./run.sh with the namespace hosts; resolves to { code, out, runDir }. onStart(child, runDirFile)
// lets a test act while it runs.
function runSh(args, { onStart } = {}) {
  const runDirFile = path.join(RESULTS, `.run-dir-${Date.now()}`);
  fs.mkdirSync(RESULTS, { recursive: true });
  return new Promise((resolve) => {
    const child = spawn(path.join(ROOT, 'run.sh'), args, {
      cwd: ROOT,
      env: { ...process.env, ...hosts.env, PB_RESULTS: RESULTS, PB_RUN_DIR_FILE: runDirFile },
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    let out = '';
    child.stdout.on('data', (d) => { out += d; });
    child.stderr.on('data', (d) => { out += d; });
    if (onStart) onStart(child, runDirFile);
    child.on('close', (code, signal) => {
      const runDir = fs.existsSync(runDirFile) ? fs.readFileSync(runDirFile, 'utf8').trim() : null;
      resolve({ code, signal, out, runDir });
    });
  });
}

const tail = (text, n = 40) => text.split('\n').slice(-n).join('\n');
const sleep = (ms) => new Promise((r) => setTimeout(r, ms));

// Processes on this machine whose command line names the run (controller, jmeter, monitors, ...).
function processesMentioning(text) {
  const found = [];
  for (const pid of fs.readdirSync('/proc').filter((p) => /^\d+$/.test(p))) {
    if (Number(pid) === process.pid) continue;
    let cmd;
    try {
      cmd = fs.readFileSync(`/proc/${pid}/cmdline`, 'utf8').replace(/\0/g, ' ');
    } catch {
      continue;
    }
    if (cmd.includes(text)) found.push(`${pid} ${cmd.trim()}`);
  }
  return found;
}

// Waits until nothing but the sshd listener is left in any namespace (ssh sessions close a moment
// after run.sh ends); returns what is still there after `ms`.
async function strangersAfter(ms) {
  const until = Date.now() + ms;
  for (;;) {
    const left = hosts.hosts.flatMap((h) => hosts.strangers(h).map((p) => `${h.ns}: ${p.pid} ${p.cmd}`));
    if (left.length === 0 || Date.now() > until) return left;
    await sleep(500);
  }
}

before(() => {
  if (!fs.existsSync(path.join(ROOT, 'run.sh'))) throw new Error('run.sh is missing');
  hosts.start();
});

after(() => {
  if (hosts.up) hosts.down();
});

test('a comet run with an event over ssh: SUT and two engines in their own namespaces', async () => {
  const seenPeers = new Set();
  const seenLocal = new Set();
  let sampling = true;
  const r = await runSh(['node', '3', '15', '160', 'comet', '-', 'event1', '2000'], {
    onStart: async () => {
      // Who talks to the server: its connections, as seen inside the SUT's namespace.
      while (sampling) {
        for (const c of hosts.connections(hosts.sut, NODE_PORT)) {
          seenLocal.add(c.local);
          seenPeers.add(c.peer);
        }
        await sleep(1000);
      }
    },
  });
  sampling = false;
  assert.equal(r.code, 0, `run.sh exited ${r.code}:\n${tail(r.out)}`);
  assert.ok(r.runDir && fs.existsSync(r.runDir), 'run.sh wrote its run directory to PB_RUN_DIR_FILE');
  const d = r.runDir;

  // The server listened and answered on the SUT's address, to both engines.
  assert.deepEqual([...seenLocal], [hosts.sut.address], 'server connections are on the SUT address');
  for (const e of hosts.engines) assert.ok(seenPeers.has(e.address), `engine ${e.address} connected (${[...seenPeers]})`);

  // Both engines' responses came back, each archive holding request responses.
  for (const e of hosts.engines) {
    const file = path.join(d, 'responses', `${e.name}.tar.gz`);
    assert.ok(fs.existsSync(file) && fs.statSync(file).size > 0, `${file} is non-empty`);
    const list = spawnSync('tar', ['-tzf', file], { encoding: 'utf8' });
    assert.equal(list.status, 0, list.stderr);
    // The push sampler's stream logs (push-<n>.tsv.gz: a B/R/E line per request begun, record, end),
    // or with request.sampler=http one request_ file per response (host/archive.sh).
    const members = list.stdout.split('\n').filter(Boolean);
    const streams = members.filter((n) => /^push-\d+\.tsv\.gz$/.test(path.basename(n)));
    let records = members.filter((n) => path.basename(n).startsWith('request_')).length;
    for (const m of streams) {
      const text = spawnSync('bash', ['-c', 'tar -xzOf "$1" "$2" | gzip -dc', 'x', file, m], { encoding: 'utf8', maxBuffer: 1 << 28 }).stdout;
      records += text.split('\n').filter((l) => l.startsWith('R')).length;
    }
    assert.ok(records > 0, `${e.name}.tar.gz holds request responses (${members.join(' ')})`);
  }

  // The controller's results (the mux engine's summaries, docs/engine.md) name both engines in the
  // thread names.
  const rows = parse(fs.readFileSync(path.join(d, 'jmeter', 'results.csv')), { columns: true, skip_empty_lines: true });
  const summaries = rows.filter((row) => row.label === 'request-summary');
  assert.ok(summaries.length > 0, 'results.csv has the engines\' summaries');
  const answers = (list) => list.reduce((n, row) => n + Number(row.SampleCount), 0);
  for (const e of hosts.engines) {
    const mine = summaries.filter((row) => row.threadName.includes(e.address));
    // The split: 80 connections per engine, every stream answered (the clean-up ends every one).
    assert.equal(answers(mine), 80, `engine ${e.address}: one comet stream per connection (${summaries[0].threadName})`);
  }
  assert.equal(summaries.reduce((n, row) => n + Number(row.ErrorCount), 0), 0, 'no failed request');

  for (const e of hosts.engines) {
    const log = path.join(d, 'jmeter', `engine-${e.name}.log`);
    assert.ok(fs.existsSync(log) && fs.statSync(log).size > 0, `jmeter/engine-${e.name}.log fetched over ssh`);
  }
  for (const f of ['vmstat.log', 'pidstat.log', 'memory.log']) {
    const file = path.join(d, 'sut', f);
    assert.ok(fs.existsSync(file) && fs.statSync(file).size > 0, `sut/${f} present`);
  }
  const run = JSON.parse(fs.readFileSync(path.join(d, 'run.json'), 'utf8'));
  assert.equal(run.status, 'complete');
  assert.equal(run.hosts.sut.address, hosts.sut.address);
  assert.deepEqual(run.hosts.engines.map((e) => e.address), hosts.engines.map((e) => e.address));
  assert.deepEqual(run.hosts.engines.map((e) => e.connections), [80, 80]);
  assert.ok(fs.existsSync(path.join(d, 'report', 'index.html')), 'report/index.html written');

  assert.deepEqual(await strangersAfter(10000), [], 'nothing but sshd left in the namespaces');
});

test('Ctrl-C mid-run: exit 130, results kept, nothing left running on any host', async () => {
  let signalled = false;
  const r = await runSh(['node', '2', '60', '100', 'poll', '3000', 'event1', '1000'], {
    onStart: async (child) => {
      // Interrupt once the load is on: the server holds connections from the engines.
      const until = Date.now() + 120000;
      while (Date.now() < until && child.exitCode === null) {
        if (hosts.connections(hosts.sut, NODE_PORT).length >= 20) {
          await sleep(2000);
          child.kill('SIGINT');
          signalled = true;
          return;
        }
        await sleep(500);
      }
    },
  });
  assert.ok(signalled, `the load never reached the SUT; run.sh exited ${r.code}:\n${tail(r.out)}`);
  assert.equal(r.code, 130, `exit code after SIGINT:\n${tail(r.out)}`);
  assert.ok(r.runDir && fs.existsSync(path.join(r.runDir, 'run.json')), 'run directory kept');
  const run = JSON.parse(fs.readFileSync(path.join(r.runDir, 'run.json'), 'utf8'));
  assert.equal(run.status, 'incomplete');
  assert.ok(run.notes.some((n) => /interrupt/i.test(n)), `run.json notes say it was interrupted: ${JSON.stringify(run.notes)}`);

  assert.deepEqual(await strangersAfter(15000), [], 'nothing but sshd left in the namespaces');
  assert.deepEqual(processesMentioning(path.basename(r.runDir)), [], 'no process of the run left on this machine');
});

// sweep.sh's preflight over the same ssh path: every host checked, the levels that fit decided up front.
function sweepCheck(...args) {
  return spawnSync(path.join(ROOT, 'sweep.sh'), ['--check', '--servers', 'node', ...args],
    { cwd: ROOT, env: { ...process.env, ...hosts.env }, encoding: 'utf8' });
}

test('sweep.sh --check reaches every host over ssh and splits the fit over both engines', () => {
  const r = sweepCheck('--levels', '15000,25000', '--types', 'comet', '--filter', 'comet$');
  assert.equal(r.status, 0, r.stdout + r.stderr);
  for (const h of hosts.hosts) {
    assert.match(r.stdout, new RegExp(`host ${h.role} ${h.name} ${h.address.replace(/\./g, '\\.')}: open files \\d+`));
  }
  // 15,000 fit (7,500 per engine); 25,000 would fit the engines (12,500 each) but not the one server process.
  assert.match(r.stdout, /2 selected: 0 done before, 1 to run, 1 skipped/);
  assert.match(r.stdout, /skipped: \.\/run\.sh node 30 600 25000 comet #1: does not fit: sut sut: open files: the node server \(one process holds every connection\) needs 25000 connections/);
});

test('an engine whose sshd is down: exit 3 before anything starts', async () => {
  const eng2 = hosts.engines[1];
  process.kill(eng2.sshdPid, 'SIGTERM'); // our own sshd, by the PID netns.sh recorded
  for (let i = 0; i < 50 && hosts.processes(eng2).some((p) => p.pid === eng2.sshdPid); i++) await sleep(100);

  const r = await runSh(['node', '1', '10', '20', 'comet']);
  assert.equal(r.code, 3, `exit code:\n${tail(r.out)}`);
  assert.match(r.out, new RegExp(`${eng2.name}.*${eng2.address.replace(/\./g, '\\.')}|${eng2.address.replace(/\./g, '\\.')}`));
  assert.match(r.out, /unreachable/i);
  assert.equal(r.runDir, null, 'no run directory was created');
  for (const h of hosts.hosts) assert.deepEqual(hosts.strangers(h), [], `nothing started in ${h.ns}`);

  const check = sweepCheck('--levels', '20');
  assert.equal(check.status, 3, check.stdout + check.stderr);
  assert.match(check.stdout, new RegExp(`host engine ${eng2.name} [0-9.]+: UNREACHABLE`));
});

test('tear-down leaves no namespace, bridge or veth with the prefix, and no sshd', () => {
  const pids = hosts.hosts.map((h) => h.sshdPid);
  const r = hosts.down();
  assert.equal(r.status, 0, r.stderr);
  assert.deepEqual(hosts.leftovers(), { ns: [], links: [] });
  for (const pid of pids) {
    let state = 'gone';
    try {
      state = fs.readFileSync(`/proc/${pid}/stat`, 'utf8').split(') ')[1][0];
    } catch { /* gone */ }
    assert.ok(state === 'gone' || state === 'Z', `sshd ${pid} ended`);
  }
  assert.ok(!fs.existsSync(path.join(hosts.state, 'client_key')), 'generated keys removed');
});
