'use strict';
// Received, unique and missed messages (CHIRON's RPM / RUPM / received-message percentage), counted per
// request stream:
//   received = event records a stream got;
//   unique   = distinct (event, cycle) among them (received - unique = duplicates);
//   expected = emit cycles of a subscribed event that started while the stream was open (after the request
//              was received, up to its clear record or last record);
//   missed   = expected - unique, never below 0.
// Only comet streams have a window where every cycle should arrive; a poll gets one event by design, so for
// polls only received and unique are given. Pulls (short polling) count per client by cycle id
// (analysis/measure/pull-messages.js) and come in counted.

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

// cometStreams: [{ created, end, events: [names], received, uniqueByEvent: {name: n} }] (server ms);
// poll: { responses, received, unique } counted while reading (polls are too many to keep one by one).
function messageCounts(cometStreams, cyclesByEvent, poll = { responses: 0, received: 0, unique: 0 }, pull = null) {
  const out = {
    comet: { streams: 0, received: 0, unique: 0, duplicates: 0, expected: 0, missed: 0, receivedPercent: null },
    poll: { responses: poll.responses, received: poll.received, unique: poll.unique, duplicates: 0 },
    ...(pull?.responses ? { pull } : {}),
  };
  for (const s of cometStreams) {
    const unique = Object.values(s.uniqueByEvent).reduce((a, b) => a + b, 0);
    {
      const c = out.comet;
      c.streams++;
      c.received += s.received;
      c.unique += unique;
      for (const name of s.events) {
        const times = cyclesByEvent.get(name);
        if (!times || !Number.isFinite(s.created) || !Number.isFinite(s.end)) continue;
        const expected = countAfter(times, s.created, s.end);
        c.expected += expected;
        c.missed += Math.max(0, expected - (s.uniqueByEvent[name] || 0));
      }
    }
  }
  out.comet.duplicates = out.comet.received - out.comet.unique;
  out.poll.duplicates = out.poll.received - out.poll.unique;
  if (out.comet.expected > 0) out.comet.receivedPercent = (100 * (out.comet.expected - out.comet.missed)) / out.comet.expected;
  return out;
}

module.exports = { messageCounts, countAfter };
