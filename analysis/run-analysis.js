'use strict';
// The run analysis (study 3.4): one run directory -> data sets (data/*.json) and charts (charts/*.json).
// analyzeRun runs the stages of stage/ in order, each a function from the values before it to one value:
//   samples -> archives -> answers -> clock -> monitors -> time axis -> cycles -> series -> messages
//   -> tail -> validity -> summary, and the run charts (chart/run-charts.js) from the data sets.
// The answers are results.csv's request samples, or, with the mux engine, the stream logs' (folded in the
// archives' workers, joined to results.csv's other samples: stage/samples.js joinAnswers).
// A target run (run.json "server": "target": a push server pushbench did not start; docs/targets.md) takes
// a path of its own, stage/target.js: no server monitors, samples or emit cycles, the stream logs alone.
// Every input is optional: what is missing or unreadable is listed in data/summary.json and the rest is
// still analysed. docs/architecture.md shows the stages and the files between them; outputs.js writes the
// files and tells a reader whether they are whole.
const path = require('node:path');
const { findInputs, readRun } = require('./read/run-inputs');
const { answerCriterionOfCsv, answerCriterionOfStreamLogs, withinSeconds } = require('./measure/answer-criterion');
const { buildRunCharts } = require('./chart/run-charts');
const { readSamples, joinAnswers, answerTotals } = require('./stage/samples');
const { readArchives } = require('./stage/archives');
const { timelineBase, clientStart, runClock, timeAxis } = require('./stage/clock');
const { readSutMonitors, readLoadGenerator } = require('./stage/monitors');
const { emitCycles } = require('./stage/cycles');
const { perSecondSeries } = require('./stage/series');
const { deliveredMessages, networkCost } = require('./stage/messages');
const { judgeRun, recordsLost } = require('./stage/validity');
const { tailStage } = require('./stage/tail');
const { summarize } = require('./stage/summary');
const { writeOutputs } = require('./outputs');
const { judgeThresholds, junitFile } = require('./stage/thresholds');
const { readOutOfMemory, readClassHistogram } = require('./read/server-log');
const { analyzeTargetRun, isTargetRun } = require('./stage/target');
const { readTlsHandshakes } = require('./read/tls-handshakes');

// Returns { summary, datasets, charts } (charts: { id: OFC2 JSON }).
async function analyzeRun(runDir) {
  const { inputs, archives: archiveFiles, missing, present } = findInputs(runDir);
  const { run, problem: runProblem } = readRun(inputs.runJson);
  if (isTargetRun(run)) return analyzeTargetRun({ runDir, run, archives: archiveFiles, missing, runProblem, inputs, present });
  const resultsCsv = present('resultsCsv') ? inputs.resultsCsv : null;
  const samples = await readSamples(resultsCsv, timelineBase(Number.isFinite(run.startedAt) ? run.startedAt : null));
  const start = clientStart(run, samples.csv);
  const archives = await readArchives(archiveFiles, { baseMs: timelineBase(start.t0), sampleEnds: samples.csv?.sampleEnds ?? null,
    answers: { errorsBaseMs: samples.csv?.errorTimeline.base ?? null, criterion: { run, seconds: withinSeconds().seconds } } });
  const { col } = archives;
  const { csv, source: answerSource } = joinAnswers(samples.csv, archives.answers);
  const clock = runClock({ t0: start.t0, timestamps: col.timestamps, firstServer: col.firstServer,
    timestampRows: csv?.timestampRows ?? [], engines: run.hosts?.engines ?? [] });
  const sut = await readSutMonitors(inputs, present);
  const axis = timeAxis({ run, csv, col, vmstatSeconds: sut.vmstat.samples.length, t0: clock.t0, offset: clock.offset });
  const emit = emitCycles(col, clock, axis.seconds);
  const { series, tripTime, cometTrip, tripCycles, tails, cometSeries, notes: seriesNotes } = perSecondSeries({ sut, col, csv,
    trips: archives.trips, cometTrips: archives.cometTrips, clock, axis, emit });
  const messages = deliveredMessages(col);
  const network = networkCost(runDir, { run, col, clock, axis });
  const loadGenerator = await readLoadGenerator(runDir, run, clock.t0, axis.seconds);
  const tail = await tailStage({ runDir, run, clock, axis, series, tails, loadGenerator, serverCores: sut.serverCores });
  const totals = answerTotals(csv, archives.answers);
  const judged = judgeRun({ run, csv, clock, axis, series, emit, sutCores: sut.pidstat.cores ?? null, serverCores: sut.serverCores, loadGenerator,
    tail: tail.tail, lost: recordsLost(run, archives.stats, totals), messages });
  const datasets = { series, cycles: emit.cycles, places: emit.places, messages, memorySource: sut.memorySource,
    hasSamples: Boolean(csv?.rows), tripSpectrum: { poll: tripTime.summary?.spectrum ?? [], comet: cometTrip?.spectrum ?? [] }, tripCycles,
    engines: loadGenerator.engines.map((e) => ({ name: e.name, cores: e.cores, hostCpu: e.hostCpu, steal: e.steal, jvmCpu: e.jvmCpu,
      jvmRssMB: e.jvmRssMB, gcPauseMs: e.gcPauseMs })),
    pauses: { ...tail.pauses, tripMax: series.tripMax, cometMax: cometSeries.max } };
  const summary = summarize({ runDir, run, missing, csv, archiveStats: archives.stats, col, sut, clock, axis, series, tripTime,
    cometTrip, cycles: emit.cycles, messages, network, judged, tail: tail.tail, serverGc: tail.serverGc, outOfMemory: readOutOfMemory(path.join(runDir, 'sut', 'server.log')),
    heapHistogram: readClassHistogram(path.join(runDir, 'sut', 'class-histogram.txt')), sutGcSkipped: tail.skipped, answerSource, answerTotals: totals,
    // reference 003's capacity criterion: 95% of answers within T s (measure/answer-criterion.js)
    capacityCriterion: answerSource === 'stream logs' ? answerCriterionOfStreamLogs(archives.answers.criterion, run)
      : await answerCriterionOfCsv(resultsCsv, run),
    notes: [...start.notes, ...clock.notes, ...sut.notes, ...seriesNotes, ...tail.notes, ...judged.notes],
    problems: [runProblem, samples.problem].filter(Boolean) });
  // a built-in run over TLS (run.sh --tls): run.json's record and the engines' handshakes (read/tls-handshakes.js)
  if (run.tls) summary.tls = { ...run.tls, handshakes: resultsCsv ? await readTlsHandshakes(resultsCsv) : null };
  const { charts, skipped } = buildRunCharts(datasets, run);
  summary.charts = { written: Object.keys(charts), skipped };
  return { summary, datasets, charts };
}

// Writes data/ and charts/ of the run (outputs.js: each file whole or not at all, data/summary.json last);
// returns what analyzeRun returned.
// analyzeRun, the run's thresholds judged over its summary (stage/thresholds.js), and every output written.
async function analyzeAndWrite(runDir) {
  const result = await analyzeRun(runDir);
  const { run } = readRun(findInputs(runDir).inputs.runJson);
  const thresholds = judgeThresholds(run.thresholds, result.summary);
  if (thresholds) result.summary.thresholds = thresholds;
  writeOutputs(runDir, result);
  junitFile(runDir, result.summary.id, thresholds);
  return result;
}

module.exports = { analyzeRun, analyzeAndWrite };
