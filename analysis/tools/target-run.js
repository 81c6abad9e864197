'use strict';
// A synthetic target run (docs/targets.md "Inside"), in the formats the engines write: run.json with
// `"server": "target"` and its `target` record, target.json (the user's file), and per engine
// responses/<engine>.tar.gz holding one stream log push-1.tsv.gz (docs/run-layout.md "Stream logs"), packed
// by host/archive.sh's tar (tools/stream-run.js packArchive); the logs are kept beside, under logs/<engine>/.
// No sut/, no results.csv: a target run has neither.
// Every engine publishes RATE messages a second on each of its CHANNELS channels from 0.5 s after START to
// the duration less the drain; each connection subscribes (SSE) on channel j mod CHANNELS, gets a greeting
// no rule matches, then every message published on its channel while it is subscribed, 3 + j/10 ms after its
// publish was sent, until the engines close it at the duration. On every engine: one publish fails (500);
// connection OUT_OF_ORDER gets two messages swapped; connection LOSES misses one message; connection
// RECONNECTS is dropped by the server, comes back a second later, and is sent on its return the last message
// it had (a duplicate) and those published while it was away (early: published before it was subscribed).
//   makeTargetRun(runDir, options) -> { archives, logs, expected }
// options: engines (names), perEngine (connections per engine), transport, extractSentUs (false: the target
// file has no sentUs rule, trip times come from the publishes' sent µs).
// expected: what the analysis must find, counted here from the schedule (not by the analysis' rules):
// { subscribers, subscriptions, failedSubscriptions, expected, received, missed, duplicated, outOfOrder,
// early, unmatched, publishes, publishesOk, publishFailures, tripMs: [min, max] }.
const fs = require('node:fs');
const path = require('node:path');
const zlib = require('node:zlib');
const { packArchive } = require('./stream-run');
const { formatBegin, formatRecord, formatEnd } = require('../read/stream-log');

const START = Date.UTC(2026, 10, 27, 2, 0, 0);   // engine ms of the first connection's subscription
const RUN = { rampupS: 1, durationS: 12 };
const CHANNELS = 2;
const RATE = 2;                                  // messages a second per channel
const DRAIN_MS = 2000;
const DEFAULTS = { engines: ['gen1', 'gen2'], perEngine: 6, transport: 'sse', extractSentUs: true };
const FAILED_PUBLISH = { channel: 1, seq: 5 };
const OUT_OF_ORDER = { j: 1, seqs: [3, 4] };     // seq 4 arrives before seq 3
const LOSES = { j: 4, seq: 6 };
const RECONNECTS = { j: 2, dropMs: 4100, backMs: 5200 };   // ms after START

const us = (ms) => Math.round(ms * 1000);
const endMs = () => START + RUN.durationS * 1000;

// Every engine's publishes on channel c: [{ seq, sentMs, ok }].
function publishesOf(c) {
  const out = [];
  for (let seq = 1; ; seq++) {
    const sentMs = START + 500 + ((seq - 1) * 1000) / RATE + c * 3;
    if (sentMs >= endMs() - DRAIN_MS) break;
    out.push({ seq, sentMs, ok: !(c === FAILED_PUBLISH.channel && seq === FAILED_PUBLISH.seq) });
  }
  return out;
}

const message = (p, o) => (o.extractSentUs ? JSON.stringify({ seq: p.seq, sentUs: us(p.sentMs), pad: 'x' }) : `id: ${p.seq}; data`);

// The stream-log lines of one engine, in time order, and what it counted.
function engineLines(o) {
  const events = [];
  const put = (ms, line) => events.push({ us: us(ms), n: events.length, line });
  const c = { subscribers: 0, subscriptions: 0, failedSubscriptions: 0, expected: 0, received: 0, missed: 0, duplicated: 0, outOfOrder: 0,
    early: 0, unmatched: 0, publishes: 0, publishesOk: 0, publishFailures: 0, trips: [] };
  let id = 0;
  const channels = Array.from({ length: CHANNELS }, (_, ch) => publishesOf(ch));
  for (const [ch, pubs] of channels.entries()) {
    for (const p of pubs) {
      const sample = ++id;
      c.publishes++;
      if (p.ok) c.publishesOk++; else c.publishFailures++;
      put(p.sentMs - 0.2, formatBegin(us(p.sentMs - 0.2), sample, `Publish ${ch}`, `publish ${p.seq}`));
      put(p.sentMs + 1.5, formatEnd(us(p.sentMs + 1.5), sample, { code: p.ok ? '201' : '500', ok: p.ok, records: 0, bodyBytes: p.ok ? 0 : 21,
        cutBytes: 0, sentUs: us(p.sentMs), message: p.ok ? 'Created' : 'Internal Server Error', failure: p.ok ? '' : 'HTTP 500', headersUs: us(p.sentMs + 1.2) }));
    }
  }
  for (let j = 0; j < o.perEngine; j++) {
    c.subscribers++;
    const pubs = channels[j % CHANNELS].filter((p) => p.ok);
    const delay = 3 + j / 10;
    // one subscription: [beganMs, endMs]; returns the seqs it got
    const subscribe = (beganMs, untilMs, { ok, message: msg, failure, replay = [] }) => {
      const sample = ++id;
      c.subscriptions++;
      if (!ok) c.failedSubscriptions++;
      const headersMs = beganMs + 2;
      put(beganMs, formatBegin(us(beganMs), sample, `Request 1-${j + 1}`, 'request'));
      put(headersMs + 0.3, formatRecord(us(headersMs + 0.3), sample, JSON.stringify({ hello: 'subscribed' })));
      c.unmatched++;
      for (const p of replay) put(headersMs + 0.5, formatRecord(us(headersMs + 0.5), sample, message(p, o)));
      const live = pubs.filter((p) => p.sentMs >= headersMs && p.sentMs + delay <= untilMs);
      c.expected += pubs.filter((p) => p.sentMs >= headersMs && p.sentMs <= untilMs).length;
      for (const p of live) {
        if (j === LOSES.j && p.seq === LOSES.seq) { c.missed++; continue; }
        let at = p.sentMs + delay;
        if (j === OUT_OF_ORDER.j && p.seq === OUT_OF_ORDER.seqs[0]) { at = channels[j % CHANNELS][p.seq].sentMs + delay + 0.5; c.outOfOrder++; }
        put(at, formatRecord(us(at), sample, message(p, o)));
        c.received++;
        c.trips.push(at - p.sentMs);
      }
      put(untilMs, formatEnd(us(untilMs), sample, { code: '200', ok, records: live.length + 1, bodyBytes: 100, cutBytes: 0, sentUs: us(beganMs + 0.1),
        message: msg, failure, headersUs: us(headersMs) }));
      return live;
    };
    const began = START + (j % 10) * 100 + Math.floor(j / 10) * 0.01;   // ten groups 100 ms apart
    if (j !== RECONNECTS.j) {
      subscribe(began, endMs(), { ok: true, message: 'end of test', failure: '' });
      continue;
    }
    const first = subscribe(began, START + RECONNECTS.dropMs, { ok: false, message: 'OK', failure: 'stream closed by the server' });
    const back = START + RECONNECTS.backMs;
    const away = pubs.filter((p) => p.sentMs > START + RECONNECTS.dropMs && p.sentMs < back + 2);
    c.early += away.length;
    c.duplicated++;
    subscribe(back, endMs(), { ok: true, message: 'end of test', failure: '', replay: [first[first.length - 1], ...away] });
  }
  events.sort((a, b) => a.us - b.us || a.n - b.n);
  return { lines: events.map((e) => e.line).join(''), counts: c };
}

function targetFile(o) {
  return { name: 'synthetic-sse', transport: o.transport,
    subscribe: { url: 'http://127.0.0.1:18480/sub/{{channel}}', headers: { Accept: 'text/event-stream' } },
    publish: { method: 'POST', url: 'http://127.0.0.1:18480/pub/{{channel}}', body: '{"seq":{{seq}},"sentUs":{{sentUs}},"pad":"{{pad:1}}"}' },
    channels: CHANNELS, rate: RATE, extract: o.extractSentUs ? { seq: '/seq', sentUs: '/sentUs' } : { seq: 'id: ([0-9]+);' } };
}

async function makeTargetRun(runDir, options = {}) {
  const o = { ...DEFAULTS, ...options };
  for (const d of ['responses', 'logs']) fs.mkdirSync(path.join(runDir, d), { recursive: true });
  const text = `${JSON.stringify(targetFile(o), null, 2)}\n`;
  fs.writeFileSync(path.join(runDir, 'target.json'), text);
  const sha256 = require('node:crypto').createHash('sha256').update(text).digest('hex');
  fs.writeFileSync(path.join(runDir, 'run.json'), JSON.stringify({ id: path.basename(runDir), server: 'target', type: o.transport,
    connections: o.perEngine * o.engines.length, ...RUN, maxDurationMs: null, event: null, emitIntervalMs: null, pullIntervalMs: null,
    startedAt: START - 1000, finishedAt: endMs() + 1000, status: 'complete', serverCrashed: false,
    target: { name: 'synthetic-sse', file: 'target.json', sha256, transport: o.transport, channels: CHANNELS, rate: RATE, drainMs: DRAIN_MS, monitored: false },
    hosts: { engines: o.engines.map((name) => ({ name, address: '127.0.0.1' })) } }));
  const archives = [];
  const logs = [];
  const all = [];
  for (const name of o.engines) {
    const src = path.join(runDir, 'logs', name);
    fs.mkdirSync(src, { recursive: true });
    const e = engineLines(o);
    fs.writeFileSync(path.join(src, 'push-1.tsv.gz'), zlib.gzipSync(e.lines, { level: 1 }));
    const archive = path.join(runDir, 'responses', `${name}.tar.gz`);
    packArchive(src, archive);
    archives.push(archive);
    logs.push(path.join(src, 'push-1.tsv.gz'));
    all.push(e.counts);
  }
  const sum = (k) => all.reduce((n, c) => n + c[k], 0);
  const trips = all.map((c) => c.trips);
  const expected = Object.fromEntries(['subscribers', 'subscriptions', 'failedSubscriptions', 'expected', 'received', 'missed', 'duplicated',
    'outOfOrder', 'early', 'unmatched', 'publishes', 'publishesOk', 'publishFailures'].map((k) => [k, sum(k)]));
  expected.tripMs = [trips.reduce((m, t) => t.reduce((a, b) => Math.min(a, b), m), Infinity),
    trips.reduce((m, t) => t.reduce((a, b) => Math.max(a, b), m), -Infinity)];
  return { archives, logs, expected };
}

module.exports = { makeTargetRun, START, RUN, CHANNELS, RATE, DRAIN_MS, FAILED_PUBLISH, OUT_OF_ORDER, LOSES, RECONNECTS };
