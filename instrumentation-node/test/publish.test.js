'use strict';
// POST /event/publish's event manager side (docs/protocol.md "Publish"): one emit cycle of a name now, no
// emitter created (PB_MAX_EMITTERS does not apply), ids continuing the name's emitter or counted per name,
// the data carried in the event record, byte for byte what the object builder gives.
const test = require('node:test');
const assert = require('node:assert/strict');
const { createWorld, sleep } = require('./helpers');
const { EventManager } = require('../event-manager');
const { RequestPool } = require('../request-pool');
const { eventRecord, eventLine, cycleHead, requestMiddle } = require('../records');
const validate = require('../validate');

const comet = (events) => ({ type: 'comet', events });

test('a publish reaches the subscribers of its name once, with its data, and creates no emitter', async (t) => {
  const world = createWorld();
  t.after(() => world.events.clear());
  const [a, b] = [world.open(comet(['ch-1'])), world.open(comet(['other', 'ch-1']))];
  const other = world.open(comet(['other']));
  assert.equal(world.events.publish('ch-1', { seq: 7, sentUs: 1700000000000123 }), 1);
  assert.equal(world.events.publish('ch-1'), 2);
  await sleep(20);
  for (const [index, { res }] of [a, b].entries()) {
    const events = res.records().map((r) => r.response.event);
    assert.deepEqual(events.map((e) => e.cycle), [1, 2]);
    assert.deepEqual(events[0].data, { seq: 7, sentUs: 1700000000000123 });
    assert.ok(!('data' in events[1]), 'no data given, none carried');
    assert.equal(events[0].connections.place, index + 1);
    assert.equal(events[0].connections.total, 2);
  }
  assert.equal(other.res.records().length, 0);
  assert.equal(world.events.status().length, 0, 'no emitter');
});

test('publish ids: the emitter\'s numbering when one exists, else from 1 per name; clear forgets them', async (t) => {
  const world = createWorld();
  t.after(() => world.events.clear());
  assert.equal(world.events.publish('x'), 1);
  assert.equal(world.events.publish('y'), 1);
  assert.equal(world.events.publish('x'), 2);
  world.events.set('x', 3600000);   // a new emitter continues the name's publishes
  assert.equal(world.events.publish('x'), 3);
  assert.equal(world.events.get('x').status().cycle, 3, 'the emitter\'s next fire is cycle 4');
  world.events.remove('x');
  assert.equal(world.events.publish('x'), 1, 'removed: ids start again, as an emitter set again');
  world.events.clear();
  assert.equal(world.events.publish('y'), 1);
});

test('PB_MAX_EMITTERS does not apply to publishes', () => {
  const events = new EventManager({ pool: new RequestPool(), log: { debug() {}, problem() {} }, maxEmitters: 1 });
  assert.equal(events.set('only', 3600000), 'created');
  assert.equal(events.set('second', 3600000), 'full');
  for (let i = 1; i <= 50; i++) assert.equal(events.publish(`p${i}`, i), 1);
  assert.equal(events.status().length, 1);
  events.clear();
});

test('a record with data: the hot path\'s line is the object builder\'s JSON', () => {
  const echo = { type: 'sse', events: ['ch-1'] };
  const request = { echo, created: 1000, start: 3 };
  for (const data of [{ seq: 1, sentUs: 1700000000000001 }, 'text "q"', 0, null, [1, { a: true }]]) {
    const cycle = { name: 'ch-1', id: 4, created: 1500, data };
    const expected = JSON.stringify(eventRecord(request, cycle, 2, 5, 1503, 6));
    assert.deepEqual(JSON.parse(expected).response.event.data, data);
    assert.equal(eventLine(cycleHead(cycle), requestMiddle(echo), request, cycle, 2, 5, 1503, 6, ''), expected);
  }
});

test('validate.eventPublish: a name by the rule, data optional and any JSON value', () => {
  assert.deepEqual(validate.eventPublish({ name: 'a-1_B' }).value, { name: 'a-1_B', data: undefined });
  assert.deepEqual(validate.eventPublish({ name: 'a', data: [1] }).value, { name: 'a', data: [1] });
  for (const body of [undefined, [], 'a', { name: 'bad name' }, { name: '' }, { name: 'x'.repeat(65) }, { data: 1 }, { name: 5 }]) {
    assert.ok(validate.eventPublish(body).problem, JSON.stringify(body));
  }
});
