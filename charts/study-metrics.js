'use strict';
// The numbers docs/study compares, one value per run (issue #25; the study's section 5 metrics as
// pushbench measures them). Each has a unit and a definition, shown on the page. Runs are loaded as
// charts/collect-runs.js loads them: { summary, series, params }.
//
// The study measured CPU and memory of the whole SUT host, which ran the server alone. Here the load
// generator may share the host (the pilot ran everything on one 2-core machine), so the server's own
// process (pidstat) stands for the study's host figures: serverCpu, rampCpu and serverRss.

// Mean of the non-null values of series[key] over seconds [from, to).
function seriesMean(run, key, from, to) {
  const values = (run.series?.[key] ?? []).slice(from, to).filter((v) => typeof v === 'number' && Number.isFinite(v));
  return values.length ? values.reduce((a, b) => a + b, 0) / values.length : null;
}

const steady = (run) => run.summary?.steadyWindow ?? null;

function windowMean(run, key) {
  const w = steady(run);
  return w && w.seconds > 0 ? seriesMean(run, key, w.fromSecond, w.toSecond) : null;
}

const num = (v) => (typeof v === 'number' && Number.isFinite(v) ? v : null);

const STUDY_METRICS = {
  serverCpu: { name: 'Server CPU', unit: '% of one core',
    definition: 'mean CPU of the server process (pidstat, 100 = one core busy) over the steady window',
    value: (run) => windowMean(run, 'processCpu') },
  rampCpu: { name: 'Server CPU while connecting', unit: '% of one core',
    definition: 'mean CPU of the server process from the load start to the steady window (the ramp-up, when the connections are opened)',
    value: (run) => {
      const w = steady(run);
      const from = run.summary?.loadStartSecond;
      return w && Number.isFinite(from) && w.fromSecond > from ? seriesMean(run, 'processCpu', from, w.fromSecond) : null;
    } },
  serverRss: { name: 'Server memory', unit: 'MB',
    definition: 'peak resident set size of the server process over the run (summary.peakProcessRssMB)',
    value: (run) => num(run.summary?.peakProcessRssMB) },
  hostCpu: { name: 'Host CPU', unit: '% of the host',
    definition: 'mean CPU of the whole SUT host over the steady window (includes the load generator where it shares the host)',
    value: (run) => windowMean(run, 'cpu') },
  emitMs: { name: 'Emit duration', unit: 'ms',
    definition: 'mean time one emit cycle took to hand the event to every held request, over the cycles in the steady window',
    value: (run) => windowMean(run, 'emitDuration') },
  peakEmitMs: { name: 'Longest emit', unit: 'ms',
    definition: 'the longest emit cycle of the run (summary.peakEmitDuration)',
    value: (run) => num(run.summary?.peakEmitDuration) },
  responsesPerSecond: { name: 'Responses per second', unit: 'records/s',
    definition: 'records the server sent per second over the steady window (summary.responsesPerSecond)',
    value: (run) => num(run.summary?.responsesPerSecond) },
  responsesSent: { name: 'Responses sent', unit: 'records',
    definition: 'records the server sent over the whole run (summary.totals.responsesSent)',
    value: (run) => num(run.summary?.totals?.responsesSent) },
  requestsPerCycle: { name: 'Requests per emit cycle', unit: 'requests',
    definition: 'mean number of held requests one emit cycle answered, over the cycles in the steady window',
    value: (run) => windowMean(run, 'requestsPerCycle') },
  tripMs: { name: 'Trip time', unit: 'ms',
    definition: 'mean time from an emit cycle\'s start to the answer reaching the client (summary.tripTime.meanMs)',
    value: (run) => num(run.summary?.tripTime?.meanMs) },
  loadShare: { name: 'Load achieved', unit: 'share of the load asked',
    definition: 'answers the clients received over those the permutation asks for in the steady window (summary.workload.answers.share)',
    value: (run) => num(run.summary?.workload?.answers?.share) },
  crashed: { name: 'Server crashed', unit: 'yes/no', definition: 'run.sh found the server process gone (summary.serverCrashed)',
    value: (run) => (run.summary?.serverCrashed === true ? 1 : 0) },
};

// The metrics whose spread over repeats the page reports (coefficient of variation, within noise).
const HEADLINE = ['serverCpu', 'serverRss', 'responsesPerSecond', 'emitMs', 'tripMs'];

function metricValue(key, run) {
  const m = STUDY_METRICS[key];
  if (!m) throw new Error(`unknown study metric ${key}`);
  return m.value(run);
}

module.exports = { STUDY_METRICS, HEADLINE, metricValue, seriesMean };
