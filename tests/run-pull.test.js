'use strict';
// Pull, short polling (issue #26, docs/pull.md), through run.sh: a small real run (20 clients pulling every
// 500 ms, an event every 1,000 ms, 10 s), start to report, on one server of each implementation: Node.js,
// the Node.js cluster (its history is shared across workers) and the Java core on Tomcat 7. Each must give
// the trip time of its pulled messages, the network cost per delivered message, and CHIRON's received and
// unique counts with none missed and none twice. The pull answers of every server type, connectors and
// Tomcat 6 included, are conformance's to check (conformance/pull.js): the run's pipeline after the
// server does not depend on its type. About 2 minutes on 2 busy cores.
const { test, describe, after } = require('node:test');
const assert = require('node:assert/strict');
const fs = require('node:fs');
const path = require('node:path');
const { scratch, hostsFile, LOCAL_HOSTS, runSh } = require('./lib/runsh');

const THREADS = 20;
const PULL_MS = 500;
const EMIT_MS = 1000;
const ARGS = ['2', '10', String(THREADS), 'pull', String(PULL_MS), 'event1', String(EMIT_MS)];
const SERVERS = ['node', 'node-cluster', 'tc7'];

const s = scratch('pull');
after(() => s.cleanup());
const env = (server) => ({ PB_RESULTS: s.results, PB_HOSTS: hostsFile(s.dir, LOCAL_HOSTS),
  ...(server === 'node-cluster' ? { PB_NODE_CLUSTER_WORKERS: '2' } : {}) });

describe('run.sh pull on each server implementation', () => {
  for (const server of SERVERS) {
    test(`${server}: trip times, network cost per message, every message once`, async () => {
      const r = await runSh([server, ...ARGS], { env: env(server), timeoutMs: 300000 });
      assert.equal(r.code, 0, `run.sh ${server} ${ARGS.join(' ')} exited ${r.code}\n${r.stdout}\n${r.stderr}`);
      const run = JSON.parse(fs.readFileSync(path.join(r.runDir, 'run.json'), 'utf8'));
      assert.equal(run.status, 'complete');
      assert.equal(run.serverCrashed, false);
      assert.equal(run.pullIntervalMs, PULL_MS);
      const summary = JSON.parse(fs.readFileSync(path.join(r.runDir, 'data/summary.json'), 'utf8'));

      // CHIRON's counts per client, by emit cycle: every cycle after a client's first pull arrives once.
      const m = summary.messages.pull;
      assert.equal(m.clients, THREADS, JSON.stringify(m));
      assert.ok(m.received > 0, JSON.stringify(m));
      assert.equal(m.unique, m.received, 'none twice');
      assert.equal(m.duplicates, 0);
      assert.equal(m.missed, 0, 'none missed');
      assert.equal(m.skipped, 0, 'no cycle fell out of the server\'s history');
      assert.equal(m.expected, m.unique);
      assert.equal(summary.totals.errors, 0, JSON.stringify(summary.totals));

      // Trip time (emit cycle start -> arrival) of every pulled message.
      const trip = summary.tripTime;
      assert.equal(trip.polls, m.received, 'a trip time for each pulled message');
      assert.equal(trip.unmatched, 0);
      assert.ok(trip.minMs >= -trip.errorBoundMs - 0.001, `below zero beyond the offset's error: ${JSON.stringify(trip)}`);
      assert.ok(Number.isFinite(trip.p50Ms) && Number.isFinite(trip.p99Ms) && trip.p99Ms >= trip.p50Ms, JSON.stringify(trip));

      // Network cost per delivered message from the SUT host's counters over the steady window.
      const n = summary.network;
      assert.equal(n.available, true, JSON.stringify(n));
      assert.ok(n.messages > 0 && n.requests > 0, JSON.stringify(n));
      for (const k of ['segments', 'bytes', 'requests']) assert.ok(n.perMessage[k] > 0, `per message ${k}: ${n.perMessage[k]}`);
      assert.equal(n.sharedWithEngine, true, 'SUT and engine on this machine');

      const html = fs.readFileSync(path.join(r.runDir, 'report/index.html'), 'utf8');
      assert.match(html, /Network cost per message/);
      assert.match(html, /Pull trip time p50/);
      assert.match(html, /Pull trip time: answers timed/);
      assert.match(html, /Pull \u2013 Every 500 ms \u2013 With Events/);   // the run title names the pull interval
      assert.match(html, /Pull interval \(ms\)<\/td><td[^>]*>500</);
    });
  }
});
