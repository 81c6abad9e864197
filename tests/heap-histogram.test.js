'use strict';
// docs/study/heap-histogram.sh (issue #35 item 4) against a real JVM: it waits for a run of the asked shape
// to start its load, takes the server's class histogram with the JVM's own jcmd, and the analysis reads what
// it wrote (analysis/read/server-log.js readClassHistogram). The run's state is laid out as run.sh lays it
// out ($PB_STATE/runs/<id>/ with <server>.pid and controller.pid); the "server" is a small Java program that
// holds 200 byte arrays of 10 KB. Also: a server gone before its histogram (its PID file names a PID that
// now is another process's), and usage errors.
const test = require('node:test');
const assert = require('node:assert/strict');
const fs = require('node:fs');
const os = require('node:os');
const path = require('node:path');
const { spawn, spawnSync } = require('node:child_process');
const { readClassHistogram } = require('../analysis/read/server-log');

const SCRIPT = path.join(__dirname, '..', 'docs', 'study', 'heap-histogram.sh');
const PROCS = path.join(__dirname, '..', 'lib', 'procs.sh');

const HOLD = `public class Hold {
  public static void main(String[] args) throws Exception {
    byte[][] kept = new byte[200][];
    for (int i = 0; i < kept.length; i++) kept[i] = new byte[10_000];
    System.out.println("holding " + kept.length);
    Thread.sleep(60_000);
    System.out.println(kept[0].length);
  }
}
`;

// Starts the JVM; resolves once it printed that it holds its arrays.
function startJvm(dir) {
  fs.writeFileSync(path.join(dir, 'Hold.java'), HOLD);
  const child = spawn('java', ['-Xmx64m', '-XX:+UseSerialGC', path.join(dir, 'Hold.java')], { stdio: ['ignore', 'pipe', 'inherit'] });
  return new Promise((resolve, reject) => {
    child.stdout.on('data', (d) => { if (String(d).includes('holding')) resolve(child); });
    child.on('error', reject);
    child.on('exit', (code) => reject(new Error(`the JVM ended (exit ${code}) before it held its arrays`)));
  });
}

// Runs the script; resolves to { code, stderr }.
function runScript(args, env) {
  return new Promise((resolve) => {
    const child = spawn('bash', [SCRIPT, ...args], { env: { ...process.env, ...env }, stdio: ['ignore', 'ignore', 'pipe'] });
    let stderr = '';
    child.stderr.on('data', (d) => { stderr += d; });
    child.on('close', (code) => resolve({ code, stderr }));
  });
}

const sleep = (ms) => new Promise((r) => setTimeout(r, ms));

// A server's PID file written as run.sh writes it, by lib/procs.sh's procs_record: "<pid> <start time>",
// so a PID used again by another process is not taken for the server.
function recordPid(pid, file) {
  const r = spawnSync('bash', ['-c', 'source "$1" && procs_record "$2" "$3"', '_', PROCS, String(pid), file], { encoding: 'utf8' });
  assert.equal(r.status, 0, r.stderr);
}

test('a run of the shape asked: its server\'s live heap, taken once its load started, read back by the analysis', { timeout: 90_000 }, async () => {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'pb-heap-'));
  const jvm = await startJvm(dir);
  try {
    const state = path.join(dir, 'state');
    const out = path.join(dir, 'out');
    fs.mkdirSync(path.join(state, 'runs'), { recursive: true });
    const before = Date.now();
    const done = runScript(['--run', '*-tc7-comet-1000-600', '--at', '1', '--out', out, '--wait', '30'], { PB_STATE: state });
    await sleep(1500);
    // another shape first: not taken
    fs.mkdirSync(path.join(state, 'runs', '20261127-030000-tc6-comet-1000-600'));
    const run = path.join(state, 'runs', '20261127-030001-tc7-comet-1000-600');
    fs.mkdirSync(run);
    recordPid(jvm.pid, path.join(run, 'tc7.pid'));
    fs.writeFileSync(path.join(run, 'run.pid'), `${process.pid}\n`);
    await sleep(1500);
    fs.writeFileSync(path.join(run, 'controller.pid'), `${process.pid}\n`);   // the load starts
    const r = await done;
    assert.equal(r.code, 0, r.stderr);
    const file = path.join(out, '20261127-030001-tc7-comet-1000-600.txt');
    assert.deepEqual(fs.readdirSync(out), ['20261127-030001-tc7-comet-1000-600.txt'], 'only the run asked for, no half-written file');
    const h = readClassHistogram(file);
    assert.ok(h.takenAtMs >= before + 3000 && h.takenAtMs <= Date.now(), `taken ${h.takenAtMs - before} ms after the start, at least --at after the load`);
    assert.equal(h.top.length, 10);
    const bytes = h.top.find((c) => c.class === '[B');
    assert.ok(bytes && bytes.instances >= 200 && bytes.bytes >= 200 * 10_000, JSON.stringify(h.top));
    assert.ok(h.totalBytes >= bytes.bytes && h.totalInstances >= bytes.instances);
  } finally {
    jvm.kill();
    fs.rmSync(dir, { recursive: true, force: true });
  }
});

test('a server gone before its time: exit 1, nothing written; usage errors: exit 2', { timeout: 60_000 }, async () => {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'pb-heap-'));
  try {
    const state = path.join(dir, 'state');
    const out = path.join(dir, 'out');
    fs.mkdirSync(path.join(state, 'runs'), { recursive: true });
    const done = runScript(['--run', '*-tc7-*', '--at', '0', '--out', out, '--wait', '30'], { PB_STATE: state });
    await sleep(1500);
    const run = path.join(state, 'runs', '20261127-030002-tc7-poll-1000-600');
    fs.mkdirSync(run);
    // this very process's PID with another start time: a PID used again, not the server's
    const pidFile = path.join(run, 'tc7.pid');
    recordPid(process.pid, pidFile);
    fs.writeFileSync(pidFile, fs.readFileSync(pidFile, 'utf8').replace(/^(\d+) (\d+)/, (_, p, t) => `${p} ${Number(t) + 1}`));
    fs.writeFileSync(path.join(run, 'controller.pid'), `${process.pid}\n`);
    const r = await done;
    assert.equal(r.code, 1);
    assert.match(r.stderr, /the server of 20261127-030002-tc7-poll-1000-600 is gone/);
    assert.ok(!fs.existsSync(out) || fs.readdirSync(out).length === 0);
    for (const args of [[], ['--run'], ['--run', 'x', '--at', 'soon'], ['--run', 'x', '--wait', '0'], ['--bogus']]) {
      const u = spawnSync('bash', [SCRIPT, ...args], { encoding: 'utf8', env: { ...process.env, PB_STATE: state } });
      assert.equal(u.status, 2, `${args.join(' ')}: ${u.stderr}`);
      assert.match(u.stderr, /usage|wants/);
    }
    const none = spawnSync('bash', [SCRIPT, '--run', 'nothing-like-it', '--wait', '2'], { encoding: 'utf8', env: { ...process.env, PB_STATE: state } });
    assert.equal(none.status, 1);
    assert.match(none.stderr, /no run like 'nothing-like-it' started/);
  } finally {
    fs.rmSync(dir, { recursive: true, force: true });
  }
});
