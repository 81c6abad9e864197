'use strict';
const test = require('node:test');
const assert = require('node:assert/strict');
const { BatchWriter, replay } = require('../read/archive-batches');

// Sends entries through a writer with a tiny batch buffer and replays every batch: the bodies must come out
// byte for byte, with each entry opened and closed once and in order, however the pieces were split.
test('entries survive being split across batches', () => {
  const bodies = [
    ['request_1.json', 'poll', Buffer.from('{"a":1}')],
    ['request_2.json', 'poll', Buffer.alloc(0)],
    ['request_3.x-ndjson', 'comet', Buffer.from('{"é":"ü"}\n{"b":2}\n'.repeat(5))],
    ['timestamp_1.json', 'ts', Buffer.from('{"timestamp":{}}')],
  ];
  const batches = [];
  const w = new BatchWriter((batch, transfer) => {
    assert.ok(transfer.every((t) => t instanceof ArrayBuffer));
    batches.push(structuredClone(batch, { transfer }));   // as postMessage would move it
  }, { capacity: 7, kinds: ['poll', 'comet', 'ts'] });
  bodies.forEach(([name, kind, body], i) => {
    w.open(name, kind);
    for (let at = 0; at < body.length; at += 5) w.write(body.subarray(at, at + 5));   // chunks unaligned to the batch
    w.close(i === 3);
  });
  w.flush();
  assert.ok(batches.length > 10, `${batches.length} batches`);
  const got = [];
  let cur = null;
  for (const b of batches) {
    replay(b, {
      open: (name, kind) => { assert.equal(cur, null); cur = { name, kind, parts: [] }; },
      data: (buf) => cur.parts.push(Buffer.from(buf)),
      close: (cut) => { got.push([cur.name, cur.kind, Buffer.concat(cur.parts), cut]); cur = null; },
    }, ['poll', 'comet', 'ts']);
  }
  assert.deepEqual(got, bodies.map(([n, k, b], i) => [n, k, b, i === 3]));
});

// Many empty entries fill a batch's operations before its buffer, and a name longer than a whole batch
// gets a buffer of its own: every name still arrives whole, in order, in the batch that opens it.
test('the operation limit and an over-long name start new batches without losing a name', () => {
  const names = Array.from({ length: 20_000 }, (_, i) => `pushbench-responses/request_${i + 1}.json`);
  names[12_345] = `pushbench-responses/${'x'.repeat(3000)}/request_0.json`;
  const batches = [];
  const w = new BatchWriter((batch, transfer) => batches.push(structuredClone(batch, { transfer })), { capacity: 2048 });
  for (const name of names) { w.open(name, 'request'); w.close(false); }
  w.flush();
  assert.ok(batches.length > 2, `${batches.length} batches`);
  const got = [];
  for (const b of batches) replay(b, { open: (name, kind) => got.push([name, kind]), data: () => assert.fail('no body'), close: () => {} });
  assert.deepEqual(got, names.map((n) => [n, 'request']));
});

// Buffers handed back after each replay are reused: however many batches, the writer allocates only the
// few that are in flight at once, and what it reuses never shows through in a replayed body.
test('recycled buffers go round without new allocations or stale bytes', () => {
  const { recycled } = require('../read/archive-batches');
  const bodies = [];
  let w = null;
  let cur = null;
  let batches = 0;
  const replayNow = (batch) => {
    batches++;
    const b = structuredClone(batch, { transfer: [batch.ops, ...(batch.data ? [batch.data] : [])] });
    replay(b, {
      open: (name) => { cur = { name, parts: [] }; },
      data: (buf) => cur.parts.push(Buffer.from(buf)),
      close: () => bodies.push([cur.name, Buffer.concat(cur.parts).toString()]),
    });
    const [back, transfer] = recycled(b);
    w.recycle(structuredClone(back, { transfer }));
  };
  const allocate = Buffer.allocUnsafeSlow;
  let allocations = 0;
  Buffer.allocUnsafeSlow = (n) => { allocations++; return allocate(n); };
  w = new BatchWriter(replayNow, { capacity: 256 });
  const want = [];
  for (let i = 0; i < 500; i++) {
    const body = `{"n":${i},"pad":"${'y'.repeat(i % 90)}"}`;
    want.push([`request_${i}.json`, body]);
    w.open(`request_${i}.json`, 'request');
    w.write(Buffer.from(body));
    w.close(false);
  }
  w.flush();
  Buffer.allocUnsafeSlow = allocate;
  assert.deepEqual(bodies, want);
  assert.ok(batches > 100, `${batches} batches`);
  assert.ok(allocations <= 2, `${allocations} data buffers allocated for ${batches} batches`);
});
