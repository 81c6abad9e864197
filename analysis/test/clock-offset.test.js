'use strict';
const test = require('node:test');
const assert = require('node:assert/strict');
const { clockOffset, serverToClient, bestOffset } = require('../measure/clock-offset');

test('offset = server - client - elapsed/2, and server times map back to client times', () => {
  // the client sent at 1000, the answer took 40 ms, the server read its clock (5000 ahead) half-way
  const offset = clockOffset({ server: 1000 + 20 + 5000, client: 1000, elapsed: 40 });
  assert.equal(offset, 5000);
  assert.equal(serverToClient(9000, offset), 4000);
  assert.equal(clockOffset({ server: 1795307459434, client: 1795307459397, elapsed: 42 }), 16);
});

test('the measurement with the shortest round trip wins', () => {
  const b = bestOffset([{ server: 200, client: 100, elapsed: 80 }, { server: 160, client: 100, elapsed: 10 },
    { server: 1, client: null, elapsed: 1 }]);
  assert.equal(b.offset, 55);
  assert.equal(b.errorBoundMs, 5);
  assert.equal(b.measurements, 2);
  assert.equal(bestOffset([]), null);
});
