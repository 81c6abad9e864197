'use strict';
const test = require('node:test');
const assert = require('node:assert/strict');
const fs = require('node:fs');
const path = require('node:path');
const { readResultsCsv } = require('../read/jmeter-csv');
const { RUN, CAPTURED, scratchDir, readJson } = require('./helpers');

test('results.csv is read by header names, JMeter\'s Filename column as responseFile', async () => {
  const rows = [];
  const r = await readResultsCsv(path.join(RUN, 'jmeter', 'results.csv'), (s) => rows.push(s));
  const captured = readJson(path.join(CAPTURED, 'samples.json')).samples;
  assert.equal(r.rows, captured.length);
  assert.equal(r.badRows, 0);
  rows.forEach((s, i) => {
    assert.equal(s.timeStamp, captured[i].timeStamp);
    assert.equal(s.elapsed, captured[i].elapsed);
    assert.equal(s.label, captured[i].label);
    assert.equal(path.basename(s.responseFile), captured[i].file);
  });
  assert.ok(rows.some((s) => !s.success && /timeout/.test(s.failureMessage)));
});

test('column order does not matter, unknown columns are ignored, short rows are counted', async () => {
  const file = path.join(scratchDir(), 'results.csv');
  fs.writeFileSync(file, [
    'label,extra,elapsed,timeStamp,success,responseFile,threadName',
    'request,x,12,1000,true,/tmp/r/request_1.json,"127.0.0.1-Group 1-1"',
    'request,x,notanumber,1001,false,/tmp/r/request_2.json,t',
    'request,"quoted, with comma",7,1002,false,/tmp/r/request_3.json,t',
  ].join('\n') + '\n');
  const rows = [];
  const r = await readResultsCsv(file, (s) => rows.push(s));
  assert.equal(r.rows, 2);
  assert.equal(r.badRows, 1);
  assert.deepEqual(rows.map((s) => [s.timeStamp, s.elapsed, s.success, s.responseFile]),
    [[1000, 12, true, '/tmp/r/request_1.json'], [1002, 7, false, '/tmp/r/request_3.json']]);
});
