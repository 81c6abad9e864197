'use strict';
const test = require('node:test');
const assert = require('node:assert/strict');
const { RequestPool } = require('../request-pool');

const fakeRequest = (type, events) => ({ type, events });

test('add returns the open count just after adding (connections.start) and counts by type', () => {
  const pool = new RequestPool();
  assert.equal(pool.add(fakeRequest('comet', ['a'])), 1);
  assert.equal(pool.add(fakeRequest('poll', ['a', 'b'])), 2);
  assert.equal(pool.add(fakeRequest('poll', [])), 3);
  assert.deepEqual(pool.counts(), { open: 3, comet: 1, poll: 2, sse: 0, ws: 0 });
});

test('subscribers are kept per name in subscription order, and a snapshot is a copy', () => {
  const pool = new RequestPool();
  const first = fakeRequest('comet', ['a']);
  const second = fakeRequest('poll', ['b', 'a']);
  pool.add(first);
  pool.add(second);
  const snapshot = pool.subscribersOf('a');
  assert.deepEqual(snapshot, [first, second]);
  pool.add(fakeRequest('comet', ['a']));
  pool.remove(first);
  assert.equal(snapshot.length, 2, 'later adds/removes must not change a snapshot already taken');
  assert.equal(pool.subscribersOf('a').length, 2);
  assert.deepEqual(pool.subscribersOf('nobody'), []);
});

test('remove takes a request out of the pool and every subscription list, once', () => {
  const pool = new RequestPool();
  const request = fakeRequest('poll', ['a', 'b']);
  pool.add(request);
  assert.equal(pool.remove(request), true);
  assert.equal(pool.remove(request), false, 'a second remove is a no-op');
  assert.deepEqual(pool.subscribersOf('a'), []);
  assert.deepEqual(pool.subscribersOf('b'), []);
  assert.deepEqual(pool.counts(), { open: 0, comet: 0, poll: 0, sse: 0, ws: 0 });
  assert.equal(pool.byEvent.size, 0, 'empty subscription lists are dropped');
});

test('adding the same request twice does not double-count it', () => {
  const pool = new RequestPool();
  const request = fakeRequest('comet', ['a']);
  pool.add(request);
  assert.equal(pool.add(request), 1);
  assert.deepEqual(pool.counts(), { open: 1, comet: 1, poll: 0, sse: 0, ws: 0 });
});
