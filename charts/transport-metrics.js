'use strict';
// The figures the five-transport page compares (issue #38 item 5: comet, long poll, pull, SSE and
// WebSocket on one server), one value per run, each with its unit and definition (shown on the page).
// Runs are loaded as charts/collect-runs.js loads them: { summary, series, params }.
//
// The server's CPU and memory are its own process's (pidstat), as on the study page (study-metrics.js,
// whose warm steady window they share): the load generator may share the host.
const { STUDY_METRICS, WARMUP_SECONDS } = require('./study-metrics');
const { TEST_TYPES: TRANSPORTS, isHeldStream } = require('../lib/test-types');

const num = (v) => (typeof v === 'number' && Number.isFinite(v) ? v : null);
// A held stream's records are stamped on arrival (summary.tripTime.comet); the others' trip times are their
// answers' (summary.tripTime).
const tripOf = (run) => (isHeldStream(run.params.type) ? run.summary?.tripTime?.comet : run.summary?.tripTime) ?? null;
const messagesOf = (run) => run.summary?.messages?.[run.params.type] ?? null;

// The server's resident memory (MB) in the last second before the load started, or null.
function rssBeforeLoad(run) {
  const rss = run.series?.processRssMB ?? [];
  const start = run.summary?.loadStartSecond;
  if (!Number.isInteger(start)) return null;
  for (let s = Math.min(start, rss.length) - 1; s >= 0; s--) if (num(rss[s]) !== null) return rss[s];
  return null;
}

const serverCpu = (run) => STUDY_METRICS.serverCpu.value(run);
const messageRate = (run) => num(tripOf(run)?.ratePerSecond);

const TRANSPORT_METRICS = {
  messagesPerSecond: { name: 'Messages/s', unit: 'messages/s',
    definition: 'messages whose trip time was measured, per second of the steady window (records of a held stream, answers of a poll or pull that carried an event)',
    value: messageRate },
  tripP50Ms: { name: 'Trip p50', unit: 'ms',
    definition: 'median time from the emit cycle\'s start on the server to the message reaching the load engine, clock offset corrected (docs/trip-time.md)',
    value: (run) => num(tripOf(run)?.p50Ms) },
  tripP99Ms: { name: 'Trip p99', unit: 'ms', definition: '99th percentile of the same trip times',
    value: (run) => num(tripOf(run)?.p99Ms) },
  receivedPercent: { name: 'Received', unit: '% of expected',
    definition: 'unique messages the clients got over those the server emitted while they were subscribed, across reconnections (CHIRON\'s received-message percentage; long polls count no expected messages: none)',
    value: (run) => num(messagesOf(run)?.receivedPercent) },
  missed: { name: 'Missed', unit: 'messages', definition: 'expected less unique messages, never below 0 (none for long polls)',
    value: (run) => num(messagesOf(run)?.missed) },
  serverCpu: { name: 'Server CPU', unit: '% of one core', definition: STUDY_METRICS.serverCpu.definition, value: serverCpu },
  cpuPerMessageUs: { name: 'Server CPU per message', unit: 'µs',
    definition: `server CPU (above) over messages/s (above): the server's CPU time per delivered message in the steady window after its first ${WARMUP_SECONDS} s`,
    value: (run) => {
      const cpu = serverCpu(run);
      const rate = messageRate(run);
      return cpu !== null && rate > 0 ? (cpu / 100) * 1e6 / rate : null;
    } },
  memoryPerConnectionKB: { name: 'Server memory per connection', unit: 'KB',
    definition: 'the server process\'s peak resident memory in the steady window less its resident memory in the last second before the load, over the connections asked (a JVM\'s heap grows by the collector\'s choice, so its figure is an upper bound)',
    value: (run) => {
      const peak = STUDY_METRICS.serverRss.value(run);
      const before = rssBeforeLoad(run);
      const n = run.params.connections;
      return peak !== null && before !== null && n > 0 ? ((peak - before) * 1024) / n : null;
    } },
  segmentsPerMessage: { name: 'Segments per message', unit: 'TCP segments',
    definition: 'TCP segments in and out of the server host over the steady window, per message delivered in it (analysis/measure/network.js; with the engine on the same host every segment between them counts once out and once in)',
    value: (run) => num(run.summary?.network?.perMessage?.segments) },
  bytesPerMessage: { name: 'Bytes per message', unit: 'bytes',
    definition: 'bytes in and out of the server host over the steady window, per message delivered in it (counted as the segments are)',
    value: (run) => num(run.summary?.network?.perMessage?.bytes) },
};

function transportValue(key, run) {
  const m = TRANSPORT_METRICS[key];
  if (!m) throw new Error(`unknown transport metric ${key}`);
  return m.value(run);
}

module.exports = { TRANSPORTS, TRANSPORT_METRICS, transportValue, rssBeforeLoad };
