'use strict';
// Damaged and missing inputs end up counted in the summary; the analyzer never crashes on them.
const test = require('node:test');
const assert = require('node:assert/strict');
const fs = require('node:fs');
const path = require('node:path');
const { execFileSync, spawnSync } = require('node:child_process');
const { copyRun, scratchDir, readJson, REAL_RUN } = require('./helpers');
const { analyzeRun } = require('../run-analysis');

const ANALYZE = path.join(__dirname, '..', 'analyze.js');

test('corrupt archive, half JSON body, cut vmstat line and missing files are reported', () => {
  const run = copyRun();
  fs.writeFileSync(path.join(run, 'responses', 'gen3.tar.gz'), Buffer.from('1f8b0800000000000003ffffff', 'hex'));
  fs.writeFileSync(path.join(run, 'responses', 'gen4.tar.gz'), 'not an archive at all');
  fs.rmSync(path.join(run, 'sut', 'pidstat.log'));
  fs.rmSync(path.join(run, 'sut', 'meminfo.txt'));
  fs.appendFileSync(path.join(run, 'sut', 'vmstat.log'), ' 1  0      0  16210\n');
  const out = execFileSync(process.execPath, [ANALYZE, run], { encoding: 'utf8' });
  assert.match(out, /missing inputs: sut\/pidstat.log, sut\/memory.log, sut\/meminfo.txt/);
  const s = readJson(path.join(run, 'data', 'summary.json'));
  assert.deepEqual(s.flags.missingInputs, ['sut/pidstat.log', 'sut/memory.log', 'sut/meminfo.txt']);
  assert.deepEqual(s.flags.archivesUnreadable.sort(), ['gen3.tar.gz', 'gen4.tar.gz']);
  assert.deepEqual(s.flags.archivesTruncated, ['gen2.tar.gz']);
  assert.equal(s.flags.linesSkippedBy.vmstat, 2);
  assert.equal(s.flags.linesSkippedBy.halfWrittenLines, 2);
  assert.ok(s.notes.some((n) => /memory %/.test(n)));
  assert.ok(readJson(path.join(run, 'data', 'series.json')).series.memory.every((v) => v === null));
  assert.ok(s.totals.responsesSent > 0);   // the good archive was still read
});

test('a run with nothing but run.json still analyses, everything listed missing', () => {
  const dir = path.join(scratchDir(), 'bare');
  fs.mkdirSync(dir);
  fs.writeFileSync(path.join(dir, 'run.json'), JSON.stringify({ id: 'bare', server: 'tc7', type: 'poll', threads: 10, rampup: 0, duration: 4,
    status: 'incomplete', serverCrashed: true, notes: ['jmeter failed'], startedAt: 1000, finishedAt: 5000 }));
  const r = spawnSync(process.execPath, [ANALYZE, dir], { encoding: 'utf8' });
  assert.equal(r.status, 0, r.stderr);
  const s = readJson(path.join(dir, 'data', 'summary.json'));
  assert.equal(s.flags.serverCrashed, true);
  assert.equal(s.flags.incomplete, true);
  assert.deepEqual(s.flags.missingInputs, ['sut/vmstat.log', 'sut/pidstat.log', 'sut/memory.log', 'sut/meminfo.txt', 'jmeter/results.csv', 'responses/*.tar.gz']);
  assert.equal(s.durationSeconds, 4);
});

test('run.json that is not JSON is a problem in the summary, not a crash', () => {
  const run = copyRun();
  fs.writeFileSync(path.join(run, 'run.json'), '{"id": "half');
  const r = spawnSync(process.execPath, [ANALYZE, run], { encoding: 'utf8' });
  assert.equal(r.status, 0, r.stderr);
  const s = readJson(path.join(run, 'data', 'summary.json'));
  assert.ok(s.flags.problems.some((p) => /run.json unreadable/.test(p)));
  assert.equal(s.flags.incomplete, true);
});

test('a run.json the run schema refuses (a field missing or unknown) is a problem naming the field, not a crash', () => {
  const run = copyRun();
  const json = readJson(path.join(run, 'run.json'));
  delete json.duration;
  fs.writeFileSync(path.join(run, 'run.json'), JSON.stringify({ ...json, colour: 'red' }));
  const r = spawnSync(process.execPath, [ANALYZE, run], { encoding: 'utf8' });
  assert.equal(r.status, 0, r.stderr);
  const s = readJson(path.join(run, 'data', 'summary.json'));
  assert.ok(s.flags.problems.some((p) => /run.json refused: run.json: unknown field "colour"/.test(p)), s.flags.problems.join('; '));
  delete json.threads;
  fs.writeFileSync(path.join(run, 'run.json'), JSON.stringify({ ...json, duration: 4 }));
  spawnSync(process.execPath, [ANALYZE, run], { encoding: 'utf8' });
  assert.ok(readJson(path.join(run, 'data', 'summary.json')).flags.problems.some((p) => /required field "connections" \(old name "threads"\) is missing/.test(p)));
});

test('exit 1 for a directory that is no run, 2 for bad usage', () => {
  const empty = scratchDir();
  assert.equal(spawnSync(process.execPath, [ANALYZE, empty]).status, 1);
  assert.equal(spawnSync(process.execPath, [ANALYZE, path.join(empty, 'nope')]).status, 1);
  assert.equal(spawnSync(process.execPath, [ANALYZE]).status, 2);
});

test('memory: memory.log lines that do not fit are skipped and counted; without it a frozen vmstat gives no memory', async () => {
  const run = copyRun(undefined, REAL_RUN);
  const log = path.join(run, 'sut', 'memory.log');
  const good = fs.readFileSync(log, 'utf8').trim().split('\n');
  fs.writeFileSync(log, [...good.slice(0, 5), '17953 cut', good[5].replace(/ \d+$/, ' x'), ...good.slice(6), good.at(-1).slice(0, 20)].join('\n'));
  const withLog = (await analyzeRun(run)).summary;
  assert.equal(withLog.memorySource, 'memory.log');
  assert.equal(withLog.flags.linesSkippedBy.memoryLog, 3);
  // the same run without memory.log: this machine's vmstat (procps-ng 4.0.2) repeated its first memory line
  fs.rmSync(log);
  const without = await analyzeRun(run);
  assert.equal(without.summary.memorySource, null);
  assert.ok(without.summary.notes.some((n) => /vmstat's memory columns never changed over \d+ samples/.test(n)), without.summary.notes.join('; '));
  assert.ok(without.datasets.series.memory.every((v) => v === null));
});

test('memory: a run without memory.log whose vmstat memory moves falls back on vmstat\'s active column', async () => {
  const run = copyRun(undefined, REAL_RUN);
  fs.rmSync(path.join(run, 'sut', 'memory.log'));
  // vmstat -SM -a as an older procps prints it: active changes line by line
  const vm = path.join(run, 'sut', 'vmstat.log');
  let n = 0;
  const lines = fs.readFileSync(vm, 'utf8').split('\n').map((l) => {
    const f = l.trim().split(/\s+/);
    if (!/^\d/.test(f[0] ?? '')) return l;
    f[5] = String(500 + 10 * n++);
    return ` ${f.join(' ')}`;
  });
  fs.writeFileSync(vm, lines.join('\n'));
  const r = await analyzeRun(run);
  assert.equal(r.summary.memorySource, 'vmstat');
  const memTotalMB = r.summary.memTotalMB;
  assert.equal(r.datasets.series.memory[0], Math.round((510 / memTotalMB) * 10000) / 100);   // line 1 is since boot
  assert.equal(r.datasets.series.memory[1], Math.round((520 / memTotalMB) * 10000) / 100);
  fs.rmSync(path.join(run, 'sut', 'meminfo.txt'));
  const noTotal = await analyzeRun(run);
  assert.equal(noTotal.summary.memorySource, null);
  assert.ok(noTotal.summary.notes.includes('memory % not computed: no MemTotal (sut/meminfo.txt)'));
});

test('engine monitors that are damaged or missing lower the verdict\'s confidence, never the analysis', async () => {
  const run = copyRun(undefined, REAL_RUN);
  const dir = path.join(run, 'engines', 'local');
  fs.mkdirSync(dir, { recursive: true });
  fs.writeFileSync(path.join(dir, 'vmstat.log'), 'procs ---\n r b swpd\n 1 2 x y\n');                // no usable line
  fs.writeFileSync(path.join(dir, 'gc.log'), '[1795442935309ms][3599ms] GC(0) Pause Young 119M->14M(588M\n\u0000\u0001');
  fs.writeFileSync(path.join(dir, 'started-at.txt'), 'not a time\n');
  const { summary } = await analyzeRun(run);
  const v = summary.validity;
  assert.equal(v.confidence, 'reduced');
  assert.ok(v.unknowns.some((u) => /engine local: vmstat start unknown/.test(u)), v.unknowns.join('; '));
  assert.ok(v.unknowns.some((u) => /engine local: JMeter JVM CPU unknown \(no engines\/local\/pidstat\.log\)/.test(u)));
  assert.equal(summary.workload.engines[0].gcPauseShare, 0);   // the cut pause line was skipped, not read
  assert.ok(['valid', 'server-limited', 'generator-bound', 'disturbed'].includes(v.verdict));
});
