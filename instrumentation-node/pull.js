'use strict';
// Short polling (type "pull", docs/protocol.md "Pull"): the server keeps, per event name, the last
// HISTORY cycles it started ({ id, created }), and answers a pull at once with every kept cycle after the
// client's cursor (the last cycle id it got per name), plus the cursor to send next. The server keeps no
// state per client, so a client that sends back each answer's cursor gets every cycle once, none twice.
// The same history is the replay buffer of a resumed SSE or WebSocket stream (issue #38, docs/protocol.md
// "Replay and gaps"): the last N of its cycles per name, N at most HISTORY.

const { recordEnvelope } = require('./records');

const HISTORY = 1024;   // cycles kept per event name

class PullHistory {
  constructor({ keep = HISTORY } = {}) {
    this.keep = keep;
    this.byName = new Map();   // name -> [{ id, created }] ascending ids, at most `keep`
  }

  // An emit cycle started. A cycle id not above the last one kept means the emitter was removed and set
  // again (ids start from 1): the old cycles are dropped.
  record({ name, id, created }) {
    let cycles = this.byName.get(name);
    if (!cycles || (cycles.length > 0 && id <= cycles[cycles.length - 1].id)) this.byName.set(name, (cycles = []));
    cycles.push({ id, created });
    if (cycles.length > this.keep) cycles.splice(0, cycles.length - this.keep);
  }

  latest(name) {
    const cycles = this.byName.get(name);
    return cycles && cycles.length > 0 ? cycles[cycles.length - 1].id : 0;
  }

  // For one name: the kept cycles after `after`, and how many after it are no longer kept.
  since(name, after) {
    const cycles = this.byName.get(name) || [];
    const fresh = cycles.filter((c) => c.id > after);
    return { fresh, skipped: fresh.length > 0 ? Math.max(0, fresh[0].id - after - 1) : 0 };
  }

  // For a stream resuming after cycle `after` of `name`: { cycles, gap }, the cycles after it among the last
  // `limit` (at most `keep`) started, and the ones after it it will not get ({ from, to }, inclusive) or null.
  // A cursor at or past the latest cycle misses nothing (ids restart when an emitter is set again).
  replay(name, after, limit) {
    const kept = this.byName.get(name) || [];
    const latest = kept.length > 0 ? kept[kept.length - 1].id : 0;
    if (latest <= after) return { cycles: [], gap: null };
    const bound = Math.min(limit, this.keep);
    const cycles = (bound > 0 ? kept.slice(-bound) : []).filter((c) => c.id > after);
    const next = cycles.length > 0 ? cycles[0].id : latest + 1;
    return { cycles, gap: next > after + 1 ? { from: after + 1, to: next - 1 } : null };
  }

  // The pull answer's `response.pull` for a validated pull request (validate.js pushRequest).
  // sent: the server's clock now.
  answer(echo, sent) {
    const events = [];
    const cursor = Object.create(null);   // names are client text: "__proto__" must stay a plain key
    let skipped = 0;
    for (const name of new Set(echo.events)) {
      const given = echo.cursor && Object.prototype.hasOwnProperty.call(echo.cursor, name) ? echo.cursor[name] : null;
      if (given === null) {   // no cursor for this name: the client's window starts now
        cursor[name] = this.latest(name);
        continue;
      }
      const found = this.since(name, given);
      skipped += found.skipped;
      for (const c of found.fresh) {
        events.push({ name, cycle: c.id, timings: { duration: sent - c.created, sent, created: c.created } });
      }
      cursor[name] = found.fresh.length > 0 ? found.fresh[found.fresh.length - 1].id : given;
    }
    return { pull: { events, cursor, skipped } };
  }
}

// The whole answer record of a pull: answered at once, so it opens and closes in one moment. `open` is
// the server's open held requests (a pull is never held: it counts itself once).
function pullRecord(history, echo, created, open) {
  const sent = Date.now();
  return recordEnvelope(echo, created, history.answer(echo, sent), sent, open + 1, open + 1);
}

module.exports = { PullHistory, pullRecord, HISTORY };
