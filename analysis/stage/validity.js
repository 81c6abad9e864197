'use strict';
// Stage 8, validity: what the run asked of the server against what it achieved over the steady window
// (measure/workload.js), with the load generator's monitors beside the SUT's and the client's own delays
// (measure/client-threads.js), judged by the rules of measure/validity.js (docs/validity.md). CHIRON
// (reference 001) names what this guards against a threat to validity.
const path = require('node:path');
const { measureWorkload, heldMessages } = require('../measure/workload');
const { engineOf } = require('../read/responses');
const { assessValidity, thresholds: validityThresholds } = require('../measure/validity');
const { STAMP_RESOLUTION_MS } = require('../measure/client-threads');

// The period of a thread's requests when no event paces them: a long poll without events asks again
// every max-duration, a pull every pull-interval.
const requestPeriod = (run) => (run.type === 'poll' && !run.event ? run.maxDurationMs : run.type === 'pull' ? run.pullIntervalMs : null);

// How far apart an engine's stamp and an emit cycle's start (the server's whole ms, moved to the client
// clock by the run's offset) can be and still be the same instant: the stamps' resolution (results.csv:
// whole ms; the stream logs: µs, measure/client-threads.js), plus the offset's error bound, or, with
// several engines, the largest of an engine's own error bound plus how far its offset lies from the run's.
// clock: stage/clock.js runClock's.
function stampMarginMs({ offset, best, byEngine }, resolutionMs = STAMP_RESOLUTION_MS) {
  const engines = [...(byEngine?.values() ?? [])].map((e) => Math.abs(e.offset - offset) + (e.errorBoundMs ?? 0));
  return resolutionMs + Math.max(best?.errorBoundMs ?? 0, ...engines);
}

const n = (v) => v.toLocaleString('en-US');

// The records lost between the engines and the analysis, each a text (empty when none): an engine's archive
// missing, cut short or unreadable, stream logs damaged, answers the engines' summaries counted that no
// stream log holds. archives: stage/archives.js' stats ({ file, truncated, unreadable, damagedStreamLogs });
// totals: stage/samples.js answerTotals' (or null).
function recordsLost(run, archives, totals) {
  const lost = [];
  const names = new Set(archives.map((a) => engineOf(a.file)));
  for (const e of run.hosts?.engines ?? []) if (!names.has(e.name)) lost.push(`no archive of engine ${e.name}`);
  for (const a of archives) {
    if (a.unreadable) lost.push(`${path.basename(a.file)} unreadable${a.problem ? ` (${a.problem})` : ''}`);
    else if (a.truncated) lost.push(`${path.basename(a.file)} cut short`);
    if (a.damagedStreamLogs > 0) lost.push(`${n(a.damagedStreamLogs)} stream log(s) of ${path.basename(a.file)} damaged`);
  }
  if (totals?.agree === false) lost.push(totals.problem);
  return lost;
}

// The failed samples' kinds, most frequent first: [{ kind, count }].
const kindsOf = (errorKinds) => Object.entries(errorKinds ?? {}).map(([kind, count]) => ({ kind, count }))
  .sort((a, b) => b.count - a.count || a.kind.localeCompare(b.kind));

// run; csv: stage/samples.js'; clock: stage/clock.js runClock's; axis: { seconds, window }; series:
// stage/series.js'; emit: stage/cycles.js'; sutCores: the SUT's cores (pidstat); serverCores: those
// the server may use (stage/monitors.js); loadGenerator:
// stage/monitors.js readLoadGenerator's; tail: stage/tail.js's summary (or null); lost: recordsLost's;
// messages: the summary's (stage/messages.js), whose held streams' losses are judged (issue #48).
// Returns { workload, validity, notes }.
function judgeRun({ run, csv, clock, axis: { window, loadStartSecond = null }, series, emit, sutCores, serverCores = sutCores, loadGenerator, tail = null, lost = [],
  messages = null }) {
  const { t0 } = clock;
  const client = csv ? csv.clientThreads.result(csv.firstRequest,
    { fromMs: t0 + window.fromSecond * 1000, toMs: t0 + window.toSecond * 1000 }, emit.startsMs,
    requestPeriod(run), stampMarginMs(clock, csv.clientThreads.resolutionMs)) : null;
  const { thresholds, problems } = validityThresholds();
  const workload = measureWorkload({ run, window, loadStartSecond, series, cycles: emit.cycles, client, engines: loadGenerator.engines, sutCores, serverCores,
    controllerCpu: loadGenerator.controllerCpu, messages: heldMessages(run.type, messages), errors: csv ? { failed: csv.errors, failures: csv.failed, samples: csv.rows, kinds: kindsOf(csv.errorKinds) } : null, thresholds });
  const validity = assessValidity(workload, { crashed: run.serverCrashed === true, thresholds, tail, lost,
    known: csv ? [] : ['no results.csv: ramp-up and re-poll gaps unknown'] });
  return { workload, validity, notes: problems };
}

module.exports = { judgeRun, stampMarginMs, recordsLost };
