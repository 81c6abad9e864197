'use strict';
// Stage 9, summary: data/summary.json, the run's figures in one file (analysis/README.md), with every flag
// a reader must see before trusting them: a crashed server, an incomplete run, missing inputs, archives
// cut off or unreadable, files and lines skipped, and the problems found on the way. Study 3.4.1.
const path = require('node:path');
const { damageProblem } = require('../read/jmeter-csv');
const { runTitle } = require('../chart/vocabulary');
const { PARAMETERS } = require('../../lib/run-schema');
const { maxOf, meanOf, r2 } = require('../measure/per-second');
const { engineOffsets } = require('../measure/clock-offset');

const sumOf = (stats, key) => stats.reduce((n, a) => n + a[key], 0);

// What the reading stages flagged: archives unreadable or cut off, lines and files skipped, answers lost
// (a run with the engines' summary samples: stage/samples.js answerTotals), problems (the earlier stages'
// first, then the archives', then results.csv's damage, then the answers' totals). Returns the summary's flags.
function flagsOf({ run, missing, csv, sut, archiveStats, problems, answerTotals, sutGcSkipped = 0 }) {
  const names = (pick) => archiveStats.filter(pick).map((a) => path.basename(a.file));
  const linesSkipped = { vmstat: sut.vmstat.skipped, pidstat: sut.pidstat.skipped, memoryLog: sut.memoryLog.skipped,
    resultsCsv: csv?.badRows ?? 0, responseLines: sumOf(archiveStats, 'badLines'), halfWrittenLines: sumOf(archiveStats, 'halfLines'),
    ...(sutGcSkipped ? { sutGcLog: sutGcSkipped } : {}) };
  const all = [...problems];
  for (const a of archiveStats) if (a.problem) all.push(`${path.basename(a.file)}: ${a.problem}`);
  for (const a of archiveStats) for (const p of a.streamLogProblems ?? []) all.push(`${path.basename(a.file)}: stream log ${p}`);
  const csvDamage = damageProblem(csv?.damage);
  if (csvDamage) all.push(csvDamage);
  if (answerTotals?.problem) all.push(answerTotals.problem);
  return {
    serverCrashed: run.serverCrashed === true,
    status: run.status,
    incomplete: run.status !== 'complete',
    missingInputs: missing,
    archivesUnreadable: names((a) => a.unreadable),
    archivesTruncated: names((a) => a.truncated),
    truncatedEntries: sumOf(archiveStats, 'truncatedEntries'),
    ...(sumOf(archiveStats, 'streamLogs')
      ? { damagedStreamLogs: sumOf(archiveStats, 'damagedStreamLogs'), unendedSamples: sumOf(archiveStats, 'unendedSamples') } : {}),
    filesSkipped: sumOf(archiveStats, 'skippedEntries'),
    linesSkipped: Object.values(linesSkipped).reduce((a, b) => a + b, 0),
    linesSkippedBy: linesSkipped,
    ...(csv?.damage?.rows ? { resultsCsvDamage: csv.damage } : {}),   // only when results.csv was damaged
    ...(answerTotals ? { lostAnswers: answerTotals.agree === false,    // only with the engines' summary samples
      answerTotals: { summaries: answerTotals.summaries, streamLogs: answerTotals.streamLogs } } : {}),
    problems: all,
  };
}

// Records by type (the collector's counts), saved request responses, error bodies, the samples and
// failures (answers from the stream logs among them when answerSource says so), emit cycles.
function totalsOf({ col, csv, archiveStats, cycles, answerSource }) {
  return {
    ...(answerSource === 'stream logs' ? { answersFrom: answerSource } : {}),   // only when results.csv does not hold them
    requestResponses: archiveStats.reduce((n, a) => n + a.byKind.request, 0), responsesSent: col.counts.records,
    events: col.counts.events, timeouts: col.counts.timeouts, clears: col.counts.clears, cometStreams: col.counts.comet,
    pollResponses: col.counts.poll,
    ...(col.counts.sse ? { sseStreams: col.counts.sse, replays: col.counts.replays, gaps: col.counts.gaps } : {}),   // only SSE runs
    ...(col.counts.ws ? { wsStreams: col.counts.ws, replays: col.counts.replays, gaps: col.counts.gaps } : {}),   // only WebSocket runs
    errorBodies: sumOf(archiveStats, 'errorBodies'),
    samples: csv?.rows ?? null, failedSamples: csv?.failed ?? null, errors: csv?.errors ?? null,
    timeoutFailures: csv?.timeoutFailures ?? null, samplesByLabel: csv?.byLabel ?? null, emitCycles: cycles.length,
  };
}

// summary.tripTime: the long polls' (and pulls') fields, plus `comet` (records stamped on arrival) when
// there are any.
const withCometTrip = (poll, comet) => (comet?.polls ? { ...(poll ?? {}), comet: cometSummary(comet) } : poll);
const cometSummary = ({ polls, unmatched, ...rest }) => ({ records: polls, unmatched, ...rest });
const withDrift = (drift) => (drift ? { drift } : {});   // only runs with repeated exchanges (push sampler) have one

// read/server-log.js readClassHistogram's, its time of taking as elapsed seconds of the run (null unknown).
function histogramAt({ takenAtMs, ...heap }, { t0, offset }) {
  return { atSecond: takenAtMs === null ? null : Math.round((takenAtMs - offset - t0) / 100) / 10, ...heap };
}

// Everything the earlier stages gave, as data/summary.json (without `charts`, which the pipeline adds).
// notes and problems: the earlier stages', in stage order; the summary adds its own.
function summarize({ runDir, run, missing, csv, archiveStats, col, sut, clock, axis, series, tripTime, cometTrip, cycles,
  messages, network, capacityCriterion, judged, notes, problems, answerSource = null, answerTotals = null, tail = null, sutGcSkipped = 0,
  outOfMemory = null, serverGc = null, heapHistogram = null }) {
  const { window } = axis;
  const { best } = clock;
  const outOfRange = Object.values(col.timelines).reduce((n, t) => n + t.outOfRange, 0);
  const allNotes = outOfRange ? [...notes, `${outOfRange} record times lay outside the run and were left out of the time series`] : notes;
  const flags = flagsOf({ run, missing, csv, sut, archiveStats, problems, answerTotals, sutGcSkipped });
  return {
    id: run.id ?? path.basename(path.resolve(runDir)),
    title: runTitle(run),
    parameters: Object.fromEntries(PARAMETERS.map((p) => [p.name, run[p.name] ?? null])),   // the run schema's names
    status: run.status,
    serverCrashed: run.serverCrashed,
    // only when the server logged an OutOfMemoryError (read/server-log.js): how often, and what its heap held
    ...(outOfMemory ? { serverOutOfMemory: outOfMemory } : {}),
    // only when the run has sut/class-histogram.txt (a histogram taken while the server ran): when, in
    // elapsed seconds, and the heap's largest classes
    ...(heapHistogram ? { serverHeapHistogram: histogramAt(heapHistogram, clock) } : {}),
    startedAt: clock.t0,
    durationSeconds: axis.seconds,
    loadStartSecond: axis.loadStartSecond,
    steadyWindow: { fromSecond: window.fromSecond, toSecond: window.toSecond, seconds: window.seconds, basis: window.basis },
    clockOffset: { ms: r2(clock.offset), errorBoundMs: best?.errorBoundMs ?? null, engine: best?.engine ?? null,
      measurements: best?.measurements ?? 0, ...engineOffsets(clock.byEngine), ...withDrift(clock.drift) },
    memTotalMB: sut.memTotalMB === null ? null : r2(sut.memTotalMB),
    memorySource: sut.memorySource,
    totals: totalsOf({ col, csv, archiveStats, cycles, answerSource }),
    // records sent per second of the steady window
    responsesPerSecond: window.seconds ? r2(series.responses.slice(window.fromSecond, window.toSecond).reduce((a, b) => a + b, 0) / window.seconds) : null,
    peakConnections: maxOf(series.connections),
    peakCpu: maxOf(series.cpu), meanCpu: r2(meanOf(series.cpu)), peakMemory: r2(maxOf(series.memory)),
    peakProcessRssMB: r2(maxOf(series.processRssMB)), peakEmitDuration: maxOf(series.emitDuration),
    messages,
    network,
    tripTime: withCometTrip(tripTime.summary, cometTrip),
    capacityCriterion,
    // the trip times beyond p99 and the pauses and saturation in their seconds (stage/tail.js): runs with trip times
    ...(tail ? { tail } : {}),
    // the server JVM's stops, full collections and live heap over the steady window (measure/server-gc.js):
    // runs of a Tomcat with sut/gc.log
    ...(serverGc ? { serverGc } : {}),
    validity: judged.validity,
    workload: judged.workload,
    flags,
    archives: archiveStats.map((a) => ({ name: path.basename(a.file), entries: a.entries, byKind: a.byKind,
      errorBodies: a.errorBodies, truncated: a.truncated, unreadable: a.unreadable, problem: a.problem })),
    runNotes: run.notes ?? [],
    notes: allNotes,
  };
}

module.exports = { summarize };
