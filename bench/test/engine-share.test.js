'use strict';
// bench/engine-share.js: a run's line (its parameters, CPU per answer of engine and server, the ratio) on a run
// directory written here, and the table on lines of real pinned runs (fixtures/engine-share-runs.jsonl).
const test = require('node:test');
const assert = require('node:assert/strict');
const fs = require('node:fs');
const os = require('node:os');
const path = require('node:path');
const { execFileSync, spawnSync } = require('node:child_process');
const { shareLine, table } = require('../engine-share');

const FIXTURE = path.join(__dirname, 'fixtures', 'engine-share-runs.jsonl');

function writeRun(dir, { server, type, connections, engine, serverCpu, perSecond, provenance = null }) {
  const t0 = 1_795_840_000_000;
  fs.mkdirSync(path.join(dir, 'data'), { recursive: true });
  fs.mkdirSync(path.join(dir, 'engines', 'local'), { recursive: true });
  fs.writeFileSync(path.join(dir, 'data', 'summary.json'), JSON.stringify({
    id: path.basename(dir), startedAt: t0, durationSeconds: 60, parameters: { server, type, connections },
    validity: { verdict: 'valid', reasons: [] },
    workload: { answers: { achievedPerSecond: perSecond }, engines: [{ jvmCpuMean: engine }], server: { cpuMean: serverCpu } },
  }));
  fs.writeFileSync(path.join(dir, 'engines', 'local', 'gc.log'), `[${t0}ms][3ms] Using The Z Garbage Collector\n`);
  if (provenance) fs.writeFileSync(path.join(dir, 'run.json'), JSON.stringify({ id: path.basename(dir), provenance }));
}

// run.json's provenance as run.sh writes it (a pinned run on this machine).
const PROVENANCE = {
  pushbench: { commit: 'e98bdd9399d01ea619ab12e31187cdfae6858379', dirty: false },
  hosts: [{ name: 'local', role: 'sut,engine', cores: 2, cpuModel: 'Intel(R) Xeon(R) Processor' }],
  settings: { PB_ENGINE_CPUS: '0', PB_SERVER_CPUS: '1' },
};

test('a run: µs per answer of engine and server from % of a core and answers a second; the ratio', () => {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'pb-engine-share-'));
  try {
    writeRun(path.join(dir, 'r1'), { server: 'tc7', type: 'sse', connections: 5000, engine: 5, serverCpu: 20, perSecond: 5000, provenance: PROVENANCE });
    const l = shareLine(path.join(dir, 'r1'));
    assert.equal(l.server, 'tc7');
    assert.equal(l.type, 'sse');
    assert.equal(l.connections, 5000);
    assert.equal(l.engineMicrosPerAnswer, 10);   // 5% of a core = 50,000 µs a second over 5,000 answers
    assert.equal(l.serverMicrosPerAnswer, 40);
    assert.equal(l.engineOverServer, 0.25);
    assert.equal(l.verdict, 'valid');
    assert.deepEqual(l.pinning, { server: '1', engine: '0' });
    assert.equal(l.commit, 'e98bdd9');
    assert.equal(l.dirty, false);
    assert.equal(l.cpuModel, 'Intel(R) Xeon(R) Processor, 2 CPUs');
  } finally {
    fs.rmSync(dir, { recursive: true, force: true });
  }
});

test('the command: a run without its summary is skipped and named, the others printed, exit 1', () => {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'pb-engine-share-'));
  try {
    writeRun(path.join(dir, 'done'), { server: 'node', type: 'comet', connections: 5000, engine: 5, serverCpu: 5, perSecond: 5000 });
    fs.mkdirSync(path.join(dir, 'running', 'data'), { recursive: true });
    const r = spawnSync(process.execPath, [path.join(__dirname, '..', 'engine-share.js'), path.join(dir, 'done'), path.join(dir, 'running')], { encoding: 'utf8' });
    assert.equal(r.status, 1);
    assert.equal(r.stdout.trim().split('\n').length, 1);
    const done = JSON.parse(r.stdout);   // no run.json: its conditions unknown, not guessed
    assert.deepEqual([done.pinning, done.commit, done.cpuModel], [{ server: null, engine: null }, null, null]);
    assert.match(r.stderr, /skipped .*running: no data\/summary\.json/);
  } finally {
    fs.rmSync(dir, { recursive: true, force: true });
  }
});

test('the table: a row per server and transport in a fixed order, a column per level, "not run" where none', () => {
  const lines = fs.readFileSync(FIXTURE, 'utf8').split('\n').filter(Boolean).map((l) => JSON.parse(l));
  const t = table(lines).split('\n');
  assert.match(t[0], /^\| server \| transport \| 5,000 connections \|/);
  const rows = t.slice(2).map((r) => r.split('|').slice(1, 3).map((c) => c.trim()).join(' '));
  assert.deepEqual(rows.slice(0, 2), ['node comet', 'node poll']);
  const comet = t.find((r) => r.startsWith('| node | comet |'));
  const line = lines.find((l) => l.server === 'node' && l.type === 'comet' && l.connections === 5000);
  assert.ok(comet.includes(`${line.engineOverServer} (${line.engineMicrosPerAnswer} / ${line.serverMicrosPerAnswer} µs) ${line.verdict}`));
  assert.equal(execFileSync(process.execPath, [path.join(__dirname, '..', 'engine-share.js'), '--table', FIXTURE], { encoding: 'utf8' }).trim(), table(lines));
  // a cell run twice holds both runs, in the order of the lines
  const again = { ...line, engineOverServer: 0.42, engineMicrosPerAnswer: 4.2, serverMicrosPerAnswer: 10, verdict: 'disturbed' };
  const twice = table([...lines, again]).split('\n').find((r) => r.startsWith('| node | comet |'));
  assert.ok(twice.includes(`${line.engineOverServer} (${line.engineMicrosPerAnswer} / ${line.serverMicrosPerAnswer} µs) ${line.verdict}; 0.42 (4.2 / 10 µs) disturbed`), twice);
});

test('the runner (bench/engine-share.sh): a cell --out holds is not run again, one run.sh refuses is named and skipped', () => {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'pb-engine-share-'));
  try {
    const out = path.join(dir, 'lines.jsonl');
    const held = fs.readFileSync(FIXTURE, 'utf8').split('\n').filter(Boolean).map((l) => JSON.parse(l))
      .find((l) => l.server === 'node' && l.type === 'comet' && l.connections === 5000);
    held.server = 'tc6';   // a Tomcat 6 comet line, so that the refused tc6 ws is the only other cell
    fs.writeFileSync(out, `${JSON.stringify(held)}\n`);
    // Unset, not empty (test.sh exports lib/config.sh's empty defaults, and empty means unpinned).
    const env = { ...process.env };
    delete env.PB_SERVER_CPUS;
    delete env.PB_ENGINE_CPUS;
    const runner = (types, runnerEnv) => spawnSync('bash', [path.join(__dirname, '..', 'engine-share.sh'), '--out', out, '--servers', 'tc6',
      '--types', types, '--levels', '5000', '--results', path.join(dir, 'runs')], { encoding: 'utf8', env: runnerEnv });
    const r = runner('comet,ws', env);
    assert.equal(r.status, 0, r.stderr);
    assert.match(r.stdout, /\[1\/2\] tc6 comet 5000: in .*lines\.jsonl already/);
    assert.match(r.stdout, /\[2\/2\] tc6 ws 5000: refused by run\.sh \(exit 2\): run\.sh: tc6 does not speak WebSocket/);
    assert.match(r.stdout, /server CPUs '1', engine CPUs '0'/);   // pinned as the study pins, unless told
    assert.ok(r.stdout.includes(table([held])), 'the table of --out at the end');
    assert.equal(fs.readFileSync(out, 'utf8'), `${JSON.stringify(held)}\n`);   // nothing added, nothing lost
    const unpinned = runner('comet', { ...env, PB_SERVER_CPUS: '', PB_ENGINE_CPUS: '' });
    assert.match(unpinned.stdout, /server CPUs '', engine CPUs ''/);   // set empty: unpinned
  } finally {
    fs.rmSync(dir, { recursive: true, force: true });
  }
});

test('the runner: --out is required, an unknown transport or option is a usage error (exit 2)', () => {
  const sh = path.join(__dirname, '..', 'engine-share.sh');
  for (const args of [[], ['--out', '/tmp/x.jsonl', '--types', 'comet,mqtt'], ['--out', '/tmp/x.jsonl', '--bogus', '1']]) {
    const r = spawnSync('bash', [sh, ...args], { encoding: 'utf8' });
    assert.equal(r.status, 2, `${args.join(' ')}: ${r.stderr}`);
    assert.match(r.stderr, /engine-share|usage/);
  }
});
