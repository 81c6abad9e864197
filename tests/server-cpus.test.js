'use strict';
// PB_SERVER_CPUS (issue #35 item 3): servers/control.sh starts the server under test pinned to those CPUs
// (it and every process it starts: node-cluster's workers), refuses a value that is no CPU list, and the
// analysis judges the server against the cores it may use (sut/cpus-allowed.txt), not the host's.
const test = require('node:test');
const assert = require('node:assert/strict');
const fs = require('node:fs');
const os = require('node:os');
const path = require('node:path');
const { spawnSync } = require('node:child_process');
const { readSutMonitors } = require('../analysis/stage/monitors');
const { serverCapacityPercent } = require('../analysis/measure/workload');

const ROOT = path.join(__dirname, '..');
const control = path.join(ROOT, 'servers', 'control.sh');

const allowed = (pid) => /^Cpus_allowed_list:\s*(\S+)/m.exec(fs.readFileSync(`/proc/${pid}/status`, 'utf8'))[1];
const recordedPid = (state, server) => fs.readFileSync(path.join(state, `${server}.pid`), 'utf8').split(' ')[0];
const children = (pid) => spawnSync('pgrep', ['-P', pid], { encoding: 'utf8' }).stdout.split('\n').filter(Boolean);

for (const server of ['node', 'node-cluster']) {
  test(`${server}: started on CPU 0 only, every process of it`, () => {
    const state = fs.mkdtempSync(path.join(os.tmpdir(), 'pb-cpus-'));
    const env = { ...process.env, PB_STATE: state, PB_SERVER_CPUS: '0', PB_NODE_CLUSTER_WORKERS: '2' };
    const start = spawnSync(control, ['start', server], { env, encoding: 'utf8', timeout: 60000 });
    try {
      assert.equal(start.status, 0, start.stdout + start.stderr);
      const pid = recordedPid(state, server);
      assert.equal(allowed(pid), '0');
      if (server === 'node-cluster') {
        const workers = children(pid);
        assert.ok(workers.length >= 2, `workers: ${workers}`);
        for (const w of workers) assert.equal(allowed(w), '0', `worker ${w}`);
      }
    } finally {
      spawnSync(control, ['stop', server], { env, timeout: 60000 });
      fs.rmSync(state, { recursive: true, force: true });
    }
  });
}

test('a PB_SERVER_CPUS that is no CPU list is refused with its value, nothing started', () => {
  const state = fs.mkdtempSync(path.join(os.tmpdir(), 'pb-cpus-'));
  const r = spawnSync(control, ['start', 'node'], { env: { ...process.env, PB_STATE: state, PB_SERVER_CPUS: 'one' }, encoding: 'utf8', timeout: 30000 });
  assert.equal(r.status, 1);
  assert.match(r.stderr, /PB_SERVER_CPUS=one is not a CPU list/);
  assert.equal(fs.existsSync(path.join(state, 'node.pid')), false);
  fs.rmSync(state, { recursive: true, force: true });
});

test('the analysis: a server pinned to 1 of 2 cores can use 100%, one not pinned 200%', async () => {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'pb-cpus-'));
  fs.mkdirSync(path.join(dir, 'sut'));
  const pidstat = path.join(dir, 'sut', 'pidstat.log');
  fs.writeFileSync(pidstat, 'Linux 6.1 (h) \t11/25/26 \t_x86_64_\t(2 CPU)\n');
  const inputs = { pidstat, vmstat: path.join(dir, 'sut', 'vmstat.log'), memoryLog: path.join(dir, 'sut', 'memory.log'), meminfo: path.join(dir, 'sut', 'meminfo.txt') };
  const present = (k) => k === 'pidstat';
  const free = await readSutMonitors(inputs, present);
  assert.equal(free.serverCores, 2);
  assert.equal(serverCapacityPercent('tc7', free.serverCores), 200);
  fs.writeFileSync(path.join(dir, 'sut', 'cpus-allowed.txt'), '1\n');
  const pinned = await readSutMonitors(inputs, present);
  assert.equal(pinned.serverCores, 1);
  assert.equal(serverCapacityPercent('tc7', pinned.serverCores), 100);
  fs.rmSync(dir, { recursive: true, force: true });
});
