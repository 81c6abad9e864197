'use strict';
// host/archive.sh tar with the stream logs an engine leaves (docs/run-layout.md "Stream logs"), on real
// files: an LZ4 log of an engine killed during its load (written by the engine's own StreamLog, then cut
// inside its last block, host/test/KilledLz4Log.java) is recoded to push-<n>.tsv.gz before the tar, its whole
// blocks' lines kept and the cut block's bytes counted on stderr, the .gz cut short as the engine left the log
// (no gzip trailer: the analysis counts it among the damaged stream logs); a file that is no LZ4 frame goes into the
// archive as it is, and stderr says so; responses without an LZ4 log are archived without a recode.
const test = require('node:test');
const assert = require('node:assert/strict');
const fs = require('node:fs');
const os = require('node:os');
const path = require('node:path');
const zlib = require('node:zlib');
const { spawnSync } = require('node:child_process');
const { settings } = require('../../lib/config');
const { readArchive } = require('../../analysis/read/responses');

const ROOT = path.resolve(__dirname, '..', '..');
const ARCHIVE = path.join(ROOT, 'host', 'archive.sh');
const { JMETER_HOME } = settings();

// The end of each block of an LZ4 file's one frame (magic, FLG, BD, HC: 7 bytes without a content size).
function blockEnds(file) {
  assert.equal(file.readUInt32LE(0), 0x184D2204, 'an LZ4 frame');
  const ends = [];
  let at = 7;
  while (at + 4 <= file.length && file.readUInt32LE(at) !== 0) {
    at += 4 + (file.readUInt32LE(at) & 0x7FFFFFFF);
    ends.push(at);
  }
  return ends;
}

const members = (tgz) => spawnSync('tar', ['-tzf', tgz], { encoding: 'utf8' }).stdout.split('\n').filter(Boolean);

test('archive.sh tar: a killed engine\'s LZ4 stream log recoded to gzip, its whole blocks kept; one that is no LZ4 archived as it is', async () => {
  const state = fs.mkdtempSync(path.join(os.tmpdir(), 'pb-archive-'));
  try {
    const responses = path.join(state, 'runs', 'run1', 'e1', 'responses');
    fs.mkdirSync(responses, { recursive: true });
    const expectedFile = path.join(state, 'expected.tsv');
    const made = spawnSync('java', ['-cp', `${JMETER_HOME}/lib/*:${JMETER_HOME}/lib/ext/*`,
      path.join(__dirname, 'KilledLz4Log.java'), responses, '3000', expectedFile], { encoding: 'utf8' });
    assert.equal(made.status, 0, made.stderr);
    const expected = fs.readFileSync(expectedFile, 'utf8');
    const lz4 = path.join(responses, 'push-1.tsv.lz4');
    const ends = blockEnds(fs.readFileSync(lz4));
    assert.ok(ends.length >= 4, `blocks ending at ${ends}`);
    fs.truncateSync(lz4, ends[ends.length - 2] + 10);   // cut 10 bytes into the last block
    fs.writeFileSync(path.join(responses, 'push-2.tsv.lz4'), 'B\t1\t1\tnot an LZ4 frame\n');
    fs.writeFileSync(path.join(responses, 'logging_1.json'), '{"ok":true}\n');

    const r = spawnSync(ARCHIVE, ['tar', 'run1', 'e1'], { encoding: 'utf8', env: { ...process.env, PB_STATE: state } });
    assert.equal(r.status, 0, r.stderr);
    const tgz = path.join(state, 'runs', 'run1', 'e1', 'e1.tar.gz');
    assert.equal(r.stdout, `${tgz}\n`, 'stdout: the archive\'s path only');
    assert.deepEqual(members(tgz), ['logging_1.json', 'push-1.tsv.gz', 'push-2.tsv.lz4']);

    const out = path.join(state, 'out');
    fs.mkdirSync(out);
    assert.equal(spawnSync('tar', ['-xzf', tgz, '-C', out]).status, 0);
    const recoded = fs.readFileSync(path.join(out, 'push-1.tsv.gz'));
    assert.throws(() => zlib.gunzipSync(recoded), /unexpected end of file/, 'cut short as the engine left it: no gzip trailer');
    const kept = zlib.gunzipSync(recoded, { finishFlush: zlib.constants.Z_SYNC_FLUSH }).toString('utf8');
    assert.ok(kept.length > 0 && kept.endsWith('\n') && expected.startsWith(kept), 'whole lines, as written, in order');
    assert.ok(expected.length - kept.length > 0 && expected.length - kept.length <= 65536 + 200,
      `the last block's lines dropped (at most one 64 KB block and the line it cut): ${expected.length - kept.length} bytes`);
    const lines = kept.split('\n').length - 1;
    const line = new RegExp(`push-1\\.tsv\\.lz4 -> \\S+push-1\\.tsv\\.gz: ${lines} lines kept, 10 bytes of a cut block dropped, [0-9]+ bytes of a cut line dropped, cut short: no end mark \\(the \\.gz ends without its gzip trailer\\)`);
    assert.match(r.stderr, line);
    assert.match(r.stderr, /push-2\.tsv\.lz4: not recoded, kept as it is: no LZ4 frame at byte 0/);
    assert.match(r.stderr, /could not recode every LZ4 stream log .* goes into the archive as it is \(\.lz4\)/);
    assert.equal(fs.readFileSync(path.join(out, 'push-2.tsv.lz4'), 'utf8'), 'B\t1\t1\tnot an LZ4 frame\n');

    // The analysis reads the recoded log as the log of an engine killed mid-run: its lines, flagged cut.
    const endStreams = [];
    const stats = await readArchive(tgz, { endStream: (st) => endStreams.push(st) });
    assert.equal(stats.streamLogs, 1, 'the .lz4 left as it is is not read');
    assert.equal(stats.damagedStreamLogs, 1);
    assert.match(stats.streamLogProblems[0], /^push-1\.tsv\.gz: cut short \(no gzip trailer\)/);
    assert.ok(endStreams.length > 0, 'its samples read');
  } finally {
    fs.rmSync(state, { recursive: true, force: true });
  }
});

test('archive.sh tar: gzip stream logs only: archived as they are, nothing recoded', () => {
  const state = fs.mkdtempSync(path.join(os.tmpdir(), 'pb-archive-'));
  try {
    const responses = path.join(state, 'runs', 'run2', 'e2', 'responses');
    fs.mkdirSync(responses, { recursive: true });
    const log = zlib.gzipSync('B\t1\t1\tRequest 1-1\trequest\n');
    fs.writeFileSync(path.join(responses, 'push-1.tsv.gz'), log);
    const r = spawnSync(ARCHIVE, ['tar', 'run2', 'e2'], { encoding: 'utf8', env: { ...process.env, PB_STATE: state } });
    assert.equal(r.status, 0, r.stderr);
    assert.equal(r.stderr, '');
    const tgz = path.join(state, 'runs', 'run2', 'e2', 'e2.tar.gz');
    assert.deepEqual(members(tgz), ['push-1.tsv.gz']);
    const out = path.join(state, 'out');
    fs.mkdirSync(out);
    assert.equal(spawnSync('tar', ['-xzf', tgz, '-C', out]).status, 0);
    assert.deepEqual(fs.readFileSync(path.join(out, 'push-1.tsv.gz')), log);
  } finally {
    fs.rmSync(state, { recursive: true, force: true });
  }
});
