'use strict';
// Stage 8, validity: what the run asked of the server against what it achieved over the steady window
// (measure/workload.js), with the load generator's monitors beside the SUT's and the client's own delays
// (measure/client-threads.js), judged by the rules of measure/validity.js (docs/validity.md). CHIRON
// (reference 001) names what this guards against a threat to validity.
const { measureWorkload } = require('../measure/workload');
const { assessValidity, thresholds: validityThresholds } = require('../measure/validity');

// The period of a thread's requests when no event paces them: a long poll without events asks again
// every max-duration, a pull every pull-interval.
const requestPeriod = (run) => (run.type === 'poll' && !run.event ? run.maxDuration : run.type === 'pull' ? run.pullInterval : null);

// run; csv: stage/samples.js'; t0: the run start; axis: { seconds, window }; series: stage/series.js';
// cycles: stage/cycles.js'; sutCores: the SUT's cores (pidstat); loadGenerator: stage/monitors.js
// readLoadGenerator's. Returns { workload, validity, notes }.
function judgeRun({ run, csv, t0, axis: { window }, series, cycles, sutCores, loadGenerator }) {
  const cycleStartsClient = cycles.map((c) => t0 + c.createdSecond * 1000).sort((a, b) => a - b);
  const client = csv ? csv.clientThreads.result(csv.firstRequest,
    { fromMs: t0 + window.fromSecond * 1000, toMs: t0 + window.toSecond * 1000 }, cycleStartsClient, requestPeriod(run)) : null;
  const { thresholds, problems } = validityThresholds();
  const workload = measureWorkload({ run, window, series, cycles, client, engines: loadGenerator.engines, sutCores,
    controllerCpu: loadGenerator.controllerCpu, errors: csv ? { failed: csv.errors, samples: csv.rows } : null, thresholds });
  const validity = assessValidity(workload, { crashed: run.serverCrashed === true, thresholds,
    known: csv ? [] : ['no results.csv: ramp-up and re-poll gaps unknown'] });
  return { workload, validity, notes: problems };
}

module.exports = { judgeRun };
