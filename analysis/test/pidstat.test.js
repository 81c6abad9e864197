'use strict';
const test = require('node:test');
const assert = require('node:assert/strict');
const fs = require('node:fs');
const path = require('node:path');
const { parsePidstatText, secondsOfDay, parseBannerDate } = require('../read/pidstat');
const { CAPTURED } = require('./helpers');

const realText = fs.readFileSync(path.join(CAPTURED, 'pidstat.log'), 'utf8');

test('real pidstat -h output: %CPU and RSS of every line, by header name', () => {
  const r = parsePidstatText(realText);
  const lines = realText.split('\n').filter((l) => /^\d/.test(l));
  assert.equal(r.samples.length, lines.length);
  assert.equal(r.skipped, 0);
  const header = realText.split('\n').find((l) => l.startsWith('#')).slice(1).trim().split(/\s+/);
  lines.forEach((l, i) => {
    const f = l.trim().split(/\s+/);
    assert.equal(r.samples[i].cpu, Number(f[header.indexOf('%CPU')]));
    assert.equal(r.samples[i].rssMB, Number(f[header.indexOf('RSS')]) / 1024);
  });
});

test('sample times come from the banner date and the time column, one second apart', () => {
  const r = parsePidstatText(realText);
  for (let i = 1; i < r.samples.length; i++) assert.equal(r.samples[i].epochMs - r.samples[i - 1].epochMs, 1000);
  const d = parseBannerDate(realText.split('\n')[0]);
  const first = realText.split('\n').find((l) => /^\d/.test(l)).split(/\s+/)[0];
  assert.equal(r.samples[0].epochMs, new Date(d.year, d.month - 1, d.day).getTime() + secondsOfDay(first) * 1000);
});

test('12-hour times, ISO dates and cut lines', () => {
  assert.equal(secondsOfDay('12:00:01', 'AM'), 1);
  assert.equal(secondsOfDay('01:00:00', 'PM'), 13 * 3600);
  assert.deepEqual(parseBannerDate('Linux 6.1 (h) 2026-11-22 _x86_64_'), { year: 2026, month: 11, day: 22 });
  const text = [
    'Linux 6.1 (h) \t11/22/26 \t_x86_64_\t(2 CPU)',
    '# Time        UID       PID    %usr %system  %guest   %wait    %CPU   CPU  minflt/s  majflt/s     VSZ     RSS   %MEM  Command',
    '01:02:03 PM     0     19488    2.00    0.00    0.00    7.00    2.00     1    248.00      0.00  861100   46352   0.19  node',
    '01:02:04 PM     0     19488    2.00    0.00',
  ].join('\n');
  const r = parsePidstatText(text);
  assert.equal(r.samples.length, 1);
  assert.equal(r.skipped, 1);
  assert.equal(r.samples[0].epochMs, new Date(2026, 10, 22, 13, 2, 3).getTime());
});

test('several PIDs (node-cluster: primary and workers): the lines of one second are one sample, summed', () => {
  const header = '# Time        UID       PID    %usr %system  %guest   %wait    %CPU   CPU  minflt/s  majflt/s     VSZ     RSS   %MEM  Command';
  const row = (time, pid, cpu, rss) => `${time}        0     ${pid}    0.00    0.00    0.00    0.00    ${cpu}     0      0.00      0.00   42472   ${rss}   0.05  node`;
  const text = [
    'Linux 6.1 (h) \t11/22/26 \t_x86_64_\t(2 CPU)', '',
    header, row('14:11:42', 100, '1.00', '10240'), row('14:11:42', 101, '40.00', '20480'), row('14:11:42', 102, '38.50', '30720'), '',
    header, row('14:11:43', 100, '2.00', '10240'), row('14:11:43', 101, '50.00', '20480'), row('14:11:43', 102, '0.00', '31744'),
  ].join('\n');
  const r = parsePidstatText(text);
  assert.equal(r.skipped, 0);
  assert.deepEqual(r.samples.map((s) => [s.cpu, s.rssMB]), [[79.5, 60], [52, 61]]);
  assert.equal(r.samples[1].epochMs - r.samples[0].epochMs, 1000);
});

test('one PID printed twice with one time (pidstat a second late) is two samples, never summed (issue #35)', () => {
  const header = '# Time        UID       PID    %usr %system  %guest   %wait    %CPU   CPU  minflt/s  majflt/s     VSZ     RSS   %MEM  Command';
  const row = (time, pid, cpu, rss) => `${time}        0     ${pid}    0.00    0.00    0.00    0.00    ${cpu}     0      0.00      0.00   42472   ${rss}   0.05  java`;
  const text = [
    'Linux 6.1 (h) \t11/23/26 \t_x86_64_\t(2 CPU)', '',
    header, row('23:09:40', 4242, '3.00', '144384'), '',
    header, row('23:09:41', 4242, '2.00', '144384'), '',
    header, row('23:09:41', 4242, '1.00', '144384'), '',   // the same PID and time again: the next sample
    header, row('23:09:43', 4242, '0.00', '144384'),
  ].join('\n');
  const r = parsePidstatText(text);
  assert.equal(r.skipped, 0);
  assert.deepEqual(r.samples.map((s) => [s.cpu, s.rssMB]), [[3, 141], [2, 141], [1, 141], [0, 141]]);
  assert.equal(Math.max(...r.samples.map((s) => s.rssMB)), 141, 'the peak is one process\'s 141 MB, not 2 x 141');
  // node-cluster's processes in the same second are still one sample, each PID counted once
  const cluster = [header, row('23:09:40', 1, '1.00', '1024'), row('23:09:40', 2, '2.00', '1024'), row('23:09:40', 1, '4.00', '1024')].join('\n');
  assert.deepEqual(parsePidstatText(cluster).samples.map((s) => [s.cpu, s.rssMB]), [[3, 2], [4, 1]]);
});
