'use strict';
// A run that is interrupted (Ctrl-C) stops everything it started and keeps what it collected; a run
// whose server dies is detected, recorded and still reported.
const { test, describe, after } = require('node:test');
const assert = require('node:assert/strict');
const fs = require('node:fs');
const path = require('node:path');
const { scratch, hostsFile, LOCAL_HOSTS, runSh, alive, listening } = require('./lib/runsh');

const s = scratch('interrupt');
after(() => s.cleanup());

const PORT_NODE = Number(process.env.PB_PORT_NODE || 8080);
const RMI_PORT = Number(process.env.PB_JMETER_RMI_PORT || 1099);
const RMI_LOCALPORT = Number(process.env.PB_JMETER_RMI_LOCALPORT || 4000);
const CLIENT_LOCALPORT = Number(process.env.PB_JMETER_CLIENT_LOCALPORT || 4100);

function pidIn(file) {
  const text = fs.readFileSync(file, 'utf8');
  return Number(text.trim().split(/\s+/)[0]);
}

// Every PID the run recorded while it runs: server, engine, controller, vmstat, pidstat, memory sampler.
function recordedPids(state, runDir) {
  const id = path.basename(runDir);
  const files = {
    server: path.join(state, 'runs', id, 'node.pid'),
    engine: path.join(state, 'runs', id, 'engine-local.pid'),
    controller: path.join(state, 'runs', id, 'controller.pid'),
    vmstat: path.join(state, 'runs', id, 'sut', 'vmstat.pid'),
    pidstat: path.join(state, 'runs', id, 'sut', 'pidstat.pid'),
    memory: path.join(state, 'runs', id, 'sut', 'memory.pid'),
  };
  const pids = {};
  for (const [what, file] of Object.entries(files)) {
    assert.ok(fs.existsSync(file), `no ${what} PID file ${file} while the run was waiting`);
    pids[what] = pidIn(file);
  }
  return pids;
}

async function waitGone(pids, ms) {
  const end = Date.now() + ms;
  while (Date.now() < end && Object.values(pids).some(alive)) await new Promise((r) => setTimeout(r, 200));
  return Object.entries(pids).filter(([, pid]) => alive(pid)).map(([what, pid]) => `${what} ${pid}`);
}

// <YYYYmmdd-HHMMSS> in local time, as run.sh names run directories.
function stamp(ms) {
  const d = new Date(ms);
  const p = (n) => String(n).padStart(2, '0');
  return `${d.getFullYear()}${p(d.getMonth() + 1)}${p(d.getDate())}-${p(d.getHours())}${p(d.getMinutes())}${p(d.getSeconds())}`;
}

describe('run.sh interrupted or with a dying server', () => {
  test('SIGINT during the wait: exit 130, run incomplete, nothing left running, ports free', async () => {
    const state = process.env.PB_STATE || path.join(require('./lib/runsh').ROOT, 'build', 'state');
    // A run directory is never overwritten: with the name taken, run.sh adds -2.
    const now = Date.now();
    for (let t = 0; t < 30; t++) fs.mkdirSync(path.join(s.results, `${stamp(now + t * 1000)}-node-comet-100-60`), { recursive: true });
    let pids = null;
    let runDir = null;
    const r = await runSh(['node', '2', '60', '100', 'comet', '-', 'event1', '2000'], {
      env: { PB_RESULTS: s.results, PB_HOSTS: hostsFile(s.dir, LOCAL_HOSTS) },
      timeoutMs: 180000,
      onLine: (line, child) => {
        const m = /^run directory: (.+)$/.exec(line);
        if (m) runDir = m[1];
        if (!pids && /^ {2}wait: /.test(line)) {
          pids = recordedPids(state, runDir);
          child.kill('SIGINT');
        }
      },
    });
    assert.ok(pids, `run.sh never reached the wait:\n${r.stdout}\n${r.stderr}`);
    assert.equal(r.code, 130, r.stdout + r.stderr);
    assert.match(path.basename(r.runDir), /-node-comet-100-60-2$/);
    const run = JSON.parse(fs.readFileSync(path.join(r.runDir, 'run.json'), 'utf8'));
    assert.equal(run.status, 'incomplete');
    assert.ok(run.notes.some((n) => /interrupted by SIGINT during wait_for_completion/.test(n)), run.notes.join('; '));
    assert.deepEqual(await waitGone(pids, 5000), [], 'still running after run.sh exited');
    for (const port of [PORT_NODE, RMI_PORT, RMI_LOCALPORT, CLIENT_LOCALPORT]) {
      assert.equal(listening(port), false, `port ${port} still in use`);
    }
    // What was collected before the interrupt is kept, the responses saved so far included; nothing
    // of the run is left in the state directory.
    for (const f of ['run.log', 'sut/vmstat.log', 'sut/pidstat.log', 'sut/memory.log', 'sut/server.log', 'jmeter/engine-local.log',
      'responses/local.tar.gz']) {
      assert.ok(fs.existsSync(path.join(r.runDir, f)), `${f} not kept`);
    }
    assert.equal(fs.existsSync(path.join(state, 'runs', path.basename(r.runDir))), false, 'the run\'s work files were left behind');
  });

  test('the server killed mid-run: serverCrashed true, exit 4, report still produced', async () => {
    const state = process.env.PB_STATE || path.join(require('./lib/runsh').ROOT, 'build', 'state');
    let killed = null;
    let runDir = null;
    const r = await runSh(['node', '2', '40', '100', 'poll', '3000'], {
      env: { PB_RESULTS: s.results, PB_HOSTS: hostsFile(s.dir, LOCAL_HOSTS) },
      timeoutMs: 180000,
      onLine: (line) => {
        const m = /^run directory: (.+)$/.exec(line);
        if (m) runDir = m[1];
        if (!killed && /^ {2}wait: /.test(line)) {
          killed = pidIn(path.join(state, 'runs', path.basename(runDir), 'node.pid'));
          process.kill(killed, 'SIGKILL');
        }
      },
    });
    assert.ok(killed, `run.sh never reached the wait:\n${r.stdout}\n${r.stderr}`);
    assert.equal(r.code, 4, r.stdout + r.stderr);
    const run = JSON.parse(fs.readFileSync(path.join(r.runDir, 'run.json'), 'utf8'));
    assert.equal(run.serverCrashed, true);
    assert.equal(run.status, 'complete');
    assert.ok(run.notes.some((n) => /node server died/.test(n)), run.notes.join('; '));
    assert.ok(fs.existsSync(path.join(r.runDir, 'report/index.html')), 'no report');
    const summary = JSON.parse(fs.readFileSync(path.join(r.runDir, 'data/summary.json'), 'utf8'));
    assert.equal(summary.serverCrashed, true);
    assert.match(r.stdout, /^report: /m);
  });
});
