'use strict';
// Fault tests for results.csv (docs/faults.md): a stray quote or a file cut mid-row costs the damaged row
// only; every later row is read, and the damage is counted and flagged in the summary. The input is the
// results.csv of a real run.sh run (fixtures/real-node-comet-100-15) with the damage applied.
const test = require('node:test');
const assert = require('node:assert/strict');
const fs = require('node:fs');
const path = require('node:path');
const { copyRun, scratchDir, readJson, REAL_RUN } = require('./helpers');
const { readResultsCsv, splitRow } = require('../read/jmeter-csv');
const { analyzeAndWrite } = require('../run-analysis');

const REAL_CSV = path.join(REAL_RUN, 'jmeter', 'results.csv');
const realLines = () => fs.readFileSync(REAL_CSV, 'utf8').split('\n').filter(Boolean);

async function read(file) {
  const samples = [];
  const r = await readResultsCsv(file, (s) => samples.push(s));
  return { ...r, samples };
}

// The real file with line k (1 = the header) changed by edit.
function damaged(edit, k) {
  const lines = realLines();
  lines[k - 1] = edit(lines[k - 1]);
  const file = path.join(scratchDir(), 'results.csv');
  fs.writeFileSync(file, `${lines.join('\n')}\n`);
  return { file, lines };
}

// A stray quote at the start of the responseMessage field: the field never closes.
const strayQuote = (line) => line.replace(',OK,', ',"OK,');

test('the undamaged real results.csv reads every row', async () => {
  const r = await read(REAL_CSV);
  assert.equal(r.rows, realLines().length - 1);
  assert.equal(r.badRows, 0);
  assert.equal(r.damage.cutMidRow, false);
});

test('a stray quote costs its own row only: every later row is read, the damage counted', async () => {
  const all = realLines().length - 1;
  const { file } = damaged(strayQuote, 10);
  const r = await read(file);
  assert.equal(r.rows, all - 1, `rows read of ${all}`);
  assert.equal(r.badRows, 1);
  assert.equal(r.damage.unterminatedQuote, 1);
  assert.deepEqual(r.damage.lines, [10]);
  // the last sample of the file is among those read
  const last = realLines().at(-1).split(',');
  assert.equal(r.samples.at(-1).timeStamp, Number(last[0]));
});

test('a stray quote on the last row and one in each of two rows are each the row\'s own loss', async () => {
  const n = realLines().length;
  let { file } = damaged(strayQuote, n);
  let r = await read(file);
  assert.equal(r.rows, n - 2);
  assert.equal(r.damage.unterminatedQuote, 1);
  const lines = realLines();
  lines[4] = strayQuote(lines[4]);
  lines[50] = strayQuote(lines[50]);
  file = path.join(scratchDir(), 'results.csv');
  fs.writeFileSync(file, `${lines.join('\n')}\n`);
  r = await read(file);
  assert.equal(r.rows, n - 3);
  assert.deepEqual(r.damage.lines, [5, 51]);
});

test('a quoted field over two lines (JMeter quotes a message with a line end) is one row', async () => {
  const lines = realLines();
  const f = lines[20].split(',');
  f[lines[0].split(',').indexOf('failureMessage')] = '"first line\nsecond, with a ""quote"""';
  lines[20] = f.join(',');
  const file = path.join(scratchDir(), 'results.csv');
  fs.writeFileSync(file, `${lines.join('\n')}\n`);
  const r = await read(file);
  assert.equal(r.rows, lines.length - 1);
  assert.equal(r.badRows, 0);
  assert.ok(r.samples.some((s) => s.failureMessage === 'first line\nsecond, with a "quote"'));
  assert.deepEqual(splitRow('a,"b""c",d').fields, ['a', 'b"c', 'd']);
});

test('a file cut mid-row: the cut row is counted and flagged, every whole row read', async () => {
  const text = fs.readFileSync(REAL_CSV, 'utf8');
  const lines = realLines();
  const file = path.join(scratchDir(), 'results.csv');
  // cut 10 characters before the end of the last row's responseFile name: the row still has every field
  fs.writeFileSync(file, text.slice(0, text.length - 11));
  const r = await read(file);
  assert.equal(r.rows, lines.length - 2);
  assert.equal(r.damage.cutMidRow, true);
  assert.equal(r.badRows, 1);
  assert.deepEqual(r.damage.lines, [lines.length]);
});

test('the summary flags the damage: problems name it, linesSkipped counts it, the status is not silently complete', async () => {
  const run = copyRun(path.join(scratchDir(), 'run'), REAL_RUN);
  const csv = path.join(run, 'jmeter', 'results.csv');
  const lines = fs.readFileSync(csv, 'utf8').split('\n').filter(Boolean);
  lines[9] = strayQuote(lines[9]);
  fs.writeFileSync(csv, lines.slice(0, -1).join('\n') + '\n' + lines.at(-1).slice(0, 30));
  await analyzeAndWrite(run);
  const s = readJson(path.join(run, 'data', 'summary.json'));
  assert.equal(s.totals.samples, lines.length - 3);
  assert.equal(s.flags.linesSkippedBy.resultsCsv, 2);
  assert.equal(s.flags.resultsCsvDamage.unterminatedQuote, 1);
  assert.equal(s.flags.resultsCsvDamage.cutMidRow, true);
  const problem = s.flags.problems.find((p) => p.startsWith('results.csv:'));
  assert.ok(problem, s.flags.problems.join('; '));
  assert.match(problem, /2 damaged row\(s\).*quote that never closed.*ends mid-row/);
});
