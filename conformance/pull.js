'use strict';
// Conformance of short polling (docs/protocol.md "Pull"), registered inside suite.js's per-server
// describe: a pull is answered at once; the first one starts the client's window; each later one holds
// every cycle after the cursor it sends, in order, none lost between pulls and none twice; an empty
// answer when nothing is new; a bad cursor is a 400 and the server keeps serving.
const { test } = require('node:test');
const assert = require('node:assert/strict');
const { sleep } = require('./http-client');

// h: suite.js's helpers for one server ({ group, post, setEvent, status, assertJson, assertRejected,
// assertEnvelope, assertNormal, stillServing, uniqueName, SLACK }).
function registerPullTests(h) {
  const pull = async (events, cursor) => {
    const body = cursor === undefined ? { type: 'pull', events } : { type: 'pull', events, cursor };
    const asked = Date.now();
    const answer = await h.post('/request', body);
    h.assertJson(answer);
    assert.ok(Date.now() - asked < h.SLACK, 'a pull is answered at once');
    h.assertEnvelope(answer.json, body);
    assert.deepEqual(Object.keys(answer.json.response), ['pull']);
    h.assertNormal(answer.text, 'a pull answer');
    return answer.json.response.pull;
  };

  h.group('request manager: pull', () => {
    test('the first pull starts the window: no events, the latest cycle as cursor, 0 without an emitter', async () => {
      const name = h.uniqueName('pw');
      const none = await pull([name]);
      assert.deepEqual(none, { events: [], cursor: { [name]: 0 }, skipped: 0 });
      await h.setEvent(name, 100);
      await sleep(350);
      const first = await pull([name]);
      assert.deepEqual(first.events, [], 'no cursor: nothing from before');
      assert.ok(first.cursor[name] >= 2, `cursor is the latest cycle: ${JSON.stringify(first.cursor)}`);
      assert.equal((await h.status()).requests.open, 0, 'a pull is never held');
    });

    test('events since the last answer: every cycle once, in order, none lost between pulls, none twice', async () => {
      const a = h.uniqueName('pa');
      const b = h.uniqueName('pb');
      let cursor = (await pull([a, b])).cursor;
      await h.setEvent(a, 60);
      await h.setEvent(b, 90);
      const got = { [a]: [], [b]: [] };
      const until = Date.now() + 1200;
      let empty = 0;
      while (Date.now() < until) {
        const answer = await pull([a, b], cursor);
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
      await h.post('/event/remove', { name: a });
      await h.post('/event/remove', { name: b });
      const tail = await pull([a, b], cursor);
      for (const e of tail.events) got[e.name].push(e.cycle);
      for (const name of [a, b]) {
        const ids = got[name];
        assert.ok(ids.length >= 5, `${name}: ${ids.length} cycles pulled`);
        assert.deepEqual(ids, Array.from({ length: ids.length }, (_, i) => i + 1), `${name}: 1..n each once`);
        assert.equal(tail.cursor[name], ids.length);
      }
      assert.deepEqual(await pull([a, b], tail.cursor), { events: [], cursor: tail.cursor, skipped: 0 },
        'nothing new: an empty answer with the same cursor');
      assert.ok(empty >= 1, 'some pulls found nothing new');
    });

    test('two clients with their own cursors each get every cycle', async () => {
      const name = h.uniqueName('p2');
      await h.setEvent(name, 80);
      await sleep(200);
      const start = (await pull([name])).cursor;
      const one = [];
      const two = [];
      let c1 = start;
      let c2 = start;
      for (let i = 0; i < 8; i++) {
        const x = await pull([name], c1);
        one.push(...x.events.map((e) => e.cycle));
        c1 = x.cursor;
        if (i % 2) {
          const y = await pull([name], c2);
          two.push(...y.events.map((e) => e.cycle));
          c2 = y.cursor;
        }
        await sleep(60);
      }
      const y = await pull([name], c2);
      two.push(...y.events.map((e) => e.cycle));
      const x = await pull([name], c1);
      one.push(...x.events.map((e) => e.cycle));
      const common = Math.min(one.length, two.length);
      assert.ok(common >= 3);
      assert.deepEqual(one.slice(0, common), two.slice(0, common), 'the same cycles, whatever the pull times');
      assert.equal(new Set(one).size, one.length);
    });

    test('a bad cursor is 400 and the server keeps serving', async () => {
      for (const cursor of [[], 3, { e1: -1 }, { e1: 1.5 }, { e1: '2' }, { 'bad name': 1 }]) {
        h.assertRejected(await h.post('/request', { type: 'pull', events: ['e1'], cursor }), 400, `cursor ${JSON.stringify(cursor)}`);
      }
      await h.stillServing();
    });
  });
}

module.exports = { registerPullTests };
