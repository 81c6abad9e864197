'use strict';
// A synthetic comet run in the real format of a push-sampler run (issue #22; docs/run-layout.md "Stream
// logs"): run.json, jmeter/results.csv and responses/<engine>.tar.gz, each engine's stream log
// push-1.tsv.gz gzipped at the fastest level and sync-flushed once a second of records as the sampler does,
// packed by host/archive.sh's own tar command. Used by bench/analyzer.js (millions of messages) and the
// comparison-figure test (charts/test/trip-figure.test.js); the records are the Node.js server's
// (docs/protocol.md "Records"). packArchive is host/archive.sh's tar (tools/mux-run.js uses it too).
//   makeStreamRun(runDir, messages, options) -> { archives, logs (the stream logs, kept beside), cycles, connections }
// options: connections (streams, over the engines), engines ([{ name, offsetMs: server - engine clock }]),
// server, intervalMs, delayMs(cycle, place): each record's delivery delay (ms, server clock).
const fs = require('node:fs');
const path = require('node:path');
const zlib = require('node:zlib');
const { spawnSync } = require('node:child_process');
const { formatBegin, formatRecord, formatEnd } = require('../read/stream-log');

const TIMESTAMP_EVERY_MS = 5000;   // the sampler's default timestamp.interval

// Delivery delay of a record (ms, server clock): its place in the emit loop, some jitter, a rare long one.
const DEFAULT_DELAY = (cycle, place) => 1 + place / 40 + ((cycle * 7919 + place * 104729) % 1000) / 500 + (place % 997 === 0 ? 200 : 0);

const DEFAULTS = { connections: 2000, engines: [{ name: 'gen1', offsetMs: 1.5 }, { name: 'gen2', offsetMs: -3.25 }], server: 'node',
  intervalMs: 1000, delayMs: DEFAULT_DELAY };

// One comet record as the Node.js server writes it.
function record(cycle, place, created, streamCreated, connections) {
  const sent = created + Math.floor(place / 40);
  return JSON.stringify({ response: { event: { name: 'event1', cycle, timings: { duration: sent - created, sent, created },
    connections: { total: connections, place } } }, request: { type: 'comet', events: ['event1'] },
  timings: { duration: sent - streamCreated, sent, created: streamCreated }, connections: { start: place, finish: connections } });
}

// Writes one engine's stream log: B lines as the streams start, the records of each cycle in the order
// they arrive, a time-stamp exchange every 5 s, the E lines at the end. Returns the results.csv rows of
// its samples.
async function writeStreamLog(file, engine, places, start, cycles, o) {
  const gzip = zlib.createGzip({ level: 1 });
  const out = fs.createWriteStream(file);
  gzip.pipe(out);
  const clientUs = (serverMs) => Math.round((serverMs - engine.offsetMs) * 1000);
  const rows = [];
  let id = 0;
  let lines = [];
  const flush = async () => {   // the sampler's once-a-second sync flush
    if (!gzip.write(lines.join(''))) await new Promise((r) => gzip.once('drain', r));
    lines = [];
    await new Promise((r) => gzip.flush(zlib.constants.Z_SYNC_FLUSH, r));
  };
  const streams = places.map((place, i) => {
    const beganUs = clientUs(start + i);
    const s = { id: ++id, place, beganUs, thread: `${engine.name}-Request 1-${i + 1}`, created: start + i + 1 };
    lines.push(formatBegin(beganUs, s.id, s.thread, 'request'));
    return s;
  });
  const exchange = (atServerMs) => {
    const s = ++id;
    const sentUs = clientUs(atServerMs);
    const rttUs = 200 + (s % 7) * 150;
    lines.push(formatBegin(sentUs - 50, s, `${engine.name}-Timestamp 1-1`, 'timestamp'),
      formatRecord(sentUs + rttUs, s, JSON.stringify({ timestamp: { client: Math.floor(sentUs / 1000), server: Math.round(atServerMs + rttUs / 2000) } })),
      formatEnd(sentUs + rttUs, s, { code: 200, ok: true, records: 1, bodyBytes: 61, cutBytes: 0, sentUs, message: 'OK' }));
    rows.push([Math.floor((sentUs - 50) / 1000), 1, 'timestamp', 200, 'OK', `${engine.name}-Timestamp 1-1`, true, '', 100, 100, 1, 1, 1, 0,
      `/r/${engine.name}/responses/timestamp_${s}.push`]);
  };
  exchange(start - 500);
  for (let c = 1; c <= cycles; c++) {
    const created = start + 2000 + c * o.intervalMs;
    if ((c * o.intervalMs) % TIMESTAMP_EVERY_MS === 0) exchange(created - 300);
    for (const s of streams) {
      lines.push(formatRecord(clientUs(created + o.delayMs(c, s.place)), s.id, record(c, s.place, created, s.created, o.connections)));
    }
    await flush();
  }
  const endServer = start + 2000 + (cycles + 1) * o.intervalMs;
  for (const s of streams) {
    const endUs = clientUs(endServer);
    lines.push(formatEnd(endUs, s.id, { code: 200, ok: true, records: cycles, bodyBytes: cycles * 400, cutBytes: 0, sentUs: s.beganUs + 300, message: 'OK' }));
    rows.push([Math.floor(s.beganUs / 1000), Math.round((endUs - s.beganUs) / 1000), 'request', 200, 'OK', s.thread, true, '',
      cycles * 400, 200, o.connections, o.connections, 5, 1, `/r/${engine.name}/responses/request_${s.id}.push`]);
  }
  await flush();
  gzip.end();
  await new Promise((r) => out.on('finish', r));
  return rows;
}

// Packs every file under src into the archive as host/archive.sh does: the sorted file list, gzip -1
// around the (already gzipped) stream logs.
function packArchive(src, archive) {
  const tar = spawnSync('bash', ['-c', 'cd "$1" && find . -type f -printf "%P\\n" | LC_ALL=C sort | tar -c --use-compress-program="gzip -1" -f "$2" --no-recursion -T -',
    'stream-run', src, archive], { encoding: 'utf8' });
  if (tar.status !== 0) throw new Error(`tar failed: ${tar.stderr}`);
}

async function makeStreamRun(runDir, messages, options = {}) {
  const o = { ...DEFAULTS, ...options };
  const cycles = Math.ceil(messages / o.connections);
  const start = Date.UTC(2026, 10, 22, 1, 0, 0);
  for (const d of ['responses', 'jmeter', 'logs']) fs.mkdirSync(path.join(runDir, d), { recursive: true });
  fs.writeFileSync(path.join(runDir, 'run.json'), JSON.stringify({ id: path.basename(runDir), server: o.server, type: 'comet', connections: o.connections,
    rampupS: 1, durationS: Math.ceil((cycles * o.intervalMs) / 1000) + 3, event: 'event1', emitIntervalMs: o.intervalMs, maxDurationMs: null,
    startedAt: start - 1000, finishedAt: start + 4000 + cycles * o.intervalMs, status: 'complete', serverCrashed: false,
    hosts: { sut: { name: 'local', address: '127.0.0.1' }, engines: o.engines.map((e) => ({ name: e.name, address: '127.0.0.1' })) } }));
  const rows = [];
  const archives = [];
  const logs = [];
  for (const [k, engine] of o.engines.entries()) {
    const src = path.join(runDir, 'logs', engine.name);
    fs.mkdirSync(src, { recursive: true });
    const places = Array.from({ length: Math.ceil((o.connections - k) / o.engines.length) }, (_, i) => k + 1 + i * o.engines.length);
    rows.push(...await writeStreamLog(path.join(src, 'push-1.tsv.gz'), engine, places, start, cycles, o));
    fs.writeFileSync(path.join(src, 'logging_1.json'), '{"logging":{"enabled":false}}');
    const archive = path.join(runDir, 'responses', `${engine.name}.tar.gz`);
    packArchive(src, archive);
    archives.push(archive);
    logs.push(path.join(src, 'push-1.tsv.gz'));
  }
  const header = 'timeStamp,elapsed,label,responseCode,responseMessage,threadName,success,failureMessage,bytes,sentBytes,grpThreads,allThreads,Latency,Connect,responseFile';
  fs.writeFileSync(path.join(runDir, 'jmeter', 'results.csv'), [header, ...rows.sort((a, b) => a[0] - b[0]).map((r) => r.join(','))].join('\n') + '\n');
  return { archives, logs, cycles, connections: o.connections };
}

module.exports = { makeStreamRun, packArchive, record, DEFAULT_DELAY };
