'use strict';
// analysis/read/server-log.js (issue #35 item 4): an OutOfMemoryError in a server's log and the class
// histogram the Tomcats print at it (-XX:+PrintClassHistogram, -XX:OnOutOfMemoryError="kill -3 %p"), read
// from a JDK 17 JVM's real output (captured/tomcat-oom-server.log: a heap of 32 MB filled, its thread dump
// and histogram trimmed), and a log without one.
const test = require('node:test');
const assert = require('node:assert/strict');
const path = require('node:path');
const { outOfMemoryOf, readOutOfMemory } = require('../read/server-log');

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
