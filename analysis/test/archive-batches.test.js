'use strict';
const test = require('node:test');
const assert = require('node:assert/strict');
const { BatchWriter, replay } = require('../archive-batches');

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
  }, 7);
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
    });
  }
  assert.deepEqual(got, bodies.map(([n, k, b], i) => [n, k, b, i === 3]));
});
