'use strict';
// sweep.sh: the study's permutations through ./run.sh, one at a time, resumable. See ./sweep.sh --help.
//
// A sweep directory holds: sweep.json (the selection, reused on resume), state.tsv (one line per
// permutation and repeat, see state.js), sweep.log (every attempt, appended), logs/ (run.sh's output per
// attempt), runs/ (run.sh's run directories: PB_RESULTS) and report/ (comparison report and run index).

const fs = require('node:fs');
const path = require('node:path');
const { spawn, spawnSync } = require('node:child_process');
const readline = require('node:readline');

const { permutations, matchesFilters } = require('./permutations');
const { SweepState } = require('./state');
const { writeFileAtomic } = require('../atomic-write');
const { parse, withDefaults, USAGE, UsageError } = require('./options');
const plan = require('./plan');
const { writeReport, finishedVerdicts } = require('./report');
const { formatCounts } = require('./validity');
const capacity = require('./capacity');
const { calibrate } = require('./calibrate');

const ROOT = path.resolve(__dirname, '..', '..');
const RUN_SH = path.join(ROOT, 'run.sh');
const MAX_FAILURES_IN_A_ROW = 3;

const EXIT_MEANING = {
  0: 'complete', 1: 'run failed or incomplete', 2: 'usage or hosts.conf error', 3: 'preflight failed',
  4: 'complete, but the server under test crashed', 130: 'interrupted',
};

function say(line) {
  process.stdout.write(`sweep: ${line}\n`);
}

function stamp(d = new Date()) {
  const p = (n) => String(n).padStart(2, '0');
  return `${d.getFullYear()}${p(d.getMonth() + 1)}${p(d.getDate())}-${p(d.getHours())}${p(d.getMinutes())}${p(d.getSeconds())}`;
}

function clock(d) {
  return d.toISOString().slice(11, 16) + ' UTC';
}

// The selected permutations, each repeat a separate item with its own state line.
function itemsFor(sel) {
  const items = [];
  const perms = permutations(sel).filter((p) => matchesFilters(p.command, sel.filters));
  for (const perm of perms) {
    for (let r = 1; r <= sel.repeat; r++) items.push({ perm, repeat: r, key: `${perm.command} #${r}` });
  }
  return { perms, items };
}

// One process per sweep directory: a lock file holding our PID (a stale one, whose PID is gone, is taken over).
function lockDir(dir) {
  const lock = path.join(dir, '.lock');
  for (let attempt = 0; attempt < 2; attempt++) {
    try {
      fs.writeFileSync(lock, `${process.pid}\n`, { flag: 'wx' });
      process.on('exit', () => fs.rmSync(lock, { force: true }));
      return;
    } catch (e) {
      if (e.code !== 'EEXIST') throw e;
      const pid = Number(fs.readFileSync(lock, 'utf8').trim());
      let alive = false;
      try {
        process.kill(pid, 0);
        alive = true;
      } catch { /* gone */ }
      if (alive) throw new Error(`${dir} is in use by another sweep (PID ${pid})`);
      fs.rmSync(lock, { force: true });
    }
  }
  throw new Error(`cannot lock ${dir}`);
}

// Every host of hosts.conf, reached and checked the way run.sh does it (lib/sweep-hosts.sh runs run.sh's
// lib/host-check.sh on each): { hosts: [{role, name, address, status, soft, hard, freeKb, message}], problems }.
function hostFacts(servers) {
  const r = spawnSync(path.join(ROOT, 'lib', 'sweep-hosts.sh'), servers, { cwd: ROOT, encoding: 'utf8', timeout: 300000 });
  if (r.status !== 0) {
    process.stderr.write(r.stderr || r.error?.message || '');
    return { error: r.status === 2 ? 2 : 3 };
  }
  const hosts = [];
  const problems = [];
  const config = {};
  for (const line of r.stdout.split('\n').filter(Boolean)) {
    const f = line.split('\t');
    if (f[0] === 'host') {
      const [, role, name, address, status, soft, hard, freeKb, message] = f;
      hosts.push({ role, name, address, status, soft: Number(soft), hard: Number(hard), freeKb: Number(freeKb),
        message: (message || '').trim() });
    } else if (f[0] === 'problem') {
      problems.push(`${f[1]}: ${f[2]}`);
    } else if (f[0] === 'config') {
      config[f[1]] = f[2];
    }
  }
  return { hosts, problems, reserve: Number(config.PB_FD_RESERVE ?? 200) };
}

async function confirm(question) {
  if (!process.stdin.isTTY) {
    throw new UsageError('stdin is not a terminal, so nobody can answer; pass --yes to start without asking');
  }
  const rl = readline.createInterface({ input: process.stdin, output: process.stdout });
  const answer = await new Promise((resolve) => rl.question(question, resolve));
  rl.close();
  return /^y(es)?$/i.test(answer.trim());
}

function lastErrorLine(text) {
  const lines = text.split('\n').map((l) => l.trim()).filter(Boolean);
  const err = lines.filter((l) => /^run\.sh:/.test(l) || /error|fail/i.test(l));
  return (err.at(-1) ?? lines.at(-1) ?? '').slice(0, 300);
}

const fixed = (n, d = 1) => n.toLocaleString('en-GB', { maximumFractionDigits: d });

// Before the first run: each engine's calibration, and the permutations whose offered sample rate
// would need more of the engines' cores than PB_ENGINE_CPU_LIMIT allows (capacity.js).
function predictGeneratorBound(perms, engines) {
  let limit;
  try {
    limit = capacity.engineCpuLimit();
  } catch (e) {
    say(`WARNING: ${e.message}; no generator-bound prediction`);
    return;
  }
  const dir = capacity.calibrationDir();
  const calibrated = engines.map((e) => {
    const c = capacity.calibrationFor(e, dir);
    if (c.calibration) {
      const cal = c.calibration;
      say(`engine ${e.name}: ${fixed(cal.cpuUsPerSample)} µs of engine CPU per sample, ${cal.cores} cores `
        + `(${c.file}, measured ${cal.measuredAt}): ~${fixed(capacity.sustainableRate(cal, limit), 0)} samples/s within ${limit}% of its cores`);
    } else if (c.problem) {
      say(`WARNING: engine ${e.name}: calibration ${c.file} ${c.problem}; make a new one with ./sweep.sh --calibrate on that host`);
    } else {
      say(`engine ${e.name}: no calibration (looked for ${c.files.join(', ')}); make one with ./sweep.sh --calibrate`
        + ' on that host (and copy it here under the engine\'s hosts.conf name)');
    }
    return { name: e.name, calibration: c.calibration ?? null };
  });
  if (!perms.length) return;
  if (calibrated.every((e) => !e.calibration)) {
    say('generator-bound prediction: not possible without a calibration (./sweep.sh --calibrate)');
    return;
  }
  const predicted = perms.map((p) => ({ p, pr: capacity.predict(p, calibrated, limit) }));
  const bound = predicted.filter((x) => x.pr.generatorBound === true);
  const unknown = predicted.filter((x) => x.pr.generatorBound === null).length;
  say(`generator-bound prediction (an engine may need at most ${limit}% of its host's cores, PB_ENGINE_CPU_LIMIT): `
    + `${bound.length} of ${perms.length} permutations predicted generator-bound${unknown ? `, ${unknown} not predictable (engines without a calibration)` : ''}`);
  for (const { p, pr } of bound) {
    const over = pr.engines.filter((e) => e.bound);
    const model = calibrated.find((e) => e.calibration);
    say(`predicted generator-bound: ${p.command}: ~${fixed(pr.rate.peak, 0)} samples/s at the ramp-up's end `
      + `(${fixed(pr.rate.steady, 0)} steady + ${fixed(pr.rate.starts, 0)} thread starts), needs ${pr.needCores === null ? '?' : fixed(pr.needCores)} engine cores; `
      + over.map((e) => `${e.name} ${fixed(e.needCores)} of ${fixed(e.limitCores)} usable (${limit}% of ${e.cores})`).join(', ')
      + `; ~${capacity.enginesNeeded(pr.rate.peak, model.calibration, limit)} engines like ${model.name} would keep up`);
  }
}

class Sweep {
  constructor(o, dir, sel) {
    this.o = o;
    this.dir = dir;
    this.sel = sel;
    this.runsDir = path.join(dir, 'runs');
    this.logsDir = path.join(dir, 'logs');
    this.state = new SweepState(dir);
    this.child = null;
    this.interrupted = false;
    this.wake = null;    // ends a rest between runs early (a signal)
    this.overheads = []; // seconds each run took beyond rampup + duration
  }

  // Waits ms, or less if a signal comes.
  rest(ms) {
    return new Promise((resolve) => {
      const timer = setTimeout(() => { this.wake = null; resolve(); }, ms);
      this.wake = () => { clearTimeout(timer); this.wake = null; resolve(); };
    });
  }

  log(line) {
    fs.appendFileSync(path.join(this.dir, 'sweep.log'), `${new Date().toISOString()} ${line}\n`);
  }

  onSignal(sig) {
    if (!this.interrupted) say(`${sig}: stopping after run.sh has cleaned up the current run`);
    this.interrupted = true;
    this.wake?.();
    // run.sh runs in its own process group, so a Ctrl-C at the terminal reaches only us; pass it on once
    // per signal: run.sh stops everything it started and keeps the results.
    if (this.child && this.child.exitCode === null) {
      try {
        process.kill(this.child.pid, 'SIGINT');
      } catch { /* already gone */ }
    }
  }

  // Runs run.sh for one item; resolves to { code, runDir, tail }.
  runOne(item, logFile) {
    const dirFile = path.join(this.dir, '.run-dir');
    fs.rmSync(dirFile, { force: true });
    const fd = fs.openSync(logFile, 'a');
    fs.writeSync(fd, `\n### ${new Date().toISOString()} ${item.key}\n`);
    let tail = '';
    return new Promise((resolve) => {
      const child = spawn(RUN_SH, item.perm.args, {
        cwd: ROOT,
        env: { ...process.env, PB_RESULTS: this.runsDir, PB_RUN_DIR_FILE: dirFile },
        stdio: ['ignore', 'pipe', 'pipe'],
        detached: true,
      });
      this.child = child;
      const pass = (stream) => (chunk) => {
        fs.writeSync(fd, chunk);
        if (!this.o.quiet) stream.write(chunk);
        tail = (tail + chunk.toString()).slice(-4000);
      };
      child.stdout.on('data', pass(process.stdout));
      child.stderr.on('data', pass(process.stderr));
      child.on('error', (e) => {
        tail += `\n${e.message}`;
      });
      child.on('close', (code, signal) => {
        this.child = null;
        fs.closeSync(fd);
        let runDir = null;
        if (fs.existsSync(dirFile)) {
          runDir = fs.readFileSync(dirFile, 'utf8').trim() || null;
          fs.rmSync(dirFile, { force: true });
        }
        resolve({ code: code ?? (signal ? 128 : 1), signal, runDir, tail });
      });
    });
  }

  cleanupRaw(runDir) {
    const responses = path.join(runDir, 'responses');
    if (!fs.existsSync(path.join(runDir, 'data', 'summary.json')) || !fs.existsSync(responses)) return 0;
    let freed = 0;
    for (const f of fs.readdirSync(responses)) {
      if (!f.endsWith('.tar.gz')) continue;
      freed += fs.statSync(path.join(responses, f)).size;
      fs.rmSync(path.join(responses, f));
    }
    fs.writeFileSync(path.join(responses, 'REMOVED.txt'),
      `The raw response archives of this run were deleted by sweep.sh --cleanup-raw on ${new Date().toISOString()},\n`
      + 'after the analysis had written data/ and charts/.\n');
    return freed;
  }

  async run() {
    const { o, dir, sel, state } = this;
    const { items } = itemsFor(sel);
    if (items.length === 0) {
      say('the selection holds no permutation (see --list)');
      return 2;
    }

    // ---- preflight, for the whole sweep, before anything runs
    if (!fs.existsSync(RUN_SH)) {
      say(`preflight failed: ${RUN_SH} not found`);
      return 3;
    }
    const servers = [...new Set(items.map((i) => i.perm.server))];
    const facts = hostFacts(servers);
    if (facts.error) {
      say(facts.error === 2 ? 'hosts file error (above)' : 'preflight failed: cannot check the hosts (above)');
      return facts.error;
    }
    const { hosts } = facts;
    for (const h of hosts) {
      say(`host ${h.role} ${h.name} ${h.address}: ${h.status === 'ok'
        ? `open files ${h.soft} (hard limit ${h.hard}), ${plan.formatBytes(h.freeKb * 1024)} free` : `UNREACHABLE ${h.message}`}`);
    }
    const down = hosts.filter((h) => h.status !== 'ok');
    for (const p of facts.problems) say(`problem: ${p}`);
    const preflightFailed = down.length > 0 || facts.problems.length > 0;
    if (down.length || (preflightFailed && o.mode !== 'check')) {
      say(`preflight failed: ${down.length ? `${down.map((h) => h.name).join(', ')} unreachable` : 'problems above'}; nothing was started`);
      return 3;
    }

    const { reserve } = facts; // lib/config.sh's PB_FD_RESERVE, as run.sh's preflight uses it
    const todo = [];
    const skipped = [];
    let doneBefore = 0;
    let failedBefore = 0;
    for (const item of items) {
      const prev = state.get(item.key);
      if (prev && (prev.status === 'done' || prev.status === 'crashed')) {
        doneBefore++;
        continue;
      }
      const f = plan.fit(item.perm, hosts, reserve);
      if (!f.fits) {
        skipped.push(item);
        if (o.mode !== 'check') state.set(item.key, 'skipped', null, f.reason);
        else state.entries.set(item.key, { status: 'skipped', runDir: null, reason: f.reason });
        continue;
      }
      if (prev && prev.status === 'failed' && !o.retryFailed) {
        failedBefore++;
        continue;
      }
      todo.push(item);
    }

    say(`directory ${path.relative(process.cwd(), dir) || '.'} (resume: ./sweep.sh --dir ${dir})`);
    say(`${items.length} selected: ${doneBefore} done before, ${todo.length} to run, ${skipped.length} skipped (do not fit)`
      + (failedBefore ? `, ${failedBefore} failed before (not retried without --retry-failed)` : ''));
    for (const item of skipped) say(`skipped: ${item.key}: ${state.get(item.key).reason}`);

    const seconds = todo.reduce((s, i) => s + plan.runSeconds(i.perm, plan.DEFAULT_OVERHEAD_S), 0)
      + o.settle * Math.max(0, todo.length - 1);
    if (todo.length) {
      say(`estimated time: ${plan.formatDuration(seconds)} (ramp-up + duration + ~${plan.DEFAULT_OVERHEAD_S} s per run${o.settle ? `, ${o.settle} s rest between runs` : ''}), until about ${clock(new Date(Date.now() + seconds * 1000))}`);
    }

    // Disk: the sweep directory keeps the archives; the engines hold one run's raw files at a time.
    const disk = plan.diskEstimate(todo.map((i) => i.perm), { cleanupRaw: o.cleanupRaw });
    let existing = dir;
    while (!fs.existsSync(existing)) existing = path.dirname(existing);
    const here = fs.statfsSync(existing);
    const freeHere = here.bavail * here.bsize;
    const engines = hosts.filter((h) => h.role === 'engine');
    const rawPerEngine = disk.maxRaw / Math.max(1, engines.length);
    say(`disk: response archives ~${plan.formatBytes(disk.keptArchive)} kept in ${dir} (${plan.formatBytes(freeHere)} free); `
      + `largest run ~${plan.formatBytes(disk.maxRaw)} of raw response files on the engines while it runs`);
    let diskShort = false;
    if (disk.keptArchive + disk.maxRaw > freeHere * 0.9) {
      diskShort = true;
      say(`WARNING: the sweep directory's disk may fill up${o.cleanupRaw ? '' : '; --cleanup-raw keeps only one run\'s archives at a time'}`);
    }
    for (const e of engines) {
      if (rawPerEngine > e.freeKb * 1024 * 0.9) {
        diskShort = true;
        say(`WARNING: engine ${e.name} has ${plan.formatBytes(e.freeKb * 1024)} free, the largest run saves ~${plan.formatBytes(rawPerEngine)} of responses there`);
      }
    }
    predictGeneratorBound([...new Map(todo.map((i) => [i.perm.command, i.perm])).values()], engines);
    if (o.mode === 'check') {
      say(preflightFailed ? 'check: preflight FAILED (problems above)' : 'check: ready');
      return preflightFailed ? 3 : 0;
    }
    if (todo.length === 0) {
      say('nothing to run');
      this.report();
      return failedBefore ? 1 : 0;
    }
    if (!o.yes && !(await confirm(`sweep: start ${todo.length} run(s)${diskShort ? ' despite the disk warning' : ''}? [y/N] `))) {
      say('not started');
      return 0;
    }

    // ---- the runs
    fs.mkdirSync(this.runsDir, { recursive: true });
    fs.mkdirSync(this.logsDir, { recursive: true });
    const handlers = ['SIGINT', 'SIGTERM', 'SIGHUP'].map((sig) => {
      const h = () => this.onSignal(sig);
      process.on(sig, h);
      return [sig, h];
    });
    const started = Date.now();
    let failedInARow = 0;
    let failed = 0;
    let k = 0;
    try {
      for (const item of todo) {
        if (this.interrupted) break;
        k++;
        const index = items.indexOf(item) + 1;
        const logFile = path.join(this.logsDir, `${String(index).padStart(3, '0')}-${item.perm.server}-${item.perm.type}-${item.perm.threads}-r${item.repeat}.log`);
        say(`[${k}/${todo.length}] ${item.key}`);
        this.log(`start ${item.key}`);
        const t0 = Date.now();
        const r = await this.runOne(item, logFile);
        const took = (Date.now() - t0) / 1000;
        const rel = r.runDir ? path.relative(dir, path.resolve(ROOT, r.runDir)) : null;
        let status;
        let reason = `run.sh exited ${r.code} (${EXIT_MEANING[r.code] ?? 'unexpected'})`;
        if (r.code === 0) status = 'done';
        else if (r.code === 4) status = 'crashed';
        else if (r.code === 130 || (this.interrupted && r.code !== 0)) status = 'interrupted';
        else {
          status = 'failed';
          reason += `: ${lastErrorLine(r.tail)}`;
        }
        if (status === 'done' || status === 'crashed') {
          reason = status === 'crashed' ? 'the server under test crashed during the run' : '';
          if (o.cleanupRaw && r.runDir) {
            const freed = this.cleanupRaw(path.resolve(ROOT, r.runDir));
            if (freed) say(`removed ${plan.formatBytes(freed)} of raw response archives (--cleanup-raw)`);
          }
          this.overheads.push(Math.max(0, took - item.perm.rampup - item.perm.duration));
          failedInARow = 0;
        } else if (status === 'failed') {
          failed++;
          failedInARow++;
        }
        state.set(item.key, status, rel, reason);
        this.log(`${status} ${item.key} ${rel ?? '-'} ${reason}`);
        say(`[${k}/${todo.length}] ${status} in ${plan.formatDuration(took)}: ${item.key}${rel ? ` -> ${rel}` : ''}${status === 'done' ? '' : ` (${reason})`}`);

        const overhead = this.overheads.length
          ? this.overheads.reduce((a, b) => a + b, 0) / this.overheads.length : plan.DEFAULT_OVERHEAD_S;
        const left = todo.slice(k).reduce((s, i) => s + o.settle + plan.runSeconds(i.perm, overhead), 0);
        const elapsed = (Date.now() - started) / 1000;
        say(`${k}/${todo.length} finished, elapsed ${plan.formatDuration(elapsed)}, ETA ${plan.formatDuration(left)}`
          + (left > 0 ? ` (about ${clock(new Date(Date.now() + left * 1000))})` : ''));
        if (status === 'interrupted') break;
        if (failedInARow >= MAX_FAILURES_IN_A_ROW) {
          say(`stopping: ${failedInARow} runs in a row failed (see ${this.logsDir}); fix the cause, then resume with --retry-failed`);
          break;
        }
        if (o.settle > 0 && k < todo.length && !this.interrupted) {
          say(`resting ${o.settle} s before the next run (--settle)`);
          await this.rest(o.settle * 1000);
        }
      }
    } finally {
      for (const [sig, h] of handlers) process.off(sig, h);
    }

    if (this.interrupted) {
      say(`interrupted; resume with: ./sweep.sh --dir ${dir}`);
      this.report();
      return 130;
    }
    this.report();
    const counts = {};
    for (const item of items) {
      const s = state.get(item.key)?.status ?? 'not run';
      counts[s] = (counts[s] ?? 0) + 1;
    }
    say(`finished: ${Object.entries(counts).map(([s, n]) => `${n} ${s}`).join(', ')}`);
    const verdicts = finishedVerdicts(dir, items.map((i) => state.get(i.key)));
    if (verdicts.length) say(`validity of the ${verdicts.length} finished runs: ${formatCounts(verdicts)}`);
    return failed || items.some((i) => ['failed', 'interrupted', undefined].includes(state.get(i.key)?.status)) ? 1 : 0;
  }

  report() {
    try {
      const out = writeReport(this.dir, { log: say });
      if (out) say(`report: ${out}`);
    } catch (e) {
      say(`report failed: ${e.message}`);
    }
  }
}

async function main(argv) {
  let o;
  try {
    o = parse(argv);
  } catch (e) {
    if (!(e instanceof UsageError)) throw e;
    process.stderr.write(`sweep.sh: ${e.message}\n(./sweep.sh --help for the options)\n`);
    return 2;
  }
  if (o.mode === 'help') {
    process.stdout.write(`${USAGE}\n`);
    return 0;
  }
  if (o.mode === 'list') {
    const { perms } = itemsFor(withDefaults(o.selection));
    process.stdout.write(perms.map((p) => `${p.command}\n`).join(''));
    return 0;
  }

  if (o.mode === 'calibrate') {
    try {
      const { file, calibration: c } = await calibrate({ log: (l) => say(`calibrate: ${l}`), verbose: !o.quiet });
      say(`calibration: ${fixed(c.cpuUsPerSample)} µs of engine CPU per sample (${c.measured.samples} samples in `
        + `${c.measured.windowSeconds} s, ${c.measured.samplesPerSecond}/s, the engine at ${fixed(c.measured.engineCpuCores * 100, 0)}% of one core); `
        + `this host (${c.cores} cores) sustains ~${fixed(capacity.sustainableRate(c, capacity.engineCpuLimit()), 0)} samples/s within `
        + `${capacity.engineCpuLimit()}% of its cores`);
      say(`calibration saved: ${file}`);
      return 0;
    } catch (e) {
      process.stderr.write(`sweep.sh: calibration failed: ${e.message}\n`);
      return 1;
    }
  }

  const dir = path.resolve(o.dir ?? path.join(ROOT, 'sweeps', stamp()));
  if (o.mode === 'report') {
    if (!fs.existsSync(dir)) {
      process.stderr.write(`sweep.sh: ${dir}: no such sweep directory\n`);
      return 2;
    }
    const out = writeReport(dir, { log: say });
    if (out) say(`report: ${out}`);
    return 0;
  }

  // The selection: the one given, or, resuming without one, the one saved in the directory.
  // (--check leaves no trace: it creates no directory.)
  if (o.mode !== 'check') fs.mkdirSync(dir, { recursive: true });
  const saved = path.join(dir, 'sweep.json');
  let sel;
  if (Object.keys(o.selection).length === 0 && fs.existsSync(saved)) {
    sel = withDefaults(JSON.parse(fs.readFileSync(saved, 'utf8')).selection);
    say(`resuming with the selection saved in ${saved}`);
  } else {
    sel = withDefaults(o.selection);
  }
  try {
    if (fs.existsSync(dir)) lockDir(dir);
  } catch (e) {
    process.stderr.write(`sweep.sh: ${e.message}\n`);
    return 2;
  }
  if (o.mode !== 'check') {
    writeFileAtomic(saved, `${JSON.stringify({ updated: new Date().toISOString(), selection: sel }, null, 2)}\n`);
  }
  try {
    return await new Sweep(o, dir, sel).run();
  } catch (e) {
    if (!(e instanceof UsageError)) throw e;
    process.stderr.write(`sweep.sh: ${e.message}\n`);
    return 2;
  }
}

module.exports = { main, itemsFor };

if (require.main === module) {
  main(process.argv.slice(2)).then((code) => {
    process.exitCode = code;
  }, (e) => {
    process.stderr.write(`sweep.sh: ${e.stack || e}\n`);
    process.exitCode = 1;
  });
}
