'use strict';
// Provenance (issue #24 item 3): lib/provenance.js builds run.json's provenance from what
// lib/provenance.sh and host/host-facts.sh collect (run here for real, on this machine), the comparison
// pages warn when the runs of one figure differ in it, and runs on host sets that differ are drawn as
// lines of their own. A real run's provenance (over ssh, in namespace hosts) is checked by
// tests/sweep-lanes.test.js.

const { test } = require('node:test');
const assert = require('node:assert/strict');
const fs = require('node:fs');
const os = require('node:os');
const path = require('node:path');
const { spawnSync } = require('node:child_process');

const provenance = require('../lib/provenance');

const ROOT = path.resolve(__dirname, '..');

test('host/host-facts.sh: this host\'s cores, memory, CPU model and versions, in well under a second', () => {
  const t0 = Date.now();
  const r = spawnSync(path.join(ROOT, 'host', 'host-facts.sh'), { cwd: ROOT, encoding: 'utf8' });
  const took = Date.now() - t0;
  assert.equal(r.status, 0, r.stderr);
  const f = Object.fromEntries(r.stdout.trim().split('\n').map((l) => l.split('\t')));
  assert.equal(Number(f.cores), os.cpus().length);
  assert.ok(Math.abs(Number(f.memoryMB) - os.totalmem() / 2 ** 20) < 2, `${f.memoryMB} MB`);
  assert.equal(f.kernel, os.release());
  assert.equal(f.node, process.versions.node);
  assert.match(f.jdk, /^\d+(\.\d+)*/);
  assert.match(f.jmeter, /^5\.6\.3/);
  assert.match(f.tomcat6, /^6\.0\./);
  assert.match(f.tomcat7, /^7\.0\./);
  assert.ok(f.cpuModel, 'a CPU model');
  assert.ok(took < 3000, `${took} ms`);
});

test('lib/provenance.sh: the settings that differ from lib/config.sh\'s defaults, paths and ports left out; the commit', () => {
  const script = 'source lib/config.sh; source lib/provenance.sh; provenance_settings; provenance_pushbench';
  const r = spawnSync('bash', ['-c', script], {
    cwd: ROOT,
    encoding: 'utf8',
    env: { PATH: process.env.PATH, PB_TOMCAT_HEAP: '1g', PB_JMETER_GC: '-XX:+UseG1GC', PB_PORT_NODE: '9999', PB_STATE: '/tmp/elsewhere' },
  });
  assert.equal(r.status, 0, r.stderr);
  const lines = r.stdout.trim().split('\n');
  assert.deepEqual(lines.filter((l) => l.startsWith('setting\t')).sort(),
    ['setting\tPB_JMETER_GC\t-XX:+UseG1GC', 'setting\tPB_TOMCAT_HEAP\t1g']);
  const head = spawnSync('git', ['rev-parse', 'HEAD'], { cwd: ROOT, encoding: 'utf8' }).stdout.trim();
  assert.ok(lines.includes(`pushbench\tcommit\t${head}`), r.stdout);
  assert.ok(lines.some((l) => /^pushbench\tdirty\t[01]$/.test(l)), r.stdout);
});

const FACTS = [
  'pushbench\tcommit\tabc123', 'pushbench\tdirty\t1', 'setting\tPB_TOMCAT_HEAP\t1g',
  'host\tsut\ts1\tcores\t4', 'host\tsut\ts1\tmemoryMB\t8000', 'host\tsut\ts1\tcpuModel\tXeon', 'host\tsut\ts1\tnode\t20.1.0',
  'host\tsut\ts1\tjdk\t17.0.9', 'host\tsut\ts1\tkernel\t6.1.0', 'host\tsut\ts1\ttomcat6\t6.0.53.0', 'host\tsut\ts1\ttomcat7\t7.0.109.0',
  'host\tengine\te1\tcores\t2', 'host\tengine\te1\tmemoryMB\t4096', 'host\tengine\te1\tcpuModel\tEPYC', 'host\tengine\te1\tjmeter\t5.6.3',
].join('\n');

test('build: run.json\'s provenance object; versions from the host that runs each', () => {
  const p = provenance.build(FACTS);
  assert.deepEqual(p.pushbench, { commit: 'abc123', dirty: true });
  assert.deepEqual(p.versions, { jmeter: '5.6.3', tomcat6: '6.0.53.0', tomcat7: '7.0.109.0', node: '20.1.0', jdk: '17.0.9', kernel: '6.1.0' });
  assert.deepEqual(p.hosts.map((h) => [h.name, h.role, h.cores, h.memoryMB, h.cpuModel]), [['s1', 'sut', 4, 8000, 'Xeon'], ['e1', 'engine', 2, 4096, 'EPYC']]);
  assert.deepEqual(p.settings, { PB_TOMCAT_HEAP: '1g' });
  // The CLI prints the same object.
  const r = spawnSync(process.execPath, [path.join(ROOT, 'lib', 'provenance.js')], { input: FACTS, encoding: 'utf8' });
  assert.deepEqual(JSON.parse(r.stdout), p);
});

test('differences and host sets: what a comparison warns about', () => {
  const a = provenance.build(FACTS);
  const b = provenance.build(FACTS.replace('s1\tcores\t4', 's1\tcores\t8').replace('setting\tPB_TOMCAT_HEAP\t1g', 'setting\tPB_JMETER_GC\t-XX:+UseG1GC'));
  assert.deepEqual(provenance.differences([a, a]), []);
  const d = provenance.differences([a, b]);
  assert.deepEqual(d.map((x) => x.what).sort(), ['PB_JMETER_GC', 'PB_TOMCAT_HEAP', 'sut host 1 cores']);
  assert.deepEqual(d.find((x) => x.what === 'PB_TOMCAT_HEAP').values, ['1g', 'default']);
  assert.match(provenance.formatDifferences(d), /sut host 1 cores: 4 \/ 8/);
  assert.equal(provenance.hostSet(a), 'SUT 4 cores 8 GB Xeon; engines 1 x 2 cores 4 GB EPYC');
  assert.notEqual(provenance.hostSet(a), provenance.hostSet(b));
  // Host names do not make a host set: two lanes of identical machines are one.
  const renamed = provenance.build(FACTS.replace(/\ts1\t/g, '\tother\t'));
  assert.equal(provenance.hostSet(renamed), provenance.hostSet(a));
  assert.deepEqual(provenance.differences([a, renamed]), []);
  assert.equal(provenance.hostSet(null), null);
  // the same hosts with the server and the engines pinned to CPUs (PB_SERVER_CPUS, PB_ENGINE_CPUS) are another set
  const pinned = provenance.build(`${FACTS}\nsetting\tPB_SERVER_CPUS\t1\nsetting\tPB_ENGINE_CPUS\t0`);
  assert.equal(provenance.hostSet(pinned), 'SUT 4 cores 8 GB Xeon; engines 1 x 2 cores 4 GB EPYC; server on CPU 1, engines on CPU 0');
});

test('comparison pages: a figure whose runs differ in provenance says how; host sets that differ get lines of their own', async () => {
  const { makeSweep } = require('../charts/test/sweep-fixture');
  const { writeComparison } = require('../charts/compare');
  const base = fs.mkdtempSync(path.join(os.tmpdir(), 'pb-provenance-'));
  try {
    const runDirs = makeSweep(path.join(base, 'sweep'));
    const a = provenance.build(FACTS);
    const b = provenance.build(FACTS.replace('s1\tcores\t4', 's1\tcores\t8'));
    runDirs.forEach((dir, i) => {
      const file = path.join(dir, 'run.json');
      const run = JSON.parse(fs.readFileSync(file, 'utf8'));
      run.provenance = i === 0 ? b : a;   // the first run (node comet 3) on a 8-core SUT
      fs.writeFileSync(file, JSON.stringify(run));
    });
    const out = path.join(base, 'report');
    const { results } = await writeComparison(out, [path.join(base, 'sweep')]);
    const fig = Object.entries(results).find(([, r]) => r.runs.some((x) => x.dir === runDirs[0]) && r.runs.length > 1);
    assert.ok(fig, 'a figure draws the first run with others');
    const [id, result] = fig;
    assert.match(result.provenanceWarning, /sut host 1 cores: (4 \/ 8|8 \/ 4)/);
    const html = fs.readFileSync(path.join(out, `${id}.html`), 'utf8');
    assert.match(html, /<p class="provenance-note bad">Warning: The runs drawn here differ in sut host 1 cores/);
    const names = result.panels.flatMap((p) => p.lines.map((l) => l.name));
    assert.ok(names.some((n) => / on SUT 8 cores 8 GB Xeon/.test(n)), names.join(' | '));
    assert.ok(names.some((n) => / on SUT 4 cores 8 GB Xeon/.test(n)), names.join(' | '));
    assert.match(fs.readFileSync(path.join(out, 'index.html'), 'utf8'), /runs differ<\/span>/);
    // Same provenance everywhere: no warning, no split.
    for (const dir of runDirs) {
      const run = JSON.parse(fs.readFileSync(path.join(dir, 'run.json'), 'utf8'));
      run.provenance = a;
      fs.writeFileSync(path.join(dir, 'run.json'), JSON.stringify(run));
    }
    const again = await writeComparison(path.join(base, 'report2'), [path.join(base, 'sweep')]);
    assert.equal(again.results[id].provenanceWarning, '');
    assert.ok(again.results[id].panels.flatMap((p) => p.lines).every((l) => !/ on SUT/.test(l.name)));
  } finally {
    fs.rmSync(base, { recursive: true, force: true });
  }
});
