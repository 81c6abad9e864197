'use strict';
// Stage 7, messages: CHIRON's received / unique / missed messages of the run (measure/messages.js,
// measure/pull-messages.js), and what each delivered message cost on the SUT host's network over the
// steady window (measure/network.js, from sut/netstat.log).
const path = require('node:path');
const { messageCounts, finalCuts } = require('../measure/messages');
const { networkOfRun } = require('../measure/network');

// col: the archives' collector result. Returns data/messages.json's counts.
function deliveredMessages(col) {
  const cyclesByEvent = new Map();   // event -> its cycles' start times (server ms), ascending
  for (const c of col.cycles.values()) {
    if (!Number.isFinite(c.created)) continue;
    if (!cyclesByEvent.has(c.name)) cyclesByEvent.set(c.name, []);
    cyclesByEvent.get(c.name).push(c.created);
  }
  for (const list of cyclesByEvent.values()) list.sort((a, b) => a - b);
  return messageCounts(col.cometStreams, cyclesByEvent, col.poll, col.pull, col.resumedClients, finalCuts(col.cycles.values()));
}

// The summary's `network`: messages delivered and requests received per second (event records and pulled
// events at the second they were sent; a comet stream is one request) against the SUT host's counters.
function networkCost(runDir, { run, col, clock: { t0, offset }, axis: { seconds, window } }) {
  return networkOfRun(path.join(runDir, 'sut', 'netstat.log'), { t0, offsetMs: offset, window,
    events: col.timelines.events.toSeconds(t0, seconds, offset), requests: col.timelines.requests.toSeconds(t0, seconds, offset),
    hosts: run.hosts });
}

module.exports = { deliveredMessages, networkCost };
