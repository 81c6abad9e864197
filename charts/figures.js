'use strict';
// The comparison figures, as data (study section 5, figures 5-28). Each figure:
//   id, number (the study's figure number), title (the study's caption)
//   filter  which runs: server, type ('comet'|'poll'), events (true = an event was set, false = none),
//           emitIntervalMs, maxDurationMs (poll duration), connections (the run schema's names,
//           lib/run-schema.js); each a value or a list. connections may also be 'level:N' (the N-th
//           smallest connection count among the matching runs: the
//           study's 1,000/5,000/10,000/15,000/20,000 are levels 1-5, whatever scale a sweep used) or 'max'.
//   metric  which per-second data set (see METRICS)
//   kind    'xy': instead of per-second lines, one point per permutation (repeats averaged): x = METRICS[x]
//           and y = METRICS[metric], each from the run's summary (the metric's `point`), a line joining a
//           series' points in the order of x
//   series  one line per value of this run parameter (or a list of parameters: one line per combination)
//   panels  one small chart per value of this parameter (small multiples), or null for one chart
// Repeats of the same permutation are averaged second by second.
const { SERIES } = require('../analysis/chart/vocabulary');
const { summaryParameters } = require('../lib/run-schema');
const { isHeldStream } = require('../lib/test-types');

// A metric drawn from the per-second data set `data` (data/series.json), named as the run charts name it.
const perSecond = (data, more = {}) => ({ ...SERIES[data], data, ...more });

// The trip-time figures of a run's own kind of message (summary.tripTime, analysis/measure/trip-time.js): a
// held stream's (comet, sse, ws) records are in tripTime.comet.
const tripOf = (s) => (isHeldStream(s.parameters?.type) ? s.tripTime?.comet : s.tripTime);

const METRICS = {
  cpu: perSecond('cpu'),
  // lines moved to a common start (alignStart) are no longer a share of MemTotal: no 100 top
  memory: perSecond('memory', { yMax: null, alignStart: true }),
  processCpu: perSecond('processCpu'),
  processRss: perSecond('processRssMB'),
  connections: perSecond('connections'),
  responsesSent: perSecond('responsesCumulative'),
  responsesPerSecond: perSecond('responses'),
  errors: perSecond('errors'),
  timeouts: perSecond('timeouts'),
  emitDuration: perSecond('emitDuration'),
  requestsPerCycle: perSecond('requestsPerCycle'),
  tripTime: perSecond('tripMean', { point: (s) => s.tripTime?.meanMs }),
  messageRate: { name: 'Messages Delivered per Second', y: 'Event answers received per second', point: (s) => s.tripTime?.ratePerSecond },
  // issue #22, the trip time of every pushed message (analysis/measure/trip-time.js): a comet run's records,
  // another run's long polls (or pulls); each run's report gives the clock offset's bound beside it
  tripP50: { name: 'Median Trip Time', y: 'Trip time p50 (ms, emit cycle start to arrival)', point: (s) => tripOf(s)?.p50Ms },
  tripP99: { name: 'p99 Trip Time', y: 'Trip time p99 (ms, emit cycle start to arrival)', point: (s) => tripOf(s)?.p99Ms },
  // reference 003's capacity criterion (analysis/measure/answer-criterion.js): the share of answers within T s
  // issue #26, push against pull: what each delivered message costs on the SUT host's wire (analysis/measure/network.js)
  bytesPerMessage: { name: 'Bytes per Message', y: 'Bytes in + out on the SUT host per delivered message',
    point: (s) => (s.network?.available ? s.network.perMessage.bytes : null) },
  segmentsPerMessage: { name: 'TCP Segments per Message', y: 'TCP segments in + out per delivered message',
    point: (s) => (s.network?.available ? s.network.perMessage.segments : null) },
  // the run's connection count (its parameter), against which xy figures draw; `connections` above is the
  // per-second count the server held
  connectionLevel: { name: 'Concurrent Requests', y: 'Concurrent requests (threads)', point: (s) => (s.parameters ? summaryParameters(s.parameters).connections : undefined) },
  answersWithin: { name: 'Answers Within T', y: 'Answers within T s (%; the criterion: >= 95)',
    point: (s) => (Number.isFinite(s.capacityCriterion?.share) ? s.capacityCriterion.share * 100 : null) },
};

const FIGURES = [
  { id: 'fig05', number: 5, title: 'Comet – No Events – Memory Usage',
    filter: { type: 'comet', events: false }, metric: 'memory', series: 'server', panels: 'connections' },
  { id: 'fig06', number: 6, title: 'Comet – No Events – CPU Usage',
    filter: { type: 'comet', events: false }, metric: 'cpu', series: 'server', panels: 'connections' },
  { id: 'fig07', number: 7, title: 'Comet – With Events – 10 Second Emit Interval – CPU Usage',
    filter: { type: 'comet', events: true, connections: 'level:2' }, metric: 'cpu', series: 'server', panels: 'emitIntervalMs' },
  { id: 'fig08', number: 8, title: 'Comet – With Events – 5,000 Requests – Varying Emit Duration',
    filter: { type: 'comet', events: true, connections: 'level:2' }, metric: 'emitDuration', series: 'server', panels: 'emitIntervalMs' },
  { id: 'fig09', number: 9, title: 'Comet – With Events – 10 Second Emit Interval – Varying Requests',
    filter: { type: 'comet', events: true, emitIntervalMs: 10000 }, metric: 'emitDuration', series: 'server', panels: 'connections' },
  { id: 'fig10', number: 10, title: 'Long Poll – No Events – 10 Second Request Duration – CPU Usage',
    filter: { type: 'poll', events: false, maxDurationMs: 10000 }, metric: 'cpu', series: 'server', panels: 'connections' },
  { id: 'fig11', number: 11, title: 'Long Poll – No Events – 10 Second Request Duration – Memory Usage',
    filter: { type: 'poll', events: false, maxDurationMs: 10000 }, metric: 'memory', series: 'server', panels: 'connections' },
  { id: 'fig12', number: 12, title: 'Long Poll – No Events – 10 Second Request Duration – Responses Sent',
    filter: { type: 'poll', events: false, maxDurationMs: 10000 }, metric: 'responsesSent', series: 'server', panels: 'connections' },
  { id: 'fig13', number: 13, title: 'Long Poll – With Events – 30 Second Emit Interval – CPU Usage',
    filter: { type: 'poll', events: true, emitIntervalMs: 30000 }, metric: 'cpu', series: 'server', panels: 'connections' },
  { id: 'fig14', number: 14, title: 'Long Poll – With Events – 30 Second Emit Interval – Memory Usage',
    filter: { type: 'poll', events: true, emitIntervalMs: 30000 }, metric: 'memory', series: 'server', panels: 'connections' },
  { id: 'fig15', number: 15, title: 'Long Poll – With Events – 30 Second Emit Interval – Varying Requests',
    filter: { type: 'poll', events: true, emitIntervalMs: 30000 }, metric: 'emitDuration', series: 'server', panels: 'connections' },
  { id: 'fig16', number: 16, title: 'Long Poll – With Events – 10 Second Emit Interval – Responses Sent',
    filter: { type: 'poll', events: true, emitIntervalMs: 10000 }, metric: 'responsesSent', series: 'server', panels: 'connections' },
  { id: 'fig17', number: 17, title: 'Node.js – Comet vs Long Poll – 1 Second Emit Interval – CPU Usage',
    filter: { server: 'node', events: true, emitIntervalMs: 1000 }, metric: 'cpu', series: 'type', panels: 'connections' },
  { id: 'fig18', number: 18, title: 'Node.js – Comet vs Long Poll – 30 Second Emit Interval @ 20,000 connections',
    filter: { server: 'node', events: true, emitIntervalMs: 30000, connections: 'max' }, metric: 'cpu', series: 'type', panels: null },
  { id: 'fig19', number: 19, title: 'Node.js – Long Poll – Responses Sent – 1 to 30 Second Emit Interval',
    filter: { server: 'node', type: 'poll', events: true }, metric: 'responsesSent', series: 'connections', panels: 'emitIntervalMs' },
  { id: 'fig20', number: 20, title: 'Node.js – Long Poll – Requests per Emit Cycle – 1 Second & 30 Second Emit Intervals',
    filter: { server: 'node', type: 'poll', events: true, emitIntervalMs: [1000, 30000] }, metric: 'requestsPerCycle', series: 'connections', panels: 'emitIntervalMs' },
  { id: 'fig21', number: 21, title: 'Tomcat 6 – Comet vs Long Poll – 1 Second Emit Interval – CPU Usage',
    filter: { server: 'tc6', events: true, emitIntervalMs: 1000 }, metric: 'cpu', series: 'type', panels: 'connections' },
  { id: 'fig22', number: 22, title: 'Tomcat 6 – Comet vs Long Poll – 1 Second Emit Interval – Emit Duration',
    filter: { server: 'tc6', events: true, emitIntervalMs: 1000 }, metric: 'emitDuration', series: 'type', panels: 'connections' },
  { id: 'fig23', number: 23, title: 'Tomcat 6 – Long Poll – Responses Sent – 1 to 30 Second Emit Interval',
    filter: { server: 'tc6', type: 'poll', events: true }, metric: 'responsesSent', series: 'connections', panels: 'emitIntervalMs' },
  { id: 'fig24', number: 24, title: 'Tomcat 6 – Long Poll – Requests per Emit Cycle – 1 second & 30 second Emit Intervals',
    filter: { server: 'tc6', type: 'poll', events: true, emitIntervalMs: [1000, 30000] }, metric: 'requestsPerCycle', series: 'connections', panels: 'emitIntervalMs' },
  { id: 'fig25', number: 25, title: 'Tomcat 7 – Comet vs Long Poll – 1 Second Emit Interval – CPU Usage',
    filter: { server: 'tc7', events: true, emitIntervalMs: 1000 }, metric: 'cpu', series: 'type', panels: 'connections' },
  { id: 'fig26', number: 26, title: 'Tomcat 7 – Comet vs Long Poll – 1 Second Emit Interval – Emit Duration',
    filter: { server: 'tc7', events: true, emitIntervalMs: 1000 }, metric: 'emitDuration', series: 'type', panels: 'connections' },
  { id: 'fig27', number: 27, title: 'Tomcat 7 – Long Poll – Responses Sent – 1 to 30 Second Emit Interval',
    filter: { server: 'tc7', type: 'poll', events: true }, metric: 'responsesSent', series: 'connections', panels: 'emitIntervalMs' },
  { id: 'fig28', number: 28, title: 'Tomcat 6, Tomcat 7 – 30 Second Emit Interval – Comet, Long Poll – Memory Usage',
    filter: { server: ['tc6', 'tc7'], events: true, emitIntervalMs: 30000 }, metric: 'memory', series: ['server', 'type'], panels: 'connections' },
  // Beyond the study: CHIRON's trip time (reference 001), emit cycle start to answer received, for long polls.
  { id: 'trip01', number: 'T1', title: 'Long Poll – With Events – 1 Second Emit Interval – Trip Time',
    filter: { type: 'poll', events: true, emitIntervalMs: 1000 }, metric: 'tripTime', series: 'server', panels: 'connections' },
  // Beyond the study: CometD's throughput against latency (reference 002), for long polls: each emit interval
  // and connection level gives a message rate, and its mean trip time; one line per connection level.
  { id: 'trip02', number: 'T2', title: 'Long Poll – With Events – Throughput vs Latency', kind: 'xy',
    filter: { type: 'poll', events: true }, x: 'messageRate', metric: 'tripTime', series: 'connections', panels: 'server' },
  // Beyond the study (issue #22): CometD's latency against clients (reference 002) for every pushed message: the
  // trip time's p50 and p99 against the connection level, one line per server, one chart per emit interval.
  { id: 'trip03', number: 'T3', title: 'Comet – With Events – Median Trip Time vs Connections', kind: 'xy',
    filter: { type: 'comet', events: true }, x: 'connectionLevel', metric: 'tripP50', series: 'server', panels: 'emitIntervalMs' },
  { id: 'trip04', number: 'T4', title: 'Comet – With Events – p99 Trip Time vs Connections', kind: 'xy',
    filter: { type: 'comet', events: true }, x: 'connectionLevel', metric: 'tripP99', series: 'server', panels: 'emitIntervalMs' },
  { id: 'trip05', number: 'T5', title: 'Long Poll – With Events – p99 Trip Time vs Connections', kind: 'xy',
    filter: { type: 'poll', events: true }, x: 'connectionLevel', metric: 'tripP99', series: 'server', panels: 'emitIntervalMs' },
  // Beyond the study: reference 003's capacity criterion, at least 95% of answers within T s (default 6;
  // an answer's time counts past the wait the protocol asks for: analysis/measure/answer-criterion.js), one point
  // per permutation against its connection level, one line per server.
  { id: 'cap01', number: 'C1', title: 'Long Poll – With Events – Answers Within T (Reference 003: 95%)', kind: 'xy',
    filter: { type: 'poll', events: true }, x: 'connectionLevel', metric: 'answersWithin', series: 'server', panels: 'emitIntervalMs' },
  { id: 'cap02', number: 'C2', title: 'Long Poll – No Events – Answers Within T (Reference 003: 95%)', kind: 'xy',
    filter: { type: 'poll', events: false }, x: 'connectionLevel', metric: 'answersWithin', series: 'server', panels: 'maxDurationMs' },
  { id: 'cap03', number: 'C3', title: 'Comet – Streams Answered Within T (Reference 003: 95%)', kind: 'xy',
    filter: { type: 'comet' }, x: 'connectionLevel', metric: 'answersWithin', series: 'server', panels: 'emitIntervalMs' },
  // Beyond the study (issue #26, CHIRON's push against pull): the network cost of each delivered message
  // against the connection level, one line per test type (comet, long poll, pull: one per pull interval), one
  // chart per emit interval.
  { id: 'net01', number: 'N1', title: 'Push vs Pull – With Events – Bytes per Delivered Message', kind: 'xy',
    filter: { type: ['comet', 'poll', 'pull'], events: true }, x: 'connectionLevel', metric: 'bytesPerMessage', series: ['type', 'pullIntervalMs'], panels: 'emitIntervalMs' },
  { id: 'net02', number: 'N2', title: 'Push vs Pull – With Events – TCP Segments per Delivered Message', kind: 'xy',
    filter: { type: ['comet', 'poll', 'pull'], events: true }, x: 'connectionLevel', metric: 'segmentsPerMessage', series: ['type', 'pullIntervalMs'], panels: 'emitIntervalMs' },
  // The extended study (./sweep.sh --study extended), one group per research question the study left open.
  // RQ4: can Node.js use every core? One process against node-cluster (one worker per core).
  { id: 'rq4-01', number: 'RQ4.1', title: 'RQ4 – Node.js vs Node.js Cluster – Comet – 1 Second Emit Interval – Emit Duration',
    filter: { server: ['node', 'node-cluster'], type: 'comet', events: true, emitIntervalMs: 1000 }, metric: 'emitDuration', series: 'server', panels: 'connections' },
  { id: 'rq4-02', number: 'RQ4.2', title: 'RQ4 – Node.js vs Node.js Cluster – Long Poll – 1 Second Emit Interval – Responses Sent',
    filter: { server: ['node', 'node-cluster'], type: 'poll', events: true, emitIntervalMs: 1000 }, metric: 'responsesSent', series: 'server', panels: 'connections' },
  { id: 'rq4-03', number: 'RQ4.3', title: 'RQ4 – Node.js vs Node.js Cluster – Long Poll – 1 Second Emit Interval – Server Process CPU',
    filter: { server: ['node', 'node-cluster'], type: 'poll', events: true, emitIntervalMs: 1000 }, metric: 'processCpu', series: 'server', panels: 'connections' },
  { id: 'rq4-04', number: 'RQ4.4', title: 'RQ4 – Node.js vs Node.js Cluster – Long Poll – With Events – Answers Within T', kind: 'xy',
    filter: { server: ['node', 'node-cluster'], type: 'poll', events: true }, x: 'connectionLevel', metric: 'answersWithin', series: 'server', panels: 'emitIntervalMs' },
  // RQ2: what does a blocking connector (a thread per held connection) cost Tomcat?
  { id: 'rq2-01', number: 'RQ2.1', title: 'RQ2 – Tomcat NIO vs Blocking – Comet – No Events – Server Process Memory',
    filter: { server: ['tc6', 'tc6-bio', 'tc7', 'tc7-bio'], type: 'comet', events: false }, metric: 'processRss', series: 'server', panels: 'connections' },
  { id: 'rq2-02', number: 'RQ2.2', title: 'RQ2 – Tomcat NIO vs Blocking – Comet – 1 Second Emit Interval – Emit Duration',
    filter: { server: ['tc6', 'tc6-bio', 'tc7', 'tc7-bio'], type: 'comet', events: true, emitIntervalMs: 1000 }, metric: 'emitDuration', series: 'server', panels: 'connections' },
  { id: 'rq2-03', number: 'RQ2.3', title: 'RQ2 – Tomcat NIO vs Blocking – Long Poll – 1 Second Emit Interval – CPU Usage',
    filter: { server: ['tc6', 'tc6-bio', 'tc7', 'tc7-bio'], type: 'poll', events: true, emitIntervalMs: 1000 }, metric: 'cpu', series: 'server', panels: 'connections' },
  { id: 'rq2-04', number: 'RQ2.4', title: 'RQ2 – Tomcat NIO vs Blocking – Long Poll – With Events – Answers Within T', kind: 'xy',
    filter: { server: ['tc6', 'tc6-bio', 'tc7', 'tc7-bio'], type: 'poll', events: true }, x: 'connectionLevel', metric: 'answersWithin', series: 'server', panels: 'emitIntervalMs' },
];

module.exports = { FIGURES, METRICS };
