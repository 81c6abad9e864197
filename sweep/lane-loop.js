'use strict';
// The Sweep's lanes (sweep/sweep.js mixes these methods into its class): each lane takes the next item of the
// queue, runs it through run.sh in its own environment, retries a failed run on another lane, takes a lane
// whose hosts fail out of the sweep and records each outcome. `this` is the Sweep.

const fs = require('node:fs');
const path = require('node:path');
const estimates = require('./estimates');
const { runThresholdText } = require('./report');
const { hostFacts } = require('./hosts');
const { EXIT_MEANING, MAX_FAILURES_IN_A_ROW, ROOT, lastErrorLine, say, stopLeftRun } = require('./common');
const { logName, outcomeOf } = require('./order');

const laneMethods = {
  // Takes a lane out of the sweep: its current run goes back to the queue for the other lanes.
  takeOut(lane, why, item) {
    lane.out = why;
    this.queue.unshift(item);
    const left = this.lanes.filter((l) => !l.out).length;
    say(`lane ${lane.name} taken out: ${why}; ${item.key} goes back to the queue${left ? ` for the ${left} other lane(s)` : ', but no lane is left'}`);
    this.log(`lane-out ${lane.name} ${why}; requeued ${item.key}`);
  },

  // Is every host of the lane still reachable? (After a run failed: a host gone takes the lane out.)
  async laneReachable(lane, perm) {
    const facts = await hostFacts(perm.target ? [] : [perm.server], lane.env);
    if (facts.error) return { ok: false, why: facts.message.split('\n').pop() };
    const down = facts.hosts.filter((h) => h.status !== 'ok');
    return down.length ? { ok: false, why: `${down.map((h) => `${h.role} ${h.name} unreachable (${h.message.slice(0, 120)})`).join(', ')}` } : { ok: true };
  },

  // .running-<lane> (the key of the lane's run) and .run-dir-<lane> (its run directory, written by
  // run.sh) last from the run's start until its end is recorded in state.tsv (or it goes back to the
  // queue); recorded(lane) removes both. Nothing is removed before the record is written, so a full disk
  // cannot gain the room for state.tsv from them and hide that the record was lost.
  markerOf(lane) {
    return path.join(this.dir, `.running-${lane.index}`);
  },

  dirFileOf(lane) {
    return path.join(this.dir, `.run-dir-${lane.index}`);
  },

  recorded(lane) {
    fs.rmSync(this.markerOf(lane), { force: true });
    fs.rmSync(this.dirFileOf(lane), { force: true });
  },

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
  },

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
  },

  // " lane <name>:" in the lines of a sweep over several lanes, '' with one.
  laneTag(lane) {
    return this.several ? ` lane ${lane.name}:` : '';
  },

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
  },

  // run.sh refused to start, nothing started (exit 5, 6): the run goes back to the queue, the sweep
  // stops. Returns whether it was so.
  refused(item, lane, r) {
    if (r.code !== 5 && r.code !== 6) return false;
    this.recorded(lane);
    this.queue.unshift(item);
    say(`stopping: run.sh refused to start (${EXIT_MEANING[r.code]}): ${lastErrorLine(r.tail)}; deal with it, then resume with ./sweep.sh --dir ${this.dir}`);
    this.stopped = true;
    return true;
  },

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
  },

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
  },

};

module.exports = { laneMethods };
