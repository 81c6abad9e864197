'use strict';
// Server-Sent Events and WebSocket through run.sh (issue #38, docs/protocol.md "Server-Sent Events",
// "WebSocket"): a small real run (50 streams held by the mux engine, an event every 1,000 ms, 15 s), start
// to report, per transport on one server of each family: Node.js (its own http; the ws package) and the
// Java core on Tomcat 7 (an AsyncContext response; JSR-356). Each must come out valid, with every event
// record stamped on arrival (per-message trip time) and CHIRON's received / unique / missed per client
// with none missed and none twice; ws on Tomcat 6 is refused before anything starts (exit 2, the reason).
// Node.js's runs drop 10% of the open streams a second (PB_CHURN_PERCENT, docs/engine.md "Churn"): each
// client reconnects with its Last-Event-ID or cursor and gets what it missed as replays, so still none is
// missed; Tomcat 7's streams are held whole.
// The framing of every server type, replay and gaps included, is conformance's to check (conformance/);
// the engine's parsing and its reconnections are MuxSseTest's and MuxWsTest's (JUnit). About 4 minutes on
// 2 busy cores.
const { test, describe, after } = require('node:test');
const assert = require('node:assert/strict');
const fs = require('node:fs');
const path = require('node:path');
const { scratch, hostsFile, LOCAL_HOSTS, runSh, runShUndisturbed } = require('./lib/runsh');

const THREADS = 50;
const EMIT_MS = 1000;
const args = (type) => ['2', '15', String(THREADS), type, '-', 'event1', String(EMIT_MS)];
const SERVERS = ['node', 'tc7'];
const NAMES = { sse: 'SSE', ws: 'WebSocket' };
const CHURN = { node: '10' };   // percent of the open streams dropped each second, by server

const s = scratch('sse');
after(() => s.cleanup());
const env = () => ({ PB_RESULTS: s.results, PB_HOSTS: hostsFile(s.dir, LOCAL_HOSTS) });
const readJson = (dir, file) => JSON.parse(fs.readFileSync(path.join(dir, file), 'utf8'));

describe('run.sh sse and ws on each server family', () => {
  for (const type of ['sse', 'ws']) for (const server of SERVERS) {
    const ARGS = args(type);
    const name = NAMES[type];
    const churn = CHURN[server];
    test(`${type} on ${server}${churn ? ` with ${churn}% churn` : ''}: valid, a trip time per message, every message once`, async () => {
      const r = await runShUndisturbed([server, ...ARGS], { env: { ...env(), ...(churn ? { PB_CHURN_PERCENT: churn } : {}) }, timeoutMs: 300000 });
      assert.equal(r.code, 0, `run.sh ${server} ${ARGS.join(' ')} exited ${r.code}\n${r.stdout}\n${r.stderr}`);
      const run = readJson(r.runDir, 'run.json');
      assert.equal(run.status, 'complete');
      assert.equal(run.serverCrashed, false);
      assert.equal(run.type, type);
      assert.equal(run.provenance?.transport?.type, type, 'provenance records the transport');
      assert.equal(run.maxDurationMs, null);
      assert.equal(run.provenance.settings.PB_CHURN_PERCENT, churn, 'provenance records the churn (a setting off its default)');
      assert.match(path.basename(r.runDir), new RegExp(`-${server}-${type}-${THREADS}-15$`));
      const summary = readJson(r.runDir, 'data/summary.json');

      // CHIRON's counts per client (one engine connection) across its streams: every cycle once, a cycle
      // it missed while away from a dropped stream as a replay on its next.
      const m = summary.messages[type];
      assert.equal(m.clients, THREADS, JSON.stringify(m));
      if (churn) {
        assert.ok(m.streams > THREADS + 10, `streams dropped and remade: ${JSON.stringify(m)}`);
        assert.ok(m.replays > 0, `what a client missed while away came back as replays: ${JSON.stringify(m)}`);
      } else {
        assert.equal(m.streams, THREADS, 'no stream broke: one per client');
        assert.equal(m.replays, 0);
      }
      assert.ok(m.received >= THREADS * 10, JSON.stringify(m));
      assert.equal(m.unique, m.received, 'none twice');
      assert.equal(m.duplicates, 0);
      assert.equal(m.missed, 0, 'none missed');
      // a cycle stamped (created) just before a stream opened can still reach it: the emitter takes its snapshot
      // of the streams after the stamp, later on a busy machine; such a cycle is received but not expected
      assert.ok(m.unique >= m.expected && m.unique - m.expected <= 2, `expected ${m.expected}, unique ${m.unique}`);
      assert.equal(m.gapSkipped, 0, 'no reconnection beyond the replay bound');
      assert.equal(summary.totals[`${type}Streams`], m.streams);
      assert.equal(summary.totals.events + m.replays, m.received, 'live records and replays');
      assert.equal(summary.totals.failedSamples ?? 0, 0, JSON.stringify(summary.totals));

      // Trip time (emit cycle start -> arrival) of every event record, stamped by the engine.
      const trip = summary.tripTime.comet;
      assert.equal(trip.records, summary.totals.events, `a trip time per live message: ${JSON.stringify(trip)}`);
      assert.ok(trip.minMs >= -trip.errorBoundMs - 0.001, `below zero beyond the offset's error: ${JSON.stringify(trip)}`);
      assert.ok(trip.p50Ms <= trip.p99Ms && trip.p99Ms <= trip.maxMs && trip.p99Ms < 2000, JSON.stringify(trip));
      assert.equal(summary.workload.connections.expected, THREADS);

      const html = fs.readFileSync(path.join(r.runDir, 'report/index.html'), 'utf8');
      assert.ok(html.includes(`${name} \u2013 With Events \u2013 1 Second Emit Interval`), 'the run title');
      assert.ok(html.includes(`${name} trip time p50`));
      assert.ok(html.includes(`${name}: expected / missed`));
      const spectrum = JSON.parse(fs.readFileSync(path.join(r.runDir, 'charts', 'trip-time-spectrum.json'), 'utf8'));
      assert.ok(JSON.stringify(spectrum).includes(`"${name} records"`), 'the distribution names its line by the transport');

      // Last, so that a retake disturbed again (another tenant's work) shows every check above passed.
      assert.equal(summary.validity.verdict, 'valid', JSON.stringify(summary.validity, null, 1));
      assert.match(r.stdout, /^validity: valid /m);
    });
  }

  test('ws on tc6: refused before anything starts, exit 2, naming the reason', async () => {
    const r = await runSh(['tc6', ...args('ws')], { env: env(), timeoutMs: 30000 });
    assert.equal(r.code, 2, r.stderr);
    assert.match(r.stderr, /tc6 does not speak WebSocket \(Tomcat 6 has no WebSocket API/);
    assert.equal(fs.existsSync(s.results) ? fs.readdirSync(s.results).filter((d) => /-tc6-ws-/.test(d)).length : 0, 0, 'no run directory');
  });
});
