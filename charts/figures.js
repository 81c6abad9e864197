'use strict';
// The comparison figures, as data (study section 5, figures 5-28). Each figure:
//   id, number (the study's figure number), title (the study's caption)
//   filter  which runs: server, type ('comet'|'poll'), events (true = an event was set, false = none),
//           interval (emit interval, ms), maxDuration (poll duration, ms), threads; each a value or a list.
//           threads may also be 'level:N' (the N-th smallest thread count among the matching runs: the
//           study's 1,000/5,000/10,000/15,000/20,000 are levels 1-5, whatever scale a sweep used) or 'max'.
//   metric  which per-second data set (see METRICS)
//   kind    'xy': instead of per-second lines, one point per permutation (repeats averaged): x = METRICS[x]
//           and y = METRICS[metric], each from the run's summary (the metric's `point`), a line joining a
//           series' points in the order of x
//   series  one line per value of this run parameter (or a list of parameters: one line per combination)
//   panels  one small chart per value of this parameter (small multiples), or null for one chart
// Repeats of the same permutation are averaged second by second.

const METRICS = {
  cpu: { name: 'CPU Usage', y: 'CPU used (%)', data: 'cpu', yMax: 100 },
  memory: { name: 'Memory Usage', y: 'Memory in use (% of MemTotal)', data: 'memory', alignStart: true },
  processCpu: { name: 'Server Process CPU Usage', y: 'Process CPU (%, 100 = one core)', data: 'processCpu' },
  processRss: { name: 'Server Process Memory', y: 'Resident set size (MB)', data: 'processRssMB' },
  connections: { name: 'Concurrent Connections', y: 'Open requests on the server', data: 'connections' },
  responsesSent: { name: 'Responses Sent', y: 'Responses sent (cumulative)', data: 'responsesCumulative' },
  responsesPerSecond: { name: 'Responses Sent per Second', y: 'Responses per second', data: 'responses' },
  errors: { name: 'Errors', y: 'Errors per second', data: 'errors' },
  timeouts: { name: 'Timeouts', y: 'Timeouts per second', data: 'timeouts' },
  emitDuration: { name: 'Emit Duration', y: 'Emit duration (ms)', data: 'emitDuration' },
  requestsPerCycle: { name: 'Requests per Emit Cycle', y: 'Requests served per emit cycle', data: 'requestsPerCycle' },
  tripTime: { name: 'Trip Time', y: 'Mean trip time (ms)', data: 'tripMean', point: (s) => s.tripTime?.meanMs },
  messageRate: { name: 'Messages Delivered per Second', y: 'Event answers received per second', point: (s) => s.tripTime?.ratePerSecond },
};

const FIGURES = [
  { id: 'fig05', number: 5, title: 'Comet – No Events – Memory Usage',
    filter: { type: 'comet', events: false }, metric: 'memory', series: 'server', panels: 'threads' },
  { id: 'fig06', number: 6, title: 'Comet – No Events – CPU Usage',
    filter: { type: 'comet', events: false }, metric: 'cpu', series: 'server', panels: 'threads' },
  { id: 'fig07', number: 7, title: 'Comet – With Events – 10 Second Emit Interval – CPU Usage',
    filter: { type: 'comet', events: true, threads: 'level:2' }, metric: 'cpu', series: 'server', panels: 'interval' },
  { id: 'fig08', number: 8, title: 'Comet – With Events – 5,000 Requests – Varying Emit Duration',
    filter: { type: 'comet', events: true, threads: 'level:2' }, metric: 'emitDuration', series: 'server', panels: 'interval' },
  { id: 'fig09', number: 9, title: 'Comet – With Events – 10 Second Emit Interval – Varying Requests',
    filter: { type: 'comet', events: true, interval: 10000 }, metric: 'emitDuration', series: 'server', panels: 'threads' },
  { id: 'fig10', number: 10, title: 'Long Poll – No Events – 10 Second Request Duration – CPU Usage',
    filter: { type: 'poll', events: false, maxDuration: 10000 }, metric: 'cpu', series: 'server', panels: 'threads' },
  { id: 'fig11', number: 11, title: 'Long Poll – No Events – 10 Second Request Duration – Memory Usage',
    filter: { type: 'poll', events: false, maxDuration: 10000 }, metric: 'memory', series: 'server', panels: 'threads' },
  { id: 'fig12', number: 12, title: 'Long Poll – No Events – 10 Second Request Duration – Responses Sent',
    filter: { type: 'poll', events: false, maxDuration: 10000 }, metric: 'responsesSent', series: 'server', panels: 'threads' },
  { id: 'fig13', number: 13, title: 'Long Poll – With Events – 30 Second Emit Interval – CPU Usage',
    filter: { type: 'poll', events: true, interval: 30000 }, metric: 'cpu', series: 'server', panels: 'threads' },
  { id: 'fig14', number: 14, title: 'Long Poll – With Events – 30 Second Emit Interval – Memory Usage',
    filter: { type: 'poll', events: true, interval: 30000 }, metric: 'memory', series: 'server', panels: 'threads' },
  { id: 'fig15', number: 15, title: 'Long Poll – With Events – 30 Second Emit Interval – Varying Requests',
    filter: { type: 'poll', events: true, interval: 30000 }, metric: 'emitDuration', series: 'server', panels: 'threads' },
  { id: 'fig16', number: 16, title: 'Long Poll – With Events – 10 Second Emit Interval – Responses Sent',
    filter: { type: 'poll', events: true, interval: 10000 }, metric: 'responsesSent', series: 'server', panels: 'threads' },
  { id: 'fig17', number: 17, title: 'Node.js – Comet vs Long Poll – 1 Second Emit Interval – CPU Usage',
    filter: { server: 'node', events: true, interval: 1000 }, metric: 'cpu', series: 'type', panels: 'threads' },
  { id: 'fig18', number: 18, title: 'Node.js – Comet vs Long Poll – 30 Second Emit Interval @ 20,000 connections',
    filter: { server: 'node', events: true, interval: 30000, threads: 'max' }, metric: 'cpu', series: 'type', panels: null },
  { id: 'fig19', number: 19, title: 'Node.js – Long Poll – Responses Sent – 1 to 30 Second Emit Interval',
    filter: { server: 'node', type: 'poll', events: true }, metric: 'responsesSent', series: 'threads', panels: 'interval' },
  { id: 'fig20', number: 20, title: 'Node.js – Long Poll – Requests per Emit Cycle – 1 Second & 30 Second Emit Intervals',
    filter: { server: 'node', type: 'poll', events: true, interval: [1000, 30000] }, metric: 'requestsPerCycle', series: 'threads', panels: 'interval' },
  { id: 'fig21', number: 21, title: 'Tomcat 6 – Comet vs Long Poll – 1 Second Emit Interval – CPU Usage',
    filter: { server: 'tc6', events: true, interval: 1000 }, metric: 'cpu', series: 'type', panels: 'threads' },
  { id: 'fig22', number: 22, title: 'Tomcat 6 – Comet vs Long Poll – 1 Second Emit Interval – Emit Duration',
    filter: { server: 'tc6', events: true, interval: 1000 }, metric: 'emitDuration', series: 'type', panels: 'threads' },
  { id: 'fig23', number: 23, title: 'Tomcat 6 – Long Poll – Responses Sent – 1 to 30 Second Emit Interval',
    filter: { server: 'tc6', type: 'poll', events: true }, metric: 'responsesSent', series: 'threads', panels: 'interval' },
  { id: 'fig24', number: 24, title: 'Tomcat 6 – Long Poll – Requests per Emit Cycle – 1 second & 30 second Emit Intervals',
    filter: { server: 'tc6', type: 'poll', events: true, interval: [1000, 30000] }, metric: 'requestsPerCycle', series: 'threads', panels: 'interval' },
  { id: 'fig25', number: 25, title: 'Tomcat 7 – Comet vs Long Poll – 1 Second Emit Interval – CPU Usage',
    filter: { server: 'tc7', events: true, interval: 1000 }, metric: 'cpu', series: 'type', panels: 'threads' },
  { id: 'fig26', number: 26, title: 'Tomcat 7 – Comet vs Long Poll – 1 Second Emit Interval – Emit Duration',
    filter: { server: 'tc7', events: true, interval: 1000 }, metric: 'emitDuration', series: 'type', panels: 'threads' },
  { id: 'fig27', number: 27, title: 'Tomcat 7 – Long Poll – Responses Sent – 1 to 30 Second Emit Interval',
    filter: { server: 'tc7', type: 'poll', events: true }, metric: 'responsesSent', series: 'threads', panels: 'interval' },
  { id: 'fig28', number: 28, title: 'Tomcat 6, Tomcat 7 – 30 Second Emit Interval – Comet, Long Poll – Memory Usage',
    filter: { server: ['tc6', 'tc7'], events: true, interval: 30000 }, metric: 'memory', series: ['server', 'type'], panels: 'threads' },
  // Beyond the study: CHIRON's trip time (reference 001), emit cycle start to answer received, for long polls.
  { id: 'trip01', number: 'T1', title: 'Long Poll – With Events – 1 Second Emit Interval – Trip Time',
    filter: { type: 'poll', events: true, interval: 1000 }, metric: 'tripTime', series: 'server', panels: 'threads' },
  // Beyond the study: CometD's throughput against latency (reference 002), for long polls: each emit interval
  // and connection level gives a message rate, and its mean trip time; one line per connection level.
  { id: 'trip02', number: 'T2', title: 'Long Poll – With Events – Throughput vs Latency', kind: 'xy',
    filter: { type: 'poll', events: true }, x: 'messageRate', metric: 'tripTime', series: 'threads', panels: 'server' },
];

module.exports = { FIGURES, METRICS };
