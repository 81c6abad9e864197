'use strict';
// One run per state directory and a run killed beyond any trap (lib/runlock.sh, lib/runstate.sh,
// lib/state-dir.sh), without servers or JMeter: a stand-in run (bash with run.sh's libraries, a `sleep`
// for its recorded process, an undo list like a run's) holds the lock, or is killed with SIGKILL; the real
// ./run.sh then refuses to start (exit 5 or 6, before anything starts) and --stop / --stop-stale stop it.
// The same with real runs: tests/run-lock.test.js.
const { test, after } = require('node:test');
const assert = require('node:assert/strict');
const fs = require('node:fs');
const path = require('node:path');
const { spawn } = require('node:child_process');
const { ROOT, scratch, runSh, alive } = require('./lib/runsh');

const s = scratch('state-dir');
after(() => s.cleanup());

const ID = '20260101-000000-node-comet-10-60';

// The stand-in: the state a run has in wait_for_completion, its server a `sleep` in its own session.
const STAND_IN = `
set -euo pipefail
source lib/config.sh; source lib/log.sh; source lib/procs.sh; source lib/cleanup.sh
source lib/runlock.sh; source lib/runstate.sh; source lib/runjson.sh; source lib/keep.sh
RUN_ID=$ID RUN_DIR=$DIR RUN_WORK_DIR=$PB_STATE/runs/$ID RUN_SERVER=node RUN_RAMPUP_S=1 RUN_DURATION_S=60
RUN_CONNECTIONS=10 RUN_TYPE=comet RUN_MAX_DURATION_MS='' RUN_EVENT='' RUN_EMIT_INTERVAL_MS='' RUN_PULL_INTERVAL_MS='' RUN_PORT=8080
RUN_STARTED_AT=1 RUN_FINISHED_AT='' RUN_STATUS=running RUN_CRASHED=0 RUN_FAILED=0 RUN_RUNJSON_FAILED=0 RUN_PROVENANCE='{}'
RUN_STEP=wait_for_completion RUN_FINISHED=0
RUN_NOTES=() RUN_STEPS=()
SUT_IDX=0 ENGINE_IDX=(1) H_NAME=(local local) H_ADDR=(127.0.0.1 127.0.0.1) H_ACCESS=(local local)
H_RMI=('' 1099) H_CONNECTIONS=('' 10) H_HEAP_MB=('' 300) H_STATE=("$PB_STATE" "$PB_STATE")
undo_phases jmeter monitor-files work-dir
undo_on_change runstate_save
runlock_take run; runlock_own_set id "$ID"
mkdir -p "$DIR" "\${RUN_WORK_DIR}/sut"
undo_add work-dir keep_remove_work_dir "\${RUN_WORK_DIR}"
undo_add work-dir runstate_forget
runstate_begin
setsid sleep 600 </dev/null >/dev/null 2>&1 9>&- &
procs_record $! "\${RUN_WORK_DIR}/node.pid"
undo_add jmeter procs_stop_recorded "\${RUN_WORK_DIR}/node.pid" 5
echo 'procs 12' >"\${RUN_WORK_DIR}/sut/vmstat.log"
undo_add monitor-files rmdir "\${RUN_WORK_DIR}/sut"
undo_add monitor-files mv "\${RUN_WORK_DIR}/sut/vmstat.log" "$DIR/vmstat.log"
runjson_write
trap 'exit 130' TERM
trap 'set +e; undo_run_all; RUN_STATUS=incomplete; runjson_write; runlock_release' EXIT
echo ready
while true; do sleep 0.2; done
`;

// Starts the stand-in; resolves { child, dir, serverPid } once it is ready.
function standIn(label) {
  const dir = path.join(s.results, `${ID}-${label}`);
  const env = { ...process.env, PB_STATE: path.join(s.state, label), ID, DIR: dir };
  const child = spawn('bash', ['-c', STAND_IN], { cwd: ROOT, env, stdio: ['ignore', 'pipe', 'pipe'] });
  return new Promise((resolve, reject) => {
    let out = '';
    let err = '';
    child.stderr.on('data', (d) => { err += d; });
    child.stdout.on('data', (d) => {
      out += d;
      if (!out.includes('ready')) return;
      const pidFile = path.join(env.PB_STATE, 'runs', ID, 'node.pid');
      resolve({ child, dir, state: env.PB_STATE, serverPid: Number(fs.readFileSync(pidFile, 'utf8').split(' ')[0]) });
    });
    child.on('close', (code) => reject(new Error(`stand-in exited ${code}: ${err}`)));
  });
}

// The state directory is claimed before the hosts file is read: a start that is wrongly not refused stops
// there (exit 2), so this file never starts a server or an engine.
const runEnv = (state) => ({ PB_STATE: state, PB_RESULTS: s.results, PB_HOSTS: path.join(s.dir, 'no-hosts.conf') });
const readRun = (dir) => JSON.parse(fs.readFileSync(path.join(dir, 'run.json'), 'utf8'));
const closed = (child) => new Promise((resolve) => (child.exitCode !== null ? resolve() : child.on('close', resolve)));

test('a live run holds the state directory: a second run.sh is refused (exit 5) naming it; --stop <id> stops it', async () => {
  const live = await standIn('live');
  try {
    const r = await runSh(['node', '1', '5', '10', 'comet'], { env: runEnv(live.state), timeoutMs: 60000 });
    assert.equal(r.code, 5, r.stdout + r.stderr);
    assert.match(r.stderr, new RegExp(`another run is using the state directory .*: ${ID} \\(run.sh pid ${live.child.pid}\\); nothing was started`));
    assert.match(r.stderr, /wait for it: {2}flock .*run\.lock true/);
    assert.match(r.stderr, new RegExp(`stop it: +\\./run\\.sh --stop ${ID}`));
    assert.equal(r.runDir, null);
    assert.ok(alive(live.serverPid), 'the refused run touched the live run\'s process');

    const stale = await runSh(['--stop-stale'], { env: runEnv(live.state), timeoutMs: 60000 });
    assert.equal(stale.code, 5, 'a live run is not stopped by --stop-stale');

    const stop = await runSh(['--stop', ID], { env: runEnv(live.state), timeoutMs: 60000 });
    assert.equal(stop.code, 0, stop.stdout + stop.stderr);
    assert.match(stop.stdout, new RegExp(`run ${ID} is running \\(run.sh pid ${live.child.pid}\\): sending it SIGTERM`));
    assert.match(stop.stdout, new RegExp(`run ${ID} stopped`));
    await closed(live.child);
    assert.equal(alive(live.serverPid), false, 'its process outlived --stop');
    assert.equal(readRun(live.dir).status, 'incomplete');
  } finally {
    live.child.kill('SIGKILL');
    try { process.kill(live.serverPid, 'SIGKILL'); } catch { /* gone */ }
  }
});

test('a run killed with SIGKILL: the next start refuses (exit 6) naming it and its processes; --stop-stale stops and collects it', async () => {
  const dead = await standIn('dead');
  try {
    dead.child.kill('SIGKILL');
    await closed(dead.child);
    assert.ok(alive(dead.serverPid), 'the stand-in\'s process should outlive it');

    const r = await runSh(['node', '1', '5', '10', 'comet'], { env: runEnv(dead.state), timeoutMs: 60000 });
    assert.equal(r.code, 6, r.stdout + r.stderr);
    assert.match(r.stderr, new RegExp(`run ${ID} ended without its teardown: its run.sh \\(pid ${dead.child.pid}\\) is gone`));
    assert.match(r.stderr, /during wait_for_completion; its run\.json says "running"/);
    assert.match(r.stderr, new RegExp(`node pid ${dead.serverPid} \\(running\\)`));
    assert.match(r.stderr, /\.\/run\.sh --stop-stale {3}\(nothing was started\)/);
    assert.equal(r.runDir, null);

    // Killed by a run.sh from before the RUN_* scalars and the run schema's names: its run-state.sh holds
    // one associative array RUN with the old keys.
    const stateFile = path.join(dead.state, 'runs', ID, 'run-state.sh');
    const before = fs.readFileSync(stateFile, 'utf8');
    const OLD = { RAMPUP_S: 'rampup', DURATION_S: 'duration', MAX_DURATION_MS: 'maxdur', EMIT_INTERVAL_MS: 'interval' };
    const entries = [];
    const rest = before.split('\n').filter((line) => {
      const m = /^declare -g+ RUN_([A-Z_]+)=(".*")$/.exec(line);
      if (!m || ['NOTES', 'STEPS', 'LOG'].includes(m[1])) return true;
      entries.push(`[${OLD[m[1]] ?? m[1].toLowerCase()}]=${m[2]}`);
      return false;
    });
    assert.ok(entries.some((e) => e.startsWith('[rampup]=')), `no RUN_RAMPUP_S in ${before}`);
    fs.writeFileSync(stateFile, `${rest.join('\n')}\ndeclare -gA RUN=(${entries.join(' ')})\n`);

    const stop = await runSh(['--stop-stale'], { env: runEnv(dead.state), timeoutMs: 60000 });
    assert.equal(stop.code, 0, stop.stdout + stop.stderr);
    assert.equal(alive(dead.serverPid), false, 'its recorded process still runs');
    const run = readRun(dead.dir);
    assert.equal(run.status, 'incomplete');
    assert.ok(Number.isInteger(run.rampupS) && Number.isInteger(run.durationS), `parameters lost: ${JSON.stringify(run)}`);
    assert.ok(run.notes.some((n) => new RegExp(`^run\\.sh \\(pid ${dead.child.pid}\\) ended without its teardown during wait_for_completion.*--stop-stale`).test(n)),
      run.notes.join('; '));
    assert.ok(run.finishedAt > 0);
    assert.equal(fs.readFileSync(path.join(dead.dir, 'vmstat.log'), 'utf8'), 'procs 12\n', 'what it wrote was not moved into its run directory');
    const left = path.join(dead.state, 'runs', ID);
    assert.equal(fs.existsSync(left), false, `its work directory is left: ${fs.existsSync(left) ? fs.readdirSync(left, { recursive: true }) : ''}`);
    assert.match(fs.readFileSync(path.join(dead.dir, 'run.log'), 'utf8'), /ended without its teardown/);

    const again = await runSh(['--stop-stale'], { env: runEnv(dead.state), timeoutMs: 60000 });
    assert.equal(again.code, 0);
    assert.match(again.stdout, /no stale run in .*; nothing to stop/);
  } finally {
    try { process.kill(dead.serverPid, 'SIGKILL'); } catch { /* gone */ }
  }
});

test('--stop takes one run id', async () => {
  const r = await runSh(['--stop', '../x'], { env: runEnv(path.join(s.state, 'bad')), timeoutMs: 20000 });
  assert.equal(r.code, 2);
  assert.match(r.stderr, /--stop takes one run id/);
});
