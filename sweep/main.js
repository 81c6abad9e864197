'use strict';
// sweep.sh: the study's permutations through ./run.sh, one at a time (one per lane with --lanes), resumable. See ./sweep.sh --help.
//
// A sweep directory holds: sweep.json (the selection, reused on resume), state.tsv (one line per
// permutation and repeat, see state.js), sweep.log (every attempt, appended), logs/ (run.sh's output per
// attempt), runs/ (run.sh's run directories: PB_RESULTS) and report/ (comparison report and run index).

const fs = require('node:fs');
const path = require('node:path');
const { spawn } = require('node:child_process');
const readline = require('node:readline');

const { permutations, matchesFilters, withDuration } = require('./permutations');
const { SweepState, StateError } = require('./state');
const { writeFileAtomic } = require('../lib/atomic-write');
const { removeRawArchives } = require('./cleanup-raw');
const { ensureAnalysed, analysedLine } = require('./reanalyse');
const { parse, withDefaults, recheck, USAGE, UsageError } = require('./options');
const estimates = require('./estimates');
const { writeReport, finishedVerdicts, thresholdCounts, runThresholdText } = require('./report');
const { formatCounts } = require('../analysis/verdict');
const capacity = require('./capacity');
const { calibrate } = require('./calibrate');
const budget = require('./budget');
const { hostFacts } = require('./hosts');
const { applyDurations } = budget;
const { laneEnvs, defaultLane, missingFiles, sharedHosts } = require('./lanes');

const ROOT = path.resolve(__dirname, '..');
const RUN_SH = path.join(ROOT, 'run.sh');
const MAX_FAILURES_IN_A_ROW = 3;

const EXIT_MEANING = {
  0: 'complete', 1: 'run failed or incomplete', 2: 'usage or hosts.conf error', 3: 'preflight failed',
  4: 'complete, but the server under test crashed', 5: 'another run holds the state directory, nothing started',
  6: 'a run killed beyond any trap waits for ./run.sh --stop-stale, nothing started', 7: 'complete, but a threshold failed',
  130: 'interrupted',
};
// The sweep's own exit code when every selected run is done but some run's threshold failed (run.sh's 7).
const EXIT_THRESHOLD_FAILED = 7;

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

async function confirm(question) {
  if (!process.stdin.isTTY) {
    throw new UsageError('stdin is not a terminal, so nobody can answer; pass --yes to start without asking');
  }
  const rl = readline.createInterface({ input: process.stdin, output: process.stdout });
  const answer = await new Promise((resolve) => rl.question(question, resolve));
  rl.close();
  return /^y(es)?$/i.test(answer.trim());
}

// ./run.sh --stop <run id> (--stop-stale without one) in a lane's environment: a run.sh killed beyond any
// trap (SIGKILL, the OOM killer) or cut off with its sweep leaves processes and a run.json saying "running";
// this stops them, collects what they wrote and marks the run incomplete (lib/state-dir.sh). Resolves to
// what it did, in a line.
function stopLeftRun(runDir, env) {
  const args = runDir ? ['--stop', path.basename(runDir)] : ['--stop-stale'];
  return new Promise((resolve) => {
    const child = spawn(RUN_SH, args, { cwd: ROOT, env: { ...process.env, ...env }, stdio: ['ignore', 'pipe', 'pipe'] });
    let out = '';
    child.stdout.on('data', (d) => { out += d; });
    child.stderr.on('data', (d) => { out += d; });
    child.on('close', (code) => resolve(`./run.sh ${args.join(' ')}: ${out.trim().split('\n').pop() || `exit ${code}`}`));
  });
}

function lastErrorLine(text) {
  const lines = text.split('\n').map((l) => l.trim()).filter(Boolean);
  const err = lines.filter((l) => /^run\.sh:/.test(l) || /error|fail/i.test(l));
  return (err.at(-1) ?? lines.at(-1) ?? '').slice(0, 300);
}

const fixed = (n, d = 1) => n.toLocaleString('en-GB', { maximumFractionDigits: d });

// Before the first run: each engine's calibration, and the permutations whose offered sample rate
// would need more of the engines' cores than PB_ENGINE_CPU_LIMIT allows (capacity.js). splitOf(perm):
// its engines' connections as run.sh splits them ([{ name, connections }], the decisions' engines).
function predictGeneratorBound(perms, engines, splitOf) {
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
  const calibrations = new Map(calibrated.map((e) => [e.name, e.calibration]));
  const predicted = perms.map((p) => ({
    p, pr: capacity.predict(p, splitOf(p).map((e) => ({ ...e, calibration: calibrations.get(e.name) ?? null })), limit),
  }));
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

// ---- the sweep's order and its runs' outcomes, worked out from plain values ----

// " on 2 lanes (a: lanes/a.conf, ...)" for a sweep over several lanes, '' for one.
function lanesText(lanes) {
  return lanes.length > 1 ? ` on ${lanes.length} lanes (${lanes.map((l) => `${l.name}: ${l.file}`).join(', ')})` : '';
}

// Sorts the selected items by state.tsv and the lanes' fits (decisions: the RunDecisions of every item not done):
// done before (done or crashed), skipped ({ item, reason }: it fits no lane), failed before (not retried
// without --retry-failed), else to do, each to-do item with the lanes it fits (item.lanes).
function sortItems(items, state, lanes, decisions, retryFailed) {
  const sorted = { todo: [], skipped: [], doneBefore: 0, failedBefore: 0 };
  for (const item of items) {
    const prev = state.get(item.key);
    if (prev && (prev.status === 'done' || prev.status === 'crashed')) {
      sorted.doneBefore++;
      continue;
    }
    const fits = lanes.map((l) => estimates.fit(decisions.get(item.perm, l)));
    const fitting = lanes.filter((l, k) => fits[k].fits);
    if (!fitting.length) {
      const reason = lanes.length > 1 ? lanes.map((l, k) => `lane ${l.name}: ${fits[k].reason}`).join('; ') : fits[0].reason;
      sorted.skipped.push({ item, reason });
      continue;
    }
    if (prev && prev.status === 'failed' && !retryFailed) {
      sorted.failedBefore++;
      continue;
    }
    sorted.todo.push({ ...item, lanes: fitting });
  }
  return sorted;
}

// The distinct permutations of the to-do items a lane may run.
function laneTodo(todo, lane) {
  return [...new Map(todo.filter((i) => i.lanes.includes(lane)).map((i) => [i.perm.command, i.perm])).values()];
}

// Says how long the runs to do should take: ramp-up + duration + the default overhead each, and the
// rests between them, shared over the lanes.
function sayEstimate(todo, settle, laneCount) {
  if (!todo.length) return;
  const seconds = (todo.reduce((s, i) => s + estimates.runSeconds(i.perm, estimates.DEFAULT_OVERHEAD_S), 0)
    + settle * Math.max(0, todo.length - 1)) / laneCount;
  say(`estimated time: ${estimates.formatDuration(seconds)} (ramp-up + duration + ~${estimates.DEFAULT_OVERHEAD_S} s per run${settle ? `, ${settle} s rest between runs` : ''}`
    + `${laneCount > 1 ? `, over ${laneCount} lanes at once` : ''}), until about ${clock(new Date(Date.now() + seconds * 1000))}`);
}

// The sweep directory's disk: it keeps the archives, the engines hold one run's raw files at a time
// (per lane). disk: the runs' estimate (estimates.js: keptArchive, maxRaw, bytes; decided: a target's,
// whole run directories and each engine's whole need). Says it; returns true (with a warning) when the
// disk may fill up.
function sweepDiskShort(disk, dir, cleanupRaw, laneCount, decided = false) {
  let existing = dir;
  while (!fs.existsSync(existing)) existing = path.dirname(existing);
  const here = fs.statfsSync(existing);
  const freeHere = here.bavail * here.bsize;
  if (decided) {
    say(`disk: run directories ~${estimates.formatBytes(disk.keptArchive)} kept in ${dir} (${estimates.formatBytes(freeHere)} free; run.sh's estimate, `
      + `the target's rate as messages); largest run ~${estimates.formatBytes(disk.maxRaw)} on the engines while it runs (responses, their archive, logs)`);
  } else {
    say(`disk: response archives ~${estimates.formatBytes(disk.keptArchive)} kept in ${dir} (${estimates.formatBytes(freeHere)} free); `
      + `largest run ~${estimates.formatBytes(disk.maxRaw)} of raw response files on the engines while it runs`);
  }
  const short = disk.keptArchive + disk.maxRaw * laneCount > freeHere * 0.9;
  if (short) say(`WARNING: the sweep directory's disk may fill up${cleanupRaw ? '' : '; --cleanup-raw keeps only one run\'s archives at a time'}`);
  return short;
}

// Each engine's disk as run.sh's preflight will check it (lib/disk-need.js, the engine's share of the
// lane's largest run). Returns true (with a warning per engine) when one has too little.
function enginesDiskShort(todo, lanes, decisions) {
  let short = false;
  for (const lane of lanes) {
    const needMB = estimates.engineDiskNeed(laneTodo(todo, lane), decisions, lane);
    for (const e of lane.hosts.filter((h) => h.role === 'engine' && needMB[h.name] > h.freeKb / 1024)) {
      short = true;
      say(`WARNING: engine ${e.name} has ${estimates.formatBytes(e.freeKb * 1024)} free, the largest run needs ~${estimates.formatBytes(needMB[e.name] * 1024 * 1024)} `
        + 'there (its responses, their archive and logs): run.sh\'s preflight would refuse it');
    }
  }
  return short;
}

// "2 done, 1 failed, ...": how many items are in each status (state.tsv's, 'not run' without a line).
function statusCounts(items, state) {
  const counts = {};
  for (const item of items) {
    const s = state.get(item.key)?.status ?? 'not run';
    counts[s] = (counts[s] ?? 0) + 1;
  }
  return Object.entries(counts).map(([s, n]) => `${n} ${s}`).join(', ');
}

// The log file of an item's attempts: <its place in the selection>-<server>-<type>-<connections>-r<repeat>.log.
function logName(index, item) {
  return `${String(index).padStart(3, '0')}-${item.perm.server}-${item.perm.type}-${item.perm.connections}-r${item.repeat}.log`;
}

// How a run ended, for state.tsv: { status, reason } from run.sh's exit code (r.code), whether the sweep
// was interrupted, and what stopping a killed run.sh's leftovers did (r.stopped). A run whose threshold
// failed (exit 7) completed: it is done (recordOutcome adds its thresholds to the reason).
function outcomeOf(r, interrupted) {
  if (r.code === 0 || r.code === 7) return { status: 'done', reason: '' };
  if (r.code === 4) return { status: 'crashed', reason: 'the server under test crashed during the run' };
  const exited = `run.sh exited ${r.code} (${EXIT_MEANING[r.code] ?? 'unexpected'})`;
  if (r.code === 130 || interrupted) return { status: 'interrupted', reason: exited };
  if (r.stopped) return { status: 'interrupted', reason: `run.sh was killed by ${r.signal}; ${r.stopped}` };
  return { status: 'failed', reason: `${exited}: ${lastErrorLine(r.tail)}` };
}

// Seconds until the queue is done: each run's ramp-up + duration + overhead (the mean of the runs so
// far, else the default) and the rest after it, shared over the lanes left.
function secondsLeft(queue, settle, overheads, lanesLeft) {
  const overhead = overheads.length ? overheads.reduce((a, b) => a + b, 0) / overheads.length : estimates.DEFAULT_OVERHEAD_S;
  return queue.reduce((s, i) => s + settle + estimates.runSeconds(i.perm, overhead), 0) / lanesLeft;
}

// A sweep over one or more lanes (lanes.js): each lane runs one permutation at a time, taking the next
// one that fits its hosts from one shared queue; state.tsv records every run's lane and times.
class Sweep {
  constructor(o, dir, sel, lanes, saved = {}) {
    this.o = o;
    this.dir = dir;
    this.sel = sel;
    this.lanes = lanes;            // laneEnvs(): [{ name, file, index, env }]
    this.durations = saved.durations ?? null;   // the budget's choice, from sweep.json on resume
    this.runsDir = path.join(dir, 'runs');
    this.logsDir = path.join(dir, 'logs');
    this.state = new SweepState(dir);
    this.children = new Set();
    this.interrupted = false;
    this.stopped = false;
    this.wakers = new Set();       // end rests between runs early (a signal)
    this.overheads = [];           // seconds each run took beyond rampup + duration
    this.decisions = new estimates.RunDecisions(); // the runs' decisions (lib/decide.js, in this process), per lane
  }

  get several() {
    return this.lanes.length > 1;
  }

  // Waits ms, or less if a signal comes.
  rest(ms) {
    return new Promise((resolve) => {
      const wake = () => { clearTimeout(timer); this.wakers.delete(wake); resolve(); };
      const timer = setTimeout(wake, ms);
      this.wakers.add(wake);
    });
  }

  log(line) {
    fs.appendFileSync(path.join(this.dir, 'sweep.log'), `${new Date().toISOString()} ${line}\n`);
  }

  onSignal(sig) {
    if (!this.interrupted) say(`${sig}: stopping after run.sh has cleaned up the current run${this.several ? ' of every lane' : ''}`);
    this.interrupted = true;
    for (const wake of [...this.wakers]) wake();
    // run.sh runs in its own process group, so a Ctrl-C at the terminal reaches only us; pass it on once
    // per signal: run.sh stops everything it started and keeps the results.
    for (const child of this.children) {
      if (child.exitCode !== null) continue;
      try {
        process.kill(child.pid, 'SIGINT');
      } catch { /* already gone */ }
    }
  }

  // Runs run.sh for one item on one lane; resolves to { code, runDir, tail }. With several lanes run.sh's
  // output goes to the logs only (the lanes' lines would interleave).
  runOne(item, logFile, lane) {
    const dirFile = this.dirFileOf(lane);
    fs.rmSync(dirFile, { force: true });
    fs.writeFileSync(this.markerOf(lane), `${item.key}\n`);
    const fd = fs.openSync(logFile, 'a');
    fs.writeSync(fd, `\n### ${new Date().toISOString()} ${item.key}${this.several ? ` (lane ${lane.name})` : ''}\n`);
    let tail = '';
    const quiet = this.o.quiet || this.several;
    return new Promise((resolve) => {
      const child = spawn(RUN_SH, item.perm.args, {
        cwd: ROOT,
        env: { ...process.env, ...lane.env, PB_RESULTS: this.runsDir, PB_RUN_DIR_FILE: dirFile },
        stdio: ['ignore', 'pipe', 'pipe'],
        detached: true,
      });
      this.children.add(child);
      const pass = (stream) => (chunk) => {
        fs.writeSync(fd, chunk);
        if (!quiet) stream.write(chunk);
        tail = (tail + chunk.toString()).slice(-4000);
      };
      child.stdout.on('data', pass(process.stdout));
      child.stderr.on('data', pass(process.stderr));
      child.on('error', (e) => {
        tail += `\n${e.message}`;
      });
      child.on('close', (code, signal) => {
        this.children.delete(child);
        fs.closeSync(fd);
        let runDir = null;
        if (fs.existsSync(dirFile)) runDir = fs.readFileSync(dirFile, 'utf8').trim() || null;
        resolve({ code: code ?? (signal ? 128 : 1), signal, runDir, tail });
      });
    });
  }

  // A run that ended done or crashed: analysed again when its outputs are not whole (reanalyse.js), then,
  // with --cleanup-raw, its raw archives deleted if they are whole (cleanup-raw.js).
  async afterFinished(runDir, rel) {
    const line = analysedLine(rel, await ensureAnalysed(runDir));
    if (line) {
      say(line);
      this.log(`analysis ${line}`);
    }
    if (!this.o.cleanupRaw) return;
    const { freed, kept, problem } = removeRawArchives(runDir);
    if (problem) say(`kept every raw archive of ${rel} (--cleanup-raw): the analysis' outputs are not whole (${problem})`);
    if (kept.length) say(`kept ${kept.join(', ')}: flagged truncated or unreadable by the analysis (--cleanup-raw keeps those)`);
    if (freed) say(`removed ${estimates.formatBytes(freed)} of raw response archives (--cleanup-raw)`);
  }

  // Checks every lane's hosts before anything starts. Returns an exit code on failure, else null; fills
  // lane.hosts.
  async preflight(servers) {
    const missing = missingFiles(this.lanes);
    if (missing.length) {
      for (const m of missing) say(`lane error: ${m}`);
      say('nothing was started');
      return 2;
    }
    let failed = null;
    this.preflightProblems = 0;
    for (const lane of this.lanes) {
      const label = this.several ? `lane ${lane.name}: ` : '';
      const facts = await hostFacts(servers, lane.env);
      if (facts.error) {
        process.stderr.write(`${facts.message}\n`);
        say(`${label}${facts.error === 2 ? `hosts file error (above)${lane.file ? `: ${lane.file}` : ''}` : 'preflight failed: cannot check the hosts (above)'}`);
        failed = failed ?? facts.error;
        continue;
      }
      lane.hosts = facts.hosts;
      for (const h of facts.hosts) {
        say(`${label}host ${h.role} ${h.name} ${h.address}: ${h.status === 'ok'
          ? `open files ${h.soft} (hard limit ${h.hard}), ${estimates.formatBytes(h.freeKb * 1024)} free` : `UNREACHABLE ${h.message}`}`);
      }
      for (const p of facts.problems) say(`${label}problem: ${p}`);
      const down = facts.hosts.filter((h) => h.status !== 'ok');
      this.preflightProblems += facts.problems.length;
      if (down.length || (facts.problems.length && this.o.mode !== 'check')) {
        say(`${label}preflight failed: ${down.length ? `${down.map((h) => h.name).join(', ')} unreachable` : 'problems above'}; nothing was started`);
        failed = failed ?? 3;
      }
    }
    if (failed) return failed;
    const shared = sharedHosts(this.lanes);
    if (shared.length) {
      for (const m of shared) say(`lane error: ${m}`);
      say('nothing was started');
      return 2;
    }
    return null;
  }

  // The budget's durations: applied to items (new permutation, new key) from the map.
  withDurations(items) {
    if (!this.durations) return items;
    return items.map((item) => {
      const perm = applyDurations([item.perm], this.durations)[0];
      return perm === item.perm ? item : { ...item, perm, key: `${perm.command} #${item.repeat}` };
    });
  }

  // --budget: picks the durations of the runs to do (budget.js), says what it chose, keeps it in
  // this.durations. Returns the items with their durations, or null when the budget cannot fit.
  fitBudget(todo) {
    const { o, sel } = this;
    let fit;
    try {
      fit = budget.fitBudget(todo.map((i) => i.perm), sel.budget, { lanes: this.lanes.length, settle: o.settle });
    } catch (e) {
      if (!(e instanceof budget.BudgetError)) throw e;
      say(`budget error: ${e.message}`);
      return null;
    }
    const durations = {};
    todo.forEach((item, k) => { durations[item.perm.command] = fit.durations[k]; });
    this.durations = durations;
    const distinct = new Map();
    todo.forEach((item, k) => distinct.set(item.perm.command, { perm: item.perm, duration: fit.durations[k], atFloor: fit.atFloor[k] }));
    const counts = {};
    for (const d of distinct.values()) counts[d.duration] = (counts[d.duration] ?? 0) + 1;
    say(`budget ${estimates.formatDuration(sel.budget)} on ${this.lanes.length} lane${this.several ? 's' : ''}: target ${fit.target} s per run `
      + `(each between its floor and ${sel.duration} s), about ${estimates.formatDuration(fit.wall)} in all `
      + `(${estimates.formatDuration(fit.floorWall)} if every run sat at its floor; ${Math.round(budget.MARGIN * 100)}% of the budget kept as margin)`);
    say(`durations chosen: ${Object.entries(counts).sort((a, b) => Number(a[0]) - Number(b[0])).map(([s, n]) => `${s} s for ${n}`).join(', ')} permutation(s)`);
    const floored = [...distinct.values()].filter((d) => d.atFloor);
    say(`at their floor: ${floored.length} of ${distinct.size} permutations`);
    for (const d of floored) say(`  at floor (${budget.floor(d.perm).rule}): ${withDuration(d.perm, d.duration).command}`);
    return this.withDurations(todo);
  }

  // The whole sweep: checks every lane's hosts, orders the runs, says what they will take, asks, runs the
  // queue on every lane and closes with the report. Returns the exit code.
  async run() {
    const { o, state } = this;
    if (state.rebuilt) {
      say(state.rebuilt.line);
      if (o.mode !== 'check') state.save();
    }
    const selected = itemsFor(this.sel).items;
    if (selected.length === 0) {
      say('the selection holds no permutation (see --list)');
      return 2;
    }
    const failed = await this.checkHosts(selected);
    if (failed) return failed;
    const preflightFailed = this.preflightProblems > 0;
    const items = this.withDurations(selected);
    if (!(await this.loadDecisions(items))) return 3;
    const sorted = sortItems(items, state, this.lanes, this.decisions, o.retryFailed);
    this.recordSkipped(sorted.skipped);
    this.sayItems(items.length, sorted);
    let { todo } = sorted;
    if (this.sel.budget && todo.length) {
      if (this.durations) {
        say('budget: the durations chosen when the sweep started (sweep.json) are kept');
      } else {
        todo = this.fitBudget(todo);
        if (!todo) return 2;
      }
    }
    const diskShort = this.outlook(todo);
    if (o.mode === 'check') {
      say(preflightFailed ? 'check: preflight FAILED (problems above)' : 'check: ready');
      return preflightFailed ? 3 : 0;
    }
    if (todo.length === 0) {
      say('nothing to run');
      this.report();
      return sorted.failedBefore ? 1 : this.sayThresholds(items) ? EXIT_THRESHOLD_FAILED : 0;
    }
    if (!o.yes && !(await confirm(`sweep: start ${todo.length} run(s)${lanesText(this.lanes)}${diskShort ? ' despite the disk warning' : ''}? [y/N] `))) {
      say('not started');
      return 0;
    }
    this.saveSelection();
    await this.runQueue(todo, items);
    return this.close(items);
  }

  // Before anything runs: run.sh is there, what a killed sweep left running is stopped (it would hold
  // the ports the preflight checks) and every lane's hosts pass (preflight). Returns an exit code, or null.
  async checkHosts(items) {
    if (!fs.existsSync(RUN_SH)) {
      say(`preflight failed: ${RUN_SH} not found`);
      return 3;
    }
    // a target's server is not pushbench's: none is started, so none is checked (hosts.js)
    const servers = [...new Set(items.filter((i) => !i.perm.target).map((i) => i.perm.server))];
    if (this.o.mode !== 'check') for (const lane of this.lanes) await this.stopLeftBehind(lane);
    return this.preflight(servers);
  }

  // What the sweep cannot know before a target sweep's runs, said once: run.sh learns it run by run.
  sayTargetUnknowns() {
    const t = this.sel.target;
    say(`target ${t.name} (${t.transport}, ${t.file}): not checked before the runs: whether each engine reaches its subscribe and publish `
      + 'addresses (run.sh probes them as each run starts), the target host\'s limits (not pushbench\'s), and whether the engines keep up '
      + '(no generator-bound prediction: the calibration measures the built-in plan, not a target\'s messages)');
  }

  // The runs' decisions (the split and the fit, lib/decide.js) of every item still to run, on every lane (this.decisions).
  // Returns false, having said why, when one cannot be made.
  async loadDecisions(items) {
    const open = items.filter((item) => !['done', 'crashed'].includes(this.state.get(item.key)?.status));
    try {
      await this.decisions.load(open.map((i) => i.perm), this.lanes);
    } catch (e) {
      say(`preflight failed: ${e.message}; nothing was started`);
      return false;
    }
    return true;
  }

  // Items that fit no lane are recorded skipped, with the reason (--check keeps them in memory only).
  recordSkipped(skipped) {
    for (const { item, reason } of skipped) {
      if (this.o.mode !== 'check') this.state.set(item.key, 'skipped', null, reason);
      else this.state.entries.set(item.key, { status: 'skipped', runDir: null, reason });
    }
  }

  // Says where the sweep is and what it holds: done before, to run, skipped (each with its reason),
  // failed before.
  sayItems(selected, { todo, skipped, doneBefore, failedBefore }) {
    const { dir, state } = this;
    say(`directory ${path.relative(process.cwd(), dir) || '.'} (resume: ./sweep.sh --dir ${dir})`);
    say(`${selected} selected: ${doneBefore} done before, ${todo.length} to run, ${skipped.length} skipped (do not fit)`
      + (failedBefore ? `, ${failedBefore} failed before (not retried without --retry-failed)` : '') + lanesText(this.lanes));
    for (const { item } of skipped) say(`skipped: ${item.key}: ${state.get(item.key).reason}`);
  }

  // What the runs to do will take, said before they start: the time, the disks, and each lane's
  // generator-bound prediction. Returns true when a disk may be short.
  outlook(todo) {
    sayEstimate(todo, this.o.settle, this.lanes.length);
    // a target's runs are sized by their decisions (lib/decide.js), a built-in run's by its estimate
    const disk = this.sel.target
      ? estimates.decidedDiskEstimate(todo.map((i) => i.perm), (perm) => this.decisions.get(perm, todo.find((i) => i.perm === perm).lanes[0]).decisions,
        { cleanupRaw: this.o.cleanupRaw })
      : estimates.diskEstimate(todo.map((i) => i.perm), { cleanupRaw: this.o.cleanupRaw });
    const sweepShort = sweepDiskShort(disk, this.dir, this.o.cleanupRaw, this.lanes.length, Boolean(this.sel.target));
    const enginesShort = enginesDiskShort(todo, this.lanes, this.decisions);
    if (this.sel.target) {
      this.sayTargetUnknowns();
      return sweepShort || enginesShort;
    }
    for (const lane of this.lanes) {
      if (this.several) say(`lane ${lane.name}: generator-bound prediction for its engines`);
      predictGeneratorBound(laneTodo(todo, lane), lane.hosts.filter((h) => h.role === 'engine'),
        (perm) => this.decisions.get(perm, lane).decisions.engines);
    }
    return sweepShort || enginesShort;
  }

  // Runs the queue: every lane takes its next run until none is left for it (laneLoop); a signal
  // meanwhile stops them once run.sh has cleaned up (onSignal).
  async runQueue(todo, items) {
    fs.mkdirSync(this.runsDir, { recursive: true });
    fs.mkdirSync(this.logsDir, { recursive: true });
    const handlers = ['SIGINT', 'SIGTERM', 'SIGHUP'].map((sig) => {
      const h = () => this.onSignal(sig);
      process.on(sig, h);
      return [sig, h];
    });
    this.queue = [...todo];
    this.total = todo.length;
    this.finishedCount = 0;
    this.failedInARow = 0;
    this.failed = 0;
    this.started = Date.now();
    this.itemsAll = items;
    try {
      await Promise.all(this.lanes.map((lane) => this.laneLoop(lane)));
    } finally {
      for (const [sig, h] of handlers) process.off(sig, h);
    }
  }

  // The sweep's end, the report written in every case: why it stopped (incomplete, interrupted, no lane
  // left), or what finished (the counts, each lane's runs, the validity). Returns the exit code.
  close(items) {
    const { dir, state } = this;
    if (this.incomplete) {
      say(`stopped, incomplete (${this.incomplete.reason}); ${this.incomplete.fix}, then resume with: ./sweep.sh --dir ${dir}`);
      this.report();
      return 1;
    }
    if (this.interrupted) {
      say(`interrupted; resume with: ./sweep.sh --dir ${dir}`);
      this.report();
      return 130;
    }
    const stranded = this.queue.length;
    this.report();
    say(`finished: ${statusCounts(items, state)}`);
    if (this.several) {
      for (const lane of this.lanes) {
        const mine = items.map((i) => state.get(i.key)).filter((e) => e && e.lane === lane.name && e.startedAt);
        say(`lane ${lane.name}: ${mine.length} run(s)${lane.out ? ` (taken out: ${lane.out})` : ''}`);
      }
    }
    const verdicts = finishedVerdicts(dir, items.map((i) => state.get(i.key)));
    if (verdicts.length) say(`validity of the ${verdicts.length} finished runs: ${formatCounts(verdicts)}`);
    const thresholdFailed = this.sayThresholds(items);
    if (stranded && this.lanes.every((l) => l.out)) {
      say(`stopping: no lane is left (every lane was taken out); ${stranded} run(s) not started; fix the hosts, then resume with ./sweep.sh --dir ${dir}`);
      return 3;
    }
    if (this.failed || items.some((i) => ['failed', 'interrupted', undefined].includes(state.get(i.key)?.status))) return 1;
    return thresholdFailed ? EXIT_THRESHOLD_FAILED : 0;
  }

  // The finished runs' thresholds, said when any had some. Returns whether a run's threshold failed.
  sayThresholds(items) {
    const { failed, judged } = thresholdCounts(this.dir, items.map((i) => this.state.get(i.key)));
    if (judged) say(`thresholds: ${failed ? `failed in ${failed}` : 'passed in all'} of the ${judged} finished runs with thresholds${failed ? ' (report/runs.html names them)' : ''}`);
    return failed > 0;
  }

  // state.tsv could not be saved (a full disk, a permission): the sweep stops, incomplete. What the state
  // lacks is said on stderr and, if it can still be written, in sweep.json's "incomplete"; resuming redoes
  // that run (a new run directory: none is ever overwritten). The closing line names the fix: free space,
  // or the permissions (StateError kind 'permission').
  stateLost(entry, error) {
    this.incomplete = { at: new Date().toISOString(), reason: `state.tsv not saved: ${error.message}`, unsaved: entry,
      fix: error.kind === 'permission' ? 'fix the permissions' : 'free space' };
    this.stopped = true;
    process.stderr.write(`sweep.sh: sweep incomplete: ${entry.key} finished ${entry.status}${entry.runDir ? ` (${entry.runDir})` : ''} `
      + `but ${this.incomplete.reason}; resuming redoes it\n`);
    try {
      this.saveSelection();
    } catch (e) {
      process.stderr.write(`sweep.sh: sweep.json not saved either (${e.message}): this message is the only record\n`);
    }
  }

  saveSelection() {
    const file = path.join(this.dir, 'sweep.json');
    const lanes = this.lanes.filter((l) => l.file).map((l) => ({ name: l.name, file: l.file }));
    writeFileAtomic(file, `${JSON.stringify({ updated: new Date().toISOString(), selection: this.sel,
      ...(lanes.length ? { lanes } : {}), ...(this.durations ? { durations: this.durations } : {}),
      ...(this.incomplete ? { incomplete: this.incomplete } : {}) }, null, 2)}\n`);
  }

  // Takes a lane out of the sweep: its current run goes back to the queue for the other lanes.
  takeOut(lane, why, item) {
    lane.out = why;
    this.queue.unshift(item);
    const left = this.lanes.filter((l) => !l.out).length;
    say(`lane ${lane.name} taken out: ${why}; ${item.key} goes back to the queue${left ? ` for the ${left} other lane(s)` : ', but no lane is left'}`);
    this.log(`lane-out ${lane.name} ${why}; requeued ${item.key}`);
  }

  // Is every host of the lane still reachable? (After a run failed: a host gone takes the lane out.)
  async laneReachable(lane, perm) {
    const facts = await hostFacts(perm.target ? [] : [perm.server], lane.env);
    if (facts.error) return { ok: false, why: facts.message.split('\n').pop() };
    const down = facts.hosts.filter((h) => h.status !== 'ok');
    return down.length ? { ok: false, why: `${down.map((h) => `${h.role} ${h.name} unreachable (${h.message.slice(0, 120)})`).join(', ')}` } : { ok: true };
  }

  // .running-<lane> (the key of the lane's run) and .run-dir-<lane> (its run directory, written by
  // run.sh) last from the run's start until its end is recorded in state.tsv (or it goes back to the
  // queue); recorded(lane) removes both. Nothing is removed before the record is written, so a full disk
  // cannot gain the room for state.tsv from them and hide that the record was lost.
  markerOf(lane) {
    return path.join(this.dir, `.running-${lane.index}`);
  }

  dirFileOf(lane) {
    return path.join(this.dir, `.run-dir-${lane.index}`);
  }

  recorded(lane) {
    fs.rmSync(this.markerOf(lane), { force: true });
    fs.rmSync(this.dirFileOf(lane), { force: true });
  }

  // A sweep that ended (killed: no sweep holds the directory now) before a run's end was recorded left
  // .running-<lane>: that run is stopped if anything of it is left (stopLeftRun) and recorded
  // interrupted, so it runs again.
  async stopLeftBehind(lane) {
    const marker = this.markerOf(lane);
    const dirFile = this.dirFileOf(lane);
    if (!fs.existsSync(marker)) return;
    const key = fs.readFileSync(marker, 'utf8').trim();
    const runDir = fs.existsSync(dirFile) ? fs.readFileSync(dirFile, 'utf8').trim() || null : null;
    const reason = `the sweep ended before this run's end was recorded; ${await stopLeftRun(runDir, lane.env)}`;
    const rel = runDir ? path.relative(this.dir, path.resolve(ROOT, runDir)) : null;
    say(`${key}: ${reason}`);
    try {
      if (!['done', 'crashed'].includes(this.state.get(key)?.status)) this.state.set(key, 'interrupted', rel, reason, { lane: lane.name });
    } catch (e) {
      this.stateLost({ key, status: 'interrupted', runDir: rel, reason }, e);
      return;
    }
    this.recorded(lane);
  }

  // One lane's loop: takes the next run that fits the lane from the queue, runs it and records how it
  // ended, until the queue holds none for it, the sweep stops or the lane is taken out.
  async laneLoop(lane) {
    while (!this.interrupted && !this.stopped && !lane.out) {
      const at = this.queue.findIndex((i) => i.lanes.includes(lane));
      if (at < 0) return;
      const [item] = this.queue.splice(at, 1);
      const r = await this.attempt(item, lane);
      if (this.refused(item, lane, r)) return;
      if (await this.laneFailed(item, lane, r)) return;
      const outcome = outcomeOf(r, this.interrupted);
      if (!(await this.recordOutcome(item, lane, r, outcome))) return;
      this.sayProgress();
      if (outcome.status === 'interrupted' && !r.stopped) return;   // a killed run.sh's run was stopped: go on
      if (this.failedInARow >= MAX_FAILURES_IN_A_ROW) {
        if (!this.stopped) say(`stopping: ${this.failedInARow} runs in a row failed (see ${this.logsDir}); fix the cause, then resume with --retry-failed`);
        this.stopped = true;
        return;
      }
      if (this.o.settle > 0 && this.queue.some((i) => i.lanes.includes(lane)) && !this.interrupted) {
        say(`resting ${this.o.settle} s before the next run${this.several ? ` of lane ${lane.name}` : ''} (--settle)`);
        await this.rest(this.o.settle * 1000);
      }
    }
  }

  // " lane <name>:" in the lines of a sweep over several lanes, '' with one.
  laneTag(lane) {
    return this.several ? ` lane ${lane.name}:` : '';
  }

  // Says and runs one item on the lane (runOne). Resolves to run.sh's result with the run's times (took:
  // seconds), its run directory relative to the sweep's (rel), and, for a run.sh killed beyond its trap,
  // what stopping its leftovers did (stopped; null otherwise).
  async attempt(item, lane) {
    const index = this.itemsAll.findIndex((i) => i.key === item.key) + 1;
    const k = this.finishedCount + this.children.size + 1;
    say(`[${k}/${this.total}]${this.laneTag(lane)} ${item.key}`);
    this.log(`start ${item.key}${this.several ? ` lane ${lane.name}` : ''}`);
    const startedAt = new Date();
    const r = await this.runOne(item, path.join(this.logsDir, logName(index, item)), lane);
    const finishedAt = new Date();
    const rel = r.runDir ? path.relative(this.dir, path.resolve(ROOT, r.runDir)) : null;
    // run.sh killed beyond its trap: what it left is stopped now, before the lane's next run.
    const stopped = r.signal ? await stopLeftRun(r.runDir, lane.env) : null;
    return { ...r, startedAt, finishedAt, took: (finishedAt - startedAt) / 1000, rel, stopped };
  }

  // run.sh refused to start, nothing started (exit 5, 6): the run goes back to the queue, the sweep
  // stops. Returns whether it was so.
  refused(item, lane, r) {
    if (r.code !== 5 && r.code !== 6) return false;
    this.recorded(lane);
    this.queue.unshift(item);
    say(`stopping: run.sh refused to start (${EXIT_MEANING[r.code]}): ${lastErrorLine(r.tail)}; deal with it, then resume with ./sweep.sh --dir ${this.dir}`);
    this.stopped = true;
    return true;
  }

  // Of several lanes, one whose hosts fail is taken out and the run retried on another lane: run.sh's
  // preflight refused (exit 3), or the run failed and a host of the lane no longer answers over ssh.
  // Returns whether the lane was taken out.
  async laneFailed(item, lane, r) {
    if (this.interrupted || !this.several || [0, 4, 7, 130].includes(r.code)) return false;
    if (r.code === 3) {
      this.log(`failed ${item.key} lane ${lane.name}: run.sh exited 3 (preflight failed)`);
      this.recorded(lane);
      this.takeOut(lane, `run.sh's preflight failed (exit 3): ${lastErrorLine(r.tail)}`, item);
      return true;
    }
    const reach = await this.laneReachable(lane, item.perm);
    if (reach.ok) return false;
    this.log(`failed ${item.key} lane ${lane.name} ${r.rel ?? '-'}: run.sh exited ${r.code}; the lane's hosts fail`);
    this.recorded(lane);
    this.takeOut(lane, `${reach.why} (run.sh exited ${r.code}${r.rel ? `; the attempt is kept in ${r.rel}` : ''})`, item);
    return true;
  }

  // Records how a run ended (outcomeOf): a finished run analysed (afterFinished) and its overhead kept,
  // the failure counts, its line in state.tsv and sweep.log, and a line said. Returns false when
  // state.tsv could not be saved (stateLost: the sweep stops).
  async recordOutcome(item, lane, r, outcome) {
    const { status } = outcome;
    let { reason } = outcome;
    if (status === 'done' || status === 'crashed') {
      if (r.runDir) await this.afterFinished(path.resolve(ROOT, r.runDir), r.rel);
      // its thresholds' outcome (data/summary.json); run.sh's exit 7 without a readable one says so
      const thresholds = r.runDir ? runThresholdText(path.resolve(ROOT, r.runDir)) : null;
      const th = thresholds ? `thresholds: ${thresholds}` : r.code === 7 ? `thresholds: ${EXIT_MEANING[7]} (run.sh exited 7; no readable data/summary.json)` : '';
      reason = [reason, th].filter(Boolean).join('; ');
      this.overheads.push(Math.max(0, r.took - item.perm.rampupS - item.perm.durationS));
      this.failedInARow = 0;
    } else if (status === 'failed') {
      this.failed++;
      this.failedInARow++;
    }
    try {
      this.state.set(item.key, status, r.rel, reason, { lane: lane.name, startedAt: r.startedAt.toISOString(), finishedAt: r.finishedAt.toISOString() });
    } catch (e) {
      this.stateLost({ key: item.key, status, runDir: r.rel, reason }, e);
      return false;
    }
    this.recorded(lane);
    this.log(`${status} ${item.key} ${r.rel ?? '-'} ${reason}`);
    this.finishedCount++;
    say(`[${this.finishedCount}/${this.total}]${this.laneTag(lane)} ${status} in ${estimates.formatDuration(r.took)}: ${item.key}`
      + `${r.rel ? ` -> ${r.rel}` : ''}${reason ? ` (${reason})` : ''}`);
    return true;
  }

  // The line after each run: how many finished, elapsed, and the queue's ETA over the lanes left.
  sayProgress() {
    const lanesLeft = Math.max(1, this.lanes.filter((l) => !l.out).length);
    const left = secondsLeft(this.queue, this.o.settle, this.overheads, lanesLeft);
    const elapsed = (Date.now() - this.started) / 1000;
    say(`${this.finishedCount}/${this.total} finished${this.several ? ` (${this.children.size} running, ${lanesLeft} lane(s))` : ''}, `
      + `elapsed ${estimates.formatDuration(elapsed)}, ETA ${estimates.formatDuration(left)}`
      + (left > 0 ? ` (about ${clock(new Date(Date.now() + left * 1000))})` : ''));
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

// sweep.sh's command line: help, list, calibrate and report answer at once; else the sweep runs (or,
// with --check, is checked) in its directory. Returns the exit code.
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
  if (o.mode === 'calibrate') return calibrateHere(o.quiet);
  const dir = path.resolve(o.dir ?? path.join(ROOT, 'sweeps', stamp()));
  if (o.mode === 'report') return reportOnly(dir);
  return startSweep(o, dir);
}

// --calibrate: measures this host's engine (calibrate.js) and says what it sustains. Returns the exit code.
async function calibrateHere(quiet) {
  try {
    const { file, calibration: c } = await calibrate({ log: (l) => say(`calibrate: ${l}`), verbose: !quiet });
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

// --report: writes the comparison report of the sweep directory dir, running nothing. Returns the exit code.
function reportOnly(dir) {
  if (!fs.existsSync(dir)) {
    process.stderr.write(`sweep.sh: ${dir}: no such sweep directory\n`);
    return 2;
  }
  let out;
  try {
    out = writeReport(dir, { log: say });
  } catch (e) {
    if (!(e instanceof StateError)) throw e;
    process.stderr.write(`sweep.sh: ${e.message}\n`);
    return 2;
  }
  if (out) say(`report: ${out}`);
  return 0;
}

// The selection: the one given, or, resuming without one, the one saved in the directory (sweep.json),
// with the durations a --budget chose then; the lanes given, or else those saved. Returns { sel,
// durations, lanes }.
function selectionOf(o, dir) {
  const savedFile = path.join(dir, 'sweep.json');
  const saved = fs.existsSync(savedFile) ? JSON.parse(fs.readFileSync(savedFile, 'utf8')) : {};
  let sel;
  let durations = null;
  if (Object.keys(o.selection).length === 0 && saved.selection) {
    // a usage error (exit 2) when its target file is gone or broken since
    const again = recheck(withDefaults(saved.selection));
    sel = again.sel;
    durations = saved.durations ?? null;
    say(`resuming with the selection saved in ${savedFile}`);
    if (again.changed) {
      say(`WARNING: target file ${sel.target.file} changed since the sweep was started (sha256 ${saved.selection.target.sha256.slice(0, 12)}… `
        + `now ${sel.target.sha256.slice(0, 12)}…): the runs done before measured it as it was (each run.json records its hash)`);
    }
  } else {
    sel = withDefaults(o.selection);
  }
  let lanes = o.lanes;
  if (!lanes && saved.lanes?.length) {
    lanes = saved.lanes;
    say(`resuming on the lanes saved in ${savedFile}: ${lanes.map((l) => l.file).join(', ')}`);
  }
  return { sel, durations, lanes };
}

// Runs the sweep in dir, locked against another sweep (--check leaves no trace: it creates no
// directory). Returns the exit code.
async function startSweep(o, dir) {
  if (o.mode !== 'check') fs.mkdirSync(dir, { recursive: true });
  let chosen;
  try {
    chosen = selectionOf(o, dir);
  } catch (e) {
    if (!(e instanceof UsageError)) throw e;
    process.stderr.write(`sweep.sh: ${e.message}\n`);
    return 2;
  }
  const { sel, durations, lanes } = chosen;
  try {
    if (fs.existsSync(dir)) lockDir(dir);
  } catch (e) {
    process.stderr.write(`sweep.sh: ${e.message}\n`);
    return 2;
  }
  try {
    const sweepObj = new Sweep(o, dir, sel, laneEnvs(lanes ?? [defaultLane()]), { durations });
    if (o.mode !== 'check') sweepObj.saveSelection();
    return await sweepObj.run();
  } catch (e) {
    // state.tsv unreadable, not a state file, or not writable before any run started: one line, nothing run
    if (!(e instanceof UsageError) && !(e instanceof StateError)) throw e;
    process.stderr.write(`sweep.sh: ${e.message}\n`);
    return 2;
  }
}

// The command line (sweep.sh): the exit code is main's.
function cli(argv) {
  main(argv).then((code) => {
    process.exitCode = code;
  }, (e) => {
    process.stderr.write(`sweep.sh: ${e.stack || e}\n`);
    process.exitCode = 1;
  });
}

module.exports = { main, itemsFor, cli };

if (require.main === module) cli(process.argv.slice(2));
