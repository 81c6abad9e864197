'use strict';
// A synthetic long-poll run of the mux engine, in the formats of docs/run-layout.md ("Stream logs"): no
// answer is a JMeter sample. run.json; jmeter/results.csv with Init, time-stamp and Clean Up samples and the
// engines' request-summary samples (JMeter's SampleCount and ErrorCount columns); responses/<engine>.tar.gz
// per engine, each a stream log push-1.tsv.gz whose request answers end in 11-field E lines (the verdict)
// and whose time-stamp exchanges end in 10-field ones (the push sampler's), packed by host/archive.sh's tar
// (tools/stream-run.js packArchive). The stream logs are kept beside, under logs/<engine>/.
// Every connection polls back to back and is answered at each emit cycle, except, on every engine: one
// refused connection (a network error, then a backoff), one 404, one error body (the plan's "not error"
// assertion), one poll that ran to its max-duration although an event was set (the "not timeout" assertion),
// and one connection that comes back late once (LATE_GAP_MS), missing an emit cycle. Each connection's first
// poll whose connect succeeded carries its C line (CONNECT_MS after its B line), as the engine writes it.
//   makeMuxRun(runDir, options) -> { archives, logs, expected }
// options: engines ([{ name, offsetMs (server - engine clock), muxThreads }]), perEngine (connections).
// expected: what the analysis must find, worked out here from the schedule: { threads, answers, failed,
// errors, timeoutFailures, failedByKind, lateAnswers (non-errors whose answer time is over T = 6 s), gaps
// ([{ answerMs, gapMs }], every re-poll gap on the engine clock), lateGaps, connects: { count, lastMs (the
// last connection's first connect completed, engine ms) } }.
const fs = require('node:fs');
const path = require('node:path');
const zlib = require('node:zlib');
const { packArchive } = require('./stream-run');
const { formatBegin, formatConnect, formatRecord, formatEnd } = require('../read/stream-log');

const START = Date.UTC(2026, 10, 23, 1, 0, 0);   // engine ms of the first connection's first request
const RUN = { type: 'poll', event: 'event1', emitIntervalMs: 1000, maxDurationMs: 8000, rampupS: 2, durationS: 14 };   // the run schema's names
const CYCLES = 12;                                // emit cycles, the first 2.5 s after START (server clock)
const LATE_GAP_MS = 1500;
const CONNECT_MS = 0.15;                          // from a B line to its connection's connect completion
const DEFAULTS = { perEngine: 12, engines: [{ name: 'gen1', offsetMs: 1.5, muxThreads: 1 }, { name: 'gen2', offsetMs: -2, muxThreads: 2 }] };
// Connection index -> [poll index, the way that poll fails]; the same on every engine.
const FAILURES = new Map([[9, [0, 'network']], [7, [3, 'http']], [2, [4, 'error']], [5, [3, 'timeout']]]);
const LATE = [3, 5];                              // connection 3 comes back late after its answer of cycle 5
const FAILURE_TEXT = {
  network: 'java.net.ConnectException: Connection refused',
  http: 'HTTP 404 Not Found',
  error: 'Test failed: text expected not to contain /error/',
  timeout: 'response contains timeout although an event was set',
};

const cycleCreated = (c) => START + 2500 + (c - 1) * RUN.emitIntervalMs;   // server ms
const regap = (j, n) => 0.4 + ((j * 13 + n * 7) % 9) * 0.083;           // ms from an answer to the next request

// A poll's answer record as the Node.js server writes it (docs/protocol.md "Records").
function pollRecord(response, reqCreated, sent, place, threads) {
  return JSON.stringify({ response, request: { type: 'poll', events: ['event1'], duration: RUN.maxDurationMs },
    timings: { duration: sent - reqCreated, sent, created: reqCreated }, connections: { start: place, finish: threads } });
}

// The answer to one poll of connection j (place: its place in the emit loop) begun at engine ms `began`:
// { endMs, code, ok, kind, records: [{ ms, text }], message }, or null past the last cycle.
function answerOf(j, n, began, engine, place, threads) {
  const off = engine.offsetMs;
  const received = Math.floor(began + 0.5 + off);   // server ms
  const failure = FAILURES.get(j);
  const kind = failure && failure[0] === n ? failure[1] : null;
  if (kind === 'network') return { endMs: began + 1.2, code: 'Non HTTP response code: java.net.ConnectException', ok: false, kind, records: [], message: 'Non HTTP response message: Connection refused' };
  if (kind === 'http') return { endMs: began + 1.5, code: '404', ok: false, kind, records: [], message: 'Not Found' };
  if (kind === 'error') {
    const text = JSON.stringify({ error: { status: 400, message: 'bad poll' } });
    return { endMs: began + 2.05, code: '400', ok: false, kind, records: [{ ms: began + 2, text }], message: 'Bad Request' };
  }
  if (kind === 'timeout') {
    const sent = received + RUN.maxDurationMs;
    const text = pollRecord({ timeout: { duration: RUN.maxDurationMs } }, received, sent, place, threads);
    return { endMs: sent - off + 0.81, code: '200', ok: false, kind, records: [{ ms: sent - off + 0.8, text }], message: 'OK' };
  }
  let c = 1;
  while (c <= CYCLES && cycleCreated(c) < received) c++;
  if (c > CYCLES) return null;
  const created = cycleCreated(c);
  const sent = created + Math.floor(place / 8);
  const text = pollRecord({ event: { name: 'event1', cycle: c, timings: { duration: sent - created, sent, created },
    connections: { total: threads, place } } }, received, sent, place, threads);
  const arrival = sent - off + 0.3 + (place % 5) * 0.07;
  return { endMs: arrival + 0.05, code: '200', ok: true, kind: null, cycle: c, records: [{ ms: arrival, text }], message: 'OK' };
}

// Every poll of connection j on engine k: [{ beganMs, sentMs, endMs, ... answerOf's }], and its gaps.
function connectionPolls(j, k, engine, o) {
  const threads = o.perEngine * o.engines.length;
  const place = k * o.perEngine + j + 1;
  const polls = [];
  const gaps = [];
  for (let began = START + j * 150 + k * 37, n = 0; ; n++) {
    const a = answerOf(j, n, began, engine, place, threads);
    if (a === null) break;
    polls.push({ beganMs: began, sentMs: began + 0.3, ...a });
    const gap = a.kind === 'network' ? 100 : j === LATE[0] && a.cycle === LATE[1] ? LATE_GAP_MS : regap(j, n);
    gaps.push({ answerMs: a.endMs, gapMs: gap });
    began = a.endMs + gap;
  }
  gaps.pop();   // the last answer opens no gap: the connection asks no more
  return { polls, gaps };
}

const us = (ms) => Math.round(ms * 1000);

// The stream-log lines of engine k's connections and time-stamp exchanges, in time order (a sample's own
// lines in the order written). Returns { lines, polls: [{ j, ...poll }], gaps, timestampRows (results.csv's),
// connects (engine ms of each connection's first connect completed) }.
function engineLines(k, engine, o) {
  const events = [];   // { us, seq, line }
  const put = (ms, line) => events.push({ us: us(ms), seq: events.length, line });
  let id = 0;
  const polls = [];
  const gaps = [];
  const connects = [];   // engine ms of each connection's first connect completed
  for (let j = 0; j < o.perEngine; j++) {
    const c = connectionPolls(j, k, engine, o);
    gaps.push(...c.gaps.map((g) => ({ engine: engine.name, ...g })));
    let connected = false;
    for (const p of c.polls) {
      const sample = ++id;
      polls.push({ j, ...p });
      put(p.beganMs, formatBegin(us(p.beganMs), sample, `Request 1-${j + 1}`, 'request'));
      if (!connected && p.kind !== 'network') {
        connected = true;
        connects.push(p.beganMs + CONNECT_MS);
        put(p.beganMs + CONNECT_MS, formatConnect(us(p.beganMs + CONNECT_MS), sample, us(CONNECT_MS)));
      }
      for (const r of p.records) put(r.ms, formatRecord(us(r.ms), sample, r.text));
      const bytes = p.records.reduce((n, r) => n + Buffer.byteLength(r.text) + 1, 0);
      put(p.endMs, formatEnd(us(p.endMs), sample, { code: p.code, ok: p.ok, records: p.records.length, bodyBytes: bytes, cutBytes: 0,
        sentUs: us(p.sentMs), message: p.message, failure: p.ok ? '' : FAILURE_TEXT[p.kind], headersUs: p.code.startsWith('Non HTTP') ? 0 : us(p.sentMs + 0.2) }));
    }
  }
  const timestampRows = [];
  for (let at = START - 500; at < START + RUN.durationS * 1000; at += 5000) {   // the push sampler's exchange: 10 fields
    const sample = ++id;
    const rttMs = 0.2 + (sample % 7) * 0.15;
    const server = Math.round(at + engine.offsetMs + rttMs / 2);
    put(at - 0.05, formatBegin(us(at - 0.05), sample, 'Timestamp 1-1', 'timestamp'));
    put(at + rttMs, formatRecord(us(at + rttMs), sample, JSON.stringify({ timestamp: { client: Math.floor(at), server } })));
    put(at + rttMs, formatEnd(us(at + rttMs), sample, { code: '200', ok: true, records: 1, bodyBytes: 61, cutBytes: 0, sentUs: us(at), message: 'OK' }));
    timestampRows.push(csvRow({ timeStamp: Math.floor(at), elapsed: 1, label: 'timestamp', threadName: `${engine.name}-Timestamp 1-1`,
      Filename: `/r/${engine.name}/responses/timestamp_${sample}.push` }));
  }
  events.sort((a, b) => a.us - b.us || a.seq - b.seq);
  return { lines: events.map((e) => e.line).join(''), polls, gaps, timestampRows, connects };
}

const COLUMNS = ['timeStamp', 'elapsed', 'label', 'responseCode', 'responseMessage', 'threadName', 'dataType', 'success', 'failureMessage',
  'bytes', 'sentBytes', 'grpThreads', 'allThreads', 'URL', 'Filename', 'Latency', 'Encoding', 'SampleCount', 'ErrorCount', 'Connect'];
const csvField = (v) => (/[",\n]/.test(String(v)) ? `"${String(v).replace(/"/g, '""')}"` : String(v));

// One results.csv row of an ordinary sample, with the given fields.
function csvRow(fields) {
  const row = { responseCode: 200, responseMessage: 'OK', dataType: 'text', success: true, failureMessage: '', bytes: 60, sentBytes: 100,
    grpThreads: 1, allThreads: 1, URL: '', Filename: '', Latency: 1, Encoding: 'UTF-8', SampleCount: 1, ErrorCount: 0, Connect: 0, ...fields };
  return { at: row.timeStamp, text: COLUMNS.map((c) => csvField(row[c])).join(',') };
}

// The summary samples of one engine: one per mux thread (connection j belongs to thread j % muxThreads) per
// second, counting the answers that ended in it.
function summaryRows(engine, polls) {
  const rows = [];
  const lastEnd = Math.max(...polls.map((p) => p.endMs));
  for (let m = 0; m < engine.muxThreads; m++) {
    const mine = polls.filter((p) => p.j % engine.muxThreads === m);
    for (let t = START - 200; t <= lastEnd; t += 1000) {
      const ended = mine.filter((p) => p.endMs >= t && p.endMs < t + 1000);
      const failed = ended.filter((p) => !p.ok).length;
      const records = ended.reduce((n, p) => n + p.records.length, 0);
      const open = new Set(mine.filter((p) => p.beganMs < t + 1000 && p.endMs >= t + 1000).map((p) => p.j)).size;
      rows.push(csvRow({ timeStamp: t, elapsed: 1000, label: 'request-summary', responseMessage:
        `answers ${ended.length}, errors ${failed}, open ${open}, records ${records}, opened ${ended.length}, backoffs ${ended.filter((p) => p.kind === 'network').length}`,
      threadName: `Request (mux) 1-${m + 1}`, success: failed === 0, failureMessage: failed ? `${failed} answers failed` : '',
      bytes: records * 400, SampleCount: ended.length, ErrorCount: failed }));
    }
  }
  return rows;
}

// What the analysis must find, from every engine's polls and gaps.
function expectedOf(engines, threads) {
  const polls = engines.flatMap((e) => e.polls);
  const failed = polls.filter((p) => !p.ok);
  const failedByKind = Object.fromEntries(Object.keys(FAILURE_TEXT).map((k) => [k, failed.filter((p) => p.kind === k).length]));
  const allowed = RUN.emitIntervalMs + 6000;
  return { threads, answers: polls.length, failed: failed.length, errors: failed.length - failedByKind.timeout,
    timeoutFailures: failedByKind.timeout, failedByKind,
    lateAnswers: polls.filter((p) => p.kind === 'timeout' || (p.ok && p.endMs - p.beganMs > allowed)).length,
    gaps: engines.flatMap((e) => e.gaps), lateGaps: engines.length,
    connects: { count: engines.reduce((n, e) => n + e.connects.length, 0), lastMs: Math.max(...engines.flatMap((e) => e.connects)) } };
}

async function makeMuxRun(runDir, options = {}) {
  const o = { ...DEFAULTS, ...options };
  const threads = o.perEngine * o.engines.length;
  for (const d of ['responses', 'jmeter', 'logs']) fs.mkdirSync(path.join(runDir, d), { recursive: true });
  fs.writeFileSync(path.join(runDir, 'run.json'), JSON.stringify({ id: path.basename(runDir), server: 'node', connections: threads, ...RUN,
    startedAt: START - 1000, finishedAt: START + (RUN.durationS + 2) * 1000, status: 'complete', serverCrashed: false,
    hosts: { sut: { name: 'local', address: '127.0.0.1' }, engines: o.engines.map((e) => ({ name: e.name, address: '127.0.0.1' })) } }));
  const rows = [csvRow({ timeStamp: START - 900, elapsed: 3, label: 'setevent', threadName: 'Init 1-1' }),
    csvRow({ timeStamp: START - 850, elapsed: 2, label: 'logging', threadName: 'Init 1-1' }),
    csvRow({ timeStamp: START + (RUN.durationS + 1) * 1000, elapsed: 4, label: 'clear', threadName: 'Clean Up 1-1' })];
  const engines = [];
  const logs = [];
  const archives = [];
  for (const [k, engine] of o.engines.entries()) {
    const src = path.join(runDir, 'logs', engine.name);
    fs.mkdirSync(src, { recursive: true });
    const e = engineLines(k, engine, o);
    fs.writeFileSync(path.join(src, 'push-1.tsv.gz'), zlib.gzipSync(e.lines, { level: 1 }));
    fs.writeFileSync(path.join(src, 'logging_1.json'), '{"logging":{"enabled":false}}');
    const archive = path.join(runDir, 'responses', `${engine.name}.tar.gz`);
    packArchive(src, archive);
    rows.push(...e.timestampRows, ...summaryRows(engine, e.polls));
    engines.push(e);
    logs.push(path.join(src, 'push-1.tsv.gz'));
    archives.push(archive);
  }
  rows.sort((a, b) => a.at - b.at);
  fs.writeFileSync(path.join(runDir, 'jmeter', 'results.csv'), [COLUMNS.join(','), ...rows.map((r) => r.text)].join('\n') + '\n');
  return { archives, logs, expected: expectedOf(engines, threads) };
}

module.exports = { makeMuxRun, START, RUN, CYCLES, LATE_GAP_MS, CONNECT_MS, FAILURE_TEXT };
