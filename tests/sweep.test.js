'use strict';
// sweep.sh: the study's 195 permutations (checked against Appendix A), the selection options, and real
// sweeps through run.sh on this machine: a mini sweep over all three servers, an interrupted sweep that
// resumes, and levels that cannot fit the open-file limit skipped up front.
//
// The real sweeps need JMeter, Node and both Tomcats installed (./setup.sh). Each run takes 20-50 s
// (servers and JVMs starting, analysis, report); the file needs 4-8 minutes on 2 busy cores.

const { test, describe, before } = require('node:test');
const assert = require('node:assert/strict');
const fs = require('node:fs');
const path = require('node:path');
const { spawn, spawnSync } = require('node:child_process');

const ROOT = path.resolve(__dirname, '..');
const SWEEP = path.join(ROOT, 'sweep.sh');
const BASE = path.join(process.env.PB_RESULTS || path.join(ROOT, 'build', 'results'), `sweep-test-${process.pid}`);
const HOSTS = path.join(BASE, 'hosts.conf');

function list(...args) {
  const r = spawnSync(SWEEP, ['--list', ...args], { cwd: ROOT, encoding: 'utf8' });
  assert.equal(r.status, 0, r.stderr);
  assert.equal(r.stderr, '');
  return r.stdout.split('\n').filter(Boolean);
}

// Appendix A row -> the run.sh command line the study's CLI (section 3.3.2) takes for it, with the
// sweep's defaults: 30 s ramp-up, 600 s per run, event event1, times in ms.
function expectedLine(row) {
  const [server, request, emit, max, n] = row.split('\t');
  const s = { 'Node.js': 'node', 'Tomcat 6': 'tc6', 'Tomcat 7': 'tc7' }[server];
  const type = request === 'Comet' ? 'comet' : 'poll';
  let line = `./run.sh ${s} 30 600 ${n} ${type}`;
  if (emit !== 'n/a') line += ` ${max === 'n/a' ? '-' : Number(max) * 1000} event1 ${Number(emit) * 1000}`;
  else if (max !== 'n/a') line += ` ${Number(max) * 1000}`;
  return line;
}

describe('--list', () => {
  const all = list();

  test('195 lines, exactly Appendix A in its order', () => {
    const rows = fs.readFileSync(path.join(__dirname, 'fixtures', 'appendix-a.tsv'), 'utf8')
      .split('\n').filter((l) => l && !l.startsWith('#') && !l.startsWith('server\t'));
    assert.equal(rows.length, 195);
    assert.equal(all.length, 195);
    assert.deepEqual(all, rows.map(expectedLine));
  });

  test('counts per category and a few exact lines', () => {
    const count = (re) => all.filter((l) => re.test(l)).length;
    assert.equal(count(/ comet - event1 \d+$/), 60);
    assert.equal(count(/ comet$/), 15);
    assert.equal(count(/ poll 180000 event1 \d+$/), 60);
    assert.equal(count(/ poll \d+$/), 60);
    for (const s of ['node', 'tc6', 'tc7']) assert.equal(count(new RegExp(`^\\./run\\.sh ${s} `)), 65);
    for (const n of [1000, 5000, 10000, 15000, 20000]) assert.equal(count(new RegExp(` 600 ${n} `)), 39);
    assert.equal(all[0], './run.sh node 30 600 1000 comet - event1 1000');
    assert.equal(all[20], './run.sh node 30 600 1000 comet');
    assert.equal(all[25], './run.sh node 30 600 1000 poll 180000 event1 1000');
    assert.equal(all[64], './run.sh node 30 600 20000 poll 30000');
    assert.equal(all[65], './run.sh tc6 30 600 1000 comet - event1 1000');
    assert.equal(all[194], './run.sh tc7 30 600 20000 poll 30000');
  });

  test('selection options narrow it and keep the order', () => {
    const tc6 = list('--servers', 'tc6');
    assert.equal(tc6.length, 65);
    assert.deepEqual(tc6, all.filter((l) => l.startsWith('./run.sh tc6 ')));
    assert.equal(list('--types', 'comet', '--levels', '1000').length, 15);
    assert.deepEqual(list('--servers', 'tc7,node', '--types', 'poll', '--levels', '5000', '--filter', 'poll 1000$'),
      ['./run.sh node 30 600 5000 poll 1000', './run.sh tc7 30 600 5000 poll 1000']);
    // A substring, and a regular expression; several filters must all match.
    assert.equal(list('--filter', 'event1 30000').length, 30);
    assert.equal(list('--filter', '^\\./run\\.sh tc6 .* comet', '--filter', '20000').length, 5);
    assert.deepEqual(list('--servers', 'node', '--levels', '20', '--duration', '5', '--rampup', '1', '--filter', 'comet$'),
      ['./run.sh node 1 5 20 comet']);
    assert.equal(list('--repeat', '3').length, 195, 'repeats run each line again; the list names each once');
  });

  test('bad options: exit 2 with a message', () => {
    for (const args of [['--servers', 'jetty'], ['--levels', 'many'], ['--bogus'], ['--duration'], ['--settle', 'soon'], ['--settle', '-3']]) {
      const r = spawnSync(SWEEP, args, { cwd: ROOT, encoding: 'utf8' });
      assert.equal(r.status, 2, args.join(' '));
      assert.match(r.stderr, /sweep\.sh: /);
    }
  });
});

describe('fit: what the open-file limits allow, decided before the first run by the run decisions (lib/decide.js)', () => {
  const estimates = require('../sweep/estimates');
  const { permutations } = require('../sweep/permutations');
  const perm = (n) => permutations({ servers: ['node'], types: ['comet'], levels: [n] })[0];
  const host = (role, name, soft, hard = soft) => ({ role, name, soft, hard });
  // A lane as the sweep makes it: its hosts file and the limits sweep/hosts.js read on each host.
  const lane = (hosts) => {
    fs.mkdirSync(BASE, { recursive: true });
    const file = path.join(BASE, `fit-${hosts.map((h) => `${h.name}${h.soft}-${h.hard}`).join('-')}.conf`);
    fs.writeFileSync(file, hosts.map((h, k) => `${h.role} ${h.name} 127.0.0.${k + 1} local`).join('\n'));
    return { index: 0, name: 'test', env: { PB_HOSTS: file }, hosts };
  };
  const fitOf = async (n, l) => {
    const decisions = new estimates.RunDecisions();
    await decisions.load([perm(n)], [l]);
    return estimates.fit(decisions.get(perm(n), l));
  };

  test('the server process holds every connection: threads + reserve must fit its limit', async () => {
    const l = lane([host('sut', 's', 20000), host('engine', 'e1', 20000), host('engine', 'e2', 20000)]);
    assert.equal((await fitOf(19800, l)).fits, true);
    const f = await fitOf(19801, l);
    assert.equal(f.fits, false);
    assert.match(f.reason, /sut s: open files: the node server .* needs 19801 connections \+ 200 reserve = 20001, but a process here may open at most 20000/);
  });

  test('engines share the threads: a share too big says how many engines it would take', async () => {
    const one = [host('sut', 's', 100000), host('engine', 'e1', 20000)];
    const f = await fitOf(30000, lane(one));
    assert.equal(f.fits, false);
    assert.match(f.reason, /engine e1: open files: this JMeter engine needs 30000 connections .* 2 engines like this one would hold the 30000 connections, hosts.conf has 1/);
    assert.equal((await fitOf(30000, lane([...one, host('engine', 'e2', 20000)]))).fits, true);
  });

  test('a soft limit below the hard one: not run, with the fix named', async () => {
    const f = await fitOf(5000, lane([host('sut', 's', 1024, 20000), host('engine', 'e1', 20000)]));
    assert.equal(f.fits, false);
    assert.match(f.reason, /sut s: open files: .* needs 5200 but the soft limit here is 1024 \(hard 20000\): add 'ulimit -n 20000'/);
  });

  test('a level run.sh refuses (fewer connections than engines) is not run, with run.sh\'s reason', async () => {
    const f = await fitOf(2, lane([host('sut', 's', 20000), ...['e1', 'e2', 'e3'].map((n) => host('engine', n, 20000))]));
    assert.equal(f.fits, false);
    assert.match(f.reason, /run\.sh refuses it: threads \(2\) must be at least the number of engines/);
  });
});

describe('validity (issue #19): runs.csv, runs.html and the closing summary', () => {
  const { makeVerdictSweep, VERDICT_PERMUTATIONS } = require('../charts/test/sweep-fixture');
  const { writeReport, finishedVerdicts } = require('../sweep/report');
  const { formatCounts } = require('../analysis/verdict');
  const { SweepState } = require('../sweep/state');
  const { parse: parseCsv } = require('csv-parse/sync');

  test('each permutation gets its verdict; not valid ones highlighted with their reasons; the summary counts them', async () => {
    const dir = path.join(BASE, 'verdicts');
    fs.rmSync(dir, { recursive: true, force: true });
    const runDirs = await makeVerdictSweep(dir);
    const state = new SweepState(dir);
    runDirs.forEach((runDir, i) => {
      const p = VERDICT_PERMUTATIONS[i];
      const key = `./run.sh ${p.server} 0 ${p.duration ?? 4} ${p.threads} ${p.type} - event1 ${p.interval} #${p.repeat ?? 1}`;
      state.set(key, 'done', path.relative(dir, runDir), '');
    });
    state.set('./run.sh node 0 4 9 comet - event1 1000 #1', 'failed', null, 'run.sh exited 1');
    writeReport(dir);

    const [head, ...rows] = parseCsv(fs.readFileSync(path.join(dir, 'report', 'runs.csv'), 'utf8'));
    const col = head.indexOf('validity');
    assert.equal(col, 3, head.join(','));
    const validity = Object.fromEntries(rows.map((row) => [row[0], row[col]]));
    assert.deepEqual(validity, {
      './run.sh node 0 4 3 comet - event1 1000': 'valid',
      './run.sh node 0 4 3 poll - event1 1000': 'generator-bound',
      './run.sh node 0 4 6 comet - event1 1000': 'valid 1, disturbed 1',   // two repeats
      './run.sh node 0 4 6 poll - event1 1000': 'server-limited',
      './run.sh node 0 8 6 poll - event1 5000': 'valid',
      './run.sh tc6 0 4 3 comet - event1 1000': 'unknown',
      './run.sh node 0 4 9 comet - event1 1000': '',
    });

    const html = fs.readFileSync(path.join(dir, 'report', 'runs.html'), 'utf8');
    assert.match(html, /<th>validity<\/th>/);
    assert.match(html, /<td class="validity notvalid" title="fixture: marked generator-bound">generator-bound<small>fixture: marked generator-bound<\/small><\/td>/);
    assert.match(html, /<td class="validity notvalid" title="no validity verdict in data\/summary.json[^"]*">unknown<small>/);
    assert.match(html, /<td class="validity">valid<\/td>/);
    assert.match(html, /td\.notvalid \{ background: /);

    const verdicts = finishedVerdicts(dir, [...state.entries.values()]);
    assert.equal(verdicts.length, 7);
    assert.equal(formatCounts(verdicts), 'valid 3, generator-bound 1, disturbed 1, server-limited 1, unknown 1');
  });
});

describe('generator-bound prediction (issue #19 item 4): the formula on numbers', () => {
  const capacity = require('../sweep/capacity');
  const { permutations } = require('../sweep/permutations');
  const one = (sel, filter) => permutations({ servers: ['node'], ...sel }).find((p) => filter.test(p.command));

  test('offered samples/s per kind of permutation, plus the ramp-up\'s thread starts', () => {
    const rate = (p) => capacity.offeredRate(p);
    // comet, 1 s events: 5,000 x 1/s, + 5,000 starts over 10 s
    assert.deepEqual(rate(one({ levels: [5000], rampup: 10 }, / comet - event1 1000$/)), { steady: 5000, starts: 500, peak: 5500 });
    // long poll with events at 5 s: 10,000 x 0.2/s
    assert.deepEqual(rate(one({ levels: [10000], rampup: 100 }, / poll 180000 event1 5000$/)), { steady: 2000, starts: 100, peak: 2100 });
    // long poll without events, held 10 s: 1,000 / 10 s
    assert.deepEqual(rate(one({ levels: [1000], rampup: 20 }, / poll 10000$/)), { steady: 100, starts: 50, peak: 150 });
    // comet without events: only the starts; a ramp-up of 0 starts all in one second
    assert.deepEqual(rate(one({ levels: [1000], rampup: 0 }, / comet$/)), { steady: 0, starts: 1000, peak: 1000 });
    // a poll whose max duration is shorter than the emit interval ends at its max duration
    assert.equal(rate({ type: 'poll', connections: 100, rampupS: 1, emitIntervalMs: 10000, maxDurationMs: 2000 }).steady, 50);
  });

  test('needed cores against the limit, per engine share', () => {
    const cal = { cores: 2, cpuUsPerSample: 250 };
    assert.equal(capacity.coresNeeded(4000, 250), 1);
    assert.equal(capacity.sustainableRate(cal, 80), 6400);     // 2 cores x 80% / 250 µs
    assert.equal(capacity.enginesNeeded(15500, cal, 80), 3);
    const heavy = one({ levels: [15000], rampup: 30 }, / poll 180000 event1 1000$/);   // 15,500 samples/s at the peak
    // each engine with its connections as run.sh splits them (./run.sh --plan)
    const p1 = capacity.predict(heavy, [{ name: 'e1', connections: 15000, calibration: cal }], 80);
    assert.equal(p1.generatorBound, true);
    assert.equal(p1.needCores, 3.875);
    assert.deepEqual(p1.engines.map((e) => [e.name, e.connections, e.needCores, e.limitCores, e.bound]), [['e1', 15000, 3.875, 1.6, true]]);
    // three engines share it: 5,000 connections and ~1.29 cores each, under 1.6
    const p3 = capacity.predict(heavy, ['e1', 'e2', 'e3'].map((name) => ({ name, connections: 5000, calibration: cal })), 80);
    assert.equal(p3.generatorBound, false);
    assert.ok(Math.abs(p3.engines[0].needCores - 3.875 / 3) < 1e-9);
    // an engine without a calibration: not predictable unless another one is already over
    assert.equal(capacity.predict(heavy, [{ name: 'e1', connections: 7500, calibration: cal }, { name: 'e2', connections: 7500, calibration: null }], 80).generatorBound, true);
    assert.equal(capacity.predict(one({ levels: [1000] }, / poll 30000$/), [{ name: 'e1', connections: 500, calibration: cal }, { name: 'e2', connections: 500, calibration: null }], 80).generatorBound, null);
    // the limit: a setting, checked
    assert.equal(capacity.engineCpuLimit({}), 80);
    assert.equal(capacity.engineCpuLimit({ PB_ENGINE_CPU_LIMIT: '60' }), 60);
    for (const bad of ['0', '120', 'most']) assert.throws(() => capacity.engineCpuLimit({ PB_ENGINE_CPU_LIMIT: bad }), /PB_ENGINE_CPU_LIMIT/);
  });

  test('the calibration\'s measurement: engine CPU in the steady window over the samples that ended in it', async () => {
    const { measure, ticksAt, engineCores } = require('../sweep/calibrate');
    assert.equal(engineCores('0-1,3'), 3);
    assert.equal(engineCores('2'), 1);
    assert.equal(engineCores(''), require('node:os').cpus().length);
    assert.equal(ticksAt([{ t: 0, ticks: 0 }, { t: 1000, ticks: 100 }], 250), 25);
    assert.equal(ticksAt([{ t: 0, ticks: 0 }, { t: 1000, ticks: 100 }], 2000), null);
    const dir = path.join(BASE, 'measure');
    fs.mkdirSync(dir, { recursive: true });
    const csv = path.join(dir, 'results.csv');
    // 100 samples/s from t=0 to 20 s, each 10 ms long; the window (2 s ramp-up + 3 s, to 20 - 3 s) is 5-17 s
    const rows = ['timeStamp,elapsed,label,responseCode,success'];
    for (let t = 0; t < 20000; t += 10) rows.push(`${t},10,request,200,true`);
    rows.push('5000,1,timestamp,200,true');
    fs.writeFileSync(csv, `${rows.join('\n')}\n`);
    // 100 ticks/s = one core busy
    const readings = Array.from({ length: 22 }, (_, i) => ({ t: i * 1000, ticks: i * 100 }));
    const m = await measure(csv, readings, { rampupS: 2, durationS: 20 }, 100);
    assert.equal(m.samples, 1200);
    assert.equal(m.windowSeconds, 12);
    assert.equal(m.engineCpuCores, 1);
    assert.ok(Math.abs(m.cpuUsPerSample - 10000) < 1e-6, m.cpuUsPerSample);   // 1 core / 100 samples/s
    await assert.rejects(measure(csv, readings.slice(0, 5), { rampupS: 2, durationS: 20 }, 100), /do not cover/);
  });
});

// ---- real sweeps

const { runSweep, readState } = require('./lib/sweep-run');

const sweep = (args, { onOutput, env = {} } = {}) => runSweep(args, { onOutput, env: { PB_HOSTS: HOSTS, ...env } });

const tail = (text, n = 60) => text.split('\n').slice(-n).join('\n');

describe('real sweeps through run.sh', () => {
  before(() => {
    fs.mkdirSync(BASE, { recursive: true });
    // The local default, written out so a user's hosts.conf never changes what the test runs.
    fs.writeFileSync(HOSTS, 'sut local 127.0.0.1 local\nengine local 127.0.0.1 local\n');
  });

  test('mini sweep: 3 servers, both types, 1 level, an unfit level skipped up front, a rest between runs, comparison report', async () => {
    const dir = path.join(BASE, 'mini');
    // One run per server, both types among them (node's poll and tc7's comet run in tests/run-local.test.js).
    const r = await sweep(['--dir', dir, '--yes', '--servers', 'node,tc6,tc7', '--types', 'comet,poll',
      '--levels', '20,19900', '--filter', '^\\./run\\.sh (node|tc6) .* comet - event1 1000$|^\\./run\\.sh tc7 .* poll 180000 event1 1000$',
      '--duration', '5', '--rampup', '1', '--settle', '2']);
    assert.equal(r.code, 0, tail(r.out));

    const state = readState(dir);
    assert.equal(state.length, 6);
    const done = state.filter((s) => s.status === 'done');
    const skipped = state.filter((s) => s.status === 'skipped');
    assert.equal(done.length, 3, tail(r.out));
    assert.deepEqual(done.map((s) => s.key).sort(), [
      './run.sh node 1 5 20 comet - event1 1000 #1', './run.sh tc6 1 5 20 comet - event1 1000 #1',
      './run.sh tc7 1 5 20 poll 180000 event1 1000 #1',
    ]);
    // 19,900 connections + the reserve exceed the 20,000 files one process may open here.
    assert.equal(skipped.length, 3);
    for (const s of skipped) {
      assert.match(s.key, / 19900 /);
      assert.match(s.reason, /does not fit: .*open files/);
    }
    // Said before the first run started.
    const firstRun = r.out.indexOf('sweep: [1/3]');
    assert.ok(firstRun > 0, tail(r.out));
    for (const s of skipped) assert.ok(r.out.indexOf(`skipped: ${s.key}`) < firstRun, `${s.key} skipped up front`);

    for (const s of done) {
      const runDir = path.join(dir, s.runDir);
      const run = JSON.parse(fs.readFileSync(path.join(runDir, 'run.json'), 'utf8'));
      assert.equal(run.status, 'complete');
      assert.equal(`./run.sh ${[run.server, run.rampupS, run.durationS, run.connections, run.type].join(' ')}`,
        s.key.split(' ').slice(0, 6).join(' '));
      assert.ok(fs.existsSync(path.join(runDir, 'data', 'summary.json')));
    }
    // Progress: a line per run and an overall line with the ETA.
    assert.match(r.out, /sweep: \[3\/3\] done in /);
    assert.match(r.out, /sweep: 3\/3 finished, elapsed \S+, ETA 0s/);
    // --settle 2: a rest between two runs, none after the last; sweep.log shows each next start >= 2 s later
    assert.equal(r.out.split('\n').filter((l) => l === 'sweep: resting 2 s before the next run (--settle)').length, 2);
    const events = fs.readFileSync(path.join(dir, 'sweep.log'), 'utf8').trim().split('\n')
      .map((l) => ({ at: Date.parse(l.slice(0, l.indexOf(' '))), what: l.slice(l.indexOf(' ') + 1) }))
      .filter((e) => /^(start|done) \.\/run\.sh /.test(e.what));
    for (let i = 1; i + 1 < events.length; i += 2) {
      assert.match(events[i].what, /^done /);
      assert.ok(events[i + 1].at - events[i].at >= 1900, `rest between ${events[i].what} and ${events[i + 1].what}`);
    }

    // The comparison report (charts/compare.js) and the run index with each run's figures.
    assert.ok(fs.existsSync(path.join(dir, 'report', 'index.html')), 'report/index.html from charts/compare.js');
    const csv = fs.readFileSync(path.join(dir, 'report', 'runs.csv'), 'utf8').trim().split('\n');
    assert.equal(csv.length, 1 + 6);
    const doneRows = csv.filter((l) => /,1 done,1,/.test(l));
    assert.equal(doneRows.length, 3);
    for (const row of doneRows) assert.match(row, /,1 done,1,(valid|generator-bound|disturbed|server-limited|unknown),0,[0-9.]+,[0-9]+,/, `figures in ${row}`);
    assert.match(r.out, /sweep: report: /);
    // The closing summary counts each verdict of the 3 runs.
    const closing = /sweep: validity of the 3 finished runs: (.*)/.exec(r.out);
    assert.ok(closing, tail(r.out));
    assert.equal(closing[1].split(', ').reduce((n, part) => n + Number(part.split(' ').at(-1)), 0), 3, closing[1]);

    // Run again: everything is done or skipped, nothing runs, nothing is overwritten.
    const before = fs.readdirSync(path.join(dir, 'runs')).sort();
    const again = await sweep(['--dir', dir, '--yes']);
    assert.equal(again.code, 0, tail(again.out));
    assert.match(again.out, /3 done before, 0 to run, 3 skipped/);
    assert.deepEqual(fs.readdirSync(path.join(dir, 'runs')).sort(), before);

    // The report on demand, from what the directory holds.
    fs.rmSync(path.join(dir, 'report'), { recursive: true });
    const rep = spawnSync(SWEEP, ['--report', '--dir', dir], { cwd: ROOT, encoding: 'utf8' });
    assert.equal(rep.status, 0, rep.stderr);
    assert.ok(fs.existsSync(path.join(dir, 'report', 'index.html')) && fs.existsSync(path.join(dir, 'report', 'runs.html')));
  });

  test('Ctrl-C during the second run, then resume: every run done once, the interrupted one kept', async () => {
    const dir = path.join(BASE, 'interrupted');
    const args = ['--dir', dir, '--yes', '--servers', 'node', '--types', 'comet', '--levels', '20',
      '--filter', 'event1 (1000|5000)$', '--duration', '5', '--rampup', '1', '--quiet'];
    let sent = false;
    const first = await sweep(args, {
      onOutput: (out, child) => {
        // A few seconds into the second run (servers and engines starting or the load on).
        if (!sent && out.includes('sweep: [2/2] ./run.sh')) {
          sent = true;
          setTimeout(() => child.kill('SIGINT'), 8000);
        }
      },
    });
    assert.ok(sent, tail(first.out));
    assert.equal(first.code, 130, tail(first.out));
    let state = readState(dir);
    assert.deepEqual(state.map((s) => s.status), ['done', 'interrupted'], tail(first.out));
    const firstRunDir = state[0].runDir;
    const interruptedDir = state[1].runDir;
    assert.ok(interruptedDir, 'the interrupted run left its directory');
    const partial = JSON.parse(fs.readFileSync(path.join(dir, interruptedDir, 'run.json'), 'utf8'));
    assert.equal(partial.status, 'incomplete');
    assert.match(first.out, /resume with: \.\/sweep\.sh --dir /);

    // Resume: same directory, no selection given (the saved one is used); raw archives removed after
    // each run's analysis from now on.
    const second = await sweep(['--dir', dir, '--yes', '--quiet', '--cleanup-raw']);
    assert.equal(second.code, 0, tail(second.out));
    assert.match(second.out, /1 done before, 1 to run/);
    state = readState(dir);
    assert.deepEqual(state.map((s) => s.status), ['done', 'done']);
    assert.equal(state[0].runDir, firstRunDir, 'the finished run was not redone');
    assert.notEqual(state[1].runDir, interruptedDir, 'the interrupted permutation ran again, in a new directory');
    const runs = fs.readdirSync(path.join(dir, 'runs')).filter((n) => !n.startsWith('.'));
    assert.equal(runs.length, 3, `2 complete runs + the interrupted one: ${runs}`);
    assert.ok(fs.existsSync(path.join(dir, interruptedDir, 'run.json')), 'the interrupted run is kept');
    for (const s of state.slice(1)) {
      const runDir = path.join(dir, s.runDir);
      assert.deepEqual(fs.readdirSync(path.join(runDir, 'responses')), ['REMOVED.txt'], '--cleanup-raw removed the archives');
      assert.ok(fs.existsSync(path.join(runDir, 'data', 'summary.json')) && fs.existsSync(path.join(runDir, 'report', 'index.html')));
    }
    assert.ok(fs.readdirSync(path.join(dir, firstRunDir, 'responses')).some((f) => f.endsWith('.tar.gz')), 'earlier archives kept');
    // The comparison report draws the two finished runs, not the interrupted attempt.
    const index = fs.readFileSync(path.join(dir, 'report', 'index.html'), 'utf8');
    for (const s of state) assert.ok(index.includes(path.basename(s.runDir)), `${s.runDir} in the comparison index`);
    assert.ok(!index.includes(path.basename(interruptedDir)), 'the interrupted attempt is not averaged in');
    const log = fs.readFileSync(path.join(dir, 'sweep.log'), 'utf8');
    assert.equal(log.split('\n').filter((l) => l.includes(`start ${state[0].key}`)).length, 1);
  });

  test('a failed run is retried only with --retry-failed', async () => {
    const dir = path.join(BASE, 'retry');
    const args = ['--dir', dir, '--yes', '--quiet', '--servers', 'node', '--levels', '20', '--filter', 'poll 1000$',
      '--duration', '3', '--rampup', '1'];
    const key = './run.sh node 1 3 20 poll 1000 #1';
    fs.mkdirSync(dir, { recursive: true });
    // As a sweep leaves it when run.sh failed (e.g. an engine did not start).
    fs.writeFileSync(path.join(dir, 'state.tsv'), `${key}\tfailed\t-\trun.sh exited 1 (run failed or incomplete)\n`);
    const plain = await sweep(args);
    assert.equal(plain.code, 1, tail(plain.out));
    assert.match(plain.out, /0 to run, 0 skipped \(do not fit\), 1 failed before \(not retried without --retry-failed\)/);
    assert.ok(!fs.existsSync(path.join(dir, 'runs')), 'nothing ran');

    const retried = await sweep([...args, '--retry-failed']);
    assert.equal(retried.code, 0, tail(retried.out));
    const [s] = readState(dir);
    assert.equal(s.key, key);
    assert.equal(s.status, 'done');
    assert.ok(fs.existsSync(path.join(dir, s.runDir, 'data', 'summary.json')));
  });

  test('--calibrate: a short real run stores the engine CPU per sample; --check then lists a heavy permutation as generator-bound', async () => {
    const capacity = require('../sweep/capacity');
    const calDir = path.join(BASE, 'calibration');
    const r = await sweep(['--calibrate', '--quiet'], { env: { PB_CALIBRATION: calDir, PB_CALIBRATION_SECONDS: '20' } });
    assert.equal(r.code, 0, tail(r.out));
    const file = path.join(calDir, `${capacity.thisHost()}.json`);
    assert.deepEqual(fs.readdirSync(calDir), [path.basename(file)], 'only the calibration stays, the run is removed');
    const cal = JSON.parse(fs.readFileSync(file, 'utf8'));
    // plausible: JMeter spends more than a microsecond and less than 0.1 s of CPU on one poll answer
    assert.ok(cal.cpuUsPerSample > 1 && cal.cpuUsPerSample < 100000, `cpuUsPerSample ${cal.cpuUsPerSample}`);
    assert.equal(cal.cores, require('node:os').cpus().length);
    assert.equal(cal.host, capacity.thisHost());
    assert.match(cal.jmeterVersion, /^\d+\.\d+/);
    assert.ok(Date.now() - Date.parse(cal.measuredAt) < 600000);
    assert.deepEqual([cal.settings.connections, cal.settings.emitIntervalMs, cal.settings.durationS, cal.settings.type], [200, 500, 20, 'poll']);
    // 200 threads answered every 500 ms: ~400 samples/s offered, the window's rate near it
    assert.ok(cal.measured.samplesPerSecond > 200 && cal.measured.samplesPerSecond < 600, `${cal.measured.samplesPerSecond}/s`);
    assert.match(r.out, new RegExp(`sweep: calibration saved: ${file.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')}`));

    // --check with it: comet at 1 s events and a 1 s ramp-up offers 2 x threads samples/s at its peak;
    // a level at 1.2 x what the engine sustains is predicted generator-bound, 20 threads are not.
    const sustainable = capacity.sustainableRate(cal, capacity.DEFAULT_ENGINE_CPU_LIMIT);
    const heavy = Math.ceil((1.2 * sustainable) / 2);
    assert.ok(heavy <= 19000, `a level of ${heavy} fits the open-file limit`);
    const args = ['--check', '--servers', 'node', '--types', 'comet', '--filter', 'event1 1000$', '--levels', `20,${heavy}`, '--rampup', '1'];
    const check = await sweep(args, { env: { PB_CALIBRATION: calDir } });
    assert.equal(check.code, 0, tail(check.out));
    assert.match(check.out, new RegExp(`sweep: engine local: [0-9.,]+ µs of engine CPU per sample, ${cal.cores} cores \\(${file}`));
    assert.match(check.out, /generator-bound prediction \(an engine may need at most 80% of its host's cores, PB_ENGINE_CPU_LIMIT\): 1 of 2 permutations predicted generator-bound/);
    const need = capacity.predict(require('../sweep/permutations').permutations({ servers: ['node'], types: ['comet'], levels: [heavy], rampup: 1 })[0],
      [{ name: 'local', connections: heavy, calibration: cal }], 80).needCores;
    assert.ok(need > cal.cores * 0.8);
    const line = new RegExp(`sweep: predicted generator-bound: \\./run\\.sh node 1 600 ${heavy} comet - event1 1000: ~[0-9,]+ samples/s .*needs ${need.toLocaleString('en-GB', { maximumFractionDigits: 1 }).replace(/\./g, '\\.')} engine cores; local [0-9.]+ of 1\\.6 usable \\(80% of ${cal.cores}\\); ~2 engines like local would keep up`);
    assert.match(check.out, line);
    assert.doesNotMatch(check.out, /predicted generator-bound: \.\/run\.sh node 1 600 20 /);

    // No calibration: said, with how to make one.
    const none = await sweep(args, { env: { PB_CALIBRATION: path.join(BASE, 'no-calibration') } });
    assert.equal(none.code, 0, tail(none.out));
    assert.match(none.out, /engine local: no calibration \(looked for .*local\.json.*\); make one with \.\/sweep\.sh --calibrate/);
    assert.match(none.out, /generator-bound prediction: not possible without a calibration/);
  });

  test('--check: hosts, limits and disk up front; unreachable hosts fail with exit 3', async () => {
    const r = await sweep(['--check', '--dir', path.join(BASE, 'check'), '--levels', '1000,19900,25000', '--servers', 'node']);
    assert.equal(r.code, 0, tail(r.out));
    assert.match(r.out, /host sut local 127\.0\.0\.1: open files \d+/);
    assert.match(r.out, /39 selected: 0 done before, 13 to run, 26 skipped/);
    assert.match(r.out, /skipped: \.\/run\.sh node 30 600 25000 comet - event1 1000 #1: does not fit/);
    assert.match(r.out, /estimated time: /);
    assert.match(r.out, /disk: response archives ~/);
    assert.ok(!fs.existsSync(path.join(BASE, 'check')), 'nothing ran, no directory made');

    const bad = path.join(BASE, 'unreachable.conf');
    // 127.0.0.1 port 1 has no sshd: ssh fails at once, nothing leaves the machine.
    fs.writeFileSync(bad, 'sut local 127.0.0.1 local\nengine gone 127.0.0.1 ssh:nobody@127.0.0.1 port=1\n');
    const r2 = await new Promise((resolve) => {
      const child = spawn(SWEEP, ['--dir', path.join(BASE, 'bad'), '--yes', '--servers', 'node', '--levels', '20'],
        { cwd: ROOT, env: { ...process.env, PB_HOSTS: bad }, stdio: ['ignore', 'pipe', 'pipe'] });
      let out = '';
      child.stdout.on('data', (d) => { out += d; });
      child.stderr.on('data', (d) => { out += d; });
      child.on('close', (code) => resolve({ code, out }));
    });
    assert.equal(r2.code, 3, r2.out);
    assert.match(r2.out, /engine gone 127\.0\.0\.1: UNREACHABLE/);
    assert.ok(!fs.existsSync(path.join(BASE, 'bad', 'runs')), 'nothing ran');
  });
});
