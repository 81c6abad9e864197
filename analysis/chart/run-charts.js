'use strict';
// The charts of one run, as data (study 3.4.2): which data set, which lines; names, legends and the
// charts' order come from chart/vocabulary.js. Each becomes <run>/charts/<id>.json in Open Flash Chart 2
// format (chart/ofc.js).
const { lineChart } = require('./ofc');
const { runTitle, typeName, join, SERIES, X_ELAPSED, RUN_CHART_IDS } = require('./vocabulary');

const hasData = (values, zerosCount) => values.some((v) => v !== null && v !== undefined && (zerosCount || v !== 0));

// The held stream's records (summary.tripTime.comet holds them for comet, SSE and WebSocket alike) as a line
// names them: 'Comet records', 'SSE records', 'WebSocket records' (the held streams of lib/test-types.js;
// chart/ requires nothing outside its folder).
const heldName = (run) => typeName(run?.type === 'sse' || run?.type === 'ws' ? run.type : 'comet');

// The trip-time percentile spectrum (analysis/measure/trip-time.js percentileSpectrum) of long polls and a held
// stream's records, on one axis of the longer one's percentiles.
const spectrumOf = (t) => [t?.poll ?? [], t?.comet ?? []];
const spectrumLabels = (t) => spectrumOf(t).reduce((a, b) => (b.length > a.length ? b : a))
  .map((p) => `${p.percentile}%`);
function spectrumLines(t, held) {
  const [poll, comet] = spectrumOf(t);
  return [{ name: 'Long polls', values: poll.map((p) => p.ms) }, { name: `${held} records`, values: comet.map((p) => p.ms) }]
    .filter((l) => l.values.length);
}

// The trip-time figures of each emit cycle (analysis/measure/trip-time.js; data/trip-cycles.json): comet
// records' where the run has them, else long polls' (and pulls'); x is the cycle's place in the run (1 = the
// first to start).
const CYCLE_FIGURES = [['p50Ms', 'p50'], ['p90Ms', 'p90'], ['p99Ms', 'p99'], ['p999Ms', 'p99.9'], ['maxMs', 'max']];
function cycleLines(t) {
  const cycles = t?.comet?.length ? t.comet : t?.poll ?? [];
  return CYCLE_FIGURES.map(([key, name]) => ({ name, values: [null, ...cycles.map((c) => c[key])] }));
}

// One definition per id of RUN_CHART_IDS.
const CHARTS = {
  cpu: { ...SERIES.cpu, lines: (d) => [{ name: 'CPU used (100 - idle)', values: d.series.cpu }] },
  memory: { ...SERIES.memory,
    lines: (d) => [{ name: d.memorySource === 'vmstat' ? 'Active memory (vmstat, a run without memory.log)'
      : 'Memory in use (MemTotal - MemAvailable)', values: d.series.memory }] },
  'process-cpu': { ...SERIES.processCpu, lines: (d) => [{ name: 'Server process %CPU', values: d.series.processCpu }] },
  'process-memory': { ...SERIES.processRssMB, lines: (d) => [{ name: 'Server process RSS', values: d.series.processRssMB }] },
  connections: { ...SERIES.connections, lines: (d) => [{ name: 'Concurrent connections', values: d.series.connections }] },
  'responses-per-second': { ...SERIES.responses, lines: (d) => [{ name: 'Responses sent', values: d.series.responses }] },
  'responses-sent': { ...SERIES.responsesCumulative, lines: (d) => [{ name: 'Responses sent', values: d.series.responsesCumulative }] },
  'errors-timeouts': { name: 'Errors and Timeouts', y: 'Per second', zerosCount: true,   // none is a result
    lines: (d) => [{ name: 'Errors (failed samples)', values: d.series.errors },
      { name: 'Timeouts (timeout records)', values: d.series.timeouts }] },
  'emit-duration': { ...SERIES.emitDuration, lines: (d) => [{ name: 'Emit duration per cycle', values: d.series.emitDuration }] },
  'requests-per-cycle': { ...SERIES.requestsPerCycle, lines: (d) => [{ name: 'Requests per emit cycle', values: d.series.requestsPerCycle }] },
  'trip-time': { name: 'Trip Time',   // answers to long polls and pulls; the run title names the type
    y: 'Emit cycle start to answer received (ms)',
    lines: (d) => [{ name: 'Mean per second', values: d.series.tripMean }, { name: 'Max per second', values: d.series.tripMax }] },
  'trip-time-spectrum': { name: 'Trip Time Distribution', x: 'Percentile (log scale: each step halves the rest)',
    y: 'Emit cycle start to arrival (ms)', xLabels: (d) => spectrumLabels(d.tripSpectrum),
    lines: (d, held) => spectrumLines(d.tripSpectrum, held) },
  'trip-time-cycles': { name: 'Trip Time per Emit Cycle', x: 'Emit cycle (1 = the first to start)',
    y: 'Emit cycle start to arrival (ms)', lines: (d) => cycleLines(d.tripCycles) },
  'emit-duration-place': { name: 'Emit Duration vs Place in Queue', x: 'Place in queue', y: 'Emit duration (ms)',
    lines: (d) => [{ name: 'Mean', values: [null, ...d.places.meanDuration] },
      { name: 'Max', values: [null, ...d.places.maxDuration] }] },
};
const RUN_CHARTS = RUN_CHART_IDS.map((id) => ({ id, ...CHARTS[id] }));

// The load generator's charts: one CPU chart per engine (its host's CPU, and its JMeter JVM's share of that
// host), and the GC pause time per second of every engine.
function engineCharts(engines = []) {
  const perEngine = engines.map((e) => ({ id: `engine-cpu-${e.name}`, name: `Load generator CPU \u2013 ${e.name}`,
    y: 'CPU used (% of the engine host)', yMax: 100,
    lines: () => [{ name: 'Host CPU used (100 - idle)', values: e.hostCpu },
      { name: 'JMeter JVM %CPU / cores', values: e.jvmCpu.map((v) => (v === null || !e.cores ? null : Math.round((v / e.cores) * 100) / 100)) }] }));
  const gc = engines.some((e) => e.gcPauseMs) ? [{ id: 'engine-gc-pause', name: 'Load Generator GC Pause Time per Second',
    y: 'GC pause (ms per second)', zerosCount: 'always',   // only drawn when a GC log exists: no pause is a result
    lines: () => engines.filter((e) => e.gcPauseMs).map((e) => ({ name: `Engine ${e.name}`, values: e.gcPauseMs })) }] : [];
  return [...perEngine, ...gc];
}

// The JVMs' pauses beside the trip time (stage/tail.js; docs/validity.md "The tail"): the longest stop in
// each second of every engine and of the server (a Tomcat), and the longest trip time of that second
// (long polls' and pulls', comet records'). Drawn only when some JVM's pauses were logged.
function pauseCharts(p, held) {
  if (!p || (!p.engines?.length && !p.server)) return [];
  return [{ id: 'pauses-trip-time', name: 'JVM Pauses and Trip Time per Second', y: 'Longest in the second (ms)', zerosCount: 'always',
    lines: () => [
      ...p.engines.map((e) => ({ name: `Engine ${e.name}: longest stop`, values: e.longestMs })),
      ...(p.server ? [{ name: 'Server JVM: longest stop', values: p.server }] : []),
      { name: 'Trip time: max', values: p.tripMax ?? [] },
      { name: `${held} trip time: max`, values: p.cometMax ?? [] },
    ].filter((l) => l.values.some((v) => v !== null)) }];
}

// Returns { charts: {id: ofcJson}, skipped: {id: reason} }.
function buildRunCharts(datasets, run) {
  const charts = {};
  const skipped = {};
  const prefix = runTitle(run);
  const held = heldName(run);
  for (const def of [...RUN_CHARTS, ...engineCharts(datasets.engines), ...pauseCharts(datasets.pauses, held)]) {
    const lines = def.lines(datasets, held);
    // zerosCount: zeros are a result when the run has samples ('always': whenever the chart exists)
    const zeros = def.zerosCount === 'always' || Boolean(def.zerosCount && datasets.hasSamples);
    if (!lines.some((l) => hasData(l.values, zeros))) { skipped[def.id] = 'no data'; continue; }
    charts[def.id] = lineChart({ title: join(prefix, def.name), xLegend: def.x ?? X_ELAPSED, yLegend: def.y,
      series: lines, yMax: def.yMax ?? null, xLabels: def.xLabels ? def.xLabels(datasets) : null });
  }
  return { charts, skipped };
}

// A target run's charts (stage/target.js; docs/targets.md "What is measured"): its own per-second series,
// then the load generator's. ids: target-trip-time, target-received, target-subscriptions.
const TARGET_CHARTS = [
  { id: 'target-trip-time', name: 'Trip Time per Second', y: 'Publish sent to message received (ms)',
    lines: (d) => [{ name: 'p50', values: d.series.tripP50 }, { name: 'p99', values: d.series.tripP99 }, { name: 'max', values: d.series.tripMax }] },
  { id: 'target-received', name: 'Messages Received per Second', y: 'Messages received per second', zerosCount: 'always',
    lines: (d) => [{ name: 'Messages received (each subscriber\'s first of a seq)', values: d.series.received }] },
  { id: 'target-subscriptions', name: 'Subscriptions Open', y: 'Subscriptions open in the second', zerosCount: 'always',
    lines: (d) => [{ name: 'Subscriptions open (acknowledged, to their end)', values: d.series.subscriptions }] },
];
const TARGET_CHART_IDS = TARGET_CHARTS.map((c) => c.id);

// Returns { charts: {id: ofcJson}, skipped: {id: reason} }; title: the run's (vocabulary.js targetTitle).
function buildTargetCharts(datasets, title) {
  const charts = {};
  const skipped = {};
  for (const def of [...TARGET_CHARTS, ...engineCharts(datasets.engines)]) {
    const lines = def.lines(datasets);
    if (!lines.some((l) => hasData(l.values, def.zerosCount === 'always'))) { skipped[def.id] = 'no data'; continue; }
    charts[def.id] = lineChart({ title: join(title, def.name), xLegend: X_ELAPSED, yLegend: def.y, series: lines, yMax: def.yMax ?? null });
  }
  return { charts, skipped };
}

module.exports = { buildRunCharts, buildTargetCharts, TARGET_CHART_IDS };
