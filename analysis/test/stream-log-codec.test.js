'use strict';
// read/stream-log.js, the stream log's one reader and writer in JavaScript (issue #51 item 1): every line
// of a fixture the Java writer produced (analysis/test/fixtures/java-stream-log.tsv: real engine output, a
// built-in mux run's time stamps, comet streams and their 12-field E lines, and a target run's publishes and
// WebSocket messages; and a push run's, bench/test/fixtures/push-poll-missed.tsv.gz) read and written again
// gives the same line; a bad line is no line.
const test = require('node:test');
const assert = require('node:assert/strict');
const fs = require('node:fs');
const path = require('node:path');
const zlib = require('node:zlib');
const { lineHead, recordHeadBytes, beginOf, connectOf, endOf, formatBegin, formatConnect, formatRecord, formatEnd } = require('../read/stream-log');

const FIXTURE = path.join(__dirname, 'fixtures', 'java-stream-log.tsv');

// A line as read, written back through the formatters.
function rewrite(line) {
  const h = lineHead(line);
  if (h.tag === 'B') { const b = beginOf(line); return formatBegin(h.us, h.id, b.thread, b.label); }
  if (h.tag === 'R') return formatRecord(h.us, h.id, line.slice(h.restAt));
  if (h.tag === 'C') return formatConnect(h.us, h.id, connectOf(line).tookUs);
  const e = endOf(line);
  return formatEnd(h.us, h.id, { ...e, headersUs: e.headersUs ?? 0 });
}

test('every line the Java writer wrote reads and writes back the same', () => {
  const lines = fs.readFileSync(FIXTURE, 'utf8').split('\n').filter(Boolean);
  const tags = new Set(lines.map((l) => `${l[0]}${l.split('\t').length}`));
  assert.deepEqual([...tags].sort(), ['B5', 'E10', 'E12', 'R4'], 'the fixture covers each kind of line');
  for (const line of lines) assert.equal(rewrite(line), `${line}\n`);
});

test('the push sampler\'s lines (a real push run\'s log: 12-field E lines with its judged verdict) read and write back the same', () => {
  const file = path.join(__dirname, '..', '..', 'bench', 'test', 'fixtures', 'push-poll-missed.tsv.gz');
  const lines = zlib.gunzipSync(fs.readFileSync(file)).toString('utf8').split('\n').filter(Boolean);
  const ends = lines.filter((l) => l[0] === 'E');
  assert.ok(ends.length > 0 && ends.every((l) => l.split('\t').length === 12), 'every E line has the verdict and headers µs');
  assert.ok(ends.some((l) => endOf(l).failure === 'response contains timeout although an event was set'), 'a judged timeout');
  for (const line of lines) assert.equal(rewrite(line), `${line}\n`);
});

test('the fields read: a begin, a 10-field and a 12-field end, a record by its bytes', () => {
  const lines = fs.readFileSync(FIXTURE, 'utf8').split('\n').filter(Boolean);
  const end10 = lines.find((l) => l[0] === 'E' && l.split('\t').length === 10);
  const e = endOf(end10);
  assert.equal(e.failure, undefined);
  assert.equal(e.headersUs, null);
  assert.equal(typeof e.sentUs, 'number');
  const end12 = endOf(lines.find((l) => l[0] === 'E' && l.split('\t').length === 12));
  assert.equal(typeof end12.failure, 'string');
  assert.ok(end12.headersUs > 1.7e15, 'µs since the epoch');
  const r = lines.find((l) => l[0] === 'R');
  const buf = Buffer.from(`${r}\n`);
  const h = recordHeadBytes(buf, 0, buf.length - 1);
  const t = lineHead(r);
  assert.deepEqual([h.us, String(h.id), buf.toString('utf8', h.restAt, buf.length - 1)], [t.us, t.id, r.slice(t.restAt)]);
});

test('bad lines are no lines; text fields lose their tabs and line ends when written', () => {
  for (const bad of ['', 'X\t1\t2\tx', 'R\tnot-a-number\t1\tx', 'R\t12', 'B12\t1']) assert.equal(lineHead(bad), null, JSON.stringify(bad));
  assert.equal(beginOf('B\t1\t2\tonly-a-thread'), null);
  assert.equal(endOf('E\t1\t2\t200\t1'), null);
  assert.equal(formatRecord(5, 7, 'a\tb\nc'), 'R\t5\t7\ta b c\n');
  assert.equal(recordHeadBytes(Buffer.from('R\t012\t1\tx'), 0, 9), null, 'a leading zero is read as text');
});

test('a C line (a connection\'s first connect completed) reads and writes back; a bad one is no connect', () => {
  const line = 'C\t1795839947536123\t42\t87';
  const h = lineHead(line);
  assert.deepEqual([h.tag, h.us, h.id], ['C', 1795839947536123, '42']);
  assert.deepEqual(connectOf(line), { tookUs: 87 });
  assert.equal(formatConnect(h.us, h.id, 87), `${line}\n`);
  for (const bad of ['C\t1\t2\tx', 'C\t1\t2\t', 'C\t1\t2\t5\t6', 'C\t1\t2\t-3']) assert.equal(connectOf(bad), null, JSON.stringify(bad));
});
