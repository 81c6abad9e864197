'use strict';
// Target sweeps and thresholds in the sweep (issues #47 and #49, docs/sweep.md): ./sweep.sh --target FILE runs
// the target file at each of --levels (one ./run.sh --target <absolute file> <rampup> <duration> <level> per
// level; the study's grid options refused), --threshold EXPR goes on every run.sh command line before its
// arguments. Unit tests of the options, the permutations, the state's rebuild and the run index on fixture
// runs; then one real sweep against nginx + nchan (targets/nchan/nchan.sh) on a port of this test's own:
// two levels, a threshold, both runs done with summaries, the run index written, a resume running nothing,
// and exit 7 once a run's threshold failed. The real sweep needs JMeter and nchan (./setup.sh --for-tests);
// about 40 s on 2 busy cores.
const { test, describe, before, after } = require('node:test');
const assert = require('node:assert/strict');
const fs = require('node:fs');
const os = require('node:os');
const path = require('node:path');
const { spawnSync, execFileSync } = require('node:child_process');
const { runSweep, readState, SWEEP } = require('./lib/sweep-run');
const { scratch, hostsFile, LOCAL_HOSTS } = require('./lib/runsh');

const ROOT = path.resolve(__dirname, '..');
const NCHAN = path.join(ROOT, 'targets', 'nchan', 'nchan.sh');
const { parse, withDefaults, recheck, UsageError } = require('../sweep/options');
const { permutations, withDuration } = require('../sweep/permutations');
const { commandOf } = require('../sweep/state-rebuild');
const { writeReport, thresholdCounts } = require('../sweep/report');

// This test's own nchan port, beside tests/run-target.test.js's (18190 + the suite's slot shift).
const PORT = 18190 + (Number(process.env.PB_PORT_NODE ?? 18080) - 18080) + 7;

const tmp = fs.mkdtempSync(path.join(os.tmpdir(), 'pb-sweep-target-'));
after(() => fs.rmSync(tmp, { recursive: true, force: true }));

// A shipped target file with this test's port (and any key changed), written under dir: its path.
function targetFile(dir, name = 'nchan-sse', change = (t) => t) {
  const text = fs.readFileSync(path.join(ROOT, 'targets', `${name}.json`), 'utf8').replaceAll(':18480/', `:${PORT}/`);
  const file = path.join(dir, `${name}.json`);
  fs.writeFileSync(file, `${JSON.stringify(change(JSON.parse(text)), null, 2)}\n`);
  return file;
}

const sweepSync = (args) => spawnSync(SWEEP, args, { cwd: ROOT, encoding: 'utf8' });
const listed = (...args) => {
  const r = sweepSync(['--list', ...args]);
  assert.equal(r.status, 0, r.stderr);
  return r.stdout.split('\n').filter(Boolean);
};

describe('--target and --threshold: options and permutations', () => {
  const file = targetFile(tmp);

  test('--target: the file checked and kept by its absolute path, one permutation per level', () => {
    const o = parse(['--target', path.relative(process.cwd(), file), '--levels', '20,40', '--duration', '6', '--rampup', '1']);
    const sel = withDefaults(o.selection);
    assert.deepEqual(Object.keys(sel.target), ['file', 'name', 'transport', 'sha256']);
    assert.equal(sel.target.file, file);
    assert.equal(sel.target.name, 'nchan-sse');
    assert.equal(sel.target.transport, 'sse');
    assert.equal(sel.servers, undefined, 'a target sweep has no grid');
    const perms = permutations(sel);
    assert.deepEqual(perms.map((p) => p.command), [`./run.sh --target ${file} 1 6 20`, `./run.sh --target ${file} 1 6 40`]);
    assert.deepEqual(perms[1].args, ['--target', file, '1', '6', '40']);
    assert.deepEqual([perms[1].server, perms[1].type, perms[1].connections, perms[1].rampupS, perms[1].durationS], ['target', 'sse', 40, 1, 6]);
    assert.equal(withDuration(perms[1], 9).command, `./run.sh --target ${file} 1 9 40`, 'the budget\'s duration keeps the target');
    assert.deepEqual(listed('--target', file, '--levels', '20,40,60', '--duration', '6', '--rampup', '1', '--filter', ' [24]0$', '--repeat', '2'),
      [`./run.sh --target ${file} 1 6 20`, `./run.sh --target ${file} 1 6 40`]);
  });

  test('--threshold: repeatable, on every command line before its arguments, quoted for a shell', () => {
    const o = parse(['--threshold', 'received>=100', '--threshold=trip.p99<=250', '--servers', 'node', '--types', 'comet', '--levels', '20']);
    assert.deepEqual(o.selection.thresholds, ['received>=100', 'trip.p99<=250']);
    const p = permutations(withDefaults(o.selection))[0];
    assert.deepEqual(p.args.slice(0, 5), ['--threshold', 'received>=100', '--threshold', 'trip.p99<=250', 'node']);
    assert.equal(p.command, "./run.sh --threshold 'received>=100' --threshold 'trip.p99<=250' node 30 600 20 comet - event1 1000");
    assert.equal(withDuration(p, 60).command, "./run.sh --threshold 'received>=100' --threshold 'trip.p99<=250' node 30 60 20 comet - event1 1000");
    // the shell's reading of a listed line gives run.sh the same words
    const words = execFileSync('bash', ['-c', `printf '%s\\n' ${p.command.replace(/^\.\/run\.sh /, '')}`], { encoding: 'utf8' }).trimEnd().split('\n');
    assert.deepEqual(words, p.args);
    const t = permutations(withDefaults(parse(['--target', file, '--levels', '20', '--threshold', 'verdict==valid']).selection))[0];
    assert.equal(t.command, `./run.sh --threshold verdict==valid --target ${file} 30 600 20`);
    // without thresholds a built-in line is as it always was
    assert.equal(permutations(withDefaults({ servers: ['node'], types: ['poll'], levels: [20] }))[0].command, './run.sh node 30 600 20 poll 180000 event1 1000');
  });

  test('the study\'s grid options are refused with --target, each named; exit 2', () => {
    for (const [opt, value] of [['--servers', 'node'], ['--types', 'comet'], ['--emit-intervals', '500'], ['--study', 'extended']]) {
      const r = sweepSync(['--list', '--target', file, opt, value]);
      assert.equal(r.status, 2, `${opt}: ${r.stderr}`);
      assert.match(r.stderr, new RegExp(`^sweep\\.sh: ${opt} does not apply to --target: `), opt);
      assert.equal(r.stdout, '');
    }
    const r = sweepSync(['--list', '--target', file, '--types', 'pull', '--pull-intervals', '500']);
    assert.match(r.stderr, /--types, --pull-intervals do not apply to --target/);
  });

  test('a bad target file or threshold: exit 2 with lib/target.js\'s or lib/thresholds.js\'s message, nothing listed', () => {
    const bad = targetFile(tmp, 'nchan-ws', (t) => ({ ...t, subscribe: { ...t.subscribe, url: 'htp://x' } }));
    const check = spawnSync(process.execPath, [path.join(ROOT, 'lib', 'target.js'), 'check', bad], { encoding: 'utf8' });
    assert.equal(check.status, 2);
    const r = sweepSync(['--list', '--target', bad]);
    assert.equal(r.status, 2);
    assert.equal(r.stdout, '');
    assert.equal(r.stderr.split('\n')[0], `sweep.sh: ${check.stderr.trim()}`);
    const th = spawnSync(process.execPath, [path.join(ROOT, 'lib', 'thresholds.js'), 'check', 'trip.p98<=3'], { encoding: 'utf8' });
    assert.equal(th.status, 2);
    const t = sweepSync(['--list', '--threshold', 'trip.p98<=3']);
    assert.equal(t.status, 2);
    assert.equal(t.stderr.split('\n')[0], `sweep.sh: ${th.stderr.trim()}`);
    assert.throws(() => parse(['--target', path.join(tmp, 'none.json')]), (e) => e instanceof UsageError && /none\.json: cannot be read/.test(e.message));
  });

  test('a saved target is checked again on resume: gone is a usage error, changed is said', () => {
    const dir = fs.mkdtempSync(path.join(tmp, 'recheck-'));
    const f = targetFile(dir);
    const sel = withDefaults(parse(['--target', f, '--threshold', 'missed==0']).selection);
    assert.equal(recheck(sel).changed, false);
    fs.writeFileSync(f, fs.readFileSync(f, 'utf8').replace('"rate": 1', '"rate": 2'));
    const again = recheck(sel);
    assert.equal(again.changed, true);
    assert.notEqual(again.sel.target.sha256, sel.target.sha256);
    fs.rmSync(f);
    assert.throws(() => recheck(sel), UsageError);
  });

  test('state.tsv rebuilt from a run.json gives the sweep\'s key: the command line\'s thresholds, not the file\'s', () => {
    const run = { server: 'target', type: 'sse', rampupS: 1, durationS: 6, connections: 20, maxDurationMs: null, event: null, emitIntervalMs: null,
      pullIntervalMs: null, target: { name: 'nchan-sse', source: file }, thresholds: ['missed==0', 'received>=100'] };
    const perm = permutations(withDefaults(parse(['--target', file, '--levels', '20', '--duration', '6', '--rampup', '1', '--threshold', 'received>=100']).selection))[0];
    assert.equal(commandOf(run, { fileThresholds: 1 }), perm.command);
    const builtin = { server: 'node', type: 'comet', rampupS: 30, durationS: 600, connections: 20, maxDurationMs: null, event: 'event1', emitIntervalMs: 1000,
      pullIntervalMs: null, thresholds: ['trip.p99<=250'] };
    assert.equal(commandOf(builtin), "./run.sh --threshold 'trip.p99<=250' node 30 600 20 comet - event1 1000");
    assert.equal(commandOf({ ...builtin, thresholds: undefined }), './run.sh node 30 600 20 comet - event1 1000');
  });
});

describe('the run index of a target sweep (fixture runs)', () => {
  // A sweep directory as the sweep leaves it: sweep.json, state.tsv, runs/<id>/{run.json,data/summary.json}.
  function fixtureSweep(levels) {
    const dir = fs.mkdtempSync(path.join(tmp, 'index-'));
    const file = targetFile(dir);
    const sel = withDefaults(parse(['--target', file, '--levels', levels.map((l) => l.n).join(','), '--duration', '6', '--rampup', '1',
      '--threshold', 'received>=100']).selection);
    fs.writeFileSync(path.join(dir, 'sweep.json'), JSON.stringify({ selection: sel }));
    const lines = ['# state'];
    permutations(sel).forEach((p, k) => {
      const { n, delivered, p99 } = levels[k];
      const rel = `runs/r${n}`;
      fs.mkdirSync(path.join(dir, rel, 'data'), { recursive: true });
      fs.writeFileSync(path.join(dir, rel, 'run.json'), JSON.stringify({ server: 'target', type: 'sse', status: 'complete' }));
      const pass = delivered >= 100;
      fs.writeFileSync(path.join(dir, rel, 'data', 'summary.json'), JSON.stringify({
        validity: { verdict: 'valid', reasons: [] },
        target: { subscribers: n, messages: { deliveredPercent: delivered, missed: pass ? 0 : 3 }, tripTime: { p50Ms: 0.5, p99Ms: p99 },
          publish: { achievedPerSecond: 10 } },
        thresholds: { results: [{ text: 'received>=100', pass, why: pass ? `${delivered} % >= 100` : `${delivered} %, wanted >= 100` }],
          passed: pass ? 1 : 0, failed: pass ? 0 : 1 },
      }));
      lines.push(`${p.command} #1\tdone\t${rel}\t\tdefault\t-\t-`);
    });
    fs.writeFileSync(path.join(dir, 'state.tsv'), `${lines.join('\n')}\n`);
    return dir;
  }

  test('each level with the target\'s figures and its thresholds; no comparison figures', () => {
    const dir = fixtureSweep([{ n: 20, delivered: 100, p99: 3.94 }, { n: 40, delivered: 97.5, p99: 12.25 }]);
    const said = [];
    const out = writeReport(dir, { log: (l) => said.push(l) });
    assert.equal(out, path.join(dir, 'report', 'runs.html'));
    assert.ok(!fs.existsSync(path.join(dir, 'report', 'index.html')));
    assert.match(said.join('\n'), /a target sweep: no comparison figures/);
    const [head, ...rows] = fs.readFileSync(path.join(dir, 'report', 'runs.csv'), 'utf8').trim().split('\n');
    assert.equal(head, 'run.sh command line,status,runs analysed,validity,thresholds,server crashed,subscribers,delivered %,missed,trip p50 ms,'
      + 'trip p99 ms,publishes/s,run directories,notes,lanes');
    assert.equal(rows.length, 2);
    assert.match(rows[0], /,1 done,1,valid,1 passed,0,20,100\.00,0,0\.5,3\.9,10\.0,runs\/r20,/);
    assert.match(rows[1], /,1 done,1,valid,"1 of 1 failed: received>=100 \(97\.5 %, wanted >= 100\)",0,40,97\.50,3,0\.5,12\.3,10\.0,runs\/r40,/);
    const html = fs.readFileSync(path.join(dir, 'report', 'runs.html'), 'utf8');
    assert.match(html, /<td class="notvalid">1 of 1 failed: received&gt;=100 \(97\.5 %, wanted &gt;= 100\)<\/td>/);
    assert.match(html, /delivered % = messages received of those expected/);
    const entries = readState(dir).map((e) => ({ ...e, runDir: e.runDir }));
    assert.deepEqual(thresholdCounts(dir, entries), { failed: 1, judged: 2 });
  });

  test('a sweep without thresholds has no thresholds column', () => {
    const dir = fixtureSweep([{ n: 20, delivered: 100, p99: 1 }]);
    const summary = path.join(dir, 'runs', 'r20', 'data', 'summary.json');
    const s = JSON.parse(fs.readFileSync(summary, 'utf8'));
    delete s.thresholds;
    fs.writeFileSync(summary, JSON.stringify(s));
    writeReport(dir);
    assert.match(fs.readFileSync(path.join(dir, 'report', 'runs.csv'), 'utf8'), /^run\.sh command line,status,runs analysed,validity,server crashed,subscribers,/);
  });
});

describe('a real target sweep against nginx + nchan', () => {
  const s = scratch('sweep-target');
  const nchanDir = path.join(s.dir, 'nchan');
  const env = { PB_HOSTS: hostsFile(s.dir, LOCAL_HOSTS) };
  const nchan = (...args) => execFileSync(NCHAN, [...args, '--dir', nchanDir], { encoding: 'utf8' });
  before(() => nchan('start', '--port', String(PORT)));
  after(() => { nchan('stop'); s.cleanup(); });

  test('two levels with a threshold: both runs done with summaries and thresholds, the run index; a resume runs nothing; exit 7 once a threshold failed', { timeout: 240000 }, async () => {
    const file = targetFile(s.dir);
    const dir = path.join(s.dir, 'sweep');
    const r = await runSweep(['--dir', dir, '--target', file, '--levels', '20,40', '--duration', '6', '--rampup', '1', '--threshold', 'received>=100',
      '--yes', '--quiet'], { env });
    assert.equal(r.code, 0, r.out);
    assert.match(r.out, /sweep: target nchan-sse \(sse, .*\): not checked before the runs: /);
    const state = readState(dir);
    assert.deepEqual(state.map((e) => [e.key, e.status]), [20, 40].map((n) => [`./run.sh --threshold 'received>=100' --target ${file} 1 6 ${n} #1`, 'done']));
    for (const [k, e] of state.entries()) {
      assert.equal(e.reason, 'thresholds: 1 passed', JSON.stringify(e));
      const runDir = path.join(dir, e.runDir);
      const run = JSON.parse(fs.readFileSync(path.join(runDir, 'run.json'), 'utf8'));
      assert.deepEqual([run.server, run.type, run.connections, run.status, run.target.source], ['target', 'sse', [20, 40][k], 'complete', file]);
      assert.deepEqual(run.thresholds, ['received>=100']);
      const summary = JSON.parse(fs.readFileSync(path.join(runDir, 'data', 'summary.json'), 'utf8'));
      assert.equal(summary.target.subscribers, [20, 40][k]);
      assert.deepEqual([summary.thresholds.passed, summary.thresholds.failed], [1, 0]);
    }
    assert.match(r.out, /sweep: thresholds: passed in all of the 2 finished runs with thresholds/);
    const csv = fs.readFileSync(path.join(dir, 'report', 'runs.csv'), 'utf8').trim().split('\n');
    assert.equal(csv.length, 3);
    assert.match(csv[0], /,thresholds,server crashed,subscribers,delivered %,/);
    for (const row of csv.slice(1)) assert.match(row, /,1 done,1,[a-z-]+,1 passed,0,(20|40),100\.00,0,[0-9.]+,[0-9.]+,[0-9.]+,runs\//);
    assert.ok(fs.existsSync(path.join(dir, 'report', 'runs.html')));
    assert.equal(JSON.parse(fs.readFileSync(path.join(dir, 'sweep.json'), 'utf8')).selection.target.file, file);

    // resumed from sweep.json alone: nothing to run; a threshold failed in a run done before makes it exit 7
    const summaryFile = path.join(dir, state[1].runDir, 'data', 'summary.json');
    const summary = JSON.parse(fs.readFileSync(summaryFile, 'utf8'));
    summary.thresholds = { ...summary.thresholds, passed: 0, failed: 1, results: summary.thresholds.results.map((x) => ({ ...x, pass: false, why: 'as if' })) };
    fs.writeFileSync(summaryFile, JSON.stringify(summary));
    const again = await runSweep(['--dir', dir, '--yes', '--quiet'], { env });
    assert.equal(again.code, 7, again.out);
    assert.match(again.out, /resuming with the selection saved in .*sweep\.json/);
    assert.match(again.out, /2 done before, 0 to run/);
    assert.match(again.out, /sweep: thresholds: failed in 1 of the 2 finished runs with thresholds/);
    assert.equal(fs.readdirSync(path.join(dir, 'runs')).length, 2);
  });
});
