'use strict';
// The archive visitor: folds every record of every saved response into time lines, emit-cycle and
// queue-place tables and per-stream message counts, keeping only what stays small (no per-response lists
// for polls, one small summary per comet stream, one per SSE or WebSocket client). Study 3.4.1: every data
// set of a run but the monitors' comes from these.
// An SSE or WebSocket client (a resumed stream's, lib/test-types.js: one connection of an engine, its stream
// log's thread) makes one request per stream and requests again when a stream ends or breaks, resuming with
// Last-Event-ID or its subscription's cursor (docs/protocol.md "Replay and gaps"); its messages are counted
// across its streams, as one held window from its first request to its
// last record: an event or replay record is a message received, a cycle counts once however often it came
// (unique), and the cycles of a gap record were not sent (missed). A replay is no emit cycle's delivery to
// a snapshot (it is in no cycle's requests) and gives no trip time (measure/archive-measures.js). The analysis runs one collector per archive, each in its own worker thread, and merges
// their partial results (partial, merge) into one, which gives what one collector over every archive, one
// after the other, would (stage/archives.js).
const { Timeline } = require('./timeline');
const { createPullCounter, pullEvents } = require('./pull-messages');
const { SeenCycles } = require('./seen-cycles');
const { isResumedStream } = require('../../lib/test-types');

const MAX_PLACE = 10_000_000;   // a larger place in the queue is a broken record

// An event record's emit-cycle start (ms, server clock) seen for cycle c: the cycle starts at the earliest
// of its event records' (or where it was first seen, if earlier), and eventCreated keeps the earliest of the
// event records' alone (what a merge takes from the other side).
function noteEventStart(c, created) {
  if (!Number.isFinite(created)) return;
  if (!(c.created <= created)) c.created = created;
  if (c.eventCreated === null || created < c.eventCreated) c.eventCreated = created;
}

// The emit-duration-by-place table with slots up to index i; returns it.
function placeSlots(places, i) {
  while (places.count.length <= i) { places.count.push(0); places.sum.push(0); places.max.push(0); }
  return places;
}

class Collector {
  // baseMs: the first time (server clock) the time lines keep, or null (stage/clock.js timelineBase);
  // bases: the first time of each time line by name where one is already fixed (a time line without a base
  // anchors on its first value: see bases())
  constructor(baseMs, bases = {}) {
    const line = (name, mode) => new Timeline(bases[name] ?? baseMs, mode);
    this.t = {
      records: line('records', 'sum'),            // every record written, at timings.sent
      events: line('events', 'sum'),
      timeouts: line('timeouts', 'sum'),
      clears: line('clears', 'sum'),
      requests: line('requests', 'sum'),          // requests received (a comet stream is one), at timings.created
      connections: line('connections', 'max'),    // connections.start at timings.created, .finish at timings.sent
    };
    // "name#cycle" -> { name, cycle, created, duration, requests, total, eventCreated }; created: the cycle's
    // start (its first sight's, then the earliest of its event records'); eventCreated: the earliest of its
    // event records' here (what a merge needs)
    this.cycles = new Map();
    this.index = new Map();    // name -> cycle -> the cycle's entry in `cycles` (cycleOf)
    this.places = { sum: [], max: [], count: [] };   // index = place - 1
    this.cometStreams = [];
    this.resumedClients = new Map();   // "<engine>\t<thread>" -> its counts across its streams (resumedClient)
    this.poll = { responses: 0, received: 0, unique: 0 };
    this.pull = createPullCounter();
    this.counts = { records: 0, events: 0, timeouts: 0, clears: 0, comet: 0, poll: 0, pull: 0, sse: 0, ws: 0, replays: 0, gaps: 0,
      unknownType: 0 };
    this.timestamps = [];
    this.controls = [];
    this.firstServer = Infinity;
    this.lastServer = -Infinity;
  }

  seen(ms) {
    if (ms < this.firstServer) this.firstServer = ms;
    if (ms > this.lastServer) this.lastServer = ms;
  }

  // One event record of a saved response (read/record-bytes.js EventFields); st: the response's stream.
  event(f, st) {
    this.written(st, f.request, f.created, f.start, f.sent, f.finish);
    this.counts.events++;
    if (Number.isFinite(f.sent)) this.t.events.add(f.sent);
    st.received++;
    const c = this.cycleOf(f.name, f.cycle, f.eventCreated);
    const duration = f.eventDuration;
    if (Number.isFinite(duration) && duration > c.duration) c.duration = duration;
    noteEventStart(c, f.eventCreated);
    if (Number.isFinite(f.total) && f.total > c.total) c.total = f.total;
    const place = f.place;
    if (Number.isInteger(place) && place >= 1 && place <= MAX_PLACE && Number.isFinite(duration)) this.placed(place - 1, duration);
    this.unique(isResumedStream(st.type) ? this.resumedClient(st) : st, f.name, f.cycle);
  }

  // Unique per stream (an SSE or WebSocket client's across its streams): a comet stream remembers which cycles it saw
  // until it ends, one bit each, and the latest cycle of each event it got (lastCycleByEvent: measure/messages.js
  // asks it whether the run's final cycle reached it). holder: the stream, or its client.
  unique(holder, name, cycle) {
    if (!(holder.lastCycleByEvent[name] >= cycle)) holder.lastCycleByEvent[name] = cycle;
    if (holder.seenCycles === null) holder.seenCycles = new SeenCycles();
    if (holder.seenCycles.add(name, cycle)) {
      holder.uniqueByEvent[name] = (holder.uniqueByEvent[name] || 0) + 1;
      holder.unique++;
    }
  }

  // The SSE or WebSocket client a stream belongs to: its engine's connection (the stream log's thread), looked up once
  // per stream, not per record.
  resumedClient(st) {
    if (st.resumedClient) return st.resumedClient;
    const key = `${st.engine}\t${st.thread ?? st.name}`;
    let c = this.resumedClients.get(key);
    if (c === undefined) {
      c = { type: st.type, created: null, end: null, events: st.events, received: 0, uniqueByEvent: Object.create(null), unique: 0,
        lastCycleByEvent: Object.create(null), seenCycles: null, streams: 0, replays: 0, gapSkipped: 0, cut: false };
      this.resumedClients.set(key, c);
    }
    st.resumedClient = c;
    return c;
  }

  // One record of another type (read/responses.js recordType: timeout, clear, pull); st: the response's stream.
  record(obj, type, st) {
    const sent = obj.timings?.sent;
    this.written(st, obj.request, obj.timings?.created, obj.connections?.start, sent, obj.connections?.finish);
    if (type === 'timeout') {
      this.counts.timeouts++;
      if (Number.isFinite(sent)) this.t.timeouts.add(sent);
    } else if (type === 'clear') {
      this.counts.clears++;
      if (Number.isFinite(sent)) this.t.clears.add(sent);
    } else if (type === 'pull') {
      this.pullAnswer(obj, st, sent);
    } else if (type === 'replay') {
      const r = obj.response.replay;
      this.counts.replays++;
      st.replays++;
      this.cycleOf(r.name, r.cycle, r.timings?.created, 0);   // its start is known; no live delivery
      if (isResumedStream(st.type)) this.unique(this.resumedClient(st), r.name, r.cycle);
    } else if (type === 'gap') {
      this.counts.gaps++;
      if (isResumedStream(st.type) && Number.isFinite(obj.response.gap.skipped)) this.resumedClient(st).gapSkipped += obj.response.gap.skipped;
    }
  }

  // What every record tells: that it was written (at sent, with finish connections open after it); the
  // first of a response also the request it answers (request, received at created with start connections).
  written(st, request, created, start, sent, finish) {
    this.counts.records++;
    if (st.records === 1) this.request(st, request, created, start);
    if (!Number.isFinite(sent)) return;
    st.end = sent;
    this.seen(sent);
    this.t.records.add(sent);
    if (Number.isFinite(finish)) this.t.connections.add(sent, finish);
  }

  // The request a response answers, from its first record: its type, events, when it was received.
  request(st, request, created, start) {
    st.type = request?.type;
    st.events = Array.isArray(request?.events) ? request.events : [];
    st.created = created;
    st.received = 0;
    st.replays = 0;
    st.uniqueByEvent = Object.create(null);
    st.unique = 0;                             // the sum of uniqueByEvent, kept as it grows
    st.lastCycleByEvent = Object.create(null);
    st.seenCycles = null;
    if (Number.isFinite(created)) this.t.requests.add(created);
    if (st.type === 'comet') this.counts.comet++; else if (st.type === 'poll') this.counts.poll++;
    else if (st.type === 'pull') this.counts.pull++; else if (isResumedStream(st.type)) this.counts[st.type]++;
    else this.counts.unknownType++;
    if (Number.isFinite(created) && Number.isFinite(start)) {
      this.t.connections.add(created, start);
      this.seen(created);
    }
  }

  // Every event of a pull answer is one delivered message.
  pullAnswer(obj, st, sent) {
    const events = pullEvents(obj);
    this.counts.events += events.length;
    for (const ev of events) {
      if (Number.isFinite(sent)) this.t.events.add(sent);
      this.cycleOf(ev.name, ev.cycle, ev.timings?.created);   // the cycle's start; a pull's delay is no emit duration, so none is taken
    }
    this.pull.answer(obj, st);
  }

  // The emit cycle `cycle` of event `name` (created on first sight, starting at `created`), counted as
  // reaching `reached` more requests (one live delivery; a replay reaches none). The cycles are kept by "name#cycle"; `index` finds them by name and cycle
  // without making that text for every record.
  cycleOf(name, cycle, created, reached = 1) {
    let byCycle = this.index.get(name);
    if (byCycle === undefined) { byCycle = new Map(); this.index.set(name, byCycle); }
    let c = byCycle.get(cycle);
    if (c === undefined) {
      const key = name + '#' + cycle;
      c = this.cycles.get(key);
      if (c === undefined) {
        c = { name, cycle, created, duration: -Infinity, requests: 0, total: 0, eventCreated: null };
        this.cycles.set(key, c);
      }
      byCycle.set(cycle, c);
    }
    c.requests += reached;
    return c;
  }

  // Emit duration by place in the queue (index = place - 1).
  placed(i, duration) {
    const p = placeSlots(this.places, i);
    p.count[i]++;
    p.sum[i] += duration;
    if (duration > p.max[i]) p.max[i] = duration;
  }

  endStream(st) {
    if (st.records === 0) return;
    if (st.type === 'comet') {
      this.cometStreams.push({ created: st.created, end: st.end, events: st.events, received: st.received,
        uniqueByEvent: st.uniqueByEvent, lastCycleByEvent: st.lastCycleByEvent, cut: Boolean(st.cut) });
    } else if (isResumedStream(st.type)) {
      this.resumedStreamEnded(st);
    } else if (st.type !== 'pull') {
      this.poll.responses++;
      this.poll.received += st.received;
      this.poll.unique += st.unique;
    }
    st.seenCycles = null;
  }

  // One stream of an SSE or WebSocket client ended: its window grows to the stream's, its messages join the client's.
  resumedStreamEnded(st) {
    const c = this.resumedClient(st);
    c.streams++;
    c.received += st.received + st.replays;
    c.replays += st.replays;
    if (Number.isFinite(st.created) && (c.created === null || st.created < c.created)) c.created = st.created;
    if (Number.isFinite(st.end) && (c.end === null || st.end > c.end)) c.end = st.end;
    if (st.cut) c.cut = true;
  }

  // The SSE and WebSocket clients as plain data (each as a comet stream's summary, plus its type, streams,
  // replays, gapSkipped).
  resumedClientList() {
    return [...this.resumedClients.values()].map(({ seenCycles, unique, ...c }) => c);
  }

  timestamp(obj, st) {
    const ts = obj?.timestamp;
    if (!ts || !Number.isFinite(ts.server)) return;
    // The push sampler stamps its exchange in µs (read/responses.js): its own round trip, no JMeter sample needed.
    const exchange = Number.isFinite(st.sentUs) && st.sentUs > 0 && Number.isFinite(st.arrivalUs)
      ? { sentUs: st.sentUs, arrivalUs: st.arrivalUs } : {};
    this.timestamps.push({ server: ts.server, client: ts.client, name: st.name, engine: st.engine, ...exchange });
  }

  control(kind, obj) {
    this.controls.push({ kind, body: obj });
  }

  result() {
    return { timelines: this.t, cycles: this.cycles, places: this.places, cometStreams: this.cometStreams,
      resumedClients: this.resumedClientList(), poll: this.poll, pull: this.pull.result(), counts: this.counts, timestamps: this.timestamps, controls: this.controls,
      firstServer: Number.isFinite(this.firstServer) ? this.firstServer : null,
      lastServer: Number.isFinite(this.lastServer) ? this.lastServer : null };
  }

  // The first time of each time line, where fixed: a collector of later archives given these (constructor)
  // files its values in the same slots as this one.
  bases() {
    return Object.fromEntries(Object.entries(this.t).map(([name, t]) => [name, t.base]));
  }

  // Plain data of everything collected so far (structured-clone-able: a worker's partial result).
  partial() {
    return { timelines: Object.fromEntries(Object.entries(this.t).map(([name, t]) => [name, t.partial()])),
      cycles: [...this.cycles.values()], places: this.places, cometStreams: this.cometStreams, resumedClients: this.resumedClientList(), poll: this.poll,
      pull: this.pull.partial(), counts: this.counts, timestamps: this.timestamps, controls: this.controls,
      firstServer: this.firstServer, lastServer: this.lastServer };
  }

  // Adds the partial of a collector over later archives (partial()): afterwards this holds what one collector
  // would hold had it read this one's archives and then the partial's. Sums add, peaks and last times take
  // the larger, first times the smaller, lists follow on; a cycle seen on both sides reaches both sides'
  // requests and starts at the earlier of this side's start and the other side's event records.
  merge(p) {
    for (const [name, t] of Object.entries(p.timelines)) this.t[name].merge(t);
    for (const theirs of p.cycles) {
      const key = theirs.name + '#' + theirs.cycle;
      const c = this.cycles.get(key);
      if (!c) { this.cycles.set(key, { ...theirs }); continue; }
      c.requests += theirs.requests;
      if (theirs.duration > c.duration) c.duration = theirs.duration;
      if (theirs.total > c.total) c.total = theirs.total;
      noteEventStart(c, theirs.eventCreated);
    }
    p.places.count.forEach((n, i) => {
      const places = placeSlots(this.places, i);
      places.count[i] += n;
      places.sum[i] += p.places.sum[i];
      if (p.places.max[i] > places.max[i]) places.max[i] = p.places.max[i];
    });
    // (uniqueByEvent and lastCycleByEvent are keyed by event names: no prototype, as request() made them, which a clone loses)
    const byEvent = (o) => Object.assign(Object.create(null), o);
    for (const s of p.cometStreams) this.cometStreams.push({ ...s, uniqueByEvent: byEvent(s.uniqueByEvent), lastCycleByEvent: byEvent(s.lastCycleByEvent) });
    // an SSE or WebSocket client is one engine's connection, so each archive's clients are their own
    for (const c of p.resumedClients ?? []) {
      this.resumedClients.set(`merged\t${this.resumedClients.size}`, { ...c, uniqueByEvent: byEvent(c.uniqueByEvent), lastCycleByEvent: byEvent(c.lastCycleByEvent),
        seenCycles: null, unique: 0 });
    }
    for (const k of Object.keys(this.poll)) this.poll[k] += p.poll[k];
    this.pull.merge(p.pull);
    for (const k of Object.keys(this.counts)) this.counts[k] += p.counts[k];
    for (const ts of p.timestamps) this.timestamps.push(ts);
    for (const c of p.controls) this.controls.push(c);
    if (p.firstServer < this.firstServer) this.firstServer = p.firstServer;
    if (p.lastServer > this.lastServer) this.lastServer = p.lastServer;
  }

  // read/responses.js's visitor, feeding this collector.
  get visitor() {
    return {
      event: (f, st) => this.event(f, st),
      record: (obj, type, st) => this.record(obj, type, st),
      endStream: (st) => this.endStream(st),
      timestamp: (obj, st) => this.timestamp(obj, st),
      control: (kind, obj) => this.control(kind, obj),
    };
  }
}

module.exports = { Collector };
