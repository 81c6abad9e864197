'use strict';
// The fault suite (docs/faults.md): each fault made with real parts (a full tmpfs, a killed process, a
// taken port, a signal), each asserting what pushbench promises under it: every byte already collected
// is kept, the run or sweep is marked incomplete with the reason, and the note says where the data is.
// Needs root (mount). Runs use the local default hosts, small loads and their own state directory.
const { test, describe, after } = require('node:test');
const assert = require('node:assert/strict');
const fs = require('node:fs');
const path = require('node:path');
const net = require('node:net');
const { spawnSync } = require('node:child_process');
const { ROOT, scratch, hostsFile, LOCAL_HOSTS, runSh, listFiles } = require('./lib/runsh');
const { mountTmpfs, fillDisk, unmount, unmountAll, countFiles, keptPath } = require('./lib/faults');
const { SweepState } = require('../sweep/state');
const { writeFileAtomic } = require('../lib/atomic-write');
const { removeRawArchives } = require('../sweep/cleanup-raw');

const s = scratch('faults');
after(() => { unmountAll(); s.cleanup(); });

// A small comet run with events on the local default: ~25 s from start to report.
const SMALL_RUN = ['node', '2', '8', '40', 'comet', '-', 'event1', '1000'];

function runEnv(extra = {}) {
  return { PB_RESULTS: s.results, PB_STATE: s.state, PB_HOSTS: hostsFile(s.dir, LOCAL_HOSTS), ...extra };
}

const readRun = (runDir) => JSON.parse(fs.readFileSync(path.join(runDir, 'run.json'), 'utf8'));

describe('faults: nothing collected is lost', () => {
  test('disk full while the engine archives its responses: the responses stay where the note says, run incomplete', async () => {
    const runs = mountTmpfs(path.join(s.state, 'runs'), '8m');
    let full = null;
    try {
      const r = await runSh(SMALL_RUN, {
        env: runEnv(),
        timeoutMs: 240000,
        onLine: (line) => {
          // The test is over (the engines saved every response): from now on the engine's disk stays
          // full (whatever run.sh frees, such as the copied monitor files, is taken again at once).
          if (full === null && /^ {2}controller finished/.test(line)) full = setInterval(() => fillDisk(runs), 5);
        },
      });
      clearInterval(full);
      assert.ok(full !== null, `the run never finished its test:\n${r.stdout}\n${r.stderr}`);
      assert.equal(r.code, 1, r.stdout + r.stderr);
      const run = readRun(r.runDir);
      assert.equal(run.status, 'incomplete');
      const kept = keptPath(run.notes, 'the responses of engine local');
      assert.ok(kept, `no note saying where the responses are: ${run.notes.join('; ')}`);
      // the push sampler's stream logs (push-<n>.tsv.gz), or request_ files with request.sampler=http
      assert.ok(countFiles(kept, /^(request_|push-\d+\.tsv\.gz$)/) > 0, `the note says ${kept}, but no response is there`);
      assert.ok(countFiles(kept, /^setevent_/) === 1, 'the event set\'s response is not there');
      assert.equal(fs.existsSync(path.join(r.runDir, 'responses', 'local.tar.gz')), false);
    } finally {
      unmount(runs);
    }
  });

  test('copy-back of the SUT\'s monitor files fails (disk full): they stay on the SUT, run incomplete, exit 1', async () => {
    let sut = null;
    try {
      const r = await runSh(SMALL_RUN, {
        env: runEnv(),
        timeoutMs: 240000,
        onLine: (line) => {
          const m = /^run directory: (.+)$/.exec(line);
          if (m) { sut = mountTmpfs(path.join(m[1], 'sut'), '16k'); fillDisk(sut); }
        },
      });
      assert.ok(sut, r.stdout + r.stderr);
      assert.equal(r.code, 1, r.stdout + r.stderr);
      const run = readRun(r.runDir);
      assert.equal(run.status, 'incomplete');
      const kept = keptPath(run.notes, 'the SUT\'s monitor files');
      assert.ok(kept, `no note saying where the monitor files are: ${run.notes.join('; ')}`);
      for (const f of ['vmstat.log', 'pidstat.log', 'memory.log', 'meminfo.txt']) {
        const file = path.join(kept, f);
        assert.ok(fs.existsSync(file) && fs.statSync(file).size > 0, `${file} not kept`);
      }
      const vmstat = fs.readFileSync(path.join(kept, 'vmstat.log'), 'utf8').split('\n').filter(Boolean).length;
      assert.ok(vmstat >= 8, `vmstat.log kept with ${vmstat} lines for an 8 s test`);
      const log = keptPath(run.notes, 'the server log');
      assert.ok(log && fs.statSync(log).size > 0, `server log: ${run.notes.join('; ')}`);
    } finally {
      if (sut) unmount(sut);
    }
  });

  test('disk full while run.json is rewritten: the previous run.json is kept whole, the failure reported', () => {
    const dir = mountTmpfs(path.join(s.dir, 'rundir'), '16k');
    try {
      const before = '{"id": "r1", "status": "running", "notes": []}\n';
      fs.writeFileSync(path.join(dir, 'run.json'), before);
      fillDisk(dir);
      // run.sh's writer, with the run state a run has, and notes long enough not to fit in what is left
      const script = `
        source lib/runjson.sh
        RUN_DIR=${dir} RUN_ID=r1 RUN_SERVER=node RUN_RAMPUP_S=2 RUN_DURATION_S=8 RUN_CONNECTIONS=40 RUN_TYPE=comet RUN_MAX_DURATION_MS=''
          RUN_EVENT=event1 RUN_EMIT_INTERVAL_MS=1000 RUN_PULL_INTERVAL_MS='' RUN_PORT=8080 RUN_STARTED_AT=1 RUN_FINISHED_AT='' RUN_STATUS=incomplete
          RUN_CRASHED=0 RUN_FAILED=0
        SUT_IDX=0 ENGINE_IDX=(1)
        H_NAME=(local local) H_ADDR=(127.0.0.1 127.0.0.1) H_ACCESS=(local local) H_RMI=('' 1099) H_CONNECTIONS=('' 40)
        H_HEAP_MB=('' 600) RUN_STEPS=() RUN_NOTES=()
        for i in $(seq 200); do RUN_NOTES+=("note $i: the disk is full, and this note is long enough to need room"); done
        runjson_write; echo "status=$? failed=\${RUN_FAILED}"`;
      const r = spawnSync('bash', ['-c', script], { cwd: ROOT, encoding: 'utf8' });
      assert.equal(r.stdout.trim(), 'status=0 failed=1', r.stderr);
      assert.match(r.stderr, /cannot write .*run\.json \(disk full\?\); the previous version is kept/);
      assert.equal(fs.readFileSync(path.join(dir, 'run.json'), 'utf8'), before);
      assert.deepEqual(fs.readdirSync(dir).sort(), ['.pb-fill', 'run.json'], 'a temporary file was left');
    } finally {
      unmount(dir);
    }
  });

  test('disk full while the sweep saves its state: the last whole state is kept, the write throws', () => {
    const dir = mountTmpfs(path.join(s.dir, 'sweep'), '64k');
    try {
      const state = new SweepState(dir);
      state.set('./run.sh node 5 30 500 comet #1', 'done', 'runs/a', '');
      fillDisk(dir, 12 * 1024);
      let saved = 0;
      let error = null;
      for (let i = 0; i < 200 && !error; i++) {
        try {
          state.set(`./run.sh node 5 30 ${1000 + i} comet - event1 2000 #1`, 'failed', `runs/r${i}`, 'a reason '.repeat(4));
          saved = i + 1;
        } catch (e) { error = e; }
      }
      assert.ok(error, `the disk never filled (${saved} entries saved)`);
      assert.match(error.message, /cannot write .*state\.tsv \(ENOSPC\); the previous version is kept/);
      const back = new SweepState(dir);
      assert.equal(back.entries.size, saved + 1, 'the state on disk is not the last whole one');
      assert.deepEqual(fs.readdirSync(dir).filter((f) => f.includes('.tmp')), [], 'a temporary file was left');
      // sweep.json goes the same way
      const sweepJson = path.join(dir, 'sweep.json');
      assert.throws(() => writeFileAtomic(sweepJson, 'x'.repeat(64 * 1024)), /previous version is kept/);
      assert.equal(fs.existsSync(sweepJson), false);
    } finally {
      unmount(dir);
    }
  });
});

// Listening TCP sockets (udp: bound UDP sockets) of the given PIDs (all: of every process): [{ pid, local }]
// from `ss -ltnpH` (`ss -lunpH`).
function listeningOf(pids, { udp = false } = {}) {
  const out = spawnSync('ss', [udp ? '-lunpH' : '-ltnpH'], { encoding: 'utf8' }).stdout;
  const found = [];
  for (const line of out.split('\n')) {
    const f = line.trim().split(/\s+/);
    if (f.length < 4) continue;
    // Java lists an IPv4 bind in IPv4-mapped IPv6 form: [::ffff:127.0.0.1]:port is 127.0.0.1:port
    const local = f[3].replace(/^\[::ffff:([\d.]+)\]/, '$1');
    for (const m of line.matchAll(/pid=(\d+),/g)) if (pids === 'all' || pids.includes(Number(m[1]))) found.push({ pid: Number(m[1]), local });
  }
  return found;
}

// JMeter's non-GUI stop command, as its bin/stoptest.sh sends it, sent by user nobody (uid 65534) to
// 127.0.0.1 at the UDP ports a controller would listen on (jmeterengine.nongui.port to .maxport, 4445-4455):
// those no other process holds (a listener of another run on this machine is left alone) and any of
// the given PIDs hold. Returns the ports it was sent to.
function stopTestFromAnotherUser(pids) {
  const others = new Set(listeningOf('all', { udp: true }).filter((x) => !pids.includes(x.pid)).map((x) => Number(x.local.split(':').pop())));
  const ports = [];
  for (let port = 4445; port <= 4455; port++) if (!others.has(port)) ports.push(port);
  const send = `const s = require('node:dgram').createSocket('udp4'); let n = 0; const ports = process.argv.slice(1).map(Number);
    for (const p of ports) s.send('StopTestNow', p, '127.0.0.1', () => { if (++n === ports.length) s.close(); });`;
  const r = spawnSync(process.execPath, ['-e', send, ...ports.map(String)], { uid: 65534, gid: 65534, cwd: '/', encoding: 'utf8', timeout: 10000 });
  assert.equal(r.status, 0, `the StopTestNow sender failed: ${r.stderr}`);
  return ports;
}

// The seconds from JMeter's start of the test on its engines to its end, from the controller's log.
function jmeterTestSeconds(runDir) {
  const log = fs.readFileSync(path.join(runDir, 'jmeter', 'controller.log'), 'utf8');
  const at = (what) => Number((new RegExp(`${what} remote host: .* \\((\\d+)\\)`).exec(log) || [])[1]);
  return (at('Finished') - at('Started')) / 1000;
}

const pidOf = (file) => (fs.existsSync(file) ? Number(fs.readFileSync(file, 'utf8').trim().split(/\s+/)[0]) : null);

// Runs ./sweep.sh; resolves { code, stdout, stderr }. onLine(line) sees each stdout line.
function sweepSh(args, { env = {}, onLine, timeoutMs = 300000 } = {}) {
  return new Promise((resolve) => {
    const child = require('node:child_process').spawn(path.join(ROOT, 'sweep.sh'), args,
      { cwd: ROOT, env: { ...process.env, ...env }, stdio: ['ignore', 'pipe', 'pipe'] });
    let stdout = '';
    let stderr = '';
    const timer = setTimeout(() => child.kill('SIGKILL'), timeoutMs);
    child.stdout.on('data', (d) => { stdout += d; if (onLine) String(d).split('\n').forEach((l) => onLine(l)); });
    child.stderr.on('data', (d) => { stderr += d; });
    child.on('close', (code) => { clearTimeout(timer); resolve({ code, stdout, stderr }); });
  });
}

describe('faults: the disk check before a run', () => {
  test('sized from the run: a long poll run that cannot fit the results disk is refused with its estimate, a small run fits', async () => {
    const results = mountTmpfs(path.join(s.dir, 'results-small'), '64m');
    try {
      const big = ['node', '10', '600', '2000', 'poll', '3000', 'event1', '2000'];
      const want = spawnSync('node', ['lib/disk-need.js', 'poll', '600', '3000', '2000', '2000'], { cwd: ROOT, encoding: 'utf8' })
        .stdout.trim().split('\n').map(Number);
      const r = await runSh(big, { env: { ...runEnv(), PB_RESULTS: results }, timeoutMs: 60000 });
      assert.equal(r.code, 3, r.stdout + r.stderr);
      assert.match(r.stderr, new RegExp(`controller \\(this machine\\): disk: only \\d+ MB free under ${results}, need at least ${want[1]} MB`));
      assert.ok(want[1] > 64 && want[0] > want[1], `estimates ${want}`);
      // 40 comet streams for 8 s: ~21 MB, well within the same 64 MB (a fixed 200 MB refused it)
      const small = spawnSync('node', ['lib/disk-need.js', 'comet', '8', '-', '1000', '40'], { cwd: ROOT, encoding: 'utf8' })
        .stdout.trim().split('\n').map(Number);
      assert.ok(small.every((mb) => mb < 64), `small run estimates ${small}`);
    } finally {
      unmount(results);
    }
  });
});

describe('faults: the sweep', () => {
  test('a state write that fails after a run stops the sweep incomplete, exit 1, saying which run the state lacks', async () => {
    // The sweep directory on a small tmpfs that fills up while the run runs; its runs/ and logs/ on
    // tmpfs of their own, so the run itself is whole.
    const dir = mountTmpfs(path.join(s.dir, 'sweep-full'), '256k');
    const runs = mountTmpfs(path.join(dir, 'runs'), '64m');
    const logs = mountTmpfs(path.join(dir, 'logs'), '8m');
    try {
      let filled = false;
      const r = await sweepSh(['--servers', 'node', '--types', 'comet', '--levels', '40', '--filter', 'event1 1000$',
        '--duration', '8', '--rampup', '2', '--dir', dir, '--yes'], {
        env: { PB_STATE: s.state, PB_HOSTS: hostsFile(s.dir, LOCAL_HOSTS) },
        onLine: () => {
          if (!filled && fs.existsSync(runs) && fs.readdirSync(runs).length > 0) { filled = true; fillDisk(dir); }
        },
      });
      assert.ok(filled, `the run never started:\n${r.stdout}\n${r.stderr}`);
      assert.equal(r.code, 1, r.stdout + r.stderr);
      assert.match(r.stderr, /sweep incomplete: \.\/run\.sh node 2 8 40 comet - event1 1000 #1 finished (done|crashed|failed) \(runs\/[^)]+\) but state\.tsv not saved: .*ENOSPC.*; resuming redoes it/);
      assert.match(r.stdout, /stopped, incomplete \(state\.tsv not saved/);
      const runDirs = fs.readdirSync(runs);
      assert.equal(runDirs.length, 1);
      assert.ok(fs.existsSync(path.join(runs, runDirs[0], 'run.json')), 'the run itself is kept');
      assert.deepEqual(fs.readdirSync(dir).filter((f) => f.includes('.tmp')), [], 'a temporary file was left');
    } finally {
      unmount(logs);
      unmount(runs);
      unmount(dir);
    }
  });

  test('--cleanup-raw keeps an archive the analysis flagged truncated or unreadable, deletes the others', () => {
    const run = path.join(s.dir, 'cleanup-run');
    fs.mkdirSync(path.join(run, 'responses'), { recursive: true });
    fs.mkdirSync(path.join(run, 'data'), { recursive: true });
    const src = path.join(s.dir, 'cleanup-src');
    fs.mkdirSync(src, { recursive: true });
    fs.writeFileSync(path.join(src, 'request_1.json'), 'x'.repeat(50000));
    for (const name of ['gen1', 'gen2', 'gen3']) {
      spawnSync('tar', ['-czf', path.join(run, 'responses', `${name}.tar.gz`), '-C', src, 'request_1.json']);
    }
    // gen2's archive cut short, as a full disk or a killed copy leaves it
    const cut = path.join(run, 'responses', 'gen2.tar.gz');
    fs.truncateSync(cut, Math.floor(fs.statSync(cut).size / 2));
    fs.writeFileSync(path.join(run, 'data', 'summary.json'),
      JSON.stringify({ flags: { archivesTruncated: ['gen2.tar.gz'], archivesUnreadable: ['gen3.tar.gz'] } }));
    const { freed, kept } = removeRawArchives(run);
    assert.deepEqual(kept.sort(), ['gen2.tar.gz', 'gen3.tar.gz']);
    assert.ok(freed > 0);
    assert.deepEqual(fs.readdirSync(path.join(run, 'responses')).sort(), ['REMOVED.txt', 'gen2.tar.gz', 'gen3.tar.gz']);
    assert.match(fs.readFileSync(path.join(run, 'responses', 'REMOVED.txt'), 'utf8'), /Kept, flagged truncated or unreadable by the analysis: gen2\.tar\.gz, gen3\.tar\.gz/);
  });

  test('./sweep.sh --dir --list: --list is not taken as the directory, exit 2, nothing made', () => {
    const r = spawnSync(path.join(ROOT, 'sweep.sh'), ['--dir', '--list'], { cwd: s.dir, encoding: 'utf8' });
    assert.equal(r.status, 2, r.stdout + r.stderr);
    assert.match(r.stderr, /--dir needs a value, got the option --list/);
    assert.equal(fs.existsSync(path.join(ROOT, '--list')) || fs.existsSync(path.join(s.dir, '--list')), false);
  });
});

describe('faults: a closed control plane', () => {
  test('a run on the local default listens on 127.0.0.1 only: server, engine RMI over SSL, controller; no UDP stop port, a StopTestNow from another user changes nothing', async () => {
    const seen = [];
    const udp = [];
    let runDir = null;
    let pids = [];
    let stopSentTo = null;
    const r = await runSh(SMALL_RUN, {
      env: runEnv(),
      timeoutMs: 240000,
      onLine: (line) => {
        const m = /^run directory: (.+)$/.exec(line);
        if (m) runDir = m[1];
        if (/^ {2}wait: /.test(line)) {
          const own = path.join(s.state, 'runs', path.basename(runDir));
          pids = ['node.pid', 'engine-local.pid', 'controller.pid'].map((f) => pidOf(path.join(own, f))).filter(Boolean);
          seen.push(...listeningOf(pids));
          udp.push(...listeningOf(pids, { udp: true }));
          // Once JMeter runs the test: what bin/stoptest.sh does, from another user.
          if (stopSentTo === null && /^ {2}wait: [0-9]+\//.test(line) && pids.length === 3) stopSentTo = stopTestFromAnotherUser(pids);
        }
      },
    });
    assert.ok(stopSentTo && stopSentTo.length > 0, `no StopTestNow was sent:\n${r.stdout}`);
    assert.equal(r.code, 0, r.stdout + r.stderr);
    assert.equal(pids.length, 3, 'not every PID of the run was found');
    assert.deepEqual(udp, [], 'a UDP port open on the server, the engine or the controller');
    const out = fs.readFileSync(path.join(r.runDir, 'jmeter', 'controller.out'), 'utf8');
    assert.doesNotMatch(out, /Waiting for possible Shutdown|Command: StopTestNow received/, 'the controller listened for UDP commands');
    // The test ran its whole duration (SMALL_RUN's 8 s), not cut at the StopTestNow.
    const ran = jmeterTestSeconds(r.runDir);
    assert.ok(ran >= Number(SMALL_RUN[2]), `JMeter's test lasted ${ran} s of ${SMALL_RUN[2]}`);
    assert.equal(readRun(r.runDir).status, 'complete');
    const locals = [...new Set(seen.map((x) => x.local))].sort();
    // the server's port, the engine's registry and object ports, the controller's callback port
    for (const port of [process.env.PB_PORT_NODE, process.env.PB_JMETER_RMI_PORT, process.env.PB_JMETER_RMI_LOCALPORT]) {
      assert.ok(locals.includes(`127.0.0.1:${port}`), `nothing seen on 127.0.0.1:${port}: ${locals.join(' ')}`);
    }
    assert.deepEqual(locals.filter((l) => !l.startsWith('127.0.0.1:')), [], 'a port open beyond 127.0.0.1');
    const engineLog = fs.readFileSync(path.join(r.runDir, 'jmeter', 'engine-local.log'), 'utf8');
    assert.doesNotMatch(engineLog, /Disabling SSL for RMI/);
    assert.match(fs.readFileSync(path.join(r.runDir, 'jmeter', 'controller.log'), 'utf8'), /SSL|ssl/);
  });

  test('an RMI client without the keystore cannot reach the engine: the SSL handshake fails', async () => {
    // A second controller with plain RMI against a running engine over SSL must not get a plan run.
    const env = { ...process.env, PB_STATE: s.state };
    const start = spawnSync(path.join(ROOT, 'load', 'engine.sh'), ['start', '--name', 'ssl-probe', '--address', '127.0.0.1',
      '--port', process.env.PB_JMETER_RMI_PORT, '--localport', process.env.PB_JMETER_RMI_LOCALPORT, '--connections', '1',
      '--responses', path.join(s.dir, 'probe-responses')], { env, encoding: 'utf8' });
    try {
      assert.equal(start.status, 0, start.stderr);
      const run = path.join(s.dir, 'probe-run');
      const props = path.join(s.dir, 'probe.properties');
      fs.writeFileSync(props, 'server.host=127.0.0.1\nserver.port=1\nrampup.period=1\ntest.duration=1\nrequest.type=poll\n');
      const plain = spawnSync(path.join(ROOT, 'load', 'controller.sh'), ['--run-dir', run, '--props', props,
        '--engines', `127.0.0.1:${process.env.PB_JMETER_RMI_PORT}`], { env: { ...env, PB_JMETER_RMI_SSL: '0' }, encoding: 'utf8', timeout: 120000 });
      const log = fs.readFileSync(path.join(run, 'jmeter', 'controller.log'), 'utf8');
      assert.match(log, /Failed to configure|error|Exception/i, 'the plain controller seemed to reach the engine');
      assert.equal(fs.existsSync(path.join(s.dir, 'probe-responses')) ? countFiles(path.join(s.dir, 'probe-responses')) : 0, 0,
        `the engine ran something for a client without the key (exit ${plain.status})`);
    } finally {
      spawnSync(path.join(ROOT, 'load', 'engine.sh'), ['stop', '--name', 'ssl-probe'], { env });
    }
  });
});

// The members of a .tar.gz (empty when it cannot be read).
function tarMembers(file) {
  const r = spawnSync('tar', ['-tzf', file], { encoding: 'utf8' });
  return r.status === 0 ? r.stdout.split('\n').filter(Boolean) : [];
}

describe('faults: every server listens on PB_SERVER_ADDRESS only', () => {
  const control = path.join(ROOT, 'servers', 'control.sh');
  for (const server of ['node', 'node-cluster', 'tc6', 'tc7', 'tc6-bio', 'tc7-bio']) {
    test(`${server}: 127.0.0.1 only`, () => {
      const port = process.env[`PB_PORT_${server.toUpperCase().replace(/-/g, '_')}`];
      const env = { ...process.env, PB_SERVER_ADDRESS: '127.0.0.1', PB_NODE_CLUSTER_WORKERS: '2' };
      const start = spawnSync(control, ['start', server], { env, encoding: 'utf8', timeout: 150000 });
      try {
        assert.equal(start.status, 0, start.stdout + start.stderr);
        const out = spawnSync('ss', ['-ltnH', `sport = :${port}`], { encoding: 'utf8' }).stdout;
        const locals = out.split('\n').filter(Boolean).map((l) => l.trim().split(/\s+/)[3].replace(/^\[::ffff:([\d.]+)\]/, '$1'));
        assert.ok(locals.length > 0, `nothing listens on port ${port}`);
        assert.deepEqual([...new Set(locals)], [`127.0.0.1:${port}`], `${server} listens on ${locals.join(' ')}`);
      } finally {
        spawnSync(control, ['stop', server], { env, timeout: 60000 });
      }
    });
  }
});

// Sends a request's headers and part of its declared body, then nothing; resolves { ms, reply } when the
// server answers or closes (or after giveUpMs).
function slowBody(port, giveUpMs) {
  return new Promise((resolve) => {
    const t0 = Date.now();
    const socket = net.connect(Number(port), '127.0.0.1');
    let reply = '';
    const done = () => { clearTimeout(timer); socket.destroy(); resolve({ ms: Date.now() - t0, reply }); };
    const timer = setTimeout(done, giveUpMs);
    socket.on('connect', () => socket.write('POST /request HTTP/1.1\r\nHost: pb\r\nContent-Type: application/json\r\n' +
      'Content-Length: 200\r\n\r\n{"type":"poll",'));
    socket.on('data', (d) => { reply += d; });
    socket.on('close', done);
    socket.on('error', done);
  });
}

describe('faults: a request body sent slowly is timed out', () => {
  const control = path.join(ROOT, 'servers', 'control.sh');
  // The request read's time limit of each server: Node's requestTimeout, Tomcat's connectionTimeout.
  const limits = { PB_NODE_REQUEST_TIMEOUT_MS: '2000', PB_TOMCAT_CONNECTION_TIMEOUT: '2000', PB_NODE_CLUSTER_WORKERS: '2' };
  for (const server of ['node', 'node-cluster', 'tc6', 'tc7', 'tc6-bio', 'tc7-bio']) {
    test(`${server}: a body that stops coming is answered 408 within the limit (2 s), not held`, async () => {
      const port = process.env[`PB_PORT_${server.toUpperCase().replace(/-/g, '_')}`];
      const env = { ...process.env, ...limits };
      const start = spawnSync(control, ['start', server], { env, encoding: 'utf8', timeout: 150000 });
      try {
        assert.equal(start.status, 0, start.stdout + start.stderr);
        const { ms, reply } = await slowBody(port, 15000);
        assert.ok(ms < 8000, `the connection was held ${ms} ms (reply: ${reply.slice(0, 60) || 'none'})`);
        assert.match(reply, /^HTTP\/1\.[01] 408 /, `reply: ${reply.slice(0, 80)}`);
        assert.match(reply, /"status":408/, 'a JSON error body');
      } finally {
        spawnSync(control, ['stop', server], { env, timeout: 60000 });
      }
    });
  }
});

describe('faults: the ssh control-socket directory', () => {
  test('a fallback directory in TMPDIR owned by another user is refused before any ssh, exit 3', async () => {
    // A PB_STATE path too long for a socket makes run.sh use $TMPDIR/pushbench-ssh-<uid> (lib/remote.sh).
    const tmp = path.join(s.dir, 'tmp');
    const planted = path.join(tmp, `pushbench-ssh-${process.getuid()}`);
    fs.mkdirSync(planted, { recursive: true, mode: 0o777 });
    fs.chownSync(planted, 65534, 65534);
    const longState = path.join(s.state, 'x'.repeat(70));
    const hosts = hostsFile(tmp, ['sut s1 127.0.0.1 local', 'engine e1 127.0.0.1 ssh:nobody@127.0.0.1']);
    const r = await runSh(SMALL_RUN, {
      env: { ...runEnv({ TMPDIR: tmp, PB_STATE: longState }), PB_HOSTS: hosts },
      timeoutMs: 60000,
    });
    assert.equal(r.code, 3, r.stdout + r.stderr);
    assert.match(r.stderr, new RegExp(`ssh control-socket directory ${planted} belongs to uid 65534, not to this user`));
    assert.deepEqual(fs.readdirSync(planted), [], 'something was put in the planted directory');
  });
});

describe('faults: a part of the run dies', () => {
  test('an engine killed mid-run: the run stops waiting, keeps what it saved so far, incomplete with the reason', async () => {
    let killed = null;
    let runDir = null;
    const t0 = Date.now();
    const r = await runSh(['node', '2', '40', '40', 'comet', '-', 'event1', '1000'], {
      env: runEnv(),
      timeoutMs: 240000,
      onLine: (line) => {
        const m = /^run directory: (.+)$/.exec(line);
        if (m) runDir = m[1];
        // Both streams open, then 3 s for an event and the stream log's 1 s flush to reach the disk.
        const open = /^ {2}wait: [0-9]+\/[0-9]+s, ([0-9]+) open on the server/.exec(line);
        if (killed === null && open && Number(open[1]) >= 2) {
          killed = pidOf(path.join(s.state, 'runs', path.basename(runDir), 'engine-local.pid'));
          if (killed) setTimeout(() => process.kill(killed, 'SIGKILL'), 3000);
        }
      },
    });
    assert.ok(killed, `the engine was never killed:\n${r.stdout}\n${r.stderr}`);
    assert.equal(r.code, 1, r.stdout + r.stderr);
    // A 40 s test: the run must notice the engine is gone, not wait for JMeter's deadline.
    assert.ok(Date.now() - t0 < 100000, `the run took ${Math.round((Date.now() - t0) / 1000)} s`);
    const run = readRun(r.runDir);
    assert.equal(run.status, 'incomplete');
    assert.ok(run.notes.some((n) => /^engine local died during the test/.test(n)), run.notes.join('; '));
    const archive = path.join(r.runDir, 'responses', 'local.tar.gz');
    const members = tarMembers(archive);
    assert.ok(members.length > 0, `no responses saved so far in ${archive}: ${run.notes.join('; ')}`);
    // its stream log, LZ4 while it ran and never closed, recoded to gzip by archive.sh's tar (docs/run-layout.md "Stream logs")
    assert.ok(members.some((m) => /^push-[0-9]+\.tsv\.gz$/.test(m)) && !members.some((m) => m.endsWith('.lz4')), members.join(' '));
    assert.ok(fs.existsSync(path.join(r.runDir, 'report', 'index.html')), 'no report of what was collected');
  });
});

// Holds a TCP port on 127.0.0.1 with a listener of this process; resolves { close() }.
function holdPort(port) {
  return new Promise((resolve, reject) => {
    const server = net.createServer((socket) => socket.destroy());
    server.once('error', reject);
    server.listen(Number(port), '127.0.0.1', () => resolve({ close: () => new Promise((done) => server.close(done)) }));
  });
}

describe('faults: a port already in use', () => {
  const env = process.env;
  const cases = [
    ...['node', 'node-cluster', 'tc6', 'tc7', 'tc6-bio', 'tc7-bio'].map((server) => ({
      server, port: env[`PB_PORT_${server.toUpperCase().replace(/-/g, '_')}`], what: `the ${server} server's port`,
    })),
    { server: 'node', port: env.PB_JMETER_RMI_PORT, what: 'JMeter engine RMI port' },
    { server: 'node', port: env.PB_JMETER_RMI_LOCALPORT, what: 'JMeter engine RMI local port' },
    // Over SSL the controller's callback ports are free ports picked at start; plain RMI uses this one.
    { server: 'node', port: env.PB_JMETER_CLIENT_LOCALPORT, what: 'JMeter controller RMI local port', extra: { PB_JMETER_RMI_SSL: '0' } },
  ];
  for (const c of cases) {
    test(`${c.what} (${c.server}) taken: refused before anything starts, exit 3, the port named`, async () => {
      assert.ok(c.port, `no port for ${c.what} in the environment (run through test.sh)`);
      const held = await holdPort(c.port);
      const results = path.join(s.dir, `port-${c.port}`);
      const pidFiles = () => listFiles(s.state).filter((f) => f.endsWith('.pid'));
      const before = pidFiles();
      try {
        const r = await runSh([c.server, '2', '8', '40', 'comet', '-', 'event1', '1000'],
          { env: { ...runEnv(c.extra), PB_RESULTS: results }, timeoutMs: 120000 });
        assert.equal(r.code, 3, r.stdout + r.stderr);
        assert.match(r.stderr, new RegExp(`port ${c.port} \\(${c.what}\\) is already in use`), r.stderr);
        assert.match(r.stderr, /nothing was started/);
        assert.equal(r.runDir, null, 'a run directory was made');
        assert.equal(fs.existsSync(results) ? fs.readdirSync(results).length : 0, 0, 'something was written to the results');
        assert.deepEqual(pidFiles(), before, 'a process was started');
      } finally {
        await held.close();
      }
    });
  }
});

describe('faults: clocks', () => {
  test('the server\'s clock 4 s ahead of the engine\'s: the offset is measured and trip times corrected by it', async () => {
    const skew = 4000;
    // Long polls answered by events: every answer's trip time runs from the server's cycle start to the
    // engine's receipt, two clocks (instrumentation-node/test-clock.js skews the server's alone).
    const r = await runSh(['node', '2', '10', '20', 'poll', '3000', 'event1', '500'],
      { env: runEnv({ PB_TEST_CLOCK_OFFSET_MS: String(skew) }), timeoutMs: 240000 });
    assert.equal(r.code, 0, r.stdout + r.stderr);
    const summary = JSON.parse(fs.readFileSync(path.join(r.runDir, 'data', 'summary.json'), 'utf8'));
    const { clockOffset, tripTime } = summary;
    assert.ok(Math.abs(clockOffset.ms - skew) <= Math.max(100, clockOffset.errorBoundMs),
      `offset measured ${clockOffset.ms} ms (± ${clockOffset.errorBoundMs}) for a ${skew} ms skew`);
    assert.ok(tripTime.polls > 50, `only ${tripTime.polls} polls answered by an event`);
    // Corrected, a trip time falls below zero only through the offset's own error (a sub-ms answer on one
    // machine): never further than the error bound. Uncorrected, every one would lie ~skew below zero.
    assert.ok(tripTime.minMs >= -tripTime.errorBoundMs - 0.001,
      `shortest trip time ${tripTime.minMs} ms, ${tripTime.belowZero} below zero, offset bound ±${tripTime.errorBoundMs} ms`);
    // The median likewise: a sub-ms trip time, so the offset's error may move it below zero, never past -bound.
    assert.ok(tripTime.p50Ms >= -tripTime.errorBoundMs - 0.001 && tripTime.p50Ms < 500,
      `median trip time ${tripTime.p50Ms} ms, offset bound ±${tripTime.errorBoundMs} ms (uncorrected it would be ~${-skew})`);
  });
});

describe('faults: signals', () => {
  test('SIGHUP (the terminal closed) mid-run: exit 130, run incomplete with the reason, responses so far kept', async () => {
    let sent = false;
    const r = await runSh(SMALL_RUN, {
      env: runEnv(),
      timeoutMs: 180000,
      onLine: (line, child) => {
        if (!sent && /^ {2}wait: /.test(line)) { sent = true; child.kill('SIGHUP'); }
      },
    });
    assert.ok(sent, r.stdout + r.stderr);
    assert.equal(r.code, 130, r.stdout + r.stderr);
    const run = readRun(r.runDir);
    assert.equal(run.status, 'incomplete');
    assert.ok(run.notes.some((n) => /interrupted by SIGHUP during wait_for_completion/.test(n)), run.notes.join('; '));
    assert.ok(fs.existsSync(path.join(r.runDir, 'responses', 'local.tar.gz')), 'the responses saved so far were not kept');
  });
});
