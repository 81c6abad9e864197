'use strict';
// The sweep's order and its runs' outcomes, worked out from plain values (no process, no file): the lanes in
// words, the order of the items, each lane's share, the time and disk estimates, the counts by status, a
// run's log name and outcome, and what the engines are predicted to be unable to drive.

const fs = require('node:fs');
const path = require('node:path');
const estimates = require('./estimates');
const capacity = require('./capacity');
const { permutations } = require('./permutations');
const { calibrate } = require('./calibrate');
const { EXIT_MEANING, clock, fixed, lastErrorLine, say } = require('./common');

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

module.exports = { enginesDiskShort, laneTodo, lanesText, logName, outcomeOf, predictGeneratorBound, sayEstimate, secondsLeft, sortItems, statusCounts, sweepDiskShort };
