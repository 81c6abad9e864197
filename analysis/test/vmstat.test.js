'use strict';
const test = require('node:test');
const assert = require('node:assert/strict');
const fs = require('node:fs');
const path = require('node:path');
const { parseVmstatText, parseVmstatFile, cpuPercent, memoryPercent } = require('../read/vmstat');
const { parseMeminfo, readMemTotalMB } = require('../read/meminfo');
const { CAPTURED, RUN } = require('./helpers');

const realText = fs.readFileSync(path.join(CAPTURED, 'vmstat.log'), 'utf8');
const dataLines = realText.trim().split('\n').slice(2);   // after the two header lines

test('CPU % is 100 minus idle; memory % is active over the real MemTotal', () => {
  assert.equal(cpuPercent(74), 26);
  assert.equal(cpuPercent(0), 100);
  const memTotalMB = readMemTotalMB(path.join(CAPTURED, 'meminfo.txt'));
  const kB = Number(/MemTotal:\s+(\d+)/.exec(fs.readFileSync(path.join(CAPTURED, 'meminfo.txt'), 'utf8'))[1]);
  assert.equal(memTotalMB, kB / 1024);
  assert.notEqual(memTotalMB, 4096);
  assert.equal(memoryPercent(531, memTotalMB), (531 / (kB / 1024)) * 100);
  assert.equal(memoryPercent(1024, 4096), 25);
});

test('meminfo without MemTotal gives null', () => {
  assert.equal(parseMeminfo('MemFree: 10 kB\n'), null);
  assert.equal(parseMeminfo('MemTotal:        4194304 kB\n'), 4096);
});

test('real vmstat output: since-boot line dropped, one sample per further line', () => {
  const r = parseVmstatText(realText);
  assert.equal(r.samples.length, dataLines.length - 1);
  assert.equal(r.skipped, 0);
  dataLines.slice(1).forEach((line, i) => {
    const f = line.trim().split(/\s+/).map(Number);
    assert.equal(r.samples[i].active, f[5]);
    assert.equal(r.samples[i].cpu, 100 - f[14]);
  });
});

test('repeated headers are skipped, a line cut mid-way is skipped and counted', async () => {
  const r = await parseVmstatFile(path.join(RUN, 'sut', 'vmstat.log'));
  assert.equal(r.headers, 2);
  assert.equal(r.samples.length, dataLines.length - 1);
  assert.equal(r.skipped, 1);
});

test('odd lines are skipped and counted; extra columns (vmstat -t) are ignored', () => {
  const text = [
    'procs -----------memory---------- ---swap-- -----io---- -system-- ------cpu----- -----timestamp-----',
    ' r  b   swpd   free  inact active   si   so    bi    bo   in   cs us sy id wa st                 UTC',
    ' 1  0      0  16210   7076    531    0    0   873  1497  406  763 23  3 74  0  0 2026-11-22 00:31:00',
    ' 1  0      0  16210   7076    600    0    0     0     8 3639 1617 93  7  1  0  0 2026-11-22 00:31:01',
    'vmstat: something odd',
    ' 1  0      0  16210   7076    abc    0    0     0     8 3639 1617 93  7  1  0  0 2026-11-22 00:31:02',
    ' 1  0      0  16210   7076    610    0    0     0     8 3639 1617 93  7 140  0  0 2026-11-22 00:31:03',
  ].join('\n');
  const r = parseVmstatText(text);
  assert.deepEqual(r.samples.map((s) => [s.active, s.cpu]), [[600, 99]]);
  assert.equal(r.skipped, 3);
});

test('steal (st) is read by its header position, null when vmstat prints no st column', () => {
  const withSt = parseVmstatText([
    ' r  b   swpd   free  inact active   si   so    bi    bo   in   cs us sy id wa st',
    ' 1  0      0  16210   7076    531    0    0   873  1497  406  763 23  3 74  0  0',
    ' 3  0      0  16079   4479   1727    0    0     0     4  715  973 64  5  3  0 28',
  ].join('\n'));
  assert.deepEqual(withSt.samples.map((s) => [s.cpu, s.steal]), [[97, 28]]);
  const noSt = parseVmstatText([
    ' r  b   swpd   free  inact active   si   so    bi    bo   in   cs us sy id wa',
    ' 1  0      0  16210   7076    531    0    0   873  1497  406  763 23  3 74  0',
    ' 1  0      0  16210   7076    600    0    0     0     8 3639 1617 93  7  0  0',
  ].join('\n'));
  assert.deepEqual(noSt.samples.map((s) => [s.cpu, s.steal]), [[100, null]]);
});
