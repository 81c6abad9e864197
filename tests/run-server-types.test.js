'use strict';
// The server types of issue #23 (node-cluster, tc6-bio, tc7-bio) through run.sh: a small real run of
// each, start to report, with real servers and JMeter; and their settings refused before anything starts.
const { test, describe, after } = require('node:test');
const assert = require('node:assert/strict');
const fs = require('node:fs');
const path = require('node:path');
const { scratch, hostsFile, LOCAL_HOSTS, runSh, listFiles } = require('./lib/runsh');

const THREADS = 100;
const RUNS = [
  ['node-cluster', ['2', '10', String(THREADS), 'comet', '-', 'event1', '2000']],
  ['tc6-bio', ['2', '10', String(THREADS), 'poll', '3000', 'event1', '1000']],
  ['tc7-bio', ['2', '10', String(THREADS), 'poll', '3000', 'event1', '1000']],
];

const s = scratch('server-types');
after(() => s.cleanup());
const env = (extra = {}) => ({ PB_RESULTS: s.results, PB_HOSTS: hostsFile(s.dir, LOCAL_HOSTS), ...extra });

// pidstat's lines per second: one per process of the server.
function processesPerSecond(file) {
  const counts = new Map();
  for (const line of fs.readFileSync(file, 'utf8').split('\n')) {
    const m = /^(\d\d:\d\d:\d\d)\s+\d+\s+(\d+)\s/.exec(line);
    if (m) counts.set(m[1], (counts.get(m[1]) || 0) + 1);
  }
  return Math.max(0, ...counts.values());
}

describe('run.sh with the new server types', () => {
  for (const [server, args] of RUNS) {
    test(`${server}: a complete run and a report`, async () => {
      const r = await runSh([server, ...args], { env: env(server === 'node-cluster' ? { PB_NODE_CLUSTER_WORKERS: '2' } : {}), timeoutMs: 240000 });
      assert.equal(r.code, 0, `run.sh ${server} ${args.join(' ')} exited ${r.code}\n${r.stdout}\n${r.stderr}`);
      const run = JSON.parse(fs.readFileSync(path.join(r.runDir, 'run.json'), 'utf8'));
      assert.equal(run.status, 'complete');
      assert.equal(run.serverCrashed, false);
      assert.equal(run.server, server);
      assert.ok(fs.existsSync(path.join(r.runDir, 'report/index.html')), 'no report');
      const summary = JSON.parse(fs.readFileSync(path.join(r.runDir, 'data/summary.json'), 'utf8'));
      assert.ok(summary.totals.events > 0, `no event records: ${JSON.stringify(summary.totals)}`);
      assert.ok(summary.peakConnections >= THREADS * 0.9 && summary.peakConnections <= THREADS,
        `peak connections ${summary.peakConnections}`);
      if (server === 'node-cluster') {
        // pidstat watched the primary and both workers; every cycle reached all streams across them.
        assert.ok(processesPerSecond(path.join(r.runDir, 'sut/pidstat.log')) >= 3, 'pidstat did not see the workers');
        const { cycles } = JSON.parse(fs.readFileSync(path.join(r.runDir, 'data/emit-cycles.json'), 'utf8'));
        const full = cycles.filter((c) => c.total === THREADS);
        assert.ok(full.length >= 3, `cycles: ${JSON.stringify(cycles.slice(0, 3))}`);
      }
    });
  }

  const refusals = [
    ['node-cluster', { PB_NODE_CLUSTER_WORKERS: '0' }, /PB_NODE_CLUSTER_WORKERS \(the cluster size\) must be auto or a whole number/],
    ['node-cluster', { PB_NODE_CLUSTER_WORKERS: 'four' }, /PB_NODE_CLUSTER_WORKERS/],
    ['tc7-bio', { PB_TOMCAT_BIO_THREADS: '999999999' }, /tc7-bio: a blocking connector with 999999999 threads .* cannot start here: kernel\.(pid_max|threads-max)/],
  ];
  for (const [server, extra, message] of refusals) {
    test(`${server} with ${JSON.stringify(extra)} is refused before anything starts (exit 2)`, async () => {
      const state = path.join(s.dir, `state-${Object.values(extra)[0]}`);
      const r = await runSh([server, '2', '15', '100', 'comet'], { env: env({ ...extra, PB_STATE: state }), timeoutMs: 60000 });
      assert.equal(r.code, 2, r.stderr);
      assert.match(r.stderr, message);
      assert.equal(r.runDir, null);
      assert.deepEqual(listFiles(state).filter((f) => /\.(pid|log)$/.test(f) || f.startsWith('runs')), []);
    });
  }
});
