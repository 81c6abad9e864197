'use strict';
// ./run.sh --plan (lib/decisions.sh): the arguments and hosts file checked as for a run, then one JSON object
// with run.sh's own decisions (the split of the connections over the engines, each engine's heap and
// disk, the open-file fit its preflight would judge), and nothing started. The heaps and disks are
// compared with lib/jmeter-heap.sh and lib/disk-need.js asked directly: the plan reports run.sh's
// figures, it does not compute its own.
const { test, describe } = require('node:test');
const assert = require('node:assert/strict');
const { spawnSync } = require('node:child_process');
const { ROOT, scratch, hostsFile, LOCAL_HOSTS, runSh, listFiles } = require('./lib/runsh');

// Runs ./run.sh with the arguments in a fresh scratch area; checks that nothing was started or written.
async function runIn(args, { hosts = LOCAL_HOSTS, env = {} } = {}) {
  const s = scratch('plan');
  try {
    const file = hostsFile(s.dir, hosts);
    const r = await runSh(args, { env: { PB_RESULTS: s.results, PB_STATE: s.state, PB_HOSTS: file, ...env }, timeoutMs: 60000 });
    assert.deepEqual(listFiles(s.results), [], 'a run directory was created');
    assert.deepEqual(listFiles(s.state).filter((f) => /\.(pid|log)$/.test(f) || f.startsWith('runs')), [], 'something was started');
    return { ...r, hostsPath: file };
  } finally {
    s.cleanup();
  }
}

async function plan(args, options) {
  const r = await runIn(['--plan', ...args], options);
  assert.equal(r.code, 0, r.stderr);
  return JSON.parse(r.stdout);
}

// run.sh's heap for one engine (lib/jmeter-heap.sh) and disk for each engine and the results (lib/disk-need.js).
function heapMb(connections) {
  const r = spawnSync('bash', ['-c', 'source lib/config.sh; source lib/jmeter-heap.sh; jmeter_heap_mb "$1"', '-', String(connections)],
    { cwd: ROOT, encoding: 'utf8' });
  assert.equal(r.status, 0, r.stderr);
  return Number(r.stdout.trim());
}
function diskMb(type, duration, maxDuration, interval, ...connections) {
  const r = spawnSync('node', ['lib/disk-need.js', type, String(duration), String(maxDuration), String(interval), ...connections.map(String)], { cwd: ROOT, encoding: 'utf8' });
  assert.equal(r.status, 0, r.stderr);
  return r.stdout.trim().split('\n').map(Number);
}
const ulimit = (flag) => spawnSync('bash', ['-c', `ulimit ${flag}`], { encoding: 'utf8' }).stdout.trim();
const limit = (v) => (v === 'unlimited' ? v : Number(v));

const SUT = 'sut s1 127.0.0.1 local';
const TWO_ENGINES = [SUT, 'engine e1 127.0.0.2 local', 'engine e2 127.0.0.3 local'];

describe('./run.sh --plan', () => {
  test('the local hosts: the server, one engine with every connection, its heap and disk, the fit with this machine\'s limits', async () => {
    const p = await plan(['node', '5', '30', '500', 'comet', '-', 'event1', '2000']);
    assert.equal(p.connections, 500);
    assert.deepEqual(p.server, { type: 'node', name: 'local', address: '127.0.0.1', port: Number(process.env.PB_PORT_NODE || 8080), connections: 500 });
    const [engineDisk, resultsDisk] = diskMb('comet', 30, '-', 2000, 500);
    assert.deepEqual(p.engines, [{ name: 'local', address: '127.0.0.1', rmi: Number(process.env.PB_JMETER_RMI_PORT || 1099),
      connections: 500, heapMb: heapMb(500), diskMb: engineDisk }]);
    assert.equal(p.resultsDiskMb, resultsDisk);
    const o = p.openFiles;
    assert.equal(o.limitsFrom, 'measured');
    assert.equal(o.fits, true);
    assert.deepEqual(o.hosts.map((h) => [h.role, h.name, h.connections, h.need, h.soft, h.hard, h.fits, h.problem]), [
      ['sut', 'local', 500, 500 + o.reserve, limit(ulimit('-Sn')), limit(ulimit('-Hn')), true, null],
      ['engine', 'local', 500, 500 + o.reserve, limit(ulimit('-Sn')), limit(ulimit('-Hn')), true, null],
    ]);
  });

  test('two engines: the connections split so shares differ by at most one (the first gets the extra), a heap and disk each', async () => {
    const p = await plan(['tc7', '10', '60', '1001', 'poll', '3000', 'event1', '2000'], { hosts: TWO_ENGINES });
    assert.deepEqual(p.engines.map((e) => [e.name, e.address, e.connections]), [['e1', '127.0.0.2', 501], ['e2', '127.0.0.3', 500]]);
    assert.deepEqual(p.engines.map((e) => e.heapMb), [heapMb(501), heapMb(500)]);
    const disks = diskMb('poll', 60, 3000, 2000, 501, 500);
    assert.deepEqual([...p.engines.map((e) => e.diskMb), p.resultsDiskMb], disks);
    assert.deepEqual(p.server, { type: 'tc7', name: 's1', address: '127.0.0.1', port: Number(process.env.PB_PORT_TC7 || 8087), connections: 1001 });
    assert.deepEqual(p.openFiles.hosts.map((h) => [h.name, h.connections]), [['s1', 1001], ['e1', 501], ['e2', 500]]);
  });

  test('limits given by PB_PLAN_OPEN_FILES: an engine short of open files and a soft limit below the need are refused, each with its fix', async () => {
    const p = await plan(['node', '5', '30', '1001', 'comet'], {
      hosts: TWO_ENGINES,
      env: { PB_PLAN_OPEN_FILES: 'sut:s1=1024/20000 engine:e1=unlimited/unlimited engine:e2=600/600', PB_FD_RESERVE: '200' },
    });
    const o = p.openFiles;
    assert.equal(o.limitsFrom, 'PB_PLAN_OPEN_FILES');
    assert.equal(o.reserve, 200);
    assert.equal(o.fits, false);
    const [sut, e1, e2] = o.hosts;
    assert.deepEqual([sut.need, sut.soft, sut.hard, sut.fits], [1201, 1024, 20000, false]);
    assert.match(sut.problem, /the node server .* needs 1201 but the soft limit here is 1024 \(hard 20000\): add 'ulimit -n 20000'/);
    assert.deepEqual([e1.soft, e1.hard, e1.fits, e1.problem], ['unlimited', 'unlimited', true, null]);
    assert.deepEqual([e2.connections, e2.need, e2.fits], [500, 700, false]);
    assert.match(e2.problem, /this JMeter engine needs 500 connections \+ 200 reserve = 700, but a process here may open at most 600 \(ulimit -Hn\)\. At most 400 connections fit; 3 engines like this one would hold the 1001 connections, hosts\.conf has 2/);
  });

  test('PB_PLAN_OPEN_FILES without an entry for a host, or with a bad one: exit 2, nothing started', async () => {
    const missing = await runIn(['--plan', 'node', '5', '30', '10', 'comet'], { hosts: TWO_ENGINES, env: { PB_PLAN_OPEN_FILES: 'sut:s1=20000/20000 engine:e1=20000/20000' } });
    assert.equal(missing.code, 2);
    assert.match(missing.stderr, /PB_PLAN_OPEN_FILES has no entry for engine:e2/);
    const bad = await runIn(['--plan', 'node', '5', '30', '10', 'comet'], { env: { PB_PLAN_OPEN_FILES: 'sut:local=many/20000' } });
    assert.equal(bad.code, 2);
    assert.match(bad.stderr, /PB_PLAN_OPEN_FILES: bad entry 'sut:local=many\/20000'/);
  });

  test('refused exactly as a run: the same exit 2 and message for bad arguments, settings and hosts files', async () => {
    const cases = [
      [['node', '5', '30', '500', 'stream'], LOCAL_HOSTS, {}],
      [['node', '30', '30', '500', 'comet'], LOCAL_HOSTS, {}],
      [['node', '5', '30', '2', 'comet'], [...TWO_ENGINES, 'engine e3 127.0.0.4 local'], {}],
      [['node', '5', '30', '10', 'comet'], [SUT, 'engine e1 127.0.0.300 local'], {}],
      [['node', '5', '30', '10', 'comet'], LOCAL_HOSTS, { PB_JMETER_RMI_PORT: '70000' }],
    ];
    for (const [args, hosts, env] of cases) {
      const run = await runIn(args, { hosts, env });
      const planned = await runIn(['--plan', ...args], { hosts, env });
      assert.equal(run.code, 2, run.stderr);
      assert.equal(planned.code, 2, planned.stderr);
      // The hosts file's path differs per scratch area; the rest is word for word.
      assert.equal(planned.stderr.replace(planned.hostsPath, 'HOSTS'), run.stderr.replace(run.hostsPath, 'HOSTS'));
      assert.equal(planned.stdout, '');
    }
  });

  test('a host whose limits cannot be read (ssh refused): exit 3 naming it', async () => {
    // Port 1 on the loopback: nothing listens, so ssh fails at once.
    const r = await runIn(['--plan', 'node', '5', '30', '10', 'comet'], { hosts: [SUT, 'engine far 127.0.0.1 ssh:nobody@127.0.0.1 port=1'] });
    assert.equal(r.code, 3, r.stderr);
    assert.match(r.stderr, /cannot read the open-file limits of engine far \(127\.0\.0\.1, ssh:nobody@127\.0\.0\.1\)/);
    assert.equal(r.stdout, '');
  });
});

describe('./run.sh --help', () => {
  test('names --plan and PB_PLAN_OPEN_FILES', async () => {
    const r = await runSh(['--help'], { timeoutMs: 10000 });
    assert.equal(r.code, 0);
    assert.match(r.stdout, /\.\/run\.sh --plan <the arguments of a run>/);
    assert.match(r.stdout, /PB_PLAN_OPEN_FILES/);
  });
});
