'use strict';
// The time budget (issue #24 item 2): ./sweep.sh --budget 10h picks each run's duration so the whole
// sweep fits, given its lanes. The arithmetic, in one place:
//
//   floor(p)   the shortest duration (s, ramp-up included, as run.sh counts it) that still measures p:
//              the largest of  ramp-up + MIN_STEADY_S        (a minute of load after the ramp-up)
//                              EMIT_CYCLES x emit interval   (with events: three emit cycles)
//                              POLL_HOLDS x longest hold     (long poll: two polls in a row; a poll is held
//                                                             until the next emit or its max duration)
//   duration   one common target D for every run, each run's clamped to [floor, its --duration (the cap)]:
//              duration(p) = min(cap, max(floor(p), D))   (a floor above the cap gives the cap)
//   wall time  (sum over the runs of estimates.runSeconds(p) + settle) / lanes  (runs are handed to whichever
//              lane is free; at most one run's length more in the worst case, which the margin covers)
//   choice     the largest whole D whose wall time, times (1 + MARGIN), fits the budget; if even every
//              run at its floor does not fit, the budget is refused, saying by how much.
// Runs of different durations are compared by per-second figures over each run's steady window
// (docs/sweep.md), so shortening a run changes how long it is measured, not what a figure shows.

const estimates = require('./estimates');
const { withDuration } = require('./permutations');

const MIN_STEADY_S = 60;
const EMIT_CYCLES = 3;
const POLL_HOLDS = 2;
const MARGIN = 0.05;   // 5% of the budget kept for the runs' overhead varying and the lanes' last runs

class BudgetError extends Error {}

// "10h", "90m", "1h30m", "45s", "3600" (seconds) -> seconds.
function parseBudget(text) {
  const t = String(text ?? '').trim();
  const m = /^(?:(\d+)h)?(?:(\d+)m)?(?:(\d+)s?)?$/.exec(t);
  if (!t || !m || (m[1] === undefined && m[2] === undefined && m[3] === undefined)) {
    throw new BudgetError(`--budget: '${text}' is not a time (e.g. 10h, 90m, 1h30m, 3600)`);
  }
  const s = Number(m[1] ?? 0) * 3600 + Number(m[2] ?? 0) * 60 + Number(m[3] ?? 0);
  if (s <= 0) throw new BudgetError(`--budget must be more than 0, got '${text}'`);
  return s;
}

// The floor of one permutation and which rule sets it.
function floor(p) {
  const rules = [[p.rampupS + MIN_STEADY_S, `ramp-up + ${MIN_STEADY_S} s`]];
  if (p.emitIntervalMs) rules.push([Math.ceil((EMIT_CYCLES * p.emitIntervalMs) / 1000), `${EMIT_CYCLES} emit intervals`]);
  if (p.type === 'poll') {
    const holdMs = Math.min(p.emitIntervalMs ?? Infinity, p.maxDurationMs ?? Infinity);
    if (Number.isFinite(holdMs)) rules.push([Math.ceil((POLL_HOLDS * holdMs) / 1000), `${POLL_HOLDS} x the longest poll hold`]);
  }
  rules.sort((a, b) => b[0] - a[0]);
  return { seconds: rules[0][0], rule: rules[0][1] };
}

// One permutation's duration for target D: between its floor and its cap (the selection's duration).
const durationFor = (p, target) => Math.min(p.durationS, Math.max(floor(p).seconds, target));

// Estimated wall time (s) of runs (permutations, one per repeat) at target D, on `lanes` lanes.
function wallSeconds(perms, target, { lanes, settle, overheadS }) {
  const total = perms.reduce((s, p) => s + estimates.runSeconds({ ...p, durationS: durationFor(p, target) }, overheadS) + settle, 0);
  return total / lanes;
}

// perms: the runs to fit (a permutation per repeat), each with the selection's duration as its cap.
// Returns { target, durations: [s per perm], atFloor: [bool per perm], wall, budget, usable, floorWall }
// or throws BudgetError when even the floors do not fit.
function fitBudget(perms, budgetS, { lanes = 1, settle = 0, overheadS = estimates.DEFAULT_OVERHEAD_S } = {}) {
  if (!perms.length) return { target: 0, durations: [], atFloor: [], wall: 0, budget: budgetS, usable: budgetS, floorWall: 0 };
  const cap = Math.max(...perms.map((p) => p.durationS));
  const opts = { lanes, settle, overheadS };
  const usable = budgetS / (1 + MARGIN);
  const floorWall = wallSeconds(perms, 0, opts);
  if (floorWall > usable) {
    const over = floorWall * (1 + MARGIN) - budgetS;
    throw new BudgetError(`--budget ${estimates.formatDuration(budgetS)} is below what the ${perms.length} runs need at their floors on `
      + `${lanes} lane${lanes === 1 ? '' : 's'}: ${estimates.formatDuration(floorWall)} + ${Math.round(MARGIN * 100)}% margin = `
      + `${estimates.formatDuration(floorWall * (1 + MARGIN))}, short by ${estimates.formatDuration(over)}; give more time, more lanes or fewer permutations`);
  }
  // The largest target that fits: wall time grows with the target, so bisect.
  let lo = 0;
  let hi = cap;
  while (lo < hi) {
    const mid = Math.ceil((lo + hi) / 2);
    if (wallSeconds(perms, mid, opts) <= usable) lo = mid;
    else hi = mid - 1;
  }
  return {
    target: lo,
    durations: perms.map((p) => durationFor(p, lo)),
    atFloor: perms.map((p) => floor(p).seconds >= lo && floor(p).seconds <= p.durationS),
    wall: wallSeconds(perms, lo, opts),
    budget: budgetS,
    usable,
    floorWall,
  };
}

// The permutations with the budget's durations applied; a permutation keeps its duration when the map
// has none for it. durations: { <command at the selection's duration>: seconds }.
function applyDurations(perms, durations) {
  return perms.map((p) => (durations && durations[p.command] !== undefined ? withDuration(p, durations[p.command]) : p));
}

module.exports = { parseBudget, floor, durationFor, fitBudget, wallSeconds, applyDurations, BudgetError, MIN_STEADY_S, EMIT_CYCLES, POLL_HOLDS, MARGIN };
