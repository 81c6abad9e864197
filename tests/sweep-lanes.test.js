'use strict';
// sweep.sh over lanes and within a time budget (issue #24): the budget's arithmetic on numbers, the lane
// checks, and real sweeps over two lanes of namespace hosts (tests/lib/hosts-netns.js: four hosts, lane
// a = sut + eng1, lane b = eng2 as its sut + eng3), each a hosts.conf reached over ssh: both lanes at
// once (overlapping run times in state.tsv, both lanes busy all along), provenance in every
// run.json and report, Ctrl-C and resume, and a lane whose sshd is stopped mid-sweep (its run retried on
// the other lane, nothing lost).
//
// Needs root, openssh-server, JMeter and Node. Takes ~4-6 minutes on 2 cores (11 short runs, 3 of them
// interrupted).

const { test, describe, before, after } = require('node:test');
const assert = require('node:assert/strict');
const fs = require('node:fs');
const path = require('node:path');

const { NetnsHosts, ROOT } = require('./lib/hosts-netns');
const budget = require('../sweep/budget');
const lanes = require('../sweep/lanes');
const { permutations } = require('../sweep/permutations');
const { runSweep, readState } = require('./lib/sweep-run');

const STATE = process.env.PB_STATE || path.join(ROOT, 'build', 'state');
const BASE = path.join(process.env.PB_RESULTS || path.join(ROOT, 'build', 'results'), `sweep-lanes-${process.pid}`);

describe('the time budget: arithmetic', () => {
  const perm = (filter, sel = {}) => permutations({ servers: ['node'], levels: [1000], ...sel }).find((p) => filter.test(p.command));

  test('--budget values', () => {
    assert.equal(budget.parseBudget('10h'), 36000);
    assert.equal(budget.parseBudget('90m'), 5400);
    assert.equal(budget.parseBudget('1h30m'), 5400);
    assert.equal(budget.parseBudget('45s'), 45);
    assert.equal(budget.parseBudget('3600'), 3600);
    for (const bad of ['', 'soon', '10x', '0', '-1h', 'h']) assert.throws(() => budget.parseBudget(bad), budget.BudgetError, bad);
  });

  test('floors: ramp-up + 60 s, 3 emit intervals, 2 x the longest poll hold', () => {
    assert.deepEqual(budget.floor(perm(/ comet - event1 1000$/)), { seconds: 90, rule: 'ramp-up + 60 s' });
    assert.deepEqual(budget.floor(perm(/ comet - event1 30000$/, { rampup: 10 })), { seconds: 90, rule: '3 emit intervals' });
    assert.deepEqual(budget.floor(perm(/ poll 30000$/, { rampup: 0 })), { seconds: 60, rule: 'ramp-up + 60 s' });
    assert.equal(budget.floor({ type: 'poll', rampupS: 0, maxDurationMs: 45000, emitIntervalMs: null }).seconds, 90);
    assert.deepEqual(budget.floor({ type: 'poll', rampupS: 0, maxDurationMs: 180000, emitIntervalMs: 50000 }), { seconds: 150, rule: '3 emit intervals' });
    // a poll with events is held until the next emit, not its 180 s max duration
    assert.equal(budget.floor(perm(/ poll 180000 event1 10000$/)).seconds, 90);
  });

  test('one common target, clamped to [floor, cap]; the wall time over the lanes fits the budget with its margin', () => {
    // 10 runs, ramp-up 30, cap 600, overhead 60: a run takes 90 + duration
    const ps = permutations({ servers: ['node'], types: ['comet'], levels: [1000, 5000] }).slice(0, 10);
    assert.equal(ps.length, 10);
    const one = budget.fitBudget(ps, 3600, { lanes: 1 });
    // (90 + D) x 10 <= 3600 / 1.05 -> D <= 252.8
    assert.equal(one.target, 252);
    assert.ok(one.durations.every((d) => d === 252));
    assert.ok(one.wall * (1 + budget.MARGIN) <= 3600);
    assert.equal(one.floorWall, 10 * (90 + 90));
    const two = budget.fitBudget(ps, 3600, { lanes: 2 });
    assert.equal(two.target, 595);   // (90 + D) x 5 <= 3428.5
    // a budget above the cap keeps the selection's duration
    assert.ok(budget.fitBudget(ps, 360000, { lanes: 1 }).durations.every((d) => d === 600));
    // a rest between runs counts
    assert.equal(budget.fitBudget(ps, 3600, { lanes: 1, settle: 30 }).target, 222);
    // some at their floor: 30 s emit intervals need 90 s; with a target of 60 they stay at 90
    const mixed = [perm(/ comet - event1 1000$/, { rampup: 0 }), perm(/ comet - event1 30000$/, { rampup: 0 })];
    const m = budget.fitBudget(mixed, Math.floor(((60 + 60) + (90 + 60)) * 1.05) + 1, { lanes: 1 });
    assert.equal(m.target, 60);
    assert.deepEqual(m.durations, [60, 90]);
    assert.deepEqual(m.atFloor, [true, true]);
  });

  test('a budget below the sum of the floors: refused, saying by how much', () => {
    const ps = permutations({ servers: ['node'], types: ['comet'], levels: [1000, 5000] }).slice(0, 10);
    assert.throws(() => budget.fitBudget(ps, 1800, { lanes: 1 }),
      /--budget 30m00s is below what the 10 runs need at their floors on 1 lane: 30m00s \+ 5% margin = 31m30s, short by 1m30s/);
    assert.doesNotThrow(() => budget.fitBudget(ps, 1800, { lanes: 2 }));
  });

  test('durations applied: a new command line, the rest of the permutation kept', () => {
    const p = perm(/ poll 180000 event1 5000$/);
    const [q] = budget.applyDurations([p], { [p.command]: 120 });
    assert.equal(q.command, './run.sh node 30 120 1000 poll 180000 event1 5000');
    assert.deepEqual({ ...q, durationS: 600, args: null, command: null }, { ...p, args: null, command: null });
    assert.equal(budget.applyDurations([p], {})[0], p);
  });
});

describe('lanes: the checks', () => {
  test('--lanes names, environments, hosts in two lanes', () => {
    const ls = lanes.parseLanes('x/a.conf,y/a.conf,b.conf', '/w');
    assert.deepEqual(ls.map((l) => [l.name, l.file]), [['a', '/w/x/a.conf'], ['a-2', '/w/y/a.conf'], ['b', '/w/b.conf']]);
    assert.throws(() => lanes.parseLanes('a.conf,a.conf'), /given twice/);
    const envs = lanes.laneEnvs(ls, { PB_STATE: '/s', PB_JMETER_CLIENT_LOCALPORT: '11300' });
    assert.deepEqual(envs.map((l) => [l.env.PB_STATE, l.env.PB_JMETER_CLIENT_LOCALPORT, l.env.PB_HOSTS]),
      [['/s/lanes/a', '11300', '/w/x/a.conf'], ['/s/lanes/a-2', '11310', '/w/y/a.conf'], ['/s/lanes/b', '11320', '/w/b.conf']]);
    assert.deepEqual(lanes.laneEnvs([lanes.defaultLane()])[0].env, {}, 'no --lanes: run.sh as before');
    const h = (role, name, address) => ({ role, name, address });
    assert.deepEqual(lanes.sharedHosts([{ name: 'a', hosts: [h('sut', 's', '10.0.0.1'), h('engine', 'e', '10.0.0.2')] },
      { name: 'b', hosts: [h('sut', 's2', '10.0.0.3'), h('engine', 'e2', '10.0.0.4')] }]), []);
    assert.deepEqual(lanes.sharedHosts([{ name: 'a', hosts: [h('sut', 's', '10.0.0.1'), h('engine', 'local', '127.0.0.1')] },
      { name: 'b', hosts: [h('sut', 'local', '127.0.0.2'), h('engine', 'e', '10.0.0.1')] }]), [
      'host 10.0.0.1 is in 2 lanes: a (sut s), b (engine e); a host may be in one lane only',
      'host this machine (127.0.0.0/8) is in 2 lanes: a (engine local), b (sut local); a host may be in one lane only',
    ]);
  });
});

// ---- real sweeps over two lanes

const hosts = new NetnsHosts(4, path.join(STATE, `netns-pbD${process.pid}`), 'pbD1');
const LANE_A = path.join(BASE, 'a.conf');
const LANE_B = path.join(BASE, 'b.conf');
// 4 runs: node comet with 1 s events at 20 and 40 connections, without events at 20 and 40.
const SELECTION = ['--servers', 'node', '--types', 'comet', '--levels', '20,40', '--filter', '(event1 1000|comet)$',
  '--duration', '8', '--rampup', '1'];
// 2 runs (the same at 20 connections only): one a lane, where a test stops the lanes' first runs.
const PAIR = SELECTION.map((a) => (a === '20,40' ? '20' : a));

const sweep = (args, { onOutput } = {}) => runSweep(args, { onOutput, env: hosts.env });

const tail = (text, n = 60) => text.split('\n').slice(-n).join('\n');

// Sum over the runs of the time (s) the other lane was running at the same time.
function overlapSeconds(state) {
  let s = 0;
  for (const a of state) {
    for (const b of state) {
      if (a.lane === 'a' && b.lane === 'b') s += Math.max(0, Math.min(a.finished, b.finished) - Math.max(a.started, b.started)) / 1000;
    }
  }
  return s;
}

describe('real sweeps over two lanes of namespace hosts', () => {
  before(() => {
    hosts.start();
    fs.mkdirSync(BASE, { recursive: true });
    const lines = fs.readFileSync(hosts.hostsFile, 'utf8').split('\n').filter((l) => l && !l.startsWith('#'));
    const line = (name) => lines.find((l) => l.split(/\s+/)[1] === name);
    fs.writeFileSync(LANE_A, `${line('sut')}\n${line('eng1')}\n`);
    fs.writeFileSync(LANE_B, `${line('eng2').replace(/^engine/, 'sut   ')}\n${line('eng3')}\n`);
  });

  after(() => {
    if (hosts.up) hosts.down();
  });

  test('bad lanes: a host in two lanes, a lane file that fails its checks; nothing starts', async () => {
    const both = await sweep(['--lanes', `${LANE_A},${LANE_A.replace('a.conf', 'a2.conf')}`, '--dir', path.join(BASE, 'bad1'), '--yes', ...SELECTION]);
    assert.equal(both.code, 2, tail(both.out));
    assert.match(both.out, /lane error: lane a2: .*a2\.conf: no such file/);
    fs.copyFileSync(LANE_A, path.join(BASE, 'a2.conf'));
    const shared = await sweep(['--lanes', `${LANE_A},${path.join(BASE, 'a2.conf')}`, '--dir', path.join(BASE, 'bad2'), '--yes', ...SELECTION]);
    assert.equal(shared.code, 2, tail(shared.out));
    assert.match(shared.out, new RegExp(`lane error: host ${hosts.hosts[0].address.replace(/\./g, '\\.')} is in 2 lanes: a \\(sut sut\\), a2 \\(sut sut\\)`));
    fs.writeFileSync(path.join(BASE, 'broken.conf'), 'sut only-a-name\n');
    const broken = await sweep(['--lanes', `${LANE_A},${path.join(BASE, 'broken.conf')}`, '--dir', path.join(BASE, 'bad3'), '--yes', ...SELECTION]);
    assert.equal(broken.code, 2, tail(broken.out));
    // the file's error on stderr, then the lane's line on stdout (two pipes here: their order is not kept)
    assert.match(broken.out, /broken\.conf:1: expected '<role> <name> <address> <access>/);
    assert.match(broken.out, /lane broken: hosts file error \(above\)/);
    for (const d of ['bad1', 'bad2', 'bad3']) assert.ok(!fs.existsSync(path.join(BASE, d, 'runs')), `${d}: nothing ran`);
    // a budget below the floors, before anything starts (two lanes of 4 runs of at most 8 s, 1 s ramp-up)
    const tight = await sweep(['--lanes', `${LANE_A},${LANE_B}`, '--dir', path.join(BASE, 'bad4'), '--yes', ...SELECTION, '--budget', '2m']);
    assert.equal(tight.code, 2, tail(tight.out));
    assert.match(tight.out, /budget error: --budget 2m00s is below what the 4 runs need at their floors on 2 lanes: 2m18s \+ 5% margin = 2m25s, short by 25s/);
    assert.ok(!fs.existsSync(path.join(BASE, 'bad4', 'runs')));
  });

  test('two lanes at once: overlapping runs, both lanes busy, provenance in every run', async () => {
    const dir = path.join(BASE, 'two-lanes');
    const r = await sweep(['--lanes', `${LANE_A},${LANE_B}`, '--dir', dir, '--yes', ...SELECTION]);
    assert.equal(r.code, 0, tail(r.out));
    const state = readState(dir);
    assert.equal(state.length, 4);
    assert.ok(state.every((s) => s.status === 'done'), tail(r.out));
    assert.deepEqual([...new Set(state.map((s) => s.lane))].sort(), ['a', 'b'], 'both lanes ran');
    const overlap = overlapSeconds(state);
    const firstRuns = state.filter((s) => s.lane === 'a')[0];
    assert.ok(overlap > 0.5 * (firstRuns.finished - firstRuns.started) / 1000, `runs overlap by ${overlap} s`);
    // Both lanes busy all along: the runs' summed time over the run phase's wall time is ~2, so the sweep
    // takes about half the time of one lane. (The wall time itself halves only when the lanes' hosts are
    // separate machines; here all four namespaces share this machine's cores, so two runs at once each take
    // longer than one alone: a one-lane sweep beside it would measure this machine, not the lanes.)
    const wall = (Math.max(...state.map((s) => s.finished)) - Math.min(...state.map((s) => s.started))) / 1000;
    const busy = state.reduce((n, s) => n + (s.finished - s.started) / 1000, 0);
    process.stdout.write(`# two lanes: ${r.seconds.toFixed(0)} s; `
      + `runs ${busy.toFixed(0)} s in a ${wall.toFixed(0)} s run phase (${(busy / wall).toFixed(2)} lanes busy); overlap ${overlap.toFixed(0)} s\n`);
    assert.ok(busy / wall > 1.7, `both lanes busy: ${busy} s of runs in ${wall} s`);
    assert.match(r.out, /sweep: lane a: \d run\(s\)/);
    assert.match(r.out, /sweep: lane b: \d run\(s\)/);
    assert.match(r.out, /sweep: \[4\/4\] lane [ab]: done in /);

    // provenance: in every run.json, with the lane's own hosts (over ssh), shown in each report
    for (const s of state) {
      const run = JSON.parse(fs.readFileSync(path.join(dir, s.runDir, 'run.json'), 'utf8'));
      const p = run.provenance;
      assert.ok(p, `${s.runDir}: provenance`);
      assert.match(p.pushbench.commit, /^[0-9a-f]{40}$/);
      assert.equal(typeof p.pushbench.dirty, 'boolean');
      for (const k of ['jmeter', 'tomcat6', 'tomcat7', 'node', 'jdk', 'kernel']) assert.ok(p.versions[k], `versions.${k}`);
      const expected = s.lane === 'a' ? ['sut', 'eng1'] : ['eng2', 'eng3'];
      assert.deepEqual(p.hosts.map((h) => h.name), expected);
      for (const h of p.hosts) {
        assert.ok(h.cores >= 1 && h.memoryMB > 100 && h.cpuModel, JSON.stringify(h));
      }
      assert.equal(run.hosts.sut.name, expected[0]);
      const html = fs.readFileSync(path.join(dir, s.runDir, 'report', 'index.html'), 'utf8');
      assert.match(html, /<h3>Provenance<\/h3>/);
      assert.ok(html.includes(p.pushbench.commit.slice(0, 12)), 'commit shown');
      assert.ok(html.includes(`Host ${expected[1]} (engine)`), 'hosts shown');
    }
    // lanes of identical machines are one host set: the comparison does not split or warn about hosts
    const index = fs.readFileSync(path.join(dir, 'report', 'runs.csv'), 'utf8');
    assert.match(index.split('\n')[0], /,lanes$/);
    assert.equal(index.trim().split('\n').length, 5);
  });

  test('Ctrl-C with both lanes running, then resume (lanes from sweep.json): every run done once', async () => {
    const dir = path.join(BASE, 'interrupted');
    let sent = false;
    const first = await sweep(['--lanes', `${LANE_A},${LANE_B}`, '--dir', dir, '--yes', ...PAIR], {
      onOutput: (out, child) => {
        if (!sent && /\] lane a: \.\/run\.sh/.test(out) && /\] lane b: \.\/run\.sh/.test(out)) {
          sent = true;
          setTimeout(() => child.kill('SIGINT'), 6000);
        }
      },
    });
    assert.ok(sent, tail(first.out));
    assert.equal(first.code, 130, tail(first.out));
    let state = readState(dir);
    assert.deepEqual(state.map((s) => s.status).sort(), ['interrupted', 'interrupted'], tail(first.out));
    assert.deepEqual(state.map((s) => s.lane).sort(), ['a', 'b']);
    for (const h of hosts.hosts) assert.deepEqual(hosts.strangers(h).filter((p) => /java|node .*server/.test(p.cmd)), [], `${h.ns}: nothing left running`);

    const second = await sweep(['--dir', dir, '--yes']);
    assert.equal(second.code, 0, tail(second.out));
    assert.match(second.out, /resuming on the lanes saved in .*a\.conf, .*b\.conf/);
    assert.match(second.out, /2 selected: 0 done before, 2 to run/);
    state = readState(dir);
    assert.equal(state.length, 2);
    assert.ok(state.every((s) => s.status === 'done'), tail(second.out));
    const runs = fs.readdirSync(path.join(dir, 'runs'));
    assert.equal(runs.length, 4, `2 complete + 2 interrupted attempts: ${runs}`);
  });

  test('a lane whose sshd is stopped mid-sweep: taken out, its run retried on the other lane, nothing lost', async () => {
    const dir = path.join(BASE, 'lane-lost');
    const laneBSut = hosts.hosts[2];
    let stopped = false;
    const r = await sweep(['--lanes', `${LANE_A},${LANE_B}`, '--dir', dir, '--yes', ...PAIR], {
      onOutput: (out) => {
        // lane b's first run has started: its sut's sshd goes (the run's open connections stay)
        if (!stopped && /\] lane b: \.\/run\.sh/.test(out)) {
          stopped = true;
          process.kill(laneBSut.sshdPid, 'SIGTERM');
        }
      },
    });
    assert.ok(stopped);
    assert.equal(r.code, 0, tail(r.out));
    assert.match(r.out, /sweep: lane b taken out: .*goes back to the queue for the 1 other lane/);
    const state = readState(dir);
    assert.equal(state.length, 2);
    assert.ok(state.every((s) => s.status === 'done'), tail(r.out));
    const onB = state.filter((s) => s.lane === 'b');
    assert.ok(onB.length <= 1, 'lane b finished at most the run it had begun');
    assert.ok(state.filter((s) => s.lane === 'a').length >= 1);
    assert.match(fs.readFileSync(path.join(dir, 'sweep.log'), 'utf8'), /lane-out b .*requeued \.\/run\.sh/);
    assert.match(r.out, /sweep: lane b: \d run\(s\) \(taken out: /);
  });
});
