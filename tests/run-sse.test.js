'use strict';
// Server-Sent Events through run.sh (issue #38, docs/protocol.md "Server-Sent Events"): a small real run
// (50 SSE streams held by the mux engine, an event every 1,000 ms, 15 s), start to report, on one server
// of each family: Node.js (its own http) and the Java core on Tomcat 7 (an AsyncContext response). Each
// must come out valid, with every event record stamped on arrival (per-message trip time) and CHIRON's
// received / unique / missed per client with none missed and none twice. The SSE framing of every server
// type, replay and gaps included, is conformance's to check (conformance/); the engine's parsing and its
// reconnection with Last-Event-ID are MuxSseTest's (JUnit). About 2 minutes on 2 busy cores.
const { test, describe, after } = require('node:test');
const assert = require('node:assert/strict');
const fs = require('node:fs');
const path = require('node:path');
const { scratch, hostsFile, LOCAL_HOSTS, runSh } = require('./lib/runsh');

const THREADS = 50;
const EMIT_MS = 1000;
const ARGS = ['2', '15', String(THREADS), 'sse', '-', 'event1', String(EMIT_MS)];
const SERVERS = ['node', 'tc7'];

const s = scratch('sse');
after(() => s.cleanup());
const env = () => ({ PB_RESULTS: s.results, PB_HOSTS: hostsFile(s.dir, LOCAL_HOSTS) });
const readJson = (dir, file) => JSON.parse(fs.readFileSync(path.join(dir, file), 'utf8'));

describe('run.sh sse on each server family', () => {
  for (const server of SERVERS) {
    test(`${server}: valid, a trip time per message, every message once`, async () => {
      const r = await runSh([server, ...ARGS], { env: env(), timeoutMs: 300000 });
      assert.equal(r.code, 0, `run.sh ${server} ${ARGS.join(' ')} exited ${r.code}\n${r.stdout}\n${r.stderr}`);
      const run = readJson(r.runDir, 'run.json');
      assert.equal(run.status, 'complete');
      assert.equal(run.serverCrashed, false);
      assert.equal(run.type, 'sse');
      assert.equal(run.maxDurationMs, null);
      assert.match(path.basename(r.runDir), new RegExp(`-${server}-sse-${THREADS}-15$`));
      const summary = readJson(r.runDir, 'data/summary.json');

      // CHIRON's counts per client (one engine connection) across its streams: every cycle once.
      const m = summary.messages.sse;
      assert.equal(m.clients, THREADS, JSON.stringify(m));
      assert.equal(m.streams, THREADS, 'no stream broke: one per client');
      assert.ok(m.received >= THREADS * 10, JSON.stringify(m));
      assert.equal(m.unique, m.received, 'none twice');
      assert.equal(m.duplicates, 0);
      assert.equal(m.missed, 0, 'none missed');
      assert.equal(m.expected, m.unique);
      assert.equal(m.replays, 0);
      assert.equal(m.gapSkipped, 0);
      assert.equal(summary.totals.sseStreams, THREADS);
      assert.equal(summary.totals.events, m.received);
      assert.equal(summary.totals.failedSamples ?? 0, 0, JSON.stringify(summary.totals));

      // Trip time (emit cycle start -> arrival) of every event record, stamped by the engine.
      const trip = summary.tripTime.comet;
      assert.equal(trip.records, m.received, `a trip time per message: ${JSON.stringify(trip)}`);
      assert.ok(trip.minMs >= -trip.errorBoundMs - 0.001, `below zero beyond the offset's error: ${JSON.stringify(trip)}`);
      assert.ok(trip.p50Ms <= trip.p99Ms && trip.p99Ms <= trip.maxMs && trip.p99Ms < 2000, JSON.stringify(trip));
      assert.equal(summary.workload.connections.expected, THREADS);

      const html = fs.readFileSync(path.join(r.runDir, 'report/index.html'), 'utf8');
      assert.match(html, /SSE \u2013 With Events \u2013 1 Second Emit Interval/);   // the run title
      assert.match(html, /SSE trip time p50/);
      assert.match(html, /SSE: expected \/ missed/);
      const spectrum = JSON.parse(fs.readFileSync(path.join(r.runDir, 'charts', 'trip-time-spectrum.json'), 'utf8'));
      assert.ok(JSON.stringify(spectrum).includes('"SSE records"'), 'the distribution names its line by the transport');

      // Last, so that a machine busy with other work (verdict disturbed) shows every check above passed.
      assert.equal(summary.validity.verdict, 'valid', JSON.stringify(summary.validity, null, 1));
      assert.match(r.stdout, /^validity: valid /m);
    });
  }
});
