'use strict';
// The archive visitor: folds every record of every saved response into time lines, emit-cycle and
// queue-place tables and per-stream message counts, keeping only what stays small (no per-response lists
// for polls, one small summary per comet stream).
const { Timeline } = require('./timeline');
const { createPullCounter, pullEvents } = require('./pull-messages');

function createCollector(baseMs) {
  const t = {
    records: new Timeline(baseMs, 'sum'),       // every record written, at timings.sent
    events: new Timeline(baseMs, 'sum'),
    timeouts: new Timeline(baseMs, 'sum'),
    clears: new Timeline(baseMs, 'sum'),
    requests: new Timeline(baseMs, 'sum'),      // requests received (a comet stream is one), at timings.created
    connections: new Timeline(baseMs, 'max'),   // connections.start at timings.created, .finish at timings.sent
  };
  const cycles = new Map();                      // "name#cycle" -> { name, cycle, created, duration, requests, total }
  const places = { sum: [], max: [], count: [] };   // index = place - 1
  const cometStreams = [];
  const poll = { responses: 0, received: 0, unique: 0 };
  const pull = createPullCounter();
  const counts = { records: 0, events: 0, timeouts: 0, clears: 0, comet: 0, poll: 0, pull: 0, unknownType: 0 };
  const timestamps = [];
  const controls = [];
  let firstServer = Infinity;
  let lastServer = -Infinity;

  function seen(ms) {
    if (ms < firstServer) firstServer = ms;
    if (ms > lastServer) lastServer = ms;
  }

  function record(obj, type, st) {
    counts.records++;
    const sent = obj.timings?.sent;
    const created = obj.timings?.created;
    if (st.records === 1) {                      // first record of this response: the request itself
      st.type = obj.request?.type;
      st.events = Array.isArray(obj.request?.events) ? obj.request.events : [];
      st.created = created;
      st.received = 0;
      st.uniqueByEvent = Object.create(null);
      st.unique = 0;                             // the sum of uniqueByEvent, kept as it grows
      st.seenCycles = null;
      if (Number.isFinite(created)) t.requests.add(created);
      if (st.type === 'comet') counts.comet++; else if (st.type === 'poll') counts.poll++;
      else if (st.type === 'pull') counts.pull++; else counts.unknownType++;
      if (Number.isFinite(created) && Number.isFinite(obj.connections?.start)) {
        t.connections.add(created, obj.connections.start);
        seen(created);
      }
    }
    if (Number.isFinite(sent)) {
      st.end = sent;
      seen(sent);
      t.records.add(sent);
      if (Number.isFinite(obj.connections?.finish)) t.connections.add(sent, obj.connections.finish);
    }
    if (type === 'event') {
      counts.events++;
      const ev = obj.response.event;
      if (Number.isFinite(sent)) t.events.add(sent);
      eventRecord(ev, st);
    } else if (type === 'timeout') {
      counts.timeouts++;
      if (Number.isFinite(sent)) t.timeouts.add(sent);
    } else if (type === 'clear') {
      counts.clears++;
      if (Number.isFinite(sent)) t.clears.add(sent);
    } else if (type === 'pull') {
      // every event of a pull answer is one delivered message
      const events = pullEvents(obj);
      counts.events += events.length;
      for (const ev of events) {
        if (Number.isFinite(sent)) t.events.add(sent);
        cycleOf(ev);   // the cycle's start; a pull's delay is no emit duration, so none is taken
      }
      pull.answer(obj, st);
    }
  }

  // The emit cycle of an event (created on first sight), counted as reaching one more request.
  function cycleOf(ev) {
    const key = ev.name + '#' + ev.cycle;
    let c = cycles.get(key);
    if (!c) {
      c = { name: ev.name, cycle: ev.cycle, created: ev.timings?.created, duration: -Infinity, requests: 0, total: 0 };
      cycles.set(key, c);
    }
    c.requests++;
    return c;
  }

  function eventRecord(ev, st) {
    st.received++;
    const key = ev.name + '#' + ev.cycle;
    const created = ev.timings?.created;
    const duration = ev.timings?.duration;
    const c = cycleOf(ev);
    if (Number.isFinite(duration) && duration > c.duration) c.duration = duration;
    if (Number.isFinite(created) && !(c.created <= created)) c.created = created;
    if (Number.isFinite(ev.connections?.total) && ev.connections.total > c.total) c.total = ev.connections.total;
    const place = ev.connections?.place;
    if (Number.isInteger(place) && place >= 1 && place <= 10_000_000 && Number.isFinite(duration)) {
      const i = place - 1;
      while (places.count.length <= i) { places.count.push(0); places.sum.push(0); places.max.push(0); }
      places.count[i]++;
      places.sum[i] += duration;
      if (duration > places.max[i]) places.max[i] = duration;
    }
    // unique per stream: a comet stream remembers which cycles it saw until it ends
    if (st.seenCycles === null) st.seenCycles = new Set();
    if (!st.seenCycles.has(key)) {
      st.seenCycles.add(key);
      st.uniqueByEvent[ev.name] = (st.uniqueByEvent[ev.name] || 0) + 1;
      st.unique++;
    }
  }

  function endStream(st) {
    if (st.records === 0) return;
    if (st.type === 'pull') {
      st.seenCycles = null;
      return;
    }
    if (st.type === 'comet') {
      cometStreams.push({ created: st.created, end: st.end, events: st.events, received: st.received,
        uniqueByEvent: st.uniqueByEvent, cut: Boolean(st.cut) });
    } else {
      poll.responses++;
      poll.received += st.received;
      poll.unique += st.unique;
    }
    st.seenCycles = null;
  }

  function timestamp(obj, st) {
    const ts = obj?.timestamp;
    if (!ts || !Number.isFinite(ts.server)) return;
    // The push sampler stamps its exchange in µs (responses.js): its own round trip, no JMeter sample needed.
    const exchange = Number.isFinite(st.sentUs) && st.sentUs > 0 && Number.isFinite(st.arrivalUs)
      ? { sentUs: st.sentUs, arrivalUs: st.arrivalUs } : {};
    timestamps.push({ server: ts.server, client: ts.client, name: st.name, engine: st.engine, ...exchange });
  }

  function control(kind, obj) {
    controls.push({ kind, body: obj });
  }

  return {
    visitor: { record, endStream, timestamp, control },
    result: () => ({ timelines: t, cycles, places, cometStreams, poll, pull: pull.result(), counts, timestamps, controls,
      firstServer: Number.isFinite(firstServer) ? firstServer : null,
      lastServer: Number.isFinite(lastServer) ? lastServer : null }),
  };
}

module.exports = { createCollector };
