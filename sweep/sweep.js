'use strict';
// One sweep through run.sh (sweep/main.js builds it from the command line): its selection, state file, log and
// queue; the preflight of its hosts, its budget and outlook, the queue run on its lanes (lane-loop.js), the
// closing counts and the report. Signals stop the run in progress through run.sh's own teardown.

const fs = require('node:fs');
const path = require('node:path');
const { spawn } = require('node:child_process');
const estimates = require('./estimates');
const budget = require('./budget');
const { permutations, withDuration } = require('./permutations');
const { SweepState } = require('./state');
const { writeFileAtomic } = require('../lib/atomic-write');
const { removeRawArchives } = require('./cleanup-raw');
const { ensureAnalysed, analysedLine } = require('./reanalyse');
const { writeReport, finishedVerdicts, thresholdCounts } = require('./report');
const { formatCounts } = require('../analysis/verdict');
const { hostFacts } = require('./hosts');
const { missingFiles, sharedHosts } = require('./lanes');
const { applyDurations } = budget;
const { EXIT_THRESHOLD_FAILED, ROOT, RUN_SH, clock, confirm, itemsFor, say } = require('./common');
const { enginesDiskShort, laneTodo, lanesText, predictGeneratorBound, sayEstimate, secondsLeft, sortItems, statusCounts, sweepDiskShort } = require('./order');
const { laneMethods } = require('./lane-loop');

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

Object.assign(Sweep.prototype, laneMethods);

module.exports = { Sweep };
