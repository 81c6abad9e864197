'use strict';
// Received, unique and missed messages (CHIRON's RPM / RUPM / received-message percentage), counted per
// request stream:
//   received = event records a stream got;
//   unique   = distinct (event, cycle) among them (received - unique = duplicates);
//   expected = emit cycles of a subscribed event that started while the stream was open (after the request
//              was received, up to its clear record or last record);
//   missed   = expected - unique, never below 0.
// The run's final cycle of an event, when it reached fewer streams than were subscribed (its records'
// `total`), was cut short by the test's end (the Clean Up clear removed the event while the cycle was
// being sent, or streams closed): it is expected only of the streams it reached, and the streams it did
// not reach although their window held it are counted apart (`finalCycleUnreached`, present when > 0).
// A cycle cut short before the final one is a real loss and stays missed.
// Only held streams have a window where every cycle should arrive; a poll gets one event by design, so for
// polls only received and unique are given. Pulls (short polling) count per client by cycle id
// (analysis/measure/pull-messages.js) and come in counted. SSE and WebSocket count per client
// (measure/collect.js): its window runs from its first request to its last record across its
// reconnections, its received and unique include the replays it got on resuming, a cycle of a gap record
// is missed; `sse` (`ws`) adds its streams (reconnections = streams - clients), replays and the cycles its
// gap records skipped.

// cyclesByEvent: Map event -> sorted array of cycle start times (server ms).
function countAfter(sorted, from, to) {
  // cycles with from < created <= to
  const lower = upperBound(sorted, from);
  const upper = upperBound(sorted, to);
  return Math.max(0, upper - lower);
}

function upperBound(sorted, value) {
  let lo = 0;
  let hi = sorted.length;
  while (lo < hi) {
    const mid = (lo + hi) >> 1;
    if (sorted[mid] <= value) lo = mid + 1; else hi = mid;
  }
  return lo;
}

// Received, unique, expected and missed over held windows ({ created, end, events, received, uniqueByEvent,
// lastCycleByEvent }): comet streams, SSE clients. streams: how many windows. finalCut: event -> { cycle,
// created } of its final cycle where that was cut short.
function heldCounts(windows, cyclesByEvent, finalCut = new Map()) {
  const c = { streams: 0, received: 0, unique: 0, duplicates: 0, expected: 0, missed: 0, receivedPercent: null };
  let unreached = 0;
  for (const s of windows) {
    c.streams++;
    c.received += s.received;
    c.unique += Object.values(s.uniqueByEvent).reduce((a, b) => a + b, 0);
    for (const name of s.events) {
      const times = cyclesByEvent.get(name);
      if (!times || !Number.isFinite(s.created) || !Number.isFinite(s.end)) continue;
      let expected = countAfter(times, s.created, s.end);
      const cut = finalCut.get(name);
      if (cut && cut.created > s.created && cut.created <= s.end && !(s.lastCycleByEvent?.[name] >= cut.cycle)) {
        expected--;
        unreached++;
      }
      c.expected += expected;
      c.missed += Math.max(0, expected - (s.uniqueByEvent[name] || 0));
    }
  }
  c.duplicates = c.received - c.unique;
  if (c.expected > 0) c.receivedPercent = (100 * (c.expected - c.missed)) / c.expected;
  return unreached ? { ...c, finalCycleUnreached: unreached } : c;
}

// The final cycle of each event where it was cut short (see the header): its highest-numbered cycle, when that
// reached fewer requests than were subscribed. cycles: the collector's ({ name, cycle, created, requests, total }).
// Returns event -> { cycle, created }, heldCounts' finalCut.
function finalCuts(cycles) {
  const finals = new Map();
  for (const c of cycles) if (Number.isFinite(c.created) && !(finals.get(c.name)?.cycle >= c.cycle)) finals.set(c.name, c);
  return new Map([...finals].filter(([, c]) => c.total > 0 && c.requests < c.total).map(([name, c]) => [name, { cycle: c.cycle, created: c.created }]));
}

// SSE, WebSocket: heldCounts over the clients, as clients, with their streams, replays and the cycles gaps skipped.
function resumedCounts(clients, cyclesByEvent, finalCut) {
  const { streams: n, ...held } = heldCounts(clients, cyclesByEvent, finalCut);
  const sum = (k) => clients.reduce((a, c) => a + c[k], 0);
  return { clients: n, streams: sum('streams'), ...held, replays: sum('replays'), gapSkipped: sum('gapSkipped') };
}

// cometStreams: [{ created, end, events: [names], received, uniqueByEvent: {name: n} }] (server ms);
// poll: { responses, received, unique } counted while reading (polls are too many to keep one by one);
// resumedClients: as cometStreams, each with its type (sse, ws; none: sse), streams, replays, gapSkipped
// (counted under its type when the run has any); finalCut: as heldCounts'.
function messageCounts(cometStreams, cyclesByEvent, poll = { responses: 0, received: 0, unique: 0 }, pull = null, resumedClients = [],
  finalCut = new Map()) {
  const ofType = (t) => resumedClients.filter((c) => (c.type ?? 'sse') === t);
  const sse = ofType('sse');
  const ws = ofType('ws');
  return {
    comet: heldCounts(cometStreams, cyclesByEvent, finalCut),
    poll: { responses: poll.responses, received: poll.received, unique: poll.unique, duplicates: poll.received - poll.unique },
    ...(pull?.responses ? { pull } : {}),
    ...(sse.length ? { sse: resumedCounts(sse, cyclesByEvent, finalCut) } : {}),
    ...(ws.length ? { ws: resumedCounts(ws, cyclesByEvent, finalCut) } : {}),
  };
}

module.exports = { messageCounts, countAfter, finalCuts };
