'use strict';
// The words and styles of every Open Flash Chart 2 chart pushbench draws (study 3.4.2): the analyzer's
// run charts (chart/run-charts.js, <run>/charts/<id>.json), the run report (charts/report.js) and the
// comparison figures (charts/figures.js, charts/figure-data.js) take their names, titles, axis legends,
// colours and chart ids from here, so a quantity reads and looks the same on every page.

// Servers and push types: the study's three servers, then the extended study's: Node.js on every core,
// the blocking connectors.
const SERVER_NAMES = { node: 'Node.js', tc6: 'Tomcat 6', tc7: 'Tomcat 7',
  'node-cluster': 'Node.js Cluster', 'tc6-bio': 'Tomcat 6 Blocking', 'tc7-bio': 'Tomcat 7 Blocking' };
const TYPE_NAMES = { comet: 'Comet', poll: 'Long Poll', pull: 'Pull', sse: 'SSE', ws: 'WebSocket', stream: 'Stream' };

// Titles in the study's style ("Comet – With Events – 10 Second Emit Interval – CPU Usage").
const DASH = ' \u2013 ';
const serverName = (s) => SERVER_NAMES[s] ?? String(s ?? 'unknown server');
const typeName = (t) => TYPE_NAMES[t] ?? String(t ?? 'unknown type');
const thousands = (n) => Number(n).toLocaleString('en-GB');
const join = (...parts) => parts.filter(Boolean).join(DASH);

function seconds(ms) {
  if (ms === null || ms === undefined) return null;
  return ms % 1000 === 0 ? `${ms / 1000} Second` : `${thousands(ms)} ms`;
}

// "With Events – 10 Second Emit Interval", "No Events – 10 Second Request Duration", "No Events"
function eventPart(run) {
  if (run.event && run.emitIntervalMs) return `With Events${DASH}${seconds(run.emitIntervalMs)} Emit Interval`;
  if (run.type === 'poll' && run.maxDurationMs) return `No Events${DASH}${seconds(run.maxDurationMs)} Request Duration`;
  return 'No Events';
}

// "Node.js – Comet – With Events – 10 Second Emit Interval – 5,000 Requests"; a pull run names its interval
// after the type ("Node.js – Pull – Every 1 Second – With Events – …")
function runTitle(run) {
  const parts = [serverName(run.server), typeName(run.type)];
  if (run.type === 'pull' && run.pullIntervalMs) parts.push(`Every ${seconds(run.pullIntervalMs)}`);
  parts.push(eventPart(run));
  if (run.connections) parts.push(`${thousands(run.connections)} Requests`);
  return parts.join(DASH);
}

// A target run's title (docs/targets.md): "Target nchan-sse – SSE – 10 Channels × 1/s – 100 Subscribers".
// target: { name, transport, channels, rate } as the run used them.
function targetTitle(run, target) {
  const parts = [`Target ${target.name ?? 'unnamed'}`, typeName(target.transport ?? run.type)];
  if (Number.isFinite(target.channels) && Number.isFinite(target.rate)) {
    parts.push(`${thousands(target.channels)} Channel${target.channels === 1 ? '' : 's'} \u00d7 ${thousands(target.rate)}/s`);
  }
  if (run.connections) parts.push(`${thousands(run.connections)} Subscribers`);
  return parts.join(DASH);
}

// The per-second quantities of data/series.json a chart draws on its own: the chart's name (the study's
// caption) and its y legend with the unit. A percentage axis tops at 100 (yMax) unless the data go higher.
const SERIES = {
  cpu: { name: 'CPU Usage', y: 'CPU used (%)', yMax: 100 },
  memory: { name: 'Memory Usage', y: 'Memory in use (% of MemTotal)', yMax: 100 },
  processCpu: { name: 'Server Process CPU Usage', y: 'Process CPU (%, 100 = one core)' },
  processRssMB: { name: 'Server Process Memory', y: 'Resident set size (MB)' },
  connections: { name: 'Concurrent Connections', y: 'Open requests on the server' },
  responses: { name: 'Responses Sent per Second', y: 'Responses per second' },
  responsesCumulative: { name: 'Responses Sent', y: 'Responses sent (cumulative)' },
  errors: { name: 'Errors', y: 'Errors per second' },
  timeouts: { name: 'Timeouts', y: 'Timeouts per second' },
  emitDuration: { name: 'Emit Duration', y: 'Emit duration (ms)' },
  requestsPerCycle: { name: 'Requests per Emit Cycle', y: 'Requests served per emit cycle' },
  tripMean: { name: 'Trip Time', y: 'Mean trip time (ms)' },
};

// x legends of time series: a run's own charts count from the run start, the comparison figures from
// each run's load start (summary.loadStartSecond).
const X_ELAPSED = 'Elapsed time (seconds)';
const X_SINCE_LOAD_START = 'Elapsed time since the load started (seconds)';

// The run charts in the order a report shows them: <run>/charts/<id>.json. The load generator's charts
// (engine-cpu-<engine>, engine-gc-pause) follow them.
const RUN_CHART_IDS = ['cpu', 'memory', 'process-cpu', 'process-memory', 'connections', 'responses-per-second',
  'responses-sent', 'errors-timeouts', 'emit-duration', 'requests-per-cycle', 'trip-time', 'trip-time-spectrum',
  'trip-time-cycles', 'emit-duration-place'];

// Line colours in order of use; every server keeps its own in every figure.
const PALETTE = ['#DB1750', '#1F6FB4', '#2CA02C', '#FF7F0E', '#9467BD', '#8C564B', '#17BECF', '#7F7F7F',
  '#BCBD22', '#E377C2'];
const SERVER_COLOURS = { node: PALETTE[0], tc6: PALETTE[1], tc7: PALETTE[2], 'node-cluster': PALETTE[3],
  'tc6-bio': PALETTE[4], 'tc7-bio': PALETTE[5] };

// What is built from a run that is not valid (its validity verdict) is drawn dashed with hollow dots:
// OFC2's element 'line-style' and dot type.
const NOT_VALID_LINE = { style: 'dash', on: 6, off: 4 };
const NOT_VALID_DOT = 'hollow-dot';

module.exports = { serverName, typeName, eventPart, runTitle, targetTitle, seconds, thousands, join, DASH, SERIES, X_ELAPSED,
  X_SINCE_LOAD_START, RUN_CHART_IDS, PALETTE, SERVER_COLOURS, NOT_VALID_LINE, NOT_VALID_DOT };
