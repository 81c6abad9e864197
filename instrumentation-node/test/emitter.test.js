'use strict';
const test = require('node:test');
const assert = require('node:assert/strict');
const { createWorld, sleep } = require('./helpers');

const comet = (events) => ({ type: 'comet', events });
const poll = (events, duration) => ({ type: 'poll', events, duration });

test('cycle ids, place and total: each cycle numbers its snapshot 1..total in subscription order', async (t) => {
  const world = createWorld();
  t.after(() => world.events.clear());
  const held = [world.open(comet(['ev'])), world.open(comet(['other', 'ev'])), world.open(comet(['ev']))];
  world.open(comet(['other'])); // not subscribed to ev: not counted in its total
  world.events.set('ev', 20);
  await world.cycleEnd('ev', 2);
  held.forEach(({ res }, index) => {
    const records = res.records();
    assert.ok(records.length >= 2);
    records.slice(0, 2).forEach((record, cycleIndex) => {
      const event = record.response.event;
      assert.equal(event.name, 'ev');
      assert.equal(event.cycle, cycleIndex + 1);
      assert.equal(event.connections.total, 3);
      assert.equal(event.connections.place, index + 1);
      assert.equal(event.timings.duration, event.timings.sent - event.timings.created);
      assert.equal(record.timings.duration, record.timings.sent - record.timings.created);
      assert.equal(record.connections.start, index + 1);
      assert.equal(record.connections.finish, 4);
    });
  });
  const status = world.events.get('ev').status();
  assert.equal(status.lastCycle.total, 3);
  assert.ok(Number.isInteger(status.lastCycle.durationMicros) && status.lastCycle.durationMicros >= 0);
});

test('a request added during a long emit cycle is not blocked and lands in the next cycle', async (t) => {
  // Small batches make a cycle over 3000 requests take hundreds of event-loop turns.
  const world = createWorld({ batchSize: 10 });
  t.after(() => world.events.clear());
  for (let i = 0; i < 3000; i++) world.open(comet(['busy']));
  world.events.set('busy', 3600000); // the timer never fires during the test: cycles are driven by hand
  const emitter = world.events.get('busy');

  emitter.runCycle();
  assert.equal(emitter.running, true, 'the cycle yields between batches');
  // The next event-loop turn: the cycle is still running, and a new request must get in at once.
  const late = await new Promise((resolve) => setImmediate(() => {
    const runningWhenAdded = emitter.running;
    const startedAt = process.hrtime.bigint();
    const opened = world.open(comet(['busy']));
    resolve({ ...opened, runningWhenAdded, addMicros: Number((process.hrtime.bigint() - startedAt) / 1000n) });
  }));
  assert.equal(late.runningWhenAdded, true, 'the add happened while cycle 1 was in progress');
  assert.equal(world.pool.has(late.request), true);
  assert.equal(late.request.start, 3001);
  assert.ok(late.addMicros < 50000, `add took ${late.addMicros} µs`);

  await world.cycleEnd('busy', 1);
  assert.equal(late.res.records().length, 0, 'not in the snapshot of the cycle that was running');
  assert.equal(emitter.lastCycle.total, 3000);

  emitter.runCycle();
  await world.cycleEnd('busy', 2);
  const [record] = late.res.records();
  assert.equal(record.response.event.cycle, 2);
  assert.equal(record.response.event.connections.place, 3001);
  assert.equal(record.response.event.connections.total, 3001);
});

test('a poll that timed out is never written to again, even if it is in a running cycle\'s snapshot', async (t) => {
  const world = createWorld({ batchSize: 5 });
  t.after(() => world.events.clear());
  for (let i = 0; i < 50; i++) world.open(comet(['late']));
  const target = world.open(poll(['late'], 60000));
  world.events.set('late', 3600000); // cycles driven by hand
  const emitter = world.events.get('late');
  emitter.runCycle(); // the poll is at place 51 of the snapshot, written only in a later batch
  target.request.timeout(); // its timer fires while the cycle is still in its first batches
  await world.cycleEnd('late', 1);
  const records = target.res.records();
  assert.equal(records.length, 1);
  assert.deepEqual(records[0].response, { timeout: { duration: 60000 } });
  assert.equal(target.res.writesAfterEnd, 0);
  assert.equal(world.pool.has(target.request), false);
  emitter.runCycle();
  await world.cycleEnd('late', 2);
  assert.equal(target.res.records().length, 1);
  assert.equal(target.res.writesAfterEnd, 0);
});

test('a poll times out by its own timer with a timeout record, and later emits skip it', async (t) => {
  const world = createWorld();
  t.after(() => world.events.clear());
  const started = Date.now();
  const target = world.open(poll(['slow'], 40));
  await sleep(80);
  assert.equal(target.res.ended, true);
  const [record] = target.res.records();
  assert.deepEqual(record.response, { timeout: { duration: 40 } });
  assert.ok(record.timings.sent - started >= 39);
  assert.match(JSON.stringify(record), /timeout/);
  world.events.set('slow', 10);
  await world.cycleEnd('slow', 2);
  assert.equal(target.res.records().length, 1);
  assert.equal(target.res.writesAfterEnd, 0);
  assert.equal(world.events.get('slow').lastCycle.total, 0);
});

test('a poll answered by an event is completed once and removed from every subscription', async (t) => {
  const world = createWorld();
  t.after(() => world.events.clear());
  const target = world.open(poll(['one', 'two'], 5000));
  world.events.set('one', 15);
  world.events.set('two', 15);
  await world.cycleEnd('one', 2);
  await world.cycleEnd('two', 2);
  const records = target.res.records();
  assert.equal(records.length, 1);
  assert.ok(records[0].response.event);
  assert.equal(target.request.timer, null, 'the timeout timer is cancelled');
  assert.equal(target.res.writesAfterEnd, 0);
  assert.deepEqual(world.pool.counts(), { open: 0, comet: 0, poll: 0, sse: 0, ws: 0 });
  const text = JSON.stringify(records[0]);
  assert.doesNotMatch(text, /error|timeout/);
});

test('a subscription to a name with no emitter is reached by an emitter set later', async (t) => {
  const world = createWorld();
  t.after(() => world.events.clear());
  const target = world.open(poll(['future'], 5000));
  await sleep(20);
  assert.equal(target.res.ended, false);
  world.events.set('future', 10);
  await world.cycleEnd('future', 1);
  assert.equal(target.res.records()[0].response.event.name, 'future');
});

test('clear completes every open request with a clear record and stops every emitter', async () => {
  const world = createWorld();
  const streams = [world.open(comet(['x'])), world.open(comet([]))];
  const polls = [world.open(poll(['x'], 60000)), world.open(poll(['y'], 60000))];
  world.events.set('x', 10);
  world.events.set('y', 5000);
  await world.cycleEnd('x', 1);
  const emitterX = world.events.get('x');
  const stopped = world.events.clear();
  let completed = 0;
  for (const request of world.pool.all()) if (request.clear('clear')) completed++;
  assert.equal(stopped, 2);
  assert.equal(completed, 3, 'the poll on x was already answered by cycle 1');
  assert.deepEqual(world.pool.counts(), { open: 0, comet: 0, poll: 0, sse: 0, ws: 0 });
  for (const { res } of [...streams, polls[1]]) {
    assert.equal(res.ended, true);
    const last = res.records().at(-1);
    assert.deepEqual(last.response, { clear: { reason: 'clear' } });
    assert.doesNotMatch(JSON.stringify(last), /error|timeout/);
  }
  const cyclesAtClear = emitterX.cycle;
  await sleep(40);
  assert.equal(emitterX.cycle, cyclesAtClear, 'no cycle after clear');
  for (const { res } of [...streams, ...polls]) assert.equal(res.writesAfterEnd, 0);
});

test('a client that goes away is removed silently and never written to', async (t) => {
  const world = createWorld();
  t.after(() => world.events.clear());
  const gone = world.open(comet(['v']));
  const stays = world.open(comet(['v']));
  gone.request.vanish();
  assert.equal(world.pool.size, 1);
  world.events.set('v', 10);
  await world.cycleEnd('v', 1);
  assert.equal(gone.res.chunks.length, 0);
  assert.equal(stays.res.records()[0].response.event.connections.total, 1);
});

test('set on an existing name changes the interval and keeps the cycle ids; remove stops it', async () => {
  const world = createWorld();
  const target = world.open(comet(['chg']));
  assert.equal(world.events.set('chg', 10), 'created');
  await world.cycleEnd('chg', 2);
  assert.equal(world.events.set('chg', 15), 'changed');
  assert.equal(world.events.get('chg').frequency, 15);
  await world.cycleEnd('chg', 3);
  const cycles = target.res.records().map((r) => r.response.event.cycle);
  assert.deepEqual(cycles.slice(0, 3), [1, 2, 3]);
  assert.equal(world.events.remove('chg'), true);
  assert.equal(world.events.remove('chg'), false);
  const count = target.res.records().length;
  await sleep(50);
  assert.equal(target.res.records().length, count, 'no record after remove');
  assert.equal(world.pool.has(target.request), true, 'a comet stays open after its emitter is removed');
  target.request.clear('clear');
});

test('the first fire comes one interval after set, not at once', async () => {
  const world = createWorld();
  const target = world.open(comet(['first']));
  world.events.set('first', 100);
  await sleep(40);
  assert.equal(target.res.records().length, 0);
  await world.cycleEnd('first', 1);
  world.events.clear();
  target.request.clear('clear');
});
