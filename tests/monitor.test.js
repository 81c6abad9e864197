'use strict';
// host/monitor.sh for real on this machine: vmstat, pidstat and the memory sampler start, follow a process,
// see memory move, and stop by their recorded PIDs, leaving nothing running.
const test = require('node:test');
const assert = require('node:assert/strict');
const fs = require('node:fs');
const path = require('node:path');
const { spawn, spawnSync } = require('node:child_process');
const { scratch, alive, ROOT } = require('./lib/runsh');
const { parseMemoryLogText } = require('../analysis/read/memory-log');
const { parsePidstatFile } = require('../analysis/read/pidstat');

const MONITOR = path.join(ROOT, 'host', 'monitor.sh');
const sleepMs = (ms) => new Promise((r) => setTimeout(r, ms));

test('monitor.sh: memory.log follows a 1.5 GB allocation that vmstat -a may not show; stop ends all three', async () => {
  const s = scratch('monitor');
  test.after(() => s.cleanup());
  const env = { ...process.env, PB_STATE: s.state };
  // The process to follow: holds 1.5 GB of touched memory from ~2 s in, for ~3 s, then exits (bounded).
  const holder = spawn(process.execPath, ['-e', `setTimeout(() => { const b = Buffer.alloc(1.5e9, 1);
    setTimeout(() => b.length, 3000); }, 2000)`], { stdio: 'ignore' });
  try {
    const start = spawnSync(MONITOR, ['start', 'mon-test', String(holder.pid)], { env, encoding: 'utf8' });
    assert.equal(start.status, 0, start.stderr);
    const dir = start.stdout.trim();
    assert.equal(dir, path.join(s.state, 'runs', 'mon-test', 'sut'));
    const pids = ['vmstat', 'pidstat', 'memory'].map((n) => Number(fs.readFileSync(path.join(dir, `${n}.pid`), 'utf8').split(' ')[0]));
    await sleepMs(6500);
    const stop = spawnSync(MONITOR, ['stop', 'mon-test'], { env, encoding: 'utf8' });
    assert.equal(stop.status, 0, stop.stderr);
    for (const pid of pids) assert.equal(alive(pid), false, `monitor process ${pid} still running`);

    const mem = parseMemoryLogText(fs.readFileSync(path.join(dir, 'memory.log'), 'utf8'));
    assert.equal(mem.skipped, 0);
    assert.ok(mem.samples.length >= 5, `${mem.samples.length} memory samples`);
    const total = Number(/^MemTotal:\s+(\d+)/m.exec(fs.readFileSync('/proc/meminfo', 'utf8'))[1]);
    for (const m of mem.samples) assert.equal(m.totalKB, total);
    const steps = mem.samples.slice(1).map((m, i) => m.epochMs - mem.samples[i].epochMs);
    assert.ok(steps.every((d) => d > 500 && d < 1500), `sample spacing ${steps}`);
    // The allocation shows as free memory falling by at least 1 GB and coming back.
    const free = mem.samples.map((m) => m.freeKB);
    assert.ok(Math.max(...free) - Math.min(...free) > 1_000_000, `free kB ${free}`);
    assert.ok(fs.readFileSync(path.join(dir, 'vmstat.log'), 'utf8').split('\n').filter((l) => /^\s*\d/.test(l)).length >= 5);
    const pidstat = await parsePidstatFile(path.join(dir, 'pidstat.log'));
    assert.ok(pidstat.samples.some((p) => p.rssMB > 1000), 'pidstat saw the holder grow past 1 GB');
  } finally {
    if (alive(holder.pid)) holder.kill('SIGKILL');
    spawnSync(MONITOR, ['stop', 'mon-test'], { env });
  }
});
