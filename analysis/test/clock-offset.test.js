'use strict';
const test = require('node:test');
const assert = require('node:assert/strict');
const { clockOffset, offsetErrorBound, serverToClient, bestOffset } = require('../measure/clock-offset');

test('offset = server - client - elapsed/2, a whole-ms stamp read as the middle of its ms; server times map back to client times', () => {
  // the client sent at 1000 (µs clock), the answer took 40 ms, the server (5000 ahead) read its clock half-way,
  // somewhere in ms 6020: 6020.5 is taken
  const offset = clockOffset({ server: 1000 + 20 + 5000, client: 1000, elapsed: 40 });
  assert.equal(offset, 5000.5);
  assert.equal(offsetErrorBound({ elapsed: 40 }), 20.5);
  assert.equal(serverToClient(9000.5, offset), 4000);
  // JMeter's own sample: its client stamp is whole ms too
  assert.equal(clockOffset({ server: 1795307459434, client: 1795307459397, elapsed: 42, clientResolutionMs: 1 }), 16);
  assert.equal(offsetErrorBound({ elapsed: 42, clientResolutionMs: 1 }), 22);
  assert.equal(offsetErrorBound({ elapsed: null }), null);
});

test('the true offset lies within the bound whatever instant inside its ms each whole-ms stamp was read', () => {
  // One clock (true offset 0); the client sends at 100.3 µs-exact, the answer takes 0.6 ms, the server reads
  // its clock at any point of the round trip and writes the whole ms.
  for (const at of [0, 0.1, 0.3, 0.5, 0.6]) {
    const m = { server: Math.floor(100.3 + at), client: 100.3, elapsed: 0.6 };
    assert.ok(Math.abs(clockOffset(m)) <= offsetErrorBound(m) + 1e-9, `server read at +${at} ms: ${clockOffset(m)} ± ${offsetErrorBound(m)}`);
  }
});

test('the measurement with the smallest error bound wins', () => {
  const b = bestOffset([{ server: 200, client: 100, elapsed: 80 }, { server: 160, client: 100, elapsed: 10 },
    { server: 1, client: null, elapsed: 1 }, { server: 150, client: 100, elapsed: 9, clientResolutionMs: 2 }]);
  assert.equal(b.offset, 55.5);
  assert.equal(b.errorBoundMs, 5.5);
  assert.equal(b.measurements, 3);
  assert.equal(bestOffset([]), null);
});
