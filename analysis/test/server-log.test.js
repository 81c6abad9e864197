'use strict';
// analysis/read/server-log.js (issue #35 item 4): an OutOfMemoryError in a server's log and the class
// histogram the Tomcats print at it (-XX:+PrintClassHistogram, -XX:OnOutOfMemoryError="kill -3 %p"), read
// from a JDK 17 JVM's real output (captured/tomcat-oom-server.log: a heap of 32 MB filled, its thread dump
// and histogram trimmed), and a log without one. Then a histogram taken while a Tomcat ran
// (captured/tomcat7-class-histogram.txt: docs/study/heap-histogram.sh's file of docs/study's run
// 20261127-033258-tc7-comet-15000-600, 300 s into 15,000 comet streams; rows 21-1515 left out).
const test = require('node:test');
const assert = require('node:assert/strict');
const path = require('node:path');
const fs = require('node:fs');
const os = require('node:os');
const { outOfMemoryOf, readOutOfMemory, readClassHistogram } = require('../read/server-log');

const CAPTURED = path.join(__dirname, 'fixtures', 'captured');

test('an OutOfMemoryError and the heap it left: its kind, the largest classes, the totals', () => {
  const oom = readOutOfMemory(path.join(CAPTURED, 'tomcat-oom-server.log'));
  assert.equal(oom.lines, 2);   // the JVM's own report and the exception's
  assert.deepEqual(oom.kinds, ['Java heap space']);
  assert.equal(oom.heap.top.length, 10);
  assert.deepEqual(oom.heap.top[0], { class: '[B', instances: 14649, bytes: 786896 });
  assert.equal(oom.heap.totalInstances, 63925);
  assert.equal(oom.heap.totalBytes, 2830648);
});

test('no OutOfMemoryError: null; a histogram cut off keeps its rows without totals; no file: null', () => {
  assert.equal(readOutOfMemory(path.join(CAPTURED, 'server.log')), null);
  assert.equal(readOutOfMemory(path.join(CAPTURED, 'no-such.log')), null);
  const cut = outOfMemoryOf('java.lang.OutOfMemoryError: GC overhead limit exceeded\n num     #instances         #bytes  class name (module)\n'
    + '-------------------------------------------------------\n   1:         10         800  [J (java.base@17.0.15)\n');
  assert.deepEqual(cut, { lines: 1, kinds: ['GC overhead limit exceeded'],
    heap: { top: [{ class: '[J', instances: 10, bytes: 800 }], totalInstances: null, totalBytes: null } });
});

test('a class histogram taken while the server ran: when, the largest classes, the totals', () => {
  const h = readClassHistogram(path.join(CAPTURED, 'tomcat7-class-histogram.txt'));
  assert.equal(h.takenAtMs, 1795750683983);
  assert.equal(h.top.length, 10);
  assert.deepEqual(h.top[0], { class: '[B', instances: 369276, bytes: 766591216 });
  assert.deepEqual(h.top[2], { class: 'org.apache.tomcat.util.buf.ByteChunk', instances: 720055, bytes: 34562640 });
  assert.equal(h.totalInstances, 5761165);
  assert.equal(h.totalBytes, 1542731920);
  // without its first line it is still read, its time unknown; a file without a histogram or no file: null
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'pb-histogram-'));
  try {
    const text = fs.readFileSync(path.join(CAPTURED, 'tomcat7-class-histogram.txt'), 'utf8');
    fs.writeFileSync(path.join(dir, 'bare.txt'), text.split('\n').slice(1).join('\n'));
    assert.equal(readClassHistogram(path.join(dir, 'bare.txt')).takenAtMs, null);
    fs.writeFileSync(path.join(dir, 'refused.txt'), '# taken at epoch ms 1795750683983\n7490:\ncom.sun.tools.attach.AttachNotSupportedException: Unable to open socket file\n');
    assert.equal(readClassHistogram(path.join(dir, 'refused.txt')), null);
    assert.equal(readClassHistogram(path.join(dir, 'none.txt')), null);
  } finally {
    fs.rmSync(dir, { recursive: true, force: true });
  }
});
