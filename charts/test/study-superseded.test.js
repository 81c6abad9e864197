'use strict';
// charts/study-superseded.js: the runs of the sweeps docs/study/data/superseded.json names are left out of
// the page with the reason given; every other run is kept; a bad list or an unknown sweep is an error.
const { test } = require('node:test');
const assert = require('node:assert/strict');
const fs = require('node:fs');
const os = require('node:os');
const path = require('node:path');
const { leaveOutSuperseded } = require('../study-superseded');

const HEAD = '# pushbench sweep state: key\tstatus\trun dir\treason\tlane\tstarted\tfinished\n';

function dataDir(sweeps, superseded) {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'pb-superseded-'));
  for (const [name, ids] of Object.entries(sweeps)) {
    fs.mkdirSync(path.join(dir, 'sweeps', name), { recursive: true });
    const rows = ids.map((id, i) => `./run.sh node 10 40 1000 comet #${i + 1}\tdone\truns/${id}\t\tdefault\t\t\n`);
    fs.writeFileSync(path.join(dir, 'sweeps', name, 'state.tsv'), HEAD + rows.join(''));
  }
  if (superseded !== undefined) fs.writeFileSync(path.join(dir, 'superseded.json'), JSON.stringify(superseded));
  return dir;
}

const run = (id) => ({ summary: { id } });

test('runs of a superseded sweep are left out with its reason; the rest are kept in order', (t) => {
  const dir = dataDir({ old: ['a-40', 'b-40'], new: ['a-70', 'b-70'] }, { old: '40 s passes, superseded by 70 s' });
  t.after(() => fs.rmSync(dir, { recursive: true, force: true }));
  const { kept, leftOut, sweeps } = leaveOutSuperseded(['a-40', 'a-70', 'b-40', 'b-70', 'c-small'].map(run), dir);
  assert.deepEqual(kept.map((r) => r.summary.id), ['a-70', 'b-70', 'c-small']);
  assert.deepEqual(leftOut, [
    { id: 'a-40', sweep: 'old', why: '40 s passes, superseded by 70 s' },
    { id: 'b-40', sweep: 'old', why: '40 s passes, superseded by 70 s' },
  ]);
  assert.deepEqual(sweeps, { old: '40 s passes, superseded by 70 s' });
});

test('no list: every run is kept', (t) => {
  const dir = dataDir({ old: ['a-40'] });
  t.after(() => fs.rmSync(dir, { recursive: true, force: true }));
  const { kept, leftOut } = leaveOutSuperseded([run('a-40')], dir);
  assert.equal(kept.length, 1);
  assert.deepEqual(leftOut, []);
});

test('a list that names no known sweep, or gives no reason, is refused with the file named', (t) => {
  const unknown = dataDir({ old: ['a-40'] }, { gone: 'why' });
  const noWhy = dataDir({ old: ['a-40'] }, { old: '' });
  const notObject = dataDir({ old: ['a-40'] }, ['old']);
  t.after(() => { for (const d of [unknown, noWhy, notObject]) fs.rmSync(d, { recursive: true, force: true }); });
  assert.throws(() => leaveOutSuperseded([run('a-40')], unknown), /superseded\.json: no sweep gone in /);
  assert.throws(() => leaveOutSuperseded([run('a-40')], noWhy), /superseded\.json: want \{"<sweep>": "<why>"\}/);
  assert.throws(() => leaveOutSuperseded([run('a-40')], notObject), /superseded\.json: want/);
});
