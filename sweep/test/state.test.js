'use strict';
// state.tsv that is not what the sweep wrote (issue #36 item 5, sweep/state.js): an empty one beside run
// directories is rebuilt from their run.json (finished runs neither rerun nor hidden from --report), a
// garbage one is refused in one line that does not quote it, and EACCES / EPERM reading or writing it is
// told as a permission problem, not as free space. Real files in a scratch directory; no run is started
// (--report over run directories holding only run.json analyses nothing but them).
const { test, describe } = require('node:test');
const assert = require('node:assert/strict');
const fs = require('node:fs');
const os = require('node:os');
const path = require('node:path');
const { spawnSync } = require('node:child_process');
const { SweepState, StateError } = require('../state');
const { commandOf } = require('../state-rebuild');
const { permutations } = require('../permutations');

const SWEEP = path.join(__dirname, '..', '..', 'sweep.sh');
const GARBAGE = Buffer.concat([Buffer.from('PK\u0003\u0004 password=hunter2\t\u0000\u00ff'), Buffer.alloc(64, 0xfe), Buffer.from('\ndone\tdone\n')]);
const NOBODY = 65534;
const asRoot = typeof process.getuid === 'function' && process.getuid() === 0;

const scratch = [];
process.on('exit', () => { for (const d of scratch) fs.rmSync(d, { recursive: true, force: true }); });
function sweepDir() {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'pb-sweep-state-'));
  scratch.push(dir);
  fs.chmodSync(dir, 0o755);   // searchable by the unprivileged user of the permission cases
  return dir;
}

// run.json as run.sh writes it (lib/runjson.sh) for a permutation of sweep/permutations.js.
function runJson(perm, extra = {}) {
  return { id: 'x', server: perm.server, rampupS: perm.rampupS, durationS: perm.durationS, connections: perm.connections, type: perm.type,
    maxDurationMs: perm.type === 'pull' ? null : perm.maxDurationMs, event: perm.event, emitIntervalMs: perm.emitIntervalMs,
    pullIntervalMs: perm.pullIntervalMs, status: 'complete', serverCrashed: false, notes: [], ...extra };
}
function addRun(dir, name, run) {
  fs.mkdirSync(path.join(dir, 'runs', name), { recursive: true });
  fs.writeFileSync(path.join(dir, 'runs', name, 'run.json'), typeof run === 'string' ? run : JSON.stringify(run));
}
const sweep = (args, opts = {}) => spawnSync(SWEEP, args, { encoding: 'utf8', ...opts });

// Runs fn with the effective user nobody (root only: root reads and writes past any mode).
function asNobody(fn) {
  process.seteuid(NOBODY);
  try {
    return fn();
  } finally {
    process.seteuid(0);
  }
}

describe('an empty state.tsv beside run directories', () => {
  const sel = { servers: ['node', 'tc7'], types: ['comet', 'poll', 'pull'], levels: [1000], rampup: 5, duration: 30 };
  const all = permutations(sel);
  const pick = (re) => all.find((p) => re.test(p.command));
  const [comet, cometNone, pollEvents, pollNone, pull] = [/^\S+ node .* comet - event1 1000$/, /node .* comet$/, /node .* poll 180000 event1 5000$/,
    /node .* poll 10000$/, /tc7 .* pull 1000 event1 1000$/].map(pick);

  test('run.json gives back the command line the sweep ran, for every kind of permutation', () => {
    for (const p of [comet, cometNone, pollEvents, pollNone, pull]) assert.equal(commandOf(runJson(p)), p.command);
  });

  function emptySweep(content = '') {
    const dir = sweepDir();
    addRun(dir, 'a-second', runJson(comet, { startedAt: 2000, finishedAt: 3000 }));
    addRun(dir, 'a-first', runJson(comet, { startedAt: 1000, finishedAt: 1500 }));
    addRun(dir, 'b', runJson(pollNone, { startedAt: 4000, serverCrashed: true }));
    addRun(dir, 'c', runJson(pull, { startedAt: 5000, status: 'incomplete' }));
    addRun(dir, 'd', '{"server": "no');
    fs.writeFileSync(path.join(dir, 'state.tsv'), content);
    return dir;
  }

  test('0 bytes, or only NUL bytes: rebuilt from run.json, repeats in the order they started, unfinished ones left to run again', () => {
    for (const content of ['', Buffer.alloc(300, 0), '# pushbench sweep state: header only\n']) {
      const dir = emptySweep(content);
      const state = new SweepState(dir);
      assert.deepEqual(Object.fromEntries([...state.entries].map(([k, e]) => [k, [e.status, e.runDir, e.startedAt]])), {
        [`${comet.command} #1`]: ['done', 'runs/a-first', new Date(1000).toISOString()],
        [`${comet.command} #2`]: ['done', 'runs/a-second', new Date(2000).toISOString()],
        [`${pollNone.command} #1`]: ['crashed', 'runs/b', new Date(4000).toISOString()],
      });
      assert.equal(state.rebuilt.line, `state.tsv is empty but ${path.basename(dir)}/runs holds 5 run directories: rebuilt from their run.json: `
        + '2 done, 1 crashed; 1 that did not complete run again; 1 without a readable run.json left out');
      assert.deepEqual(fs.readFileSync(path.join(dir, 'state.tsv')), Buffer.from(content), 'reading it changed state.tsv');
      // the sweep saves it (sweep/main.js run): read back as it is, rebuilt no more
      state.save();
      const back = new SweepState(dir);
      assert.equal(back.rebuilt, null);
      assert.deepEqual([...back.entries.keys()], [...state.entries.keys()]);
    }
  });

  test('./sweep.sh --report shows the rebuilt runs and says so; state.tsv left as it was', () => {
    const dir = emptySweep();
    const r = sweep(['--report', '--dir', dir]);
    assert.equal(r.status, 0, r.stdout + r.stderr);
    assert.match(r.stdout, /^sweep: state\.tsv is empty but \S+ holds 5 run directories: rebuilt from their run\.json: 2 done, 1 crashed.* \(for this report; the next \.\/sweep\.sh --dir saves it\)$/m);
    const csv = fs.readFileSync(path.join(dir, 'report', 'runs.csv'), 'utf8');
    assert.ok(csv.includes(`${comet.command},2 done,2,`), csv);
    assert.ok(csv.includes(`${pollNone.command},1 crashed,1,`), csv);
    assert.equal(fs.statSync(path.join(dir, 'state.tsv')).size, 0);
  });

  test('no state.tsv at all is a sweep that has recorded nothing: nothing rebuilt', () => {
    const dir = emptySweep();
    fs.rmSync(path.join(dir, 'state.tsv'));
    const state = new SweepState(dir);
    assert.equal(state.rebuilt, null);
    assert.equal(state.entries.size, 0);
  });
});

describe('a state.tsv that is not a state file', () => {
  test('garbage: refused in one line naming the line, without its bytes, the file untouched; --report and --check exit 2, no stack', () => {
    const dir = sweepDir();
    const file = path.join(dir, 'state.tsv');
    fs.writeFileSync(file, Buffer.concat([Buffer.from('./run.sh node 5 30 1000 comet #1\tdone\truns/a\t\n'), GARBAGE]));
    assert.throws(() => new SweepState(dir), (e) => {
      assert.ok(e instanceof StateError);
      assert.equal(e.kind, 'damaged');
      assert.equal(e.message, `${file}: line 2 is not a state line (<run.sh command line> #<repeat> TAB <status> TAB <run dir> ...); `
        + 'the sweep neither reads nor rewrites it: restore it, or empty it (: > state.tsv) to have it rebuilt from the runs\' run.json');
      return true;
    });
    for (const args of [['--report', '--dir', dir], ['--check', '--dir', dir]]) {
      const r = sweep(args);
      assert.equal(r.status, 2, `${args[0]}: ${r.stdout}${r.stderr}`);
      assert.equal(r.stderr.split('\n').filter(Boolean).length, 1, r.stderr);
      assert.match(r.stderr, /^sweep\.sh: \S+state\.tsv: line 2 is not a state line/);
      assert.doesNotMatch(r.stderr + r.stdout, /hunter2|PK|\u00fe|\bat .*\.js:\d+/);
    }
    assert.deepEqual(fs.readFileSync(file).subarray(-GARBAGE.length), GARBAGE);
    assert.equal(fs.existsSync(path.join(dir, 'report')), false);
  });
});

describe('permissions: EACCES and EPERM are told as such, not as free space', () => {
  const line = './run.sh node 5 30 1000 comet #1\tdone\truns/a\t\n';

  test('reading: EACCES (a state.tsv the user may not read)', { skip: typeof process.getuid !== 'function' }, () => {
    const dir = sweepDir();
    const file = path.join(dir, 'state.tsv');
    fs.writeFileSync(file, line, { mode: 0o600 });
    if (!asRoot) fs.chmodSync(file, 0o000);
    assert.throws(() => (asRoot ? asNobody : (f) => f())(() => new SweepState(dir)), (e) => {
      assert.ok(e instanceof StateError, String(e));
      assert.equal(e.kind, 'permission');
      assert.equal(e.message, `cannot read ${file}: permission denied (EACCES), a permission problem, not a full disk: `
        + `let this user (uid ${asRoot ? NOBODY : process.getuid()}) read and write it and its directory`);
      return true;
    });
    if (asRoot) {
      const r = sweep(['--report', '--dir', dir], { uid: NOBODY, gid: NOBODY });
      assert.equal(r.status, 2, r.stdout + r.stderr);
      assert.match(r.stderr, /^sweep\.sh: cannot read \S+state\.tsv: permission denied \(EACCES\), a permission problem, not a full disk: [^\n]*\n$/);
    }
  });

  test('writing: EACCES (a directory the user may not write)', { skip: typeof process.getuid !== 'function' }, () => {
    const dir = sweepDir();
    const file = path.join(dir, 'state.tsv');
    fs.writeFileSync(file, line, { mode: 0o644 });
    const state = new SweepState(dir);
    if (!asRoot) fs.chmodSync(dir, 0o555);
    try {
      assert.throws(() => (asRoot ? asNobody : (f) => f())(() => state.set('./run.sh node 5 30 1000 comet #2', 'done', 'runs/b', '')), (e) => {
        assert.ok(e instanceof StateError, String(e));
        assert.equal(e.kind, 'permission');
        assert.equal(e.code, 'EACCES');
        assert.match(e.message, /^cannot write \S+state\.tsv: permission denied \(EACCES\), a permission problem, not a full disk/);
        return true;
      });
    } finally {
      fs.chmodSync(dir, 0o755);
    }
    assert.equal(fs.readFileSync(file, 'utf8'), line);
  });

  test('writing: EPERM (an immutable state.tsv, chattr +i)', (t) => {
    const dir = sweepDir();
    const file = path.join(dir, 'state.tsv');
    fs.writeFileSync(file, line);
    const state = new SweepState(dir);
    if (spawnSync('chattr', ['+i', file]).status !== 0) {
      t.skip('chattr +i is not possible here (not root, or the file system has no such flag)');
      return;
    }
    try {
      assert.throws(() => state.set('./run.sh node 5 30 1000 comet #2', 'done', 'runs/b', ''), (e) => {
        assert.ok(e instanceof StateError, String(e));
        assert.equal(e.kind, 'permission');
        assert.equal(e.code, 'EPERM');
        assert.match(e.message, /^cannot write \S+state\.tsv: permission denied \(EPERM\), a permission problem, not a full disk/);
        return true;
      });
    } finally {
      spawnSync('chattr', ['-i', file]);
    }
    assert.equal(fs.readFileSync(file, 'utf8'), line);
    assert.deepEqual(fs.readdirSync(dir).sort(), ['state.tsv'], 'a temporary or lock file was left');
  });
});
