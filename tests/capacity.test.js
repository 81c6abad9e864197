'use strict';
// Capacity until failure (bench/capacity.js, issue #23 item 3), with the real parts: Tomcat 7 with a
// 64 MB heap (PB_TOMCAT_HEAP), JMeter adding 100 comet streams a second up to 3,000. The server runs
// out of heap after a few hundred and exits (servers/tomcat-common.sh: -XX:+ExitOnOutOfMemoryError);
// the bench must stop there with the cause "out of memory", the connections held and the rate, in
// capacity.json, its closing line and the run's report. Bad input is refused before anything starts.
// Needs ./setup.sh (JMeter, Tomcat 7, the WAR); about a minute.
const test = require('node:test');
const assert = require('node:assert/strict');
const fs = require('node:fs');
const path = require('node:path');
const { spawnSync } = require('node:child_process');

const ROOT = path.resolve(__dirname, '..');
const BENCH = path.join(ROOT, 'bench', 'capacity.js');
const RESULTS = process.env.PB_RESULTS || path.join(ROOT, 'results');
const MAX = 3000;

function bench(args, env = {}) {
  return spawnSync(process.execPath, [BENCH, ...args], { cwd: ROOT, encoding: 'utf8', env: { ...process.env, ...env }, timeout: 170000 });
}

const runDirs = () => (fs.existsSync(RESULTS) ? fs.readdirSync(RESULTS) : []);

test('bad input is refused before anything starts', () => {
  const before = runDirs().length;
  for (const [args, message] of [[['tc8'], /unknown server type 'tc8'/], [['tc7', '--rate', '0'], /--rate must be a whole number >= 1/],
    [['tc7', '--max', 'lots'], /--max must be a whole number/], [['tc7', '--type', 'ws'], /--type must be comet or poll/], [[], /which server/]]) {
    const r = bench(args);
    assert.equal(r.status, 2, `${args.join(' ')}: ${r.stderr}`);
    assert.match(r.stderr, message);
  }
  assert.equal(runDirs().length, before, 'no run directory was made');
});

test('Tomcat 7 with a 64 MB heap fails at a connection count, with the cause "out of memory"', { timeout: 180000 }, () => {
  const out = path.join(RESULTS, `capacity-${process.pid}.json`);
  fs.mkdirSync(RESULTS, { recursive: true });
  const r = bench(['tc7', '--rate', '100', '--max', String(MAX), '--emit', '1000', '--out', out], { PB_TOMCAT_HEAP: '64m' });
  assert.equal(r.status, 0, `${r.stdout}\n${r.stderr}`);
  const c = JSON.parse(fs.readFileSync(out, 'utf8'));
  fs.rmSync(out);
  assert.equal(c.failed, true);
  assert.equal(c.cause, 'out of memory');
  assert.match(c.detail, /java\.lang\.OutOfMemoryError/);
  assert.ok(c.held.status > 50 && c.held.status < MAX, `held ${c.held.status} at failure`);
  assert.ok(c.held.analyzer > 50 && c.held.analyzer < MAX, `analyzer ${c.held.analyzer}`);
  assert.ok(c.rateAchievedPerSecond > 10 && c.rateAchievedPerSecond <= 150, `rate ${c.rateAchievedPerSecond}/s`);
  assert.equal(c.rateAsked, 100);
  assert.deepEqual(JSON.parse(fs.readFileSync(path.join(c.runDir, 'capacity.json'), 'utf8')), c);
  const line = r.stdout.split('\n').find((l) => l.startsWith('capacity: tc7 failed at'));
  assert.match(line, new RegExp(`failed at ${c.held.status} connections held .*: out of memory`));
  const report = fs.readFileSync(path.join(c.runDir, 'report', 'index.html'), 'utf8');
  assert.match(report, /id="capacity"/);
  assert.match(report, /out of memory/);
  const summary = JSON.parse(fs.readFileSync(path.join(c.runDir, 'data', 'summary.json'), 'utf8'));
  assert.equal(summary.capacityCriterion.withinSeconds, 6);
  assert.ok(summary.capacityCriterion.answers > 0);
  console.log(`# ${c.line}`);
});
