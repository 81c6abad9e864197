'use strict';
// The capacity search's rule (issue #49 item 4; references 003 and 004: how many subscribers a push server
// holds before delivery degrades): which level to run next, from the steps so far. Pure: no run, no file.
//
// A step's outcome (judgeStep): `held` when its verdict is valid and every threshold passed (a loss over
// the verdict's bound, docs/validity.md, already makes a run server-limited); `failed` when the server
// fell short (server-limited, failed, or a threshold failed); `generator` when the load generator set the
// figures (generator-bound): the search cannot tell the server's limit from there and stops; `disturbed`
// when the machine was busy (the step is taken again once); `incomplete` when the run did not finish.
//
// The levels (nextLevel): the start, doubled while every step held; after the first failure, the middle
// of the highest held and the lowest failed, until they are within the resolution (a share of the held
// level, at least one connection). The search stops at the first generator-bound or incomplete step, at a
// level that does not fit the machine (open files), or past `max`.

const OUTCOMES = Object.freeze(['held', 'failed', 'generator', 'disturbed', 'incomplete']);

// A finished step: { verdict, thresholdsFailed (count) } -> an outcome.
function judgeStep({ verdict, thresholdsFailed = 0, complete = true }) {
  if (!complete || !verdict) return 'incomplete';
  if (verdict === 'generator-bound') return 'generator';
  if (verdict === 'disturbed') return 'disturbed';
  if (verdict === 'valid' && thresholdsFailed === 0) return 'held';
  return 'failed';
}

// steps: [{ level, outcome }] in order. Returns { level } to run next, or { stop, reason } with what ended it.
function nextLevel(steps, { start, max = Infinity, resolution = 0.1 }) {
  const last = steps[steps.length - 1];
  if (!last) return start <= max ? { level: start } : { stop: 'max', reason: `the start (${start}) is above --max (${max})` };
  if (last.outcome === 'generator') return { stop: 'generator', reason: `the load generator set the figures at ${last.level} connections (generator-bound): the server's limit lies beyond what these engines can drive` };
  if (last.outcome === 'incomplete') return { stop: 'incomplete', reason: `the run at ${last.level} connections did not complete` };
  const disturbedTwice = steps.length >= 2 && last.outcome === 'disturbed' && steps[steps.length - 2].outcome === 'disturbed'
    && steps[steps.length - 2].level === last.level;
  if (disturbedTwice) return { stop: 'disturbed', reason: `the machine was disturbed in both runs at ${last.level} connections` };
  if (last.outcome === 'disturbed') return { level: last.level };
  const held = Math.max(0, ...steps.filter((s) => s.outcome === 'held').map((s) => s.level));
  const failedLevels = steps.filter((s) => s.outcome === 'failed').map((s) => s.level);
  const failed = failedLevels.length ? Math.min(...failedLevels) : null;
  if (failed === null) {
    const next = last.level * 2;
    if (last.level >= max) return { stop: 'max', reason: `${last.level} connections held, the most --max allows` };
    return { level: Math.min(next, max) };
  }
  if (held === 0) return { stop: 'server', reason: `the first level, ${failed} connections, did not hold: the capacity is below it` };
  const step = Math.max(1, Math.ceil(held * resolution));
  if (failed - held <= step) return { stop: 'server', reason: `${held} connections held and ${failed} did not (within ${step}, the resolution)` };
  return { level: Math.floor((held + failed) / 2) };
}

module.exports = { OUTCOMES, judgeStep, nextLevel };
