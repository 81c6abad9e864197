'use strict';
// Conformance of short polling (docs/protocol.md "Pull"), one group of suite.js's cases: a pull is answered
// at once; the first one starts the client's window; each later one holds every cycle after the cursor it
// sends, in order, none lost between pulls and none twice; an empty answer when nothing is new; a bad cursor
// is a 400 and the server keeps serving. Each case's body gets suite.js's ctx ({ post, setEvent, status,
// assertJson, assertRejected, assertEnvelope, assertNormal, stillServing, uniqueName, SLACK, ... }).
const assert = require('node:assert/strict');
const { sleep } = require('./http-client');

// One pull (with no cursor: the first of a window); checks the answer and resolves its response.pull.
async function pull(ctx, events, cursor) {
  const body = cursor === undefined ? { type: 'pull', events } : { type: 'pull', events, cursor };
  const asked = Date.now();
  const answer = await ctx.post('/request', body);
  ctx.assertJson(answer);
  assert.ok(Date.now() - asked < ctx.SLACK, 'a pull is answered at once');
  ctx.assertEnvelope(answer.json, body);
  assert.deepEqual(Object.keys(answer.json.response), ['pull']);
  ctx.assertNormal(answer.text, 'a pull answer');
  return answer.json.response.pull;
}

const pullGroup = { name: 'request manager: pull', cases: [
  { name: 'the first pull starts the window: no events, the latest cycle as cursor, 0 without an emitter', body: async (ctx) => {
    const name = ctx.uniqueName('pw');
    const none = await pull(ctx, [name]);
    assert.deepEqual(none, { events: [], cursor: { [name]: 0 }, skipped: 0 });
    await ctx.setEvent(name, 100);
    await sleep(350);
    const first = await pull(ctx, [name]);
    assert.deepEqual(first.events, [], 'no cursor: nothing from before');
    assert.ok(first.cursor[name] >= 2, `cursor is the latest cycle: ${JSON.stringify(first.cursor)}`);
    assert.equal((await ctx.status()).requests.open, 0, 'a pull is never held');
  } },
  { name: 'events since the last answer: every cycle once, in order, none lost between pulls, none twice', body: async (ctx) => {
    const a = ctx.uniqueName('pa');
    const b = ctx.uniqueName('pb');
    let cursor = (await pull(ctx, [a, b])).cursor;
    await ctx.setEvent(a, 60);
    await ctx.setEvent(b, 90);
    const got = { [a]: [], [b]: [] };
    const until = Date.now() + 1200;
    let empty = 0;
    while (Date.now() < until) {
      const answer = await pull(ctx, [a, b], cursor);
      if (answer.events.length === 0) empty++;
      for (const e of answer.events) {
        assert.ok(e.name === a || e.name === b);
        assert.deepEqual(Object.keys(e), ['name', 'cycle', 'timings']);
        assert.equal(e.timings.duration, e.timings.sent - e.timings.created);
        assert.ok(e.timings.duration >= 0);
        got[e.name].push(e.cycle);
      }
      assert.equal(answer.skipped, 0);
      cursor = answer.cursor;
      await sleep(empty % 2 ? 5 : 150);   // pulls both faster and slower than the emit intervals
    }
    await ctx.post('/event/remove', { name: a });
    await ctx.post('/event/remove', { name: b });
    const tail = await pull(ctx, [a, b], cursor);
    for (const e of tail.events) got[e.name].push(e.cycle);
    for (const name of [a, b]) {
      const ids = got[name];
      assert.ok(ids.length >= 5, `${name}: ${ids.length} cycles pulled`);
      assert.deepEqual(ids, Array.from({ length: ids.length }, (_, i) => i + 1), `${name}: 1..n each once`);
      assert.equal(tail.cursor[name], ids.length);
    }
    assert.deepEqual(await pull(ctx, [a, b], tail.cursor), { events: [], cursor: tail.cursor, skipped: 0 },
      'nothing new: an empty answer with the same cursor');
    assert.ok(empty >= 1, 'some pulls found nothing new');
  } },
  { name: 'two clients with their own cursors each get every cycle', body: async (ctx) => {
    const name = ctx.uniqueName('p2');
    await ctx.setEvent(name, 80);
    await sleep(200);
    const start = (await pull(ctx, [name])).cursor;
    const one = [];
    const two = [];
    let c1 = start;
    let c2 = start;
    for (let i = 0; i < 8; i++) {
      const x = await pull(ctx, [name], c1);
      one.push(...x.events.map((e) => e.cycle));
      c1 = x.cursor;
      if (i % 2) {
        const y = await pull(ctx, [name], c2);
        two.push(...y.events.map((e) => e.cycle));
        c2 = y.cursor;
      }
      await sleep(60);
    }
    const y = await pull(ctx, [name], c2);
    two.push(...y.events.map((e) => e.cycle));
    const x = await pull(ctx, [name], c1);
    one.push(...x.events.map((e) => e.cycle));
    const common = Math.min(one.length, two.length);
    assert.ok(common >= 3);
    assert.deepEqual(one.slice(0, common), two.slice(0, common), 'the same cycles, whatever the pull times');
    assert.equal(new Set(one).size, one.length);
  } },
  { name: 'a bad cursor is 400 and the server keeps serving', body: async (ctx) => {
    for (const cursor of [[], 3, { e1: -1 }, { e1: 1.5 }, { e1: '2' }, { 'bad name': 1 }]) {
      ctx.assertRejected(await ctx.post('/request', { type: 'pull', events: ['e1'], cursor }), 400, `cursor ${JSON.stringify(cursor)}`);
    }
    await ctx.stillServing();
  } },
] };

module.exports = { pullGroup };
