'use strict';
// The sweep does not take a run with a summary.json as analysed (issue #36 item 5): a finished run whose
// analysis' outputs are not whole is analysed again (sweep/reanalyse.js, node analysis/analyze.js) and
// --cleanup-raw deletes nothing until they are whole (sweep/cleanup-raw.js); once its archives are gone,
// it is never analysed again over them. A scratch copy of the analysis fixture run; no run is started.
process.env.TZ = 'UTC';   // the fixture's pidstat times are UTC clock times (analysis/test/helpers.js)
const test = require('node:test');
const assert = require('node:assert/strict');
const fs = require('node:fs');
const path = require('node:path');
const { analyzeAndWrite } = require('../../analysis/run-analysis');
const { copyRun, scratchDir } = require('../../analysis/test/helpers');
const { ensureAnalysed, analysedLine } = require('../reanalyse');
const { removeRawArchives } = require('../cleanup-raw');

const archives = (run) => fs.readdirSync(path.join(run, 'responses')).sort();

test('a 0-byte chart: --cleanup-raw deletes nothing, the sweep analyses the run again, then the archives go', async () => {
  const run = copyRun(path.join(scratchDir(), 'runs', 'r1'));
  await analyzeAndWrite(run);
  const before = archives(run);
  fs.writeFileSync(path.join(run, 'charts', 'cpu.json'), '');

  assert.deepEqual(removeRawArchives(run), { freed: 0, kept: [], problem: 'charts/cpu.json is empty (0 bytes)' });
  assert.deepEqual(archives(run), before);

  const a = await ensureAnalysed(run);
  assert.deepEqual([a.reanalysed, a.was, a.problem], [true, 'charts/cpu.json is empty (0 bytes)', null]);
  assert.equal(analysedLine('runs/r1', a), 'runs/r1: analysed again: its outputs were not whole (charts/cpu.json is empty (0 bytes))');
  assert.ok(fs.statSync(path.join(run, 'charts', 'cpu.json')).size > 100);

  const removed = removeRawArchives(run);
  assert.equal(removed.problem, null);
  assert.deepEqual(removed.kept, ['gen2.tar.gz']);   // the fixture's cut archive, flagged by the analysis
  assert.deepEqual(archives(run), ['REMOVED.txt', 'gen2.tar.gz']);

  // its archives gone: a chart cut later is said, and the whole summary.json kept
  const summary = fs.readFileSync(path.join(run, 'data', 'summary.json'));
  fs.truncateSync(path.join(run, 'charts', 'cpu.json'), 10);
  const b = await ensureAnalysed(run);
  assert.equal(b.reanalysed, false);
  assert.equal(analysedLine('runs/r1', b), 'runs/r1: the analysis\' outputs are not whole: charts/cpu.json is not whole JSON '
    + '(10 bytes, cut or damaged); not analysed again: its raw response archives were deleted (responses/REMOVED.txt)');
  assert.deepEqual(fs.readFileSync(path.join(run, 'data', 'summary.json')), summary);
});

test('a whole run: nothing analysed again, nothing said', async () => {
  const run = copyRun(path.join(scratchDir(), 'runs', 'r2'));
  await analyzeAndWrite(run);
  const mtime = fs.statSync(path.join(run, 'data', 'summary.json')).mtimeMs;
  const a = await ensureAnalysed(run);
  assert.equal(analysedLine('runs/r2', a), null);
  assert.equal(fs.statSync(path.join(run, 'data', 'summary.json')).mtimeMs, mtime);
});
