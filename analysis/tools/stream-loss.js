#!/usr/bin/env node
'use strict';
// Where a run's held streams missed messages (issue #48 item 3): which clients, which emit cycles, and what
// the engine and the server said about them. Reads a run directory as docs/run-layout.md lays it out: every
// responses/<engine>.tar.gz (the stream logs' B, C, R, E lines: read/responses.js), sut/server.log, and a
// log of the server's GET /status answers where one was kept (--status; none by default: run.sh keeps none).
//   node analysis/tools/stream-loss.js <run dir> [--status <file>] [--json] [--list <n>]
// The counting is measure/messages.js's: a comet stream is its own window; an SSE or WebSocket client (an
// engine's connection, its stream log thread) is one window across its streams, from its first request's
// timings.created to its last record's timings.sent (server ms); a cycle is expected of it when it started
// inside (created < cycle start <= end); the final cycle cut short by the test's end is expected only of the
// streams it reached. Every expected cycle the client never got (live, replayed) is one missing message.
// Each missing message is placed by where its cycle started in the client's streams:
//   in-stream     inside one stream's live span (its request received .. its last record): the stream stayed
//                 open and got later cycles, but not this one; `sinceJoinMs` is how long after its request the
//                 cycle started, `first` whether it was the first cycle after the request (the join's edge: a
//                 request stamped before it was on the cycle's list, as the Java core did before issue #48's
//                 fix, docs/transports/README.md), `beforeFirstRecord` whether
//                 the stream had got no cycle of that name yet (a run of misses from its request on is the
//                 join's window, not a hole in a stream that was being served), `serverStopMs` how long
//                 the server's JVM stood still (sut/gc.log's stops, same clock) between the two;
//   reconnection  after a stream's last record and before the next stream's request was received: the
//                 stream ended or broke (its E line says how), and the next one did not get it back (its
//                 subscription's cursor, its replay and gap records say why);
// and counted per cycle beside that cycle's snapshot (`total`, the server's own count of the streams it was
// sent to) and its live deliveries (records that arrived). "Never" is every missing message (it arrived on no
// stream of its client); "late" are the cycles a client got only as a replay after a reconnection.
// Engine times (µs, the engine's clock) are put on the server clock with the smallest (arrival - sent) of
// the records, a floor of the clock offset: good to the delivery delay, enough to order an E line and a cycle.
const fs = require('node:fs');
const path = require('node:path');
const { readArchive } = require('../read/responses');
const { isResumedStream } = require('../../lib/test-types');
const { parseGcLogFile, stopsOf } = require('../read/gc-log');
const { finalCuts } = require('../measure/messages');

// ---- reading ---------------------------------------------------------------------------------------------

// The archive visitor: every stream (sample) with its E line and, from its first record on, `loss`: its request
// echo, timings.created, last timings.sent and what it got ({ kind: 'event'|'replay'|'gap'|'clear', name, cycle,
// from, to, sent, arrivalMs }); every emit cycle seen ({ created: its start, total: its snapshot, live: deliveries}).
class StreamLossVisitor {
  constructor() {
    this.streams = [];                 // every stream (sample) with records or an E line, in end order
    this.cycles = new Map();           // "name#cycle" -> { name, cycle, created, total, live }
    this.minOffsetMs = Infinity;       // smallest arrivalMs - sent over the records (engine - server clock, floor)
    this.visitor = {
      event: (f, st) => this.onEvent(f, st),
      record: (obj, type, st) => this.onRecord(obj, type, st),
      endStream: (st) => this.onEnd(st),
      // the server's error body (JSON) a stream got, e.g. a late subscription's 408; not the engine's words for a network error
      errorBody: (text, st) => { if (st.lossError === undefined && String(text).startsWith('{')) st.lossError = String(text).slice(0, 160); },
    };
  }

  cycle(name, cycle, created) {
    const key = name + '#' + cycle;
    let c = this.cycles.get(key);
    if (c === undefined) {
      c = { name, cycle, created, total: 0, live: 0 };
      this.cycles.set(key, c);
    }
    if (Number.isFinite(created) && !(c.created <= created)) c.created = created;
    return c;
  }

  // The stream's own data, made at its first record (its request's echo and timings.created).
  of(st, request, created) {
    if (st.loss === undefined) {
      st.loss = { type: request?.type, events: Array.isArray(request?.events) ? request.events : [],
        cursor: request?.cursor ?? null, created, lastSent: null, got: [] };
    }
    return st.loss;
  }

  note(st, L, sent) {
    if (Number.isFinite(sent)) {
      L.lastSent = sent;
      if (Number.isFinite(st.arrivalMs)) this.minOffsetMs = Math.min(this.minOffsetMs, st.arrivalMs - sent);
    }
  }

  onEvent(f, st) {
    const L = this.of(st, f.request, f.created);
    this.note(st, L, f.sent);
    const c = this.cycle(f.name, f.cycle, f.eventCreated);
    c.live++;
    if (Number.isFinite(f.total) && f.total > c.total) c.total = f.total;
    L.got.push({ kind: 'event', name: f.name, cycle: f.cycle, sent: f.sent, arrivalMs: st.arrivalMs });
  }

  onRecord(obj, type, st) {
    const L = this.of(st, obj.request, obj.timings?.created);
    this.note(st, L, obj.timings?.sent);
    if (type === 'replay') {
      const r = obj.response.replay;
      this.cycle(r.name, r.cycle, r.timings?.created);
      L.got.push({ kind: 'replay', name: r.name, cycle: r.cycle, sent: obj.timings?.sent, arrivalMs: st.arrivalMs });
    } else if (type === 'gap') {
      const g = obj.response.gap;
      L.got.push({ kind: 'gap', name: g.name, from: g.from, to: g.to, sent: obj.timings?.sent, arrivalMs: st.arrivalMs });
    } else if (type === 'clear') {
      L.got.push({ kind: 'clear', sent: obj.timings?.sent, arrivalMs: st.arrivalMs });
    }
  }

  onEnd(st) {
    this.streams.push({ engine: st.engine, thread: st.thread ?? st.name, beganUs: st.beganUs ?? null, endUs: st.endUs ?? null,
      code: st.responseCode ?? null, ok: st.ok ?? null, failure: st.failure ?? null, error: st.lossError ?? null, cut: Boolean(st.cut),
      loss: st.loss ?? null });
  }
}

// Every archive of the run, read in turn on this thread.
async function readRun(runDir) {
  const dir = path.join(runDir, 'responses');
  const files = fs.existsSync(dir) ? fs.readdirSync(dir).filter((f) => /\.(tar\.gz|tgz)$/.test(f)).sort() : [];
  const v = new StreamLossVisitor();
  for (const f of files) await readArchive(path.join(dir, f), v.visitor);
  return { v, archives: files.length };
}

// ---- the server's side -------------------------------------------------------------------------------------

// sut/server.log: its warnings and errors (java.util.logging's WARNING / SEVERE, an exception's first line), by
// their text with the time stamp taken off, most frequent first.
function serverLogFaults(file) {
  if (!fs.existsSync(file)) return null;
  const byText = new Map();
  let lines = 0;
  for (const line of fs.readFileSync(file, 'utf8').split('\n')) {
    if (!/\b(WARNING|SEVERE|Exception|Error)\b/.test(line)) continue;
    lines++;
    const text = line.replace(/^\d{2}-\w{3}-\d{4} [\d:.]+ /, '').slice(0, 200);
    byText.set(text, (byText.get(text) ?? 0) + 1);
  }
  return { lines, top: [...byText].sort((a, b) => b[1] - a[1]).slice(0, 10).map(([text, count]) => ({ count, text })) };
}

// A log of GET /status answers, one a line: "<epoch ms> <the answer's JSON>" (or the JSON alone). Returns the
// counters' first and last values and the open streams' peak.
function statusLog(file) {
  if (!file || !fs.existsSync(file)) return null;
  const rows = [];
  for (const line of fs.readFileSync(file, 'utf8').split('\n')) {
    const m = /^(?:(\d+) )?(\{.*\})\s*$/.exec(line);
    if (!m) continue;
    try { rows.push({ at: m[1] ? Number(m[1]) : null, s: JSON.parse(m[2]) }); } catch { /* a cut line */ }
  }
  if (rows.length === 0) return { answers: 0 };
  const counter = (pick) => ({ first: pick(rows[0].s) ?? null, last: pick(rows[rows.length - 1].s) ?? null });
  return {
    answers: rows.length,
    streamsDropped: counter((s) => s.streams?.dropped),
    bodiesLate: counter((s) => s.bodies?.late),
    bodiesRefused: counter((s) => s.bodies?.refused),
    openPeak: Math.max(...rows.map((r) => r.s.requests?.open ?? 0)),
    wsPeak: Math.max(...rows.map((r) => r.s.requests?.ws ?? 0)),
    ssePeak: Math.max(...rows.map((r) => r.s.requests?.sse ?? 0)),
  };
}

// ---- the analysis ------------------------------------------------------------------------------------------

// The clients: a comet stream alone; an SSE or WebSocket client's streams together, in the order they were received.
function clientsOf(streams) {
  const clients = new Map();
  for (const s of streams) {
    if (!s.loss || !(s.loss.type === 'comet' || isResumedStream(s.loss.type))) continue;
    const key = isResumedStream(s.loss.type) ? `${s.engine}\t${s.thread}` : `${s.engine}\t${s.thread}\t${clients.size}`;
    if (!clients.has(key)) clients.set(key, { key, engine: s.engine, thread: s.thread, type: s.loss.type, events: s.loss.events, streams: [] });
    clients.get(key).streams.push(s);
  }
  for (const c of clients.values()) c.streams.sort((a, b) => a.loss.created - b.loss.created);
  return [...clients.values()];
}

// Where cycle start t falls among a client's streams: { where: 'in-stream'|'reconnection', stream (index), before
// (the stream that ended before it, for a reconnection), after (the next stream) }.
function placeOf(streams, t) {
  for (let i = 0; i < streams.length; i++) {
    const L = streams[i].loss;
    if (t > L.created && t <= L.lastSent) return { where: 'in-stream', stream: i };
    const next = streams[i + 1];
    if (t > L.lastSent && (!next || t <= next.loss.created)) return { where: 'reconnection', stream: i, before: i, after: next ? i + 1 : null };
  }
  return { where: 'reconnection', stream: 0, before: null, after: 0 };
}

// The run's missing messages and what is known of each. runDir: the run directory; statusFile: a /status log or null.
async function streamLoss(runDir, { statusFile = null } = {}) {
  const { v, archives } = await readRun(runDir);
  const cycles = [...v.cycles.values()];
  const timesByName = new Map();
  for (const c of cycles) if (Number.isFinite(c.created)) (timesByName.get(c.name) ?? timesByName.set(c.name, []).get(c.name)).push(c);
  for (const list of timesByName.values()) list.sort((a, b) => a.created - b.created);
  const cuts = finalCuts(cycles.map((c) => ({ ...c, requests: c.live })));   // the analysis's rule: deliveries < snapshot
  const offsetMs = Number.isFinite(v.minOffsetMs) ? v.minOffsetMs : 0;
  const gcFile = path.join(runDir, 'sut', 'gc.log');
  const stops = fs.existsSync(gcFile) ? stopsOf(await parseGcLogFile(gcFile)) : null;
  const stoppedMs = (from, to) => (stops === null ? null
    : Math.round(stops.reduce((a, x) => a + Math.max(0, Math.min(to, x.epochMs) - Math.max(from, x.startMs)), 0) * 1000) / 1000);
  const t0 = Math.min(...cycles.map((c) => c.created).filter(Number.isFinite));
  const rel = (ms) => (Number.isFinite(ms) ? Math.round(ms - t0) / 1000 : null);   // s after the first cycle

  const missing = [];
  const late = [];
  let expected = 0;
  let netMissed = 0;
  const clients = clientsOf(v.streams);
  for (const client of clients) {
    const streams = client.streams;
    const from = Math.min(...streams.map((s) => s.loss.created));
    const to = Math.max(...streams.map((s) => s.loss.lastSent));
    const live = new Set();
    const replayed = new Set();
    for (const s of streams) for (const g of s.loss.got) {
      if (g.kind === 'event') live.add(g.name + '#' + g.cycle);
      else if (g.kind === 'replay') replayed.add(g.name + '#' + g.cycle);
    }
    for (const name of client.events) {
      const list = timesByName.get(name) ?? [];
      const unique = new Set([...live, ...replayed].filter((k) => k.startsWith(name + '#'))).size;
      let exp = 0;
      for (const c of list) {
        if (!(c.created > from && c.created <= to)) continue;
        const key = name + '#' + c.cycle;
        const cut = cuts.get(name);
        if (cut && cut.cycle === c.cycle && !live.has(key) && !replayed.has(key)) continue;   // the final cycle did not reach it
        exp++;
        if (!live.has(key) && replayed.has(key)) late.push({ client: client.key, name, cycle: c.cycle });
        if (live.has(key) || replayed.has(key)) continue;
        const p = placeOf(streams, c.created);
        const s = streams[p.stream];
        const m = { client: `${client.engine} ${client.thread}`, type: client.type, name, cycle: c.cycle, startS: rel(c.created),
          where: p.where, streams: streams.length, stream: p.stream + 1 };
        if (p.where === 'in-stream') {
          m.sinceJoinMs = c.created - s.loss.created;
          m.first = !list.some((x) => x.created > s.loss.created && x.created < c.created);
          m.beforeFirstRecord = !s.loss.got.some((g) => (g.kind === 'event' || g.kind === 'replay') && g.name === name && g.cycle < c.cycle);
          m.serverStopMs = stoppedMs(s.loss.created, c.created);
          const next = s.loss.got.find((g) => g.kind === 'event' && g.name === name && g.cycle > c.cycle);
          if (next) m.nextRecordTripMs = Math.round(next.arrivalMs - offsetMs - (timesByName.get(name).find((x) => x.cycle === next.cycle)?.created ?? NaN));
        } else {
          const before = p.before !== null ? streams[p.before] : null;
          const after = p.after !== null ? streams[p.after] : null;
          if (before) {
            m.endedS = rel(before.endUs !== null ? before.endUs / 1000 - offsetMs : before.loss.lastSent);
            m.end = before.ok === true ? 'ok' : before.failure || before.code || 'no E line';
          }
          if (after) {
            m.resumedS = rel(after.loss.created);
            m.cursor = after.loss.cursor?.[name] ?? null;
            m.gap = after.loss.got.filter((g) => g.kind === 'gap' && g.name === name).map((g) => [g.from, g.to]);
          }
        }
        missing.push(m);
      }
      expected += exp;
      netMissed += Math.max(0, exp - unique);
    }
  }

  const byCycle = new Map();
  for (const m of missing) {
    const key = m.name + '#' + m.cycle;
    const c = v.cycles.get(key);
    if (!byCycle.has(key)) byCycle.set(key, { name: m.name, cycle: m.cycle, startS: m.startS, total: c.total, live: c.live, missing: 0, inStream: 0, reconnection: 0 });
    const row = byCycle.get(key);
    row.missing++;
    if (m.where === 'in-stream') row.inStream++; else row.reconnection++;
  }
  const failures = new Map();
  for (const s of v.streams) {
    if (s.ok !== false) continue;
    const what = (s.failure || s.code) + (s.error ? ` (${s.error})` : '');   // the failure, and the error body the server sent
    failures.set(what, (failures.get(what) ?? 0) + 1);
  }
  const affected = new Set(missing.map((m) => m.client));
  return {
    run: path.basename(path.resolve(runDir)), archives, clients: clients.length, streams: clients.reduce((a, c) => a + c.streams.length, 0),
    expected, missing: missing.length, netMissed, late: late.length, affectedClients: affected.size,
    inStream: missing.filter((m) => m.where === 'in-stream').length, firstAfterJoin: missing.filter((m) => m.first).length,
    beforeFirstRecord: missing.filter((m) => m.beforeFirstRecord).length,
    sinceJoinMs: quantiles(missing.filter((m) => m.where === 'in-stream').map((m) => m.sinceJoinMs)),
    reconnection: missing.filter((m) => m.where === 'reconnection').length,
    failedStreams: [...failures].sort((a, b) => b[1] - a[1]).map(([failure, count]) => ({ count, failure })),
    cycles: [...byCycle.values()].sort((a, b) => a.cycle - b.cycle),
    list: missing,
    server: { log: serverLogFaults(path.join(runDir, 'sut', 'server.log')), status: statusLog(statusFile) },
  };
}

// min, median and max of a list of numbers; null when empty.
function quantiles(values) {
  if (values.length === 0) return null;
  const v = [...values].sort((a, b) => a - b);
  return { min: v[0], median: v[Math.floor(v.length / 2)], max: v[v.length - 1] };
}

// ---- the report --------------------------------------------------------------------------------------------

function text(r, listMax) {
  const out = [];
  out.push(`${r.run}: ${r.clients} held-stream clients, ${r.streams} streams (${r.streams - r.clients} reconnections), ${r.expected} messages expected`);
  out.push(`missing: ${r.missing} messages (net of extra cycles, as measure/messages.js counts: ${r.netMissed}) on ${r.affectedClients} clients;`
    + ` in a live stream ${r.inStream} (the first cycle after its request: ${r.firstAfterJoin}; before the stream's first record:`
    + ` ${r.beforeFirstRecord}), across a reconnection ${r.reconnection};`
    + ` late (only as a replay): ${r.late}`);
  if (r.sinceJoinMs) out.push(`in a live stream, the cycle began ${r.sinceJoinMs.min} / ${r.sinceJoinMs.median} / ${r.sinceJoinMs.max} ms (min / median / max) after the request's timings.created`);
  if (r.failedStreams.length) out.push('streams that failed (E line; with or without records): ' + r.failedStreams.map((f) => `${f.count} x ${f.failure}`).join('; '));
  else out.push('streams that failed (E line): none');
  if (r.cycles.length) {
    out.push('cycle  start s  snapshot  live  missing  in-stream  reconnection');
    for (const c of r.cycles) out.push([c.cycle, c.startS, c.total, c.live, c.missing, c.inStream, c.reconnection].map(String).join('\t'));
  }
  for (const m of r.list.slice(0, listMax)) out.push('  ' + JSON.stringify(m));
  if (r.list.length > listMax) out.push(`  … ${r.list.length - listMax} more (--list <n>, --json)`);
  const log = r.server.log;
  out.push(log === null ? 'sut/server.log: none' : `sut/server.log: ${log.lines} warning/error lines` + (log.top.length ? ':' : ''));
  for (const t of log?.top ?? []) out.push(`  ${t.count} x ${t.text}`);
  const st = r.server.status;
  if (st) out.push(`/status (${st.answers} answers): streams.dropped ${st.streamsDropped?.first}->${st.streamsDropped?.last}, bodies.late `
    + `${st.bodiesLate?.first}->${st.bodiesLate?.last}, bodies.refused ${st.bodiesRefused?.first}->${st.bodiesRefused?.last}, open peak ${st.openPeak} (ws ${st.wsPeak}, sse ${st.ssePeak})`);
  return out.join('\n');
}

async function main(argv) {
  const args = argv.slice(2);
  const opt = (name) => { const i = args.indexOf(name); if (i === -1) return null; const v = args[i + 1]; args.splice(i, 2); return v; };
  const statusFile = opt('--status');
  const listMax = Number(opt('--list') ?? 20);
  const json = args.includes('--json');
  const runDir = args.filter((a) => a !== '--json')[0];
  if (!runDir || !fs.existsSync(runDir)) {
    process.stderr.write('usage: node analysis/tools/stream-loss.js <run dir> [--status <file>] [--json] [--list <n>]\n');
    return 2;
  }
  const r = await streamLoss(runDir, { statusFile });
  process.stdout.write((json ? JSON.stringify(r, null, 1) : text(r, listMax)) + '\n');
  return 0;
}

if (require.main === module) main(process.argv).then((code) => { process.exitCode = code; });

module.exports = { streamLoss, statusLog, serverLogFaults, placeOf };
