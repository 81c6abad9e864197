'use strict';
// ./run.sh --plan: the arguments and hosts file checked as for a run, then the run's decisions as one JSON
// object (lib/decide.js --json, the module run.sh reads its own decisions from), and nothing started. The
// decisions themselves (split, heaps, disk, the fit, every refusal's words) are lib/test/decide.test.js's; here
// what run.sh adds: it prints the module's object, measures the hosts' open-file limits when none are
// given (exit 3 when it cannot), and refuses exactly as a run does.
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

// What lib/decide.js decides for the same arguments, asked directly (bash sourcing lib/config.sh gives it the
// settings run.sh has).
function decided(args, env) {
  const r = spawnSync('bash', ['-c', 'source lib/config.sh; node lib/decide.js --json -- "$@"', '-', ...args],
    { cwd: ROOT, encoding: 'utf8', env: { ...process.env, ...env } });
  assert.equal(r.status, 0, r.stderr);
  return JSON.parse(r.stdout);
}
const ulimit = (flag) => spawnSync('bash', ['-c', `ulimit ${flag}`], { encoding: 'utf8' }).stdout.trim();
const limit = (v) => (v === 'unlimited' ? v : Number(v));

const SUT = 'sut s1 127.0.0.1 local';
const TWO_ENGINES = [SUT, 'engine e1 127.0.0.2 local', 'engine e2 127.0.0.3 local'];

describe('./run.sh --plan', () => {
  test('the local hosts: lib/decide.js\'s decisions, with the open-file fit of this machine\'s limits', async () => {
    const args = ['node', '5', '30', '500', 'comet', '-', 'event1', '2000'];
    const p = await plan(args);
    const s = scratch('plan-direct');
    try {
      const d = decided(args, { PB_HOSTS: hostsFile(s.dir, LOCAL_HOSTS) });
      const { openFiles, hosts, ...rest } = p;
      const { openFiles: none, hosts: hostsToo, ...restToo } = d;
      assert.deepEqual(rest, restToo);
      assert.equal(none, null);
    } finally {
      s.cleanup();
    }
    assert.equal(p.connections, 500);
    assert.equal(p.engines[0].connections, 500);
    const o = p.openFiles;
    assert.equal(o.limitsFrom, 'measured');
    assert.equal(o.fits, true);
    assert.deepEqual(o.hosts.map((h) => [h.role, h.name, h.connections, h.need, h.soft, h.hard, h.fits, h.problem]), [
      ['sut', 'local', 500, 500 + o.reserve, limit(ulimit('-Sn')), limit(ulimit('-Hn')), true, null],
      ['engine', 'local', 500, 500 + o.reserve, limit(ulimit('-Sn')), limit(ulimit('-Hn')), true, null],
    ]);
  });

  test('limits given by PB_PLAN_OPEN_FILES: judged against them, no host asked', async () => {
    const p = await plan(['node', '5', '30', '1001', 'comet'], {
      hosts: TWO_ENGINES,
      env: { PB_PLAN_OPEN_FILES: 'sut:s1=1024/20000 engine:e1=unlimited/unlimited engine:e2=600/600', PB_FD_RESERVE: '200' },
    });
    assert.deepEqual(p.engines.map((e) => [e.name, e.connections]), [['e1', 501], ['e2', 500]]);
    assert.equal(p.openFiles.limitsFrom, 'PB_PLAN_OPEN_FILES');
    assert.deepEqual(p.openFiles.hosts.map((h) => h.fits), [false, true, false]);
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
