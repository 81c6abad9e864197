'use strict';
// The push sampler's stream logs (push-<n>.tsv.gz inside an engine's archive; docs/run-layout.md) read by
// analysis/read/responses.js: every record of every sample with its arrival, the time-stamp exchange with its
// own µs round trip, samples spanning a rotation, and damage (a log cut short, corrupt bytes, a bad line)
// read up to the damage and counted, never a crash.
const test = require('node:test');
const assert = require('node:assert/strict');
const fs = require('node:fs');
const path = require('node:path');
const zlib = require('node:zlib');
const tar = require('tar');
const { readArchive, kindOf } = require('../read/responses');
const { scratchDir } = require('./helpers');

const T0 = 1_700_000_000_000;   // ms
const us = (ms) => String(Math.round(ms * 1000));
const rec = (cycle, created) => JSON.stringify({ response: { event: { name: 'event1', cycle, timings: { duration: 1, sent: created + 1, created },
  connections: { total: 2, place: 1 } } }, request: { type: 'comet', events: ['event1'] }, timings: { duration: 5, sent: created + 1, created: T0 },
  connections: { start: 1, finish: 2 } });

// Two comet samples and one time-stamp exchange, as the sampler writes them.
function logLines() {
  return [
    ['B', us(T0), '1', 'Timestamp 1-1', 'timestamp'],
    ['R', us(T0 + 2), '1', JSON.stringify({ timestamp: { client: T0, server: T0 + 11 } })],
    ['E', us(T0 + 2), '1', '200', '1', '1', '61', '0', us(T0 + 0.5), 'OK'],
    ['B', us(T0 + 1), '2', 'Request 1-1', 'request'],
    ['B', us(T0 + 1), '3', 'Request 1-2', 'request'],
    ['R', us(T0 + 1003.25), '2', rec(1, T0 + 1000)],
    ['R', us(T0 + 1004.5), '3', rec(1, T0 + 1000)],
    ['R', us(T0 + 2003), '2', rec(2, T0 + 2000)],
    ['E', us(T0 + 2100), '2', '200', '1', '2', '900', '0', us(T0 + 1.1), 'OK'],
    ['E', us(T0 + 2100), '3', 'Non HTTP response code: java.io.EOFException', '0', '1', '450', '17', us(T0 + 1.1),
      'Non HTTP response message: Premature end of chunk coded message body'],
  ].map((f) => f.join('\t') + '\n').join('');
}

async function archiveOf(members) {
  const dir = scratchDir();
  const src = path.join(dir, 'src');
  fs.mkdirSync(src, { recursive: true });
  for (const [name, bytes] of Object.entries(members)) fs.writeFileSync(path.join(src, name), bytes);
  const file = path.join(dir, 'gen1.tar.gz');
  await tar.c({ gzip: true, file, cwd: src }, Object.keys(members));
  return file;
}

function visitor() {
  const got = { records: [], streams: [], timestamps: [], errors: [] };
  return { got, visitor: {
    event: (f, st) => got.records.push({ type: 'event', name: st.name, arrivalMs: st.arrivalMs, cycle: f.cycle }),
    record: (o, type, st) => got.records.push({ type, name: st.name, arrivalMs: st.arrivalMs }),
    endStream: (st) => got.streams.push({ name: st.name, records: st.records, cut: st.cut, thread: st.thread }),
    timestamp: (o, st) => got.timestamps.push({ server: o.timestamp.server, sentUs: st.sentUs, arrivalUs: st.arrivalUs }),
    errorBody: (text) => got.errors.push(text),
  } };
}

test('a stream log is kind stream; its samples are read with every record stamped', async () => {
  assert.equal(kindOf('push-1.tsv.gz'), 'stream');
  assert.equal(kindOf('responses/push-12.tsv.gz'), 'stream');
  assert.equal(kindOf('push-1.tsv'), null);
  const file = await archiveOf({ 'push-1.tsv.gz': zlib.gzipSync(logLines()), 'logging_1.json': '{"logging":{"enabled":false}}' });
  const { got, visitor: v } = visitor();
  const stats = await readArchive(file, v);
  assert.equal(stats.streamLogs, 1);
  assert.deepEqual(stats.byKind, { request: 2, timestamp: 1, setevent: 0, logging: 1, clear: 0 });
  assert.deepEqual(got.records.map((r) => [r.name, r.cycle, r.arrivalMs]),
    [['request_2.push', 1, T0 + 1003.25], ['request_3.push', 1, T0 + 1004.5], ['request_2.push', 2, T0 + 2003]]);
  assert.deepEqual(got.streams, [{ name: 'request_2.push', records: 2, cut: false, thread: 'Request 1-1' },
    { name: 'request_3.push', records: 1, cut: true, thread: 'Request 1-2' }]);
  assert.deepEqual(got.timestamps, [{ server: T0 + 11, sentUs: Number(us(T0 + 0.5)), arrivalUs: Number(us(T0 + 2)) }]);
  assert.equal(got.errors.length, 1, 'the broken stream is an error body, in JMeter\'s words');
  assert.match(got.errors[0], /Premature end/);
  assert.equal(stats.damagedStreamLogs, 0);
  assert.equal(stats.badLines + stats.halfLines + stats.unendedSamples, 0);
});

test('a sample spanning a rotation is one sample; one never ended is closed as cut and counted', async () => {
  const lines = logLines().split('\n').filter(Boolean);
  const first = lines.slice(0, 6).join('\n') + '\n';
  const second = lines.slice(6, 9).join('\n') + '\n';   // sample 3 never ends
  const file = await archiveOf({ 'push-1.tsv.gz': zlib.gzipSync(first), 'push-2.tsv.gz': zlib.gzipSync(second) });
  const { got, visitor: v } = visitor();
  const stats = await readArchive(file, v);
  assert.equal(stats.streamLogs, 2);
  assert.deepEqual(got.streams.map((s) => [s.name, s.records, s.cut]), [['request_2.push', 2, false], ['request_3.push', 1, true]]);
  assert.equal(stats.unendedSamples, 1);
});

test('a stream log cut short is read up to the cut, flagged, never a crash', async () => {
  const whole = zlib.gzipSync(logLines());
  const file = await archiveOf({ 'push-1.tsv.gz': whole.subarray(0, Math.floor(whole.length * 0.7)) });
  const { got, visitor: v } = visitor();
  const stats = await readArchive(file, v);
  assert.equal(stats.damagedStreamLogs, 1);
  assert.match(stats.streamLogProblems[0], /^push-1\.tsv\.gz: /);
  assert.ok(got.timestamps.length + got.records.length >= 1, 'what came before the cut is read');
  assert.equal(stats.unreadable, false);
});

test('corrupt bytes in a stream log: read up to the damage, counted; bad lines skipped and counted', async () => {
  const whole = Buffer.from(zlib.gzipSync(logLines()));
  for (let i = 40; i < 60; i++) whole[i] ^= 0x5a;
  const bad = zlib.gzipSync('X\tnot a line\nR\tnotanumber\t2\t{}\nR\t1\t99\t{"response":{}}\n' + logLines());
  const file = await archiveOf({ 'push-1.tsv.gz': whole, 'push-2.tsv.gz': bad });
  const { got, visitor: v } = visitor();
  const stats = await readArchive(file, v);
  assert.equal(stats.damagedStreamLogs, 1, 'the corrupt log');
  assert.equal(stats.badLines, 3, 'the three bad lines of the second log');
  assert.equal(got.records.length >= 3, true, 'the second log is read whole');
});

test('sample ids of any text: whole numbers read from the bytes, others decoded first, both alike', async () => {
  // ids 0, 12, 007 and s-4, the same samples; an R line with no µs, or a sample never begun, is a bad line
  const ids = ['0', '12', '007', 's-4'];
  const lines = ids.flatMap((id, i) => [['B', us(T0 + i), id, `Request 1-${i}`, 'request'], ['R', us(T0 + 1000 + i), id, rec(1, T0 + 1000)],
    ['R', us(T0 + 2000 + i), id, rec(2, T0 + 2000)], ['E', us(T0 + 2100), id, '200', '1', '2', '900', '0', us(T0 + 1), 'OK']]);
  lines.push(['R', '', '12', rec(3, T0 + 3000)], ['R', us(T0 + 3000), '13', rec(3, T0 + 3000)]);
  const file = await archiveOf({ 'push-1.tsv.gz': zlib.gzipSync(lines.map((f) => f.join('\t') + '\n').join('')) });
  const { got, visitor: v } = visitor();
  const stats = await readArchive(file, v);
  assert.deepEqual(got.streams.map((s) => [s.name, s.records, s.cut]), ids.map((id) => [`request_${id}.push`, 2, false]));
  assert.deepEqual(got.records.map((r) => [r.name, r.cycle, r.arrivalMs]),
    ids.flatMap((id, i) => [[`request_${id}.push`, 1, T0 + 1000 + i], [`request_${id}.push`, 2, T0 + 2000 + i]]));
  assert.equal(stats.badLines, 2);
  assert.equal(stats.unendedSamples, 0);
});

test('repeated µs exchanges: the shortest round trip of each half wins, their difference is the drift', () => {
  const { offsetDrift } = require('../measure/clock-offset');
  const m = (atS, offset, rtt) => ({ engine: 'gen1', atMs: T0 + atS * 1000, client: T0 + atS * 1000, elapsed: rtt,
    server: T0 + atS * 1000 + offset + rtt / 2 });
  const drift = offsetDrift([m(0, 5, 4), m(10, 5.2, 0.4), m(20, 7, 6), m(30, 6, 0.2), { engine: 'gen2', server: 1, client: 1 }]);
  assert.deepEqual(drift, [{ engine: 'gen1', exchanges: 4, overSeconds: 30, driftMs: 0.8, errorBoundMs: 1.3 }]);
  assert.equal(offsetDrift([m(0, 5, 1)]), null, 'one exchange: no drift known');
});

test('a run whose stream log is cut or corrupt: analysed up to the damage, counted in the summary, never a crash', async () => {
  const { makeStreamRun } = require('../tools/stream-run');
  const { analyzeRun } = require('../run-analysis');
  const { spawnSync } = require('node:child_process');
  for (const damage of ['cut', 'corrupt']) {
    const runDir = path.join(scratchDir(), 'run');
    const { logs } = await makeStreamRun(runDir, 200 * 20, { connections: 200, engines: [{ name: 'gen1', offsetMs: 1 }] });
    // damage the engine's stream log, then pack it again as host/archive.sh does
    const log = fs.readFileSync(logs[0]);
    const bad = damage === 'cut' ? log.subarray(0, Math.floor(log.length / 2)) : Buffer.from(log);
    if (damage === 'corrupt') for (let i = Math.floor(bad.length / 2); i < Math.floor(bad.length / 2) + 64; i++) bad[i] ^= 0x5a;
    fs.writeFileSync(logs[0], bad);
    const archive = path.join(runDir, 'responses', 'gen1.tar.gz');
    const r = spawnSync('tar', ['-c', '--use-compress-program=gzip -1', '-f', archive, '-C', path.dirname(logs[0]), 'push-1.tsv.gz', 'logging_1.json']);
    assert.equal(r.status, 0, String(r.stderr));
    const { summary } = await analyzeRun(runDir);
    assert.equal(summary.flags.damagedStreamLogs, 1, damage);
    assert.ok(summary.flags.problems.some((p) => /gen1\.tar\.gz: stream log push-1\.tsv\.gz: /.test(p)), summary.flags.problems.join('; '));
    assert.ok(summary.flags.unendedSamples > 0, `${damage}: the samples whose E line was lost are counted`);
    const timed = summary.tripTime.comet.records;
    assert.ok(timed > 0 && timed < 200 * 20, `${damage}: the records before the damage are read (${timed} of 4000)`);
  }
});
