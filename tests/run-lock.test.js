'use strict';
// One run at a time per state directory, and no orphans (docs/faults.md), with real runs on this machine:
// a second run.sh on the same state directory is refused with the first's id while the first finishes
// untouched, and of two started at the same moment the one refused names the live one (exit 5, never 6);
// a run whose output pipe closes (| head -5) stops everything it started; a run killed with
// SIGKILL is named by the next start and stopped by ./run.sh --stop-stale, and in a sweep recorded
// interrupted, never done; a server stopped by someone else is told from one that died. Each run is small
// (~30 s); the file needs 4-6 minutes.
const { test, describe, after } = require('node:test');
const assert = require('node:assert/strict');
const fs = require('node:fs');
const path = require('node:path');
const net = require('node:net');
const { spawn } = require('node:child_process');
const { ROOT, RUN_SH, scratch, hostsFile, LOCAL_HOSTS, runSh, alive, listening } = require('./lib/runsh');

const s = scratch('run-lock');
after(() => s.cleanup());

const SMALL_RUN = ['node', '2', '12', '40', 'comet', '-', 'event1', '1000'];
const PORTS = ['PB_PORT_NODE', 'PB_JMETER_RMI_PORT', 'PB_JMETER_RMI_LOCALPORT'].map((k) => Number(process.env[k]));

const env = (extra = {}) => ({ PB_RESULTS: s.results, PB_STATE: s.state, PB_HOSTS: hostsFile(s.dir, LOCAL_HOSTS), ...extra });
const readRun = (runDir) => JSON.parse(fs.readFileSync(path.join(runDir, 'run.json'), 'utf8'));
const workDir = (runDir) => path.join(s.state, 'runs', path.basename(runDir));
const sleep = (ms) => new Promise((r) => setTimeout(r, ms));

// Every PID file under a run's work directory: { 'node': pid, 'sut/vmstat': pid, ... }. The run removes
// its files as it stops what they name: a file listed and gone before it is read names nothing any more.
function recorded(dir) {
  const pids = {};
  let files;
  try {
    files = fs.readdirSync(dir, { recursive: true });
  } catch (err) {
    if (err.code === 'ENOENT') return pids;
    throw err;
  }
  for (const f of files) {
    if (!f.endsWith('.pid') || f === 'run.pid') continue;
    let text;
    try {
      text = fs.readFileSync(path.join(dir, f), 'utf8').trim();
    } catch (err) {
      if (err.code === 'ENOENT') continue;
      throw err;
    }
    if (text) pids[f.slice(0, -4)] = Number(text.split(/\s+/)[0]);
  }
  return pids;
}

// Starts run.sh; { pid, done }: done resolves { code, stdout, stderr }.
function runShPid(args, extraEnv) {
  const child = spawn(RUN_SH, args, { cwd: ROOT, env: { ...process.env, ...extraEnv }, stdio: ['ignore', 'pipe', 'pipe'] });
  let stdout = '';
  let stderr = '';
  child.stdout.on('data', (d) => { stdout += d; });
  child.stderr.on('data', (d) => { stderr += d; });
  const timer = setTimeout(() => child.kill('SIGKILL'), 60000);
  const done = new Promise((resolve) => child.on('close', (code) => { clearTimeout(timer); resolve({ code, stdout, stderr }); }));
  return { pid: child.pid, done };
}

async function stillAlive(pids, ms = 10000) {
  const end = Date.now() + ms;
  while (Date.now() < end && Object.values(pids).some(alive)) await sleep(200);
  return Object.entries(pids).filter(([, pid]) => alive(pid)).map(([what, pid]) => `${what} ${pid}`);
}

function killAll(pids) {
  for (const pid of Object.values(pids)) { try { process.kill(pid, 'SIGKILL'); } catch { /* gone */ } }
}

describe('one run per state directory', () => {
  test('two run.sh at once on one state directory: the second refused (exit 5) with the first\'s id; the first complete, not crashed', async () => {
    let second = null;
    let serverPid = null;
    let runDir = null;
    const first = await runSh(SMALL_RUN, {
      env: env(),
      timeoutMs: 240000,
      onLine: (line) => {
        const m = /^run directory: (.+)$/.exec(line);
        if (m) runDir = m[1];
        if (second || !/^ {2}wait: /.test(line)) return;
        serverPid = recorded(workDir(runDir)).node ?? null;
        // Other RMI ports, as a second run.sh would be given: it must be refused by the lock, not by a port.
        second = runSh(SMALL_RUN, {
          env: env({ PB_JMETER_RMI_PORT: String(PORTS[1] + 7), PB_JMETER_RMI_LOCALPORT: String(PORTS[2] + 7) }),
          timeoutMs: 60000,
        });
      },
    });
    assert.ok(second, `the first run never reached the wait:\n${first.stdout}\n${first.stderr}`);
    const r2 = await second;
    const id = path.basename(first.runDir);
    assert.equal(r2.code, 5, r2.stdout + r2.stderr);
    assert.match(r2.stderr, new RegExp(`another run is using the state directory .*: ${id} \\(run\\.sh pid \\d+\\); nothing was started`));
    assert.match(r2.stderr, new RegExp(`\\./run\\.sh --stop ${id}`));
    assert.equal(r2.runDir, null, 'the second run made a run directory');
    assert.equal(first.code, 0, first.stdout + first.stderr);
    const run = readRun(first.runDir);
    assert.equal(run.status, 'complete');
    assert.equal(run.serverCrashed, false);
    assert.deepEqual(run.notes.filter((n) => /stopped by someone else|died/.test(n)), []);
    assert.ok(serverPid, 'the first run\'s server PID file was not in its work directory');
    assert.equal(alive(serverPid), false, 'the first run\'s server outlived it');
  });

  test('pairs of run.sh started at the same moment: the one refused gets exit 5 naming the live run.sh, never exit 6 (stale)', async () => {
    // The server's port held, so each start that takes the lock ends in its preflight (exit 3) within a
    // second: a start refused meanwhile must read the owner of the lock it was refused by (lib/runlock.sh).
    const holder = net.createServer((socket) => socket.destroy());
    await new Promise((resolve, reject) => { holder.once('error', reject); holder.listen(PORTS[0], '127.0.0.1', resolve); });
    const state = path.join(s.state, 'pairs');
    const results = path.join(s.dir, 'pairs-results');
    const refused = [];
    try {
      for (let pair = 0; pair < 9; pair++) {
        const starts = [0, 1].map(() => runShPid(SMALL_RUN, env({ PB_STATE: state, PB_RESULTS: results })));
        const [a, b] = await Promise.all(starts.map((x) => x.done));
        const codes = [a.code, b.code];
        const all = `pair ${pair}: exits ${codes}\n${a.stdout}${a.stderr}\n${b.stdout}${b.stderr}`;
        assert.ok(codes.includes(3), `no start reached its preflight: ${all}`);
        assert.ok(codes.every((c) => c === 3 || c === 5), all);
        for (const [i, r] of [a, b].entries()) {
          if (r.code !== 5) continue;
          const other = starts[1 - i].pid;
          assert.match(r.stderr, new RegExp(`another run is using the state directory ${state}: .*\\(run\\.sh pid ${other}\\); nothing was started`), all);
          refused.push(pair);
        }
      }
      // Started together, the two meet at the lock in most pairs (a lost start is the race this is about).
      assert.ok(refused.length >= 3, `only ${refused.length} of 9 pairs met at the lock: the test did not test the race`);
      assert.equal(fs.existsSync(results) ? fs.readdirSync(results).length : 0, 0, 'a run directory was made');
    } finally {
      await new Promise((resolve) => holder.close(resolve));
    }
  });

  test('a server stopped by someone else (servers/control.sh stop with the run\'s --pid-dir): not a crash, the run incomplete', async () => {
    let stopped = null;
    let runDir = null;
    const r = await runSh(SMALL_RUN, {
      env: env(),
      timeoutMs: 240000,
      onLine: (line) => {
        const m = /^run directory: (.+)$/.exec(line);
        if (m) runDir = m[1];
        if (stopped || !/^ {2}wait: /.test(line)) return;
        stopped = spawn(path.join(ROOT, 'servers', 'control.sh'), ['--pid-dir', workDir(runDir), 'stop', 'node'],
          { env: { ...process.env, PB_STATE: s.state }, stdio: 'ignore' });
      },
    });
    assert.ok(stopped, r.stdout + r.stderr);
    assert.equal(r.code, 1, r.stdout + r.stderr);
    const run = readRun(r.runDir);
    assert.equal(run.serverCrashed, false);
    assert.equal(run.status, 'incomplete');
    assert.ok(run.notes.some((n) => /^the node server was stopped by someone else during the test \(found at \d+s\): its PID file was removed \(servers\/control\.sh stop\); not a crash/.test(n)),
      run.notes.join('; '));
  });
});

// ./run.sh node 5 30 100 comet - event1 2000 | head -5, after <before> in the shell; resolves what the
// pipeline printed and every PID the run recorded while it ran.
async function headFive(results, before = '') {
  const seen = {};
  const child = spawn('bash', ['-c', `${before}"${RUN_SH}" node 5 30 100 comet - event1 2000 | head -5; echo "run.sh exit \${PIPESTATUS[0]}" >&2`],
    { cwd: ROOT, env: { ...process.env, ...env({ PB_RESULTS: results }) }, stdio: ['ignore', 'pipe', 'pipe'] });
  let stdout = '';
  let stderr = '';
  child.stdout.on('data', (d) => { stdout += d; });
  child.stderr.on('data', (d) => { stderr += d; });
  // What the run records while it runs, until the pipeline ends.
  const watch = setInterval(() => {
    for (const id of fs.existsSync(path.join(s.state, 'runs')) ? fs.readdirSync(path.join(s.state, 'runs')) : []) {
      Object.assign(seen, recorded(path.join(s.state, 'runs', id)));
    }
  }, 100);
  const timer = setTimeout(() => child.kill('SIGKILL'), 180000);
  await new Promise((resolve) => child.on('close', resolve));
  clearInterval(watch);
  clearTimeout(timer);
  return { stdout, stderr, seen };
}

describe('no orphans', () => {
  const cases = [
    ['./run.sh node 5 30 100 comet - event1 2000 | head -5', '', /^interrupted by (SIGPIPE|a lost output \(.*\)) during /],
    // SIGPIPE ignored, as a parent may leave it: the failed write itself (a vanished terminal's EIO alike)
    ['the same with SIGPIPE ignored (only the write fails)', 'trap "" PIPE; ', /^interrupted by a lost output \(a write to a closed pipe or a vanished terminal failed\) during /],
  ];
  for (const [name, before, note] of cases) {
    test(`${name}: nothing of the run left running, run.json not "running"`, async () => {
      const results = path.join(s.dir, `pipe-results-${before ? 'ignored' : 'trapped'}`);
      const { stdout, stderr, seen } = await headFive(results, before);
      try {
        assert.equal(stdout.split('\n').filter(Boolean).length, 5, stdout);
        assert.match(stderr, /run\.sh exit 130/, stderr);
        assert.ok(seen.node && seen['engine-local'], `the run was cut before it started its server and engine: ${JSON.stringify(seen)}`);
        assert.deepEqual(await stillAlive(seen), [], 'still running after the pipeline ended');
        for (const port of PORTS) assert.equal(listening(port), false, `port ${port} still in use`);
        const dirs = fs.readdirSync(results);
        assert.equal(dirs.length, 1, dirs.join(' '));
        const run = readRun(path.join(results, dirs[0]));
        assert.equal(run.status, 'incomplete');
        assert.ok(run.notes.some((n) => note.test(n)), run.notes.join('; '));
        assert.equal(fs.existsSync(path.join(s.state, 'runs', dirs[0])), false, 'its work directory is left');
        assert.match(fs.readFileSync(path.join(results, dirs[0], 'run.log'), 'utf8'), /run incomplete; what was collected is in/);
      } finally {
        killAll(seen);
      }
    });
  }

  test('a run killed with SIGKILL mid-load: the next start names it (exit 6); --stop-stale ends its processes and marks it incomplete', async () => {
    let pids = null;
    let runDir = null;
    const r = await runSh(SMALL_RUN, {
      env: env(),
      timeoutMs: 120000,
      onLine: (line, child) => {
        const m = /^run directory: (.+)$/.exec(line);
        if (m) runDir = m[1];
        if (pids || !/^ {2}wait: [0-9]+\//.test(line)) return;
        pids = recorded(workDir(runDir));
        child.kill('SIGKILL');
      },
    });
    try {
      assert.ok(pids, `the run never reached the load:\n${r.stdout}\n${r.stderr}`);
      assert.equal(r.signal, 'SIGKILL');
      const id = path.basename(runDir);
      for (const what of ['node', 'engine-local', 'controller', 'sut/vmstat', 'sut/pidstat']) assert.ok(pids[what], `no ${what} PID file: ${JSON.stringify(pids)}`);
      assert.equal(readRun(runDir).status, 'running');

      const next = await runSh(SMALL_RUN, { env: env(), timeoutMs: 60000 });
      assert.equal(next.code, 6, next.stdout + next.stderr);
      assert.match(next.stderr, new RegExp(`run ${id} ended without its teardown: its run\\.sh \\(pid \\d+\\) is gone`));
      assert.match(next.stderr, new RegExp(`node pid ${pids.node} \\(running\\)`));
      assert.match(next.stderr, /\.\/run\.sh --stop-stale/);
      assert.equal(next.runDir, null, 'the refused start made a run directory');
      assert.ok(alive(pids.node), 'the refused start touched the stale run\'s server');

      const stop = await runSh(['--stop-stale'], { env: env(), timeoutMs: 120000 });
      assert.equal(stop.code, 0, stop.stdout + stop.stderr);
      assert.deepEqual(await stillAlive(pids), [], 'still running after --stop-stale');
      for (const port of PORTS) assert.equal(listening(port), false, `port ${port} still in use`);
      const run = readRun(runDir);
      assert.equal(run.status, 'incomplete');
      assert.ok(run.notes.some((n) => /ended without its teardown during wait_for_completion.*--stop-stale/.test(n)), run.notes.join('; '));
      for (const f of ['sut/vmstat.log', 'sut/pidstat.log', 'sut/server.log', 'jmeter/engine-local.log', 'responses/local.tar.gz']) {
        assert.ok(fs.existsSync(path.join(runDir, f)), `${f} not moved into the run directory: ${run.notes.join('; ')}`);
      }
      assert.equal(fs.existsSync(workDir(runDir)), false, 'its work directory is left');
    } finally {
      if (pids) killAll(pids);
    }
  });
});

// Runs ./sweep.sh with the local hosts and this file's state directory; onData(chunk, child) sees its
// output. Resolves { code, out }.
function sweep(args, onData = () => {}) {
  const child = spawn(path.join(ROOT, 'sweep.sh'), args,
    { cwd: ROOT, env: { ...process.env, PB_STATE: s.state, PB_HOSTS: hostsFile(s.dir, LOCAL_HOSTS) }, stdio: ['ignore', 'pipe', 'pipe'] });
  let out = '';
  child.stdout.on('data', (d) => { out += d; onData(String(d), child); });
  child.stderr.on('data', (d) => { out += d; });
  const timer = setTimeout(() => child.kill('SIGKILL'), 400000);
  return new Promise((resolve) => child.on('close', (code) => { clearTimeout(timer); resolve({ code, out }); }));
}

const ONE_RUN = ['--servers', 'node', '--types', 'comet', '--levels', '40', '--filter', 'event1 1000$', '--duration', '10', '--rampup', '2'];

describe('the sweep', () => {
  test('the sweep killed with SIGKILL mid-run: its resume stops what is left of that run and runs it again', async () => {
    const dir = path.join(s.dir, 'sweep-killed');
    let runDir = null;
    const first = await sweep([...ONE_RUN, '--dir', dir, '--yes'], (d, child) => {
      const m = /^run directory: (.+)$/m.exec(d);
      if (m) runDir = m[1];
      if (runDir && /^ {2}wait: [0-9]+\//m.test(d)) child.kill('SIGKILL');
    });
    assert.ok(runDir, first.out);
    assert.equal(fs.readFileSync(path.join(dir, '.running-0'), 'utf8').trim(), './run.sh node 2 10 40 comet - event1 1000 #1');
    const again = await sweep(['--dir', dir, '--yes']);
    assert.equal(again.code, 0, again.out);
    assert.match(again.out, new RegExp(`#1: the sweep ended before this run's end was recorded; \\./run\\.sh --stop ${path.basename(runDir)}: `));
    assert.equal(fs.existsSync(path.join(dir, '.running-0')), false);
    assert.notEqual(readRun(runDir).status, 'running', 'the cut-off run still says running');
    const lines = fs.readFileSync(path.join(dir, 'state.tsv'), 'utf8').split('\n').filter((l) => l && !l.startsWith('#'));
    assert.equal(lines.length, 1, lines.join('\n'));
    const [, status, rel] = lines[0].split('\t');
    assert.equal(status, 'done');
    assert.notEqual(path.join(dir, rel), runDir, 'the cut-off run was taken as the done one');
  });

  test('its run.sh killed with SIGKILL: what it left is stopped at once, the run recorded interrupted (not done), the sweep goes on', async () => {
    const dir = path.join(s.dir, 'sweep');
    let killed = null;
    let pids = {};
    const { code, out } = await sweep([...ONE_RUN, '--repeat', '2', '--dir', dir, '--yes'], (d) => {
      if (killed || !/^ {2}wait: [0-9]+\//m.test(d)) return;
      const runs = path.join(s.state, 'runs');
      const id = fs.readdirSync(runs).find((f) => fs.existsSync(path.join(runs, f, 'run.pid')));
      pids = recorded(path.join(runs, id));
      killed = Number(fs.readFileSync(path.join(runs, id, 'run.pid'), 'utf8').split(' ')[0]);
      process.kill(killed, 'SIGKILL');
    });
    try {
      assert.ok(killed, out);
      assert.equal(code, 1, out);
      assert.deepEqual(await stillAlive(pids), [], 'the killed run\'s processes outlived the sweep');
      const lines = fs.readFileSync(path.join(dir, 'state.tsv'), 'utf8').split('\n').filter((l) => l && !l.startsWith('#'));
      const [first, second] = lines.map((l) => l.split('\t'));
      assert.equal(first[1], 'interrupted', lines.join('\n'));
      assert.match(first[3], /^run\.sh was killed by SIGKILL; \.\/run\.sh --stop \S+: /);
      assert.equal(second[1], 'done', lines.join('\n'));
      const run = readRun(path.join(dir, first[2]));
      assert.equal(run.status, 'incomplete');
      assert.ok(run.notes.some((n) => /ended without its teardown during wait_for_completion/.test(n)), run.notes.join('; '));
    } finally {
      killAll(pids);
    }
  });
});
