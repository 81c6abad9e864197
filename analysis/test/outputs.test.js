'use strict';
// The analysis' outputs written whole (issue #36 item 5, analysis/outputs.js): a write that fails part-way
// (a file size limit, as a full disk fails a write) leaves no half file and no data/summary.json; a run whose
// outputs are missing, empty, cut or unparsable is told apart from a whole one and analysed again, except
// when its raw archives are gone. Real files in a scratch copy of the fixture run; the writer is made to
// fail by the kernel, not by a stand-in.
process.env.TZ = 'UTC';   // pidstat times are local clock times; the fixture was captured in UTC
const test = require('node:test');
const assert = require('node:assert/strict');
const fs = require('node:fs');
const path = require('node:path');
const { spawnSync } = require('node:child_process');
const { analyzeAndWrite } = require('../run-analysis');
const { outputsProblem, reanalysisBlocked, analyzeUnlessWhole, RAW_REMOVED } = require('../outputs');
const { copyRun, scratchDir } = require('./helpers');

const ANALYZE = path.join(__dirname, '..', 'analyze.js');

let analysed;   // a copy of the fixture run, analysed once: copied again for each case
test.before(async () => {
  analysed = copyRun(path.join(scratchDir(), 'analysed'));
  await analyzeAndWrite(analysed);
});
const freshCopy = () => {
  const dest = path.join(scratchDir(), 'run');
  fs.cpSync(analysed, dest, { recursive: true });
  return dest;
};
const jsonFiles = (run) => ['data', 'charts'].flatMap((d) => fs.readdirSync(path.join(run, d)).map((f) => path.join(d, f)));

test('a whole analysis: every output parses, summary.json lists the charts written, no temporary file is left', () => {
  assert.equal(outputsProblem(analysed), null);
  const files = jsonFiles(analysed);
  assert.ok(files.length >= 15, files.join(' '));
  for (const f of files) assert.match(f, /\.json$/, `${f}: a temporary file left behind`);
  const summary = JSON.parse(fs.readFileSync(path.join(analysed, 'data', 'summary.json'), 'utf8'));
  assert.deepEqual(summary.charts.written.map((id) => path.join('charts', `${id}.json`)).sort(),
    files.filter((f) => f.startsWith('charts')).sort());
  const mtime = (f) => fs.statSync(path.join(analysed, f)).mtimeMs;
  for (const f of files) assert.ok(mtime(f) <= mtime('data/summary.json'), `${f} written after summary.json`);
});

test('a write that fails part-way (file size limit, EFBIG): no half file, no summary.json, one line on stderr, exit 1', () => {
  const run = freshCopy();
  // summary.json (~6 KB) is the one output above 2 KB: every other file is written, then it fails
  const r = spawnSync('bash', ['-c', 'ulimit -f 2; exec "$0" "$1" "$2"', process.execPath, ANALYZE, run], { encoding: 'utf8' });
  assert.equal(r.status, 1, r.stdout + r.stderr);
  assert.match(r.stderr, /^analyze: cannot write \S+summary\.json \(EFBIG\); no data\/summary\.json written: the run reads as not analysed/);
  assert.equal(r.stderr.trim().split('\n').length, 1, r.stderr);
  assert.equal(fs.existsSync(path.join(run, 'data', 'summary.json')), false, 'the old summary.json outlived a new analysis that failed');
  for (const f of jsonFiles(run)) {
    assert.match(f, /\.json$/, `${f}: a temporary file left behind`);
    assert.doesNotThrow(() => JSON.parse(fs.readFileSync(path.join(run, f), 'utf8')), `${f} is not whole`);
  }
  assert.equal(outputsProblem(run), 'data/summary.json is missing');
});

test('what is not whole, named without the bytes: a 0-byte chart, a cut data set, an unparsable summary, a chart missing', () => {
  const cases = [
    ['charts/cpu.json', (f) => fs.writeFileSync(f, ''), 'charts/cpu.json is empty (0 bytes)'],
    ['data/series.json', (f) => fs.truncateSync(f, 100), 'data/series.json is not whole JSON (100 bytes, cut or damaged)'],
    ['data/summary.json', (f) => fs.writeFileSync(f, 'secret\u0000bytes'), 'data/summary.json is not whole JSON (12 bytes, cut or damaged)'],
    ['data/summary.json', (f) => fs.writeFileSync(f, '[1]\n'), 'data/summary.json holds no JSON object'],
    ['charts/trip-time.json', (f) => fs.rmSync(f), 'charts/trip-time.json is missing (summary.json lists it)'],
  ];
  for (const [file, damage, problem] of cases) {
    const run = freshCopy();
    damage(path.join(run, file));
    assert.equal(outputsProblem(run), problem);
  }
  const run = freshCopy();
  fs.rmSync(path.join(run, 'data', 'engines.json'));
  assert.equal(outputsProblem(run), null, 'a data set no reader asked for');
  assert.equal(outputsProblem(run, { data: ['engines.json'] }), 'data/engines.json is missing');
});

test('a whole summary.json beside a 0-byte chart is analysed again; the run is whole after', async () => {
  const run = freshCopy();
  fs.writeFileSync(path.join(run, 'charts', 'cpu.json'), '');
  const r = await analyzeUnlessWhole(run, { analyse: analyzeAndWrite });
  assert.deepEqual(r, { reanalysed: true, was: 'charts/cpu.json is empty (0 bytes)', problem: null });
  assert.ok(fs.statSync(path.join(run, 'charts', 'cpu.json')).size > 100);
  assert.deepEqual(await analyzeUnlessWhole(run, { analyse: () => assert.fail('analysed a whole run') }),
    { reanalysed: false, was: null, problem: null });
});

test('not analysed again where that would lose what is whole: raw archives deleted, or nothing raw but run.json', async () => {
  const run = freshCopy();
  fs.writeFileSync(path.join(run, RAW_REMOVED), 'deleted by sweep.sh --cleanup-raw\n');
  fs.writeFileSync(path.join(run, 'charts', 'cpu.json'), '{"elements":[');
  const before = fs.readFileSync(path.join(run, 'data', 'summary.json'));
  const r = await analyzeUnlessWhole(run, { analyse: () => assert.fail('analysed over deleted archives') });
  assert.equal(r.reanalysed, false);
  assert.equal(r.problem, 'charts/cpu.json is not whole JSON (13 bytes, cut or damaged); not analysed again: '
    + 'its raw response archives were deleted (responses/REMOVED.txt)');
  assert.deepEqual(fs.readFileSync(path.join(run, 'data', 'summary.json')), before);
  // with summary.json not whole there is nothing whole to lose: analysed again, over what is left
  fs.writeFileSync(path.join(run, 'data', 'summary.json'), '');
  assert.equal(reanalysisBlocked(run), null);

  // a run directory holding only run.json and its outputs (the study's committed runs)
  const kept = path.join(scratchDir(), 'kept');
  fs.mkdirSync(path.join(kept, 'data'), { recursive: true });
  for (const f of ['run.json', 'data/summary.json', 'data/series.json']) fs.copyFileSync(path.join(analysed, f), path.join(kept, f));
  assert.match(outputsProblem(kept), /^charts\/\S+ is missing \(summary\.json lists it\)$/);
  assert.equal(reanalysisBlocked(kept), 'no raw measurements in the run directory (only run.json and the outputs)');
  assert.equal(reanalysisBlocked(scratchDir()), 'nothing to analyse (no run.json, sut/, jmeter/ or responses/ files)');
});

test('a killed writer\'s temporary files are removed by the next analysis', async () => {
  const run = freshCopy();
  fs.writeFileSync(path.join(run, 'charts', 'cpu.json.tmp-99999'), '{"half');
  fs.writeFileSync(path.join(run, 'data', 'series.json.tmp-99999'), '{"half');
  await analyzeAndWrite(run);
  assert.deepEqual(jsonFiles(run).filter((f) => /\.tmp-/.test(f)), []);
  assert.equal(outputsProblem(run), null);
});
