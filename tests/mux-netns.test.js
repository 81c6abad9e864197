'use strict';
// The mux engine (issue #34, docs/engine.md) end to end in distributed mode: a SUT and two JMeter engines,
// each a network namespace with its own sshd (tests/lib/netns.sh), one real run.sh per test type (comet and
// pull on Node.js, poll on Tomcat 7). Each must stamp every record it received (a trip time for each),
// give JMeter summaries only (no per-answer sample crosses RMI), and the stream logs' answers must add up
// to the summaries' counts. A fourth run is a target run (docs/targets.md) against nginx + nchan in the SUT's
// namespace. Needs root, openssh-server, JMeter, Tomcat 7, the WAR and nchan (./setup.sh --for-tests).
// Three runs of 12 s with 200 connections: about 2 minutes. The clear must come after both engines' loads.

const { test, before, after } = require('node:test');
const assert = require('node:assert/strict');
const fs = require('node:fs');
const path = require('node:path');
const { spawn, spawnSync } = require('node:child_process');
const { parse } = require('csv-parse/sync');

const { NetnsHosts, ROOT } = require('./lib/hosts-netns');

const STATE = process.env.PB_STATE || path.join(ROOT, 'build', 'state');
const RESULTS = path.join(process.env.PB_RESULTS || path.join(ROOT, 'build', 'results'), `mux-netns-${process.pid}`);
const CONNECTIONS = 200;
const EMIT_MS = 1000;
const DURATION_S = 12;
const ARGS = {
  comet: ['comet', '-', 'event1', String(EMIT_MS)],
  poll: ['poll', '5000', 'event1', String(EMIT_MS)],
  pull: ['pull', '500', 'event1', String(EMIT_MS)],
};

const hosts = new NetnsHosts(3, path.join(STATE, `netns-mux${process.pid}`), `mx${process.pid}`);

// One run.sh with the namespace hosts and the default engine; resolves to { code, out, runDir }.
function runSh(args) {
  const runDirFile = path.join(RESULTS, `.run-dir-${Date.now()}`);
  fs.mkdirSync(RESULTS, { recursive: true });
  const env = { ...process.env, ...hosts.env, PB_RESULTS: RESULTS, PB_RUN_DIR_FILE: runDirFile };
  delete env.PB_REQUEST_SAMPLER;   // the default: mux
  return new Promise((resolve) => {
    const child = spawn(path.join(ROOT, 'run.sh'), args, { cwd: ROOT, env, stdio: ['ignore', 'pipe', 'pipe'] });
    let out = '';
    child.stdout.on('data', (d) => { out += d; });
    child.stderr.on('data', (d) => { out += d; });
    child.on('close', (code) => {
      const runDir = fs.existsSync(runDirFile) ? fs.readFileSync(runDirFile, 'utf8').trim() : null;
      resolve({ code, out, runDir });
    });
  });
}

const tail = (text, n = 40) => text.split('\n').slice(-n).join('\n');
const readJson = (dir, file) => JSON.parse(fs.readFileSync(path.join(dir, file), 'utf8'));

before(() => hosts.start());
after(() => { if (hosts.up) hosts.down(); });

// Each test type once, on alternating servers: the engines are the same for every server (what differs per
// server is covered by the local runs of tests/run-server-types.test.js and tests/run-pull.test.js).
for (const [server, types] of [['node', ['comet', 'pull']], ['tc7', ['poll']]]) {
  for (const type of types) {
    test(`mux, distributed over two namespace engines: ${server} ${type}, every record stamped, totals agree`, { timeout: 240000 }, async () => {
      const r = await runSh([server, '2', String(DURATION_S), String(CONNECTIONS), ...ARGS[type]]);
      assert.equal(r.code, 0, `run.sh exited ${r.code}:\n${tail(r.out)}`);
      const d = r.runDir;
      const run = readJson(d, 'run.json');
      assert.equal(run.status, 'complete');
      assert.deepEqual(run.hosts.engines.map((e) => e.connections), [CONNECTIONS / 2, CONNECTIONS / 2]);

      // JMeter got summaries from both engines' mux threads, and no sample per answer.
      const rows = parse(fs.readFileSync(path.join(d, 'jmeter', 'results.csv')), { columns: true, skip_empty_lines: true });
      assert.equal(rows.filter((row) => row.label === 'request').length, 0, 'no per-answer sample in results.csv');
      const summaries = rows.filter((row) => row.label === 'request-summary');
      for (const e of hosts.engines) {
        const mine = summaries.filter((row) => row.threadName.includes(e.address));
        assert.ok(mine.length >= 10, `engine ${e.address}: ${mine.length} summaries`);
        assert.ok(mine.every((row) => /Request \(mux\) \d+-1$/.test(row.threadName)), 'one mux thread per engine');
      }
      const summed = summaries.reduce((n, row) => n + Number(row.SampleCount), 0);
      // One engine clears, after every engine's duration and one emit interval: an engine's load begins
      // with its Timestamp group's first exchange, and the engines' loads begin up to seconds apart.
      const clear = rows.find((row) => row.label === 'clear');
      for (const e of hosts.engines) {
        const begun = Math.min(...rows.filter((row) => row.label === 'timestamp' && row.threadName.includes(e.address)).map((row) => Number(row.timeStamp)));
        assert.ok(Number(clear.timeStamp) >= begun + DURATION_S * 1000 + EMIT_MS, `engine ${e.address}: load from ${begun} ms, cleared at ${clear.timeStamp} ms`);
      }

      // The stream logs hold every answer the summaries counted, each one its own connection's.
      const s = readJson(d, 'data/summary.json');
      assert.equal(s.totals.answersFrom, 'stream logs');
      assert.equal(s.flags.lostAnswers, false, JSON.stringify(s.flags.answerTotals));
      assert.equal(s.flags.answerTotals.streamLogs.answers, summed);
      assert.equal(s.totals.samplesByLabel.request.samples, summed);
      assert.equal(s.totals.samplesByLabel.request.failed, 0,
        `no failed answer: ${JSON.stringify({ errors: s.workload.errors, timeoutFailures: s.totals.timeoutFailures, problems: s.flags.problems })}`);
      assert.equal(s.workload.rampup.threadsSeen, CONNECTIONS, 'every connection made its requests');
      if (type === 'comet') assert.equal(summed, CONNECTIONS, 'one stream per connection, ended by the clear');
      else assert.ok(summed >= CONNECTIONS * 8, `${summed} answers: each connection answered about each second`);

      // Every record that carried an event was stamped on arrival: a trip time each.
      assert.ok(s.totals.events > 0, 'events delivered');
      if (type === 'comet') {
        assert.equal(s.tripTime.comet.records, s.totals.events);
        assert.equal(s.messages.comet.missed, 0, JSON.stringify(s.messages.comet));
      } else if (type === 'poll') {
        assert.equal(s.tripTime.polls, s.totals.events);
        assert.equal(s.tripTime.unmatched, 0);
      } else {
        assert.equal(s.tripTime.polls, s.messages.pull.received, 'a trip time for each pulled message');
        assert.equal(s.messages.pull.missed, 0, JSON.stringify(s.messages.pull));
      }
      const t = type === 'comet' ? s.tripTime.comet : s.tripTime;
      assert.ok(t.p50Ms > -t.errorBoundMs && t.p99Ms < 5000, `trip times ${JSON.stringify(t).slice(0, 300)}`);
      assert.equal(s.capacityCriterion.problem, null, 'every answer judged by reference 003\'s criterion');
      assert.ok(s.capacityCriterion.answers >= summed * 0.9, JSON.stringify(s.capacityCriterion));
      assert.ok(fs.existsSync(path.join(d, 'report', 'index.html')));
    });
  }
}

// A target run (docs/targets.md) over the two namespace engines: nginx + nchan in the SUT's namespace (a
// server pushbench does not start), each engine publishing on channels of its own and timing what its
// subscribers get on one clock.
test('a target run over two namespace engines against nchan in a third namespace: nothing missed, each engine its channels', { timeout: 240000 }, async () => {
  const NCHAN = path.join(ROOT, 'targets', 'nchan', 'nchan.sh');
  const port = 18190 + (Number(process.env.PB_PORT_NODE ?? 18080) - 18080);
  const dir = path.join(STATE, `netns-mux${process.pid}-nchan`);
  const nchan = (...args) => spawnSync('ip', ['netns', 'exec', hosts.sut.ns, NCHAN, ...args, '--dir', dir], { encoding: 'utf8' });
  const started = nchan('start', '--address', hosts.sut.address, '--port', String(port));
  assert.equal(started.status, 0, started.stderr);
  try {
    const text = fs.readFileSync(path.join(ROOT, 'targets', 'nchan-ws.json'), 'utf8').replaceAll('127.0.0.1:18480', `${hosts.sut.address}:${port}`);
    const file = path.join(RESULTS, 'nchan-ws.json');
    fs.mkdirSync(RESULTS, { recursive: true });
    fs.writeFileSync(file, text);
    const r = await runSh(['--target', file, '2', String(DURATION_S), String(CONNECTIONS)]);
    assert.equal(r.code, 0, `run.sh exited ${r.code}:\n${tail(r.out)}`);
    const run = readJson(r.runDir, 'run.json');
    assert.deepEqual(run.hosts.engines.map((e) => e.connections), [CONNECTIONS / 2, CONNECTIONS / 2]);
    const s = readJson(r.runDir, 'data/summary.json');
    const t = s.target;
    assert.equal(t.subscribers, CONNECTIONS);
    assert.equal(t.subscriptions.subscribersAcknowledged, CONNECTIONS, JSON.stringify(t.subscriptions));
    assert.ok(t.messages.expected >= CONNECTIONS * 6, JSON.stringify(t.messages));
    assert.equal(t.messages.missed, 0, JSON.stringify(t.messages));
    assert.equal(t.publish.askedPerSecond, t.channels * t.ratePerChannelPerSecond * 2, 'each engine publishes its own channels');
    assert.equal(t.publish.failed, 0);
    // a publish stamped before a subscription's request may reach nchan after it: counted, not timed
    assert.equal(t.tripTime.messages + t.tripTime.publishedBeforeRequest, t.messages.received + t.messages.early, JSON.stringify(t.tripTime));
    assert.equal(t.tripTime.untimed, 0);
    assert.ok(t.tripTime.p99Ms < 1000, JSON.stringify(t.tripTime));
  } finally {
    nchan('stop');
  }
});
