'use strict';
// The capacity search (issue #49 item 4, docs/capacity.md) end to end against a server limited on purpose:
// nginx + nchan (Debian's packages) with 110 worker connections, so it holds about 100 SSE subscribers
// beside the engine's 10 publisher connections. `./run.sh --capacity --resolution 25 --target ... 1 8 60`
// doubles from 60 and bisects: it must stop on the server, with the highest level held and the lowest failed
// within one step of the resolution around the limit, every step a run of its own, capacity.json and its page
// written. Each step holds 8 s (a steady window of 5 s: shorter ones let one busy second decide). About 2
// minutes.
const { test, before, after } = require('node:test');
const assert = require('node:assert/strict');
const fs = require('node:fs');
const path = require('node:path');
const { execFileSync, spawn } = require('node:child_process');
const { scratch, hostsFile, LOCAL_HOSTS } = require('./lib/runsh');

const ROOT = path.resolve(__dirname, '..');
const NCHAN = path.join(ROOT, 'targets', 'nchan', 'nchan.sh');
const PORT = 18190 + (Number(process.env.PB_PORT_NODE ?? 18080) - 18080) + 3;
const WORKER_CONNECTIONS = 110;

const s = scratch('capacity');
const nchanDir = path.join(s.dir, 'nchan');
const nchan = (...args) => execFileSync(NCHAN, [...args, '--dir', nchanDir], { encoding: 'utf8' });
before(() => nchan('start', '--port', String(PORT), '--max-connections', String(WORKER_CONNECTIONS)));
after(() => { nchan('stop'); s.cleanup(); });

test('a capacity search finds a limited nchan\'s limit within one bisection step', { timeout: 600000 }, async () => {
  const file = path.join(s.dir, 'nchan-sse.json');
  fs.writeFileSync(file, fs.readFileSync(path.join(ROOT, 'targets', 'nchan-sse.json'), 'utf8').replaceAll(':18480/', `:${PORT}/`));
  const env = { ...process.env, PB_RESULTS: s.results, PB_HOSTS: hostsFile(s.dir, LOCAL_HOSTS) };
  const out = await new Promise((resolve) => {
    const child = spawn(path.join(ROOT, 'run.sh'), ['--capacity', '--resolution', '25', '--target', file, '1', '8', '60'],
      { cwd: ROOT, env, stdio: ['ignore', 'pipe', 'pipe'] });
    let text = '';
    child.stdout.on('data', (d) => { text += d; });
    child.stderr.on('data', (d) => { text += d; });
    child.on('close', (code) => resolve({ code, text }));
  });
  assert.equal(out.code, 0, out.text.slice(-3000));
  const dir = /^capacity report: (.+)\/index\.html$/m.exec(out.text)?.[1];
  assert.ok(dir, out.text.slice(-2000));
  const result = JSON.parse(fs.readFileSync(path.join(dir, 'capacity.json'), 'utf8'));
  const steps = result.steps.map((x) => `${x.level}:${x.outcome}:${x.verdict} (${x.reasons.join('; ')})`).join(' ');
  assert.equal(result.stoppedBy, 'server', `${result.reason}; steps ${steps}`);
  const held = result.held;
  const failed = Math.min(...result.steps.filter((x) => x.outcome === 'failed').map((x) => x.level));
  assert.ok(held >= 60 && held < WORKER_CONNECTIONS, `held ${held}: ${steps}`);
  assert.ok(failed > held && failed - held <= Math.ceil(held * 0.25), `held ${held}, failed ${failed}: ${steps}`);
  assert.deepEqual(result.steps.slice(0, 2).map((x) => x.level), [60, 120], 'doubling from the start');
  for (const x of result.steps) {
    assert.ok(fs.existsSync(path.join(x.runDir, 'report', 'index.html')), `step ${x.level} has its run and report`);
    if (x.outcome === 'failed') assert.ok(x.reasons.length > 0, `a failed step says why: ${JSON.stringify(x)}`);
  }
  assert.match(fs.readFileSync(path.join(dir, 'index.html'), 'utf8'), new RegExp(`Capacity of nchan-sse: ${held} connections held`));
});
