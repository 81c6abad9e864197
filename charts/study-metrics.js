'use strict';
// The numbers docs/study compares, one value per run (issue #25; the study's section 5 metrics as
// pushbench measures them). Each has a unit and a definition, shown on the page. Runs are loaded as
// charts/collect-runs.js loads them: { summary, series, params }.
//
// The study measured CPU and memory of the whole SUT host, which ran the server alone. Here the load
// generator may share the host (the pilot ran everything on one 2-core machine), so the server's own
// process (pidstat) stands for the study's host figures: serverCpu, rampCpu and serverRss.

const { r3 } = require('../analysis/measure/per-second');

// The numbers of series[key] over seconds [from, to).
function seriesValues(run, key, from, to) {
  return (run.series?.[key] ?? []).slice(from, to).filter((v) => typeof v === 'number' && Number.isFinite(v));
}

const meanOf = (v) => (v.length ? v.reduce((a, b) => a + b, 0) / v.length : null);
const maxOf = (v) => (v.length ? Math.max(...v) : null);
// the p-th percentile (nearest rank) of the values, or null
function percentileOf(v, p) {
  if (!v.length) return null;
  const s = [...v].sort((a, b) => a - b);
  return s[Math.min(s.length - 1, Math.max(0, Math.ceil(p * s.length) - 1))];
}

// Mean of the non-null values of series[key] over seconds [from, to).
const seriesMean = (run, key, from, to) => meanOf(seriesValues(run, key, from, to));

const steady = (run) => run.summary?.steadyWindow ?? null;

// summary.workload.answers.share. The analysis asks connections x max(cycles seen, cycles the interval asks)
// answers of a run with events (analysis/measure/workload.js); summaries written before it did (their basis
// "threads x emit cycles started in the window", the at-scale sitting's part 1) asked only for the cycles
// seen, so a stalled emit loop looked like a kept-up load: their share is asked again with the summary's
// own emit.cyclesExpected.
function loadShare(run) {
  const answers = run.summary?.workload?.answers;
  const cyclesAsked = run.summary?.workload?.emit?.cyclesExpected;
  if (/started in the window/.test(answers?.basis ?? '') && answers.cycles > 0 && cyclesAsked > answers.cycles) {
    return r3(answers.achieved / (answers.expected / answers.cycles * cyclesAsked));
  }
  return num(answers?.share);
}

// The warm-up rule, one for every steady-window metric: the first WARMUP_SECONDS of a run's steady window
// are left out (the server's JIT and collector are still settling then: in the at-scale sitting the median
// difference between the two halves of a run's window in server CPU fell from 20% to 6.5% with them left
// out, and the 100/400 sitting's first Tomcat emit cycles took 34-47 ms against 14-16 ms warm). An emit
// metric needs at least MIN_WARM_CYCLES cycles after them, else it has no value for the run. A peak of
// memory takes the whole window (memory only grows through a warm-up).
const WARMUP_SECONDS = 10;
const MIN_WARM_CYCLES = 3;
const WARM = `the steady window after its first ${WARMUP_SECONDS} s (warm-up)`;

// series[key] over the steady window (warm: after its warm-up), or null without one.
function windowValues(run, key, { warm = true } = {}) {
  const w = steady(run);
  if (!w || !(w.seconds > 0)) return null;
  const from = w.fromSecond + (warm ? WARMUP_SECONDS : 0);
  return from < w.toSecond ? seriesValues(run, key, from, w.toSecond) : null;
}

const windowMean = (run, key) => { const v = windowValues(run, key); return v && v.length ? meanOf(v) : null; };

function warmCycles(run, key) {
  const v = windowValues(run, key);
  return v && v.length >= MIN_WARM_CYCLES ? v : null;
}

const num = (v) => (typeof v === 'number' && Number.isFinite(v) ? v : null);

// The study's own units, for margins and for the page (reference 000 section 3.3.4: the SUT host had 4
// cores and 4.00 GB; its CPU and memory figures are % of that host): a value in pushbench's unit divided
// by `per` is in points of the study's measure.
const STUDY_HOST_CPU = { unit: 'points of the study host\'s CPU (4 cores)', per: 4 };
const STUDY_HOST_MEMORY = { unit: 'points of the study host\'s memory (4.00 GB)', per: 4096 / 100 };

const STUDY_METRICS = {
  serverCpu: { name: 'Server CPU', unit: '% of one core',
    definition: `mean CPU of the server process (pidstat, 100 = one core busy) over ${WARM}`,
    study: STUDY_HOST_CPU, value: (run) => windowMean(run, 'processCpu') },
  peakServerCpu: { name: 'Server CPU peak', unit: '% of one core',
    definition: `95th percentile of the server process's CPU per second over ${WARM} (for claims about peaks and ceilings)`,
    study: STUDY_HOST_CPU, value: (run) => { const v = windowValues(run, 'processCpu'); return v ? percentileOf(v, 0.95) : null; } },
  rampCpu: { name: 'Server CPU while connecting', unit: '% of one core',
    definition: 'mean CPU of the server process from the load start to the steady window (the ramp-up, when the connections are opened)',
    value: (run) => {
      const w = steady(run);
      const from = run.summary?.loadStartSecond;
      return w && Number.isFinite(from) && w.fromSecond > from ? seriesMean(run, 'processCpu', from, w.fromSecond) : null;
    } },
  serverRss: { name: 'Server memory', unit: 'MB',
    definition: 'peak resident set size of the server process over the steady window (pidstat RSS per second; a server of several processes: the sum over its PIDs)',
    study: STUDY_HOST_MEMORY, value: (run) => { const v = windowValues(run, 'processRssMB', { warm: false }); return v ? maxOf(v) : null; } },
  hostCpu: { name: 'Host CPU', unit: '% of the host',
    definition: `mean CPU of the whole SUT host over ${WARM} (includes the load generator where it shares the host)`,
    value: (run) => windowMean(run, 'cpu') },
  emitDurationMs: { name: 'Emit duration', unit: 'ms',
    definition: `mean time one emit cycle took to hand the event to every held request, over the cycles in ${WARM}; none with fewer than ${MIN_WARM_CYCLES} such cycles`,
    value: (run) => { const v = warmCycles(run, 'emitDuration'); return v ? meanOf(v) : null; } },
  peakEmitDurationMs: { name: 'Longest emit', unit: 'ms',
    definition: `the longest emit cycle in ${WARM}; none with fewer than ${MIN_WARM_CYCLES} such cycles`,
    value: (run) => { const v = warmCycles(run, 'emitDuration'); return v ? maxOf(v) : null; } },
  responsesPerSecond: { name: 'Responses per second', unit: 'records/s',
    definition: `records the server sent per second over ${WARM}`,
    value: (run) => windowMean(run, 'responses') },
  responsesSent: { name: 'Responses sent', unit: 'records',
    definition: 'records the server sent over the whole run (summary.totals.responsesSent)',
    value: (run) => num(run.summary?.totals?.responsesSent) },
  requestsPerCycle: { name: 'Requests per emit cycle', unit: 'requests',
    definition: `mean number of held requests one emit cycle answered, over the cycles in ${WARM}`,
    value: (run) => windowMean(run, 'requestsPerCycle') },
  peakRequestsPerCycle: { name: 'Most requests in an emit cycle', unit: 'requests',
    definition: `the largest number of held requests one emit cycle answered in ${WARM} (for claims about a ceiling)`,
    value: (run) => { const v = windowValues(run, 'requestsPerCycle'); return v ? maxOf(v) : null; } },
  tripMs: { name: 'Trip time', unit: 'ms',
    definition: 'mean time from an emit cycle\'s start to the answer reaching the client (summary.tripTime.meanMs)',
    value: (run) => num(run.summary?.tripTime?.meanMs) },
  loadShare: { name: 'Load achieved', unit: 'share of the load asked',
    definition: 'answers the clients received over those the permutation asks for in the steady window (summary.workload.answers.share; with events, connections x the emit cycles the interval asks)',
    value: loadShare },
  crashed: { name: 'Server crashed', unit: 'yes/no', definition: 'run.sh found the server process gone (summary.serverCrashed)',
    value: (run) => (run.summary?.serverCrashed === true ? 1 : 0) },
};

// The metrics whose spread over repeats the page reports (coefficient of variation, within noise).
const HEADLINE = ['serverCpu', 'serverRss', 'responsesPerSecond', 'emitDurationMs', 'tripMs'];

function metricValue(key, run) {
  const m = STUDY_METRICS[key];
  if (!m) throw new Error(`unknown study metric ${key}`);
  return m.value(run);
}

module.exports = { STUDY_METRICS, HEADLINE, metricValue, seriesMean, percentileOf, WARMUP_SECONDS, MIN_WARM_CYCLES };
