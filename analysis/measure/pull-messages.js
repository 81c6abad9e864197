'use strict';
// CHIRON's received / unique / missed messages for pulls (short polling, docs/protocol.md "Pull"), per
// client (a JMeter thread: engine + thread name from the push sampler's stream log). A client's window
// per event name runs from the first cursor it held (the one it sent, or its first answer's when it sent
// none) to the last cursor it was given; the server numbers cycles 1, 2, 3 ... so
//   expected   = last cursor - first cursor, per name (every cycle in that window should have come);
//   received   = events in its answers; unique = those above the highest cycle it had of that name
//                (answers of one thread arrive in order), duplicates = received - unique;
//   missed     = expected - unique, never below 0 (cycles the server no longer kept count here: `skipped`).
// Only a few numbers per client and name are kept, whatever the run's length.

// The events of a pull answer record ([] when it holds none or is malformed).
const pullEvents = (obj) => (Array.isArray(obj?.response?.pull?.events) ? obj.response.pull.events : []);

function createPullCounter() {
  const clients = new Map();   // "engine\tthread" -> Map name -> { first, last, highest }
  const totals = { responses: 0, empty: 0, received: 0, unique: 0, skipped: 0 };

  function answer(obj, st) {
    const pull = obj.response.pull;
    totals.responses++;
    const events = pullEvents(obj);
    if (events.length === 0) totals.empty++;
    if (Number.isSafeInteger(pull.skipped)) totals.skipped += pull.skipped;
    const key = st.thread !== undefined ? `${st.engine}\t${st.thread}` : `${st.engine}\t${st.name}`;
    let names = clients.get(key);
    if (!names) clients.set(key, (names = new Map()));
    const sentCursor = obj.request && typeof obj.request.cursor === 'object' && obj.request.cursor ? obj.request.cursor : {};
    const cursor = pull.cursor && typeof pull.cursor === 'object' ? pull.cursor : {};
    for (const name of Object.keys(cursor)) {
      const given = Number.isSafeInteger(sentCursor[name]) ? sentCursor[name] : cursor[name];
      if (!Number.isSafeInteger(given) || !Number.isSafeInteger(cursor[name])) continue;
      let w = names.get(name);
      if (!w) names.set(name, (w = { first: given, last: cursor[name], highest: given }));
      w.first = Math.min(w.first, given);
      w.last = Math.max(w.last, cursor[name]);
    }
    for (const e of events) {
      totals.received++;
      const w = names.get(e?.name);
      if (!w || !Number.isSafeInteger(e.cycle)) continue;
      if (e.cycle > w.highest) {
        totals.unique++;
        w.highest = e.cycle;
      }
    }
  }

  function result() {
    let expected = 0;
    for (const names of clients.values()) for (const w of names.values()) expected += Math.max(0, w.last - w.first);
    const missed = Math.max(0, expected - totals.unique);
    return { clients: clients.size, ...totals, duplicates: totals.received - totals.unique, expected, missed,
      receivedPercent: expected > 0 ? (100 * (expected - missed)) / expected : null };
  }

  // Plain data of the counts so far (a worker's partial result, stage/archives.js).
  function partial() {
    return { totals: { ...totals }, clients: [...clients].map(([key, names]) => [key, [...names].map(([name, w]) => [name, { ...w }])]) };
  }

  // Adds a partial (partial()) of other answers. A client is one engine's thread, and each engine's answers
  // come in one archive, so two partials hold different clients; one held by both (answers of one thread read
  // apart) gets the window of both and the higher cycle, its unique messages counted as each side counted them.
  function merge(p) {
    for (const k of Object.keys(totals)) totals[k] += p.totals[k];
    for (const [key, theirs] of p.clients) {
      let names = clients.get(key);
      if (!names) clients.set(key, (names = new Map()));
      for (const [name, w] of theirs) {
        const mine = names.get(name);
        if (!mine) { names.set(name, { ...w }); continue; }
        mine.first = Math.min(mine.first, w.first);
        mine.last = Math.max(mine.last, w.last);
        mine.highest = Math.max(mine.highest, w.highest);
      }
    }
  }

  return { answer, result, partial, merge };
}

module.exports = { createPullCounter, pullEvents };
