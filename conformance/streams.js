'use strict';
// Conformance cases for the Server-Sent Events and WebSocket transports (issue #38 item 1; docs/protocol.md
// "Server-Sent Events and WebSocket"): framing, ids, resuming with Last-Event-ID or a cursor, the replay
// bound and its gap record, bad queries and upgrades, refused, late and oversized subscriptions, clients
// that never read, the streams in /status and in an emit cycle beside comet, and POST /event/publish's cycle
// reaching every transport (issue #47). One group of suite.js's
// cases (streamGroup); each names the transports it needs, and a server that does not speak one of them has
// the case skipped with the reason (suite.js's runner), never failed; such a server is instead held to
// refusing the transport as the protocol says (the refusal cases: `refuses`).
// The server's settings, as it was started with, are ctx.settings (suite.js's serverSettings: PB_REPLAY_CYCLES,
// PB_STREAM_BACKLOG_BYTES, PB_BODY_DEADLINE_MS, PB_MAX_EMITTERS).

const assert = require('node:assert/strict');
const { openSse, openWs, neverReads, upgradeHead } = require('./stream-clients');
const { openStream, rawExchange, waitUntil } = require('./http-client');

const cursorText = (cursor) => Object.entries(cursor).map(([name, id]) => `${name}:${id}`).join(',');
const kindOf = (record) => Object.keys(record.response)[0];

// How a case subscribes over each transport: open(ctx, events, cursor?) resolves once the server holds
// the stream (SSE: its head is the proof; WebSocket: /status counts one more); echo(events, cursor?) is
// the request the records must echo.
const TRANSPORTS = {
  sse: {
    label: 'SSE',
    async open(ctx, events, cursor) {
      const stream = await openSse(ctx.base, { type: 'sse', events: events.join(',') },
        cursor ? { lastEventId: cursorText(cursor) } : {});
      assert.equal(stream.status, 200, stream.body);
      return stream;
    },
    echo: (events, cursor) => (cursor ? { type: 'sse', events, cursor } : { type: 'sse', events }),
  },
  ws: {
    label: 'WebSocket',
    async open(ctx, events, cursor) {
      const held = (await ctx.status()).requests.ws;
      const client = await openWs(ctx.base);
      client.send(JSON.stringify(TRANSPORTS.ws.echo(events, cursor)));
      await waitUntil(async () => (await ctx.status()).requests.ws > held, 2000, 'the WebSocket to be subscribed');
      return client;
    },
    echo: (events, cursor) => (cursor ? { type: 'ws', events, cursor } : { type: 'ws', events }),
  },
};

// Records of a resumed stream, read until `live` event records came.
async function readUntilLive(stream, live, ctx) {
  const records = [];
  while (records.filter((r) => kindOf(r.record) === 'event').length < live) records.push(await stream.next(2000 + ctx.SLACK));
  return records;
}

// A resumed stream's records: [gap] [replay...] [event...], covering every cycle after `after` once, in
// order; at most N replays, and a gap only with N replays after it. Returns { gap, replays }.
function assertResumed(records, { name, after, echo, ctx }) {
  let next = after + 1;
  let gap = null;
  let replays = 0;
  records.forEach(({ record, text }, i) => {
    ctx.assertEnvelope(record, echo);
    ctx.assertNormal(text, 'a record of a resumed stream');
    const kind = kindOf(record);
    if (kind === 'gap') {
      assert.equal(i, 0, 'the gap record comes first');
      gap = record.response.gap;
      assert.ok(gap.to >= next, `the gap covers cycles: ${JSON.stringify(gap)}`);
      assert.deepEqual(gap, { name, from: next, to: gap.to, skipped: gap.to - next + 1 });
      next = gap.to + 1;
    } else if (kind === 'replay') {
      const { replay } = record.response;
      assert.deepEqual(Object.keys(replay), ['name', 'cycle', 'timings'], 'a replay is in no snapshot: no connections');
      assert.equal(replay.name, name);
      assert.equal(replay.cycle, next++, 'replays in cycle order, none missing');
      assert.equal(replay.timings.duration, replay.timings.sent - replay.timings.created);
      assert.equal(replay.timings.sent, record.timings.sent);
      replays++;
    } else {
      assert.equal(kind, 'event', `a resumed stream's record: ${text}`);
      assert.equal(record.response.event.cycle, next++, 'the live cycles follow the replayed ones, none twice');
    }
  });
  const { replay: bound } = ctx.settings;
  assert.ok(replays <= bound, `at most PB_REPLAY_CYCLES (${bound}) replays, got ${replays}`);
  if (gap) assert.equal(replays, bound, 'a gap only beyond the bound: the last N cycles come again after it');
  return { gap, replays };
}

// Closes a stream and waits until the server no longer holds it.
async function leave(ctx, stream, transport) {
  stream.destroy();
  await waitUntil(async () => (await ctx.status()).requests[transport] === 0, 3000, 'the stream to leave /status');
}

async function untilCycle(ctx, name, cycle) {
  await waitUntil(async () => ((await ctx.status()).events.find((e) => e.name === name) || { cycle: 0 }).cycle >= cycle,
    cycle * 200 + 5000, `cycle ${cycle} of ${name}`);
}

// ---- cases over either transport (t: TRANSPORTS[name]) -------------------------------------------------

async function resumeWithinBound(ctx, t, transport) {
  const name = ctx.uniqueName('resume');
  await ctx.setEvent(name, 100);
  const first = await t.open(ctx, [name]);
  const after = (await first.next(1000 + ctx.SLACK)).record.response.event.cycle;
  await leave(ctx, first, transport);
  await untilCycle(ctx, name, after + 2);
  const cursor = { [name]: after };
  const again = await t.open(ctx, [name], cursor);
  const { replays } = assertResumed(await readUntilLive(again, 2, ctx), { name, after, echo: t.echo([name], cursor), ctx });
  assert.ok(replays >= Math.min(2, ctx.settings.replay), `the cycles missed came again (${replays})`);
  again.destroy();
}

async function resumeBeyondBound(ctx, t, transport) {
  const name = ctx.uniqueName('bound');
  await ctx.setEvent(name, 20);
  const first = await t.open(ctx, [name]);
  const after = (await first.next(1000 + ctx.SLACK)).record.response.event.cycle;
  await leave(ctx, first, transport);
  await untilCycle(ctx, name, after + ctx.settings.replay + 3);
  const cursor = { [name]: after };
  const again = await t.open(ctx, [name], cursor);
  const { gap, replays } = assertResumed(await readUntilLive(again, 1, ctx), { name, after, echo: t.echo([name], cursor), ctx });
  assert.ok(gap, `more than PB_REPLAY_CYCLES (${ctx.settings.replay}) cycles missed: a gap record first`);
  assert.equal(replays, ctx.settings.replay);
  again.destroy();
}

async function neverReading(ctx, t, transport) {
  const { maxEmitters, backlog } = ctx.settings;
  const count = Math.min(16, maxEmitters);
  const names = Array.from({ length: count }, (_, i) => `${ctx.uniqueName(`nr${i}`)}-`.padEnd(64, 'x'));
  const reader = await t.open(ctx, [names[0]]);
  for (const name of names) await ctx.setEvent(name, 10);
  const before = (await ctx.status()).streams.dropped;
  const silent = await neverReads(ctx.base, transport, names);
  try {
    await waitUntil(async () => (await ctx.status()).streams.dropped > before, 30000 + (backlog / 1048576) * 5000,
      `the client that never reads to be cut (PB_STREAM_BACKLOG_BYTES ${backlog})`);
  } finally {
    silent.destroy();
  }
  // a server counts the cut stream out of /status once its connector has closed it, a moment after the cut
  await waitUntil(async () => (await ctx.status()).requests[transport] <= 1, 3000, `the cut ${transport} stream to leave /status`);
  const after = await ctx.status();
  assert.equal(after.streams.dropped, before + 1, '/status counts the cut stream once');
  assert.equal(after.requests[transport], 1, 'the reading stream is still held');
  const got = reader.records.filter((r) => kindOf(r.record) === 'event');
  assert.ok(got.length >= 20, `the reading stream kept getting its records (${got.length})`);
  got.forEach((r, i) => assert.equal(r.record.response.event.cycle, got[0].record.response.event.cycle + i, 'none missing'));
  const gaps = got.slice(1).map((r, i) => r.at - got[i].at);
  assert.ok(Math.max(...gaps) < ctx.SLACK, `no record of the reading stream waited (longest gap ${Math.max(...gaps)} ms)`);
  reader.destroy();
  await ctx.stillServing();
}

async function heldAndGone(ctx, t, transport) {
  const name = ctx.uniqueName('held');
  const stream = await t.open(ctx, [name]);
  // counted once the server has it (and the previous case's streams have left, as they do within the same
  // bound: leave())
  await waitUntil(async () => (await ctx.status()).requests[transport] === 1, 3000, `the ${transport} stream to be counted`);
  const counted = await ctx.status();
  assert.equal(counted.requests[transport], 1);
  assert.equal(counted.requests.open, 1, 'a stream is an open request');
  await ctx.setEvent(name, 100);
  const { record } = await stream.next(1000 + ctx.SLACK);
  assert.ok(record.connections.start >= 1 && record.connections.finish >= 1, 'the stream counts in connections');
  assert.equal(record.response.event.connections.total, 1, 'the cycle\'s snapshot holds the stream');
  await leave(ctx, stream, transport);
  await ctx.stillServing();
}

// ---- SSE only ------------------------------------------------------------------------------------------

async function sseFraming(ctx) {
  const name = ctx.uniqueName('sse');
  const echo = { type: 'sse', events: [name] };
  const stream = await openSse(ctx.base, { type: 'sse', events: name });
  assert.equal(stream.status, 200, stream.body);
  assert.match(String(stream.headers['content-type']), /^text\/event-stream/);
  assert.match(String(stream.headers['cache-control']), /no-cache/);
  await ctx.setEvent(name, 150);
  const events = [];
  for (let i = 0; i < 3; i++) events.push(await stream.next(1000 + ctx.SLACK));
  events.forEach((e, i) => {
    assert.equal(e.raw, `id: ${e.id}\ndata: ${e.text}\n\n`, 'one event: the id, the data, a blank line');
    ctx.assertEventRecord(e.record, { name, echo });
    assert.equal(e.record.response.event.cycle, i + 1);
    assert.equal(e.id, `${name}:${i + 1}`, 'the id: event name and cycle');
    assert.equal(e.text, JSON.stringify(e.record), 'the data: the compact record a comet line holds');
  });
  assert.ok(events[2].at - events[0].at >= 150, 'records arrived over time, not at once');
  assert.equal((await ctx.post('/event/clear', {})).json.clear.requests, 1);
  const last = await stream.next(2000);
  ctx.assertClearRecord(last.record, { echo });
  assert.equal(last.id, `${name}:3`, 'the clear record keeps the cursor');
  await stream.waitEnd(2000);
  assert.equal(stream.tail, '', 'nothing after the last blank line');
}

async function sseIds(ctx) {
  const [a, b] = [ctx.uniqueName('ida'), ctx.uniqueName('idb')];
  const stream = await TRANSPORTS.sse.open(ctx, [a, b, a]);
  await ctx.setEvent(a, 100);
  const first = await stream.next(1000 + ctx.SLACK);
  assert.deepEqual(first.record.request, { type: 'sse', events: [a, b, a] }, 'the echo keeps the list as sent');
  assert.equal(first.id, `${a}:1,${b}:0`, 'every subscribed name once, in order; one without a cycle yet at 0');
  await ctx.post('/event/remove', { name: a });
  await ctx.setEvent(b, 100);
  // a's cycles emitted before its removal may still be on the way: each moves a's place in the id
  let second = await stream.next(1000 + ctx.SLACK);
  let lastA = 1;
  while (second.record.response.event?.name === a) {
    lastA = second.record.response.event.cycle;
    assert.equal(second.id, `${a}:${lastA},${b}:0`);
    second = await stream.next(1000 + ctx.SLACK);
  }
  assert.equal(second.record.response.event.name, b);
  assert.equal(second.id, `${a}:${lastA},${b}:1`);
  stream.destroy();
}

const BAD_QUERIES = [
  ['no type', 'events=x'],
  ['type comet (it is POSTed)', 'type=comet&events=x'],
  ['type ws (it is an upgrade)', 'type=ws&events=x'],
  ['an unknown transport', 'type=carrier-pigeon&events=x'],
  ['type given twice', 'type=sse&type=sse&events=x'],
  ['no events', 'type=sse'],
  ['a bad event name', 'type=sse&events=a%20b'],
  ['an empty name in the list', 'type=sse&events=a,,b'],
  ['17 events', `type=sse&events=${Array.from({ length: 17 }, (_, i) => `e${i}`).join(',')}`],
  ['a malformed Last-Event-ID', 'type=sse&events=x', 'garbage'],
  ['a Last-Event-ID with a negative cycle', 'type=sse&events=x', 'x:-1'],
  ['a Last-Event-ID naming a name twice', 'type=sse&events=x', 'x:1,x:2'],
  ['a Last-Event-ID of 17 names', 'type=sse&events=x', Array.from({ length: 17 }, (_, i) => `e${i}:1`).join(',')],
];

async function sseBadQueries(ctx) {
  for (const [what, query, lastEventId] of BAD_QUERIES) {
    const answer = await openSse(ctx.base, query, { lastEventId });
    ctx.assertRejected({ status: answer.status, headers: answer.headers, json: JSON.parse(answer.body || 'null'), text: answer.body },
      400, what);
  }
  assert.equal((await ctx.status()).requests.sse, 0, 'no refused stream is held');
  await ctx.stillServing();
}

// ---- WebSocket only ------------------------------------------------------------------------------------

async function wsFraming(ctx) {
  const name = ctx.uniqueName('ws');
  const echo = { type: 'ws', events: [name] };
  const client = await TRANSPORTS.ws.open(ctx, [name]);
  assert.equal(client.records.length, 0, 'nothing before the first event: no acknowledgement');
  await ctx.setEvent(name, 150);
  const frames = [];
  for (let i = 0; i < 3; i++) frames.push(await client.next(1000 + ctx.SLACK));
  frames.forEach((f, i) => {
    assert.equal(f.binary, false, 'a text frame');
    ctx.assertEventRecord(f.record, { name, echo });
    assert.equal(f.record.response.event.cycle, i + 1);
    assert.equal(f.text, JSON.stringify(f.record), 'the payload: the compact record a comet line holds, no newline');
  });
  assert.equal((await ctx.post('/event/clear', {})).json.clear.requests, 1);
  const last = await client.next(2000);
  ctx.assertClearRecord(last.record, { echo });
  assert.deepEqual(await client.closing, { code: 1000, reason: 'clear' }, 'clear: close 1000 (normal closure)');
}

async function wsPing(ctx) {
  const client = await openWs(ctx.base);
  client.ws.ping('before');
  await waitUntil(() => client.pongs.length === 1, 2000, 'a pong');
  client.send(JSON.stringify({ type: 'ws', events: [ctx.uniqueName('ping')] }));
  client.ws.ping('after');
  await waitUntil(() => client.pongs.length === 2, 2000, 'a second pong');
  assert.deepEqual(client.pongs, ['before', 'after'], 'each pong carries its ping payload');
  assert.equal((await ctx.status()).requests.ws, 1, 'the ping did not end the stream');
  client.ws.close(1000);
  await client.closing;
}

// [what, the request's head, the status it gets]
const BAD_UPGRADES = [
  ['no Sec-WebSocket-Key', upgradeHead('/request', { headers: { 'Sec-WebSocket-Key': null } }), 400],
  ['a Sec-WebSocket-Key that is not 16 bytes', upgradeHead('/request', { headers: { 'Sec-WebSocket-Key': 'c2hvcnQ=' } }), 400],
  ['Sec-WebSocket-Version 8', upgradeHead('/request', { headers: { 'Sec-WebSocket-Version': '8' } }), 426],
  ['no Sec-WebSocket-Version', upgradeHead('/request', { headers: { 'Sec-WebSocket-Version': null } }), 426],
  ['a POST', upgradeHead('/request', { method: 'POST', headers: { 'Content-Length': '0' } }), 400],
  ['an upgrade to h2c (an unknown transport)', upgradeHead('/request', { headers: { Upgrade: 'h2c',
    Connection: 'Upgrade, HTTP2-Settings', 'HTTP2-Settings': 'AAMAAABkAARAAAAAAAIAAAAA' } }), 400],
  ['the upgrade of another known path', upgradeHead('/status'), 400],
  ['the upgrade of an unknown path', upgradeHead('/nowhere'), 404],
  ['a dot segment', upgradeHead('/x/../request'), 400],
  ['Upgrade without Connection: Upgrade', upgradeHead('/request', { headers: { Connection: 'close' } }), 400],
];

async function wsBadUpgrades(ctx) {
  for (const [what, head, status] of BAD_UPGRADES) {
    const started = Date.now();
    const reply = await rawExchange(ctx.base, head, 4000);
    const split = reply.indexOf('\r\n\r\n');
    assert.match(reply, new RegExp(`^HTTP/1\\.1 ${status} `), `${what}: ${reply.slice(0, 80)}`);
    assert.match(reply.slice(0, split), /\r\ncontent-type: application\/json/i, `${what}: a JSON answer`);
    assert.equal(JSON.parse(reply.slice(split + 4)).error.status, status, `${what}: the error body`);
    if (status === 426) assert.match(reply.slice(0, split), /\r\nSec-WebSocket-Version: 13\r\n/i, `${what}: names version 13`);
    assert.ok(Date.now() - started < 3000, `${what}: the server closed the connection`);
  }
  await ctx.stillServing();
}

// [what, the first message, the close code, how it is sent]: an error frame comes before each close but the
// last two, which break the framing itself (ws and RFC 6455 close at once).
const BAD_SUBSCRIPTIONS = [
  ['not JSON', '{"type":', 1008],
  ['an unknown transport (type comet)', JSON.stringify({ type: 'comet', events: [] }), 1008],
  ['type sse', JSON.stringify({ type: 'sse', events: [] }), 1008],
  ['no type', JSON.stringify({ events: [] }), 1008],
  ['a bad event name', JSON.stringify({ type: 'ws', events: ['a b'] }), 1008],
  ['17 events', JSON.stringify({ type: 'ws', events: Array.from({ length: 17 }, (_, i) => `e${i}`) }), 1008],
  ['a bad cursor', JSON.stringify({ type: 'ws', events: ['x'], cursor: { x: -1 } }), 1008],
  ['not an object', '[1,2]', 1008],
  ['a binary message', Buffer.from(JSON.stringify({ type: 'ws', events: [] })), 1003],
  ['a text message that is not UTF-8', Buffer.from([0x7b, 0xff, 0x7d]), 1007, { binary: false }],
  ['an unmasked frame', JSON.stringify({ type: 'ws', events: [] }), 1002, { mask: false }],
];

async function wsBadSubscriptions(ctx) {
  for (const [what, message, code, options] of BAD_SUBSCRIPTIONS) {
    const client = await openWs(ctx.base);
    client.send(message, options);
    assert.equal((await client.closing).code, code, what);
    if (options) continue;
    assert.equal(client.records.length, 1, `${what}: one error frame before the close`);
    assert.equal(client.records[0].record.error.status, 400, `${what}: ${client.records[0].text}`);
  }
  const twice = await TRANSPORTS.ws.open(ctx, [ctx.uniqueName('twice')]);
  twice.send(JSON.stringify({ type: 'ws', events: ['another'] }));
  assert.equal((await twice.closing).code, 1008, 'a second message');
  assert.equal(twice.records.at(-1).record.error.status, 400);
  await waitUntil(async () => (await ctx.status()).requests.ws === 0, 2000, 'no refused stream held');
  await ctx.stillServing();
}

async function wsOversize(ctx) {
  const fits = JSON.stringify({ type: 'ws', events: ['x'], pad: '' });
  const exactly = fits.replace('"pad":""', `"pad":"${'p'.repeat(16384 - Buffer.byteLength(fits))}"`);
  const taken = await openWs(ctx.base);
  taken.send(exactly);
  await waitUntil(async () => (await ctx.status()).requests.ws === 1, 2000, 'a subscription of 16384 bytes to be taken');
  taken.destroy();
  const one = await openWs(ctx.base);
  one.send(`${exactly} `);
  assert.equal((await one.closing).code, 1009, 'one frame of 16385 bytes: close 1009 (message too big)');
  const parts = await openWs(ctx.base);
  parts.send('p'.repeat(9000), { fin: false });
  parts.send('p'.repeat(9000), { fin: true });
  assert.equal((await parts.closing).code, 1009, 'a message of two frames over 16384 bytes: close 1009');
  await ctx.stillServing();
}

async function wsLate(ctx) {
  const lateBefore = (await ctx.status()).bodies.late;
  const client = await openWs(ctx.base);
  const started = Date.now();
  const { deadline } = ctx.settings;
  const closed = await Promise.race([client.closing, new Promise((r) => setTimeout(() => r(null), deadline + ctx.SLACK + 2000))]);
  assert.ok(closed, 'closed at the body deadline');
  assert.equal(closed.code, 1008);
  assert.ok(Date.now() - started >= deadline - 50, `not before the deadline (${Date.now() - started} ms)`);
  assert.equal(client.records[0].record.error.status, 408);
  assert.equal((await ctx.status()).bodies.late, lateBefore + 1, '/status counts it in bodies.late');
  await ctx.stillServing();
}

async function sseAllowed(ctx) {
  const answer = await ctx.request('PUT', '/request');
  ctx.assertRejected(answer, 405, 'PUT /request');
  assert.deepEqual(String(answer.headers.allow).split(/,\s*/).sort(), ['GET', 'POST'], 'Allow names POST and GET');
}

// HEAD of a GET endpoint is its head without the body; of an SSE subscription the stream's head with
// nothing held (or the 400 a GET would get); of a POST-only endpoint, 405.
async function headAnswers(ctx) {
  const name = `cf-head-${Date.now().toString(16)}`;
  const before = (await ctx.status()).requests.sse;
  const stream = await ctx.request('HEAD', `/request?type=sse&events=${name}`, { timeoutMs: 5000 });
  assert.equal(stream.status, 200, 'HEAD of an SSE subscription');
  assert.match(String(stream.headers['content-type']), /^text\/event-stream/);
  assert.equal(stream.text, '', 'no body');
  assert.equal((await ctx.status()).requests.sse, before, 'nothing held');
  const badQuery = await ctx.request('HEAD', '/request?type=sse&events=a,,b');
  assert.equal(badQuery.status, 400, 'a bad query: the 400 a GET gets');
  for (const path of ['/timestamp', '/status']) {
    const head = await ctx.request('HEAD', path);
    assert.equal(head.status, 200, `HEAD ${path}`);
    assert.match(String(head.headers['content-type']), /^application\/json/, `HEAD ${path}`);
    assert.equal(head.text, '', `HEAD ${path}: no body`);
  }
  const postOnly = await ctx.request('HEAD', '/event/set');
  assert.equal(postOnly.status, 405, 'HEAD of a POST-only endpoint');
  await ctx.stillServing();
}

// ---- a transport the server does not speak: refused as the protocol says --------------------------------

async function wsRefused(ctx) {
  const reply = await rawExchange(ctx.base, upgradeHead('/request'), 4000);
  const split = reply.indexOf('\r\n\r\n');
  assert.match(reply, /^HTTP\/1\.1 400 /, `a WebSocket upgrade: ${reply.slice(0, 80)}`);
  assert.match(reply.slice(0, split), /\r\nconnection: close\r\n/i, 'the connection ends with the answer');
  const body = JSON.parse(reply.slice(split + 4));
  assert.equal(body.error.status, 400);
  assert.match(body.error.message, /does not speak WebSocket/);
  const asked = await ctx.get('/request?type=ws&events=x');
  ctx.assertRejected(asked, 400, 'GET /request?type=ws');
  assert.equal((await ctx.status()).requests.ws, 0, 'no WebSocket is held');
  await ctx.stillServing();
}

// ---- one emit cycle over comet and every stream transport the server speaks ------------------------------

// A comet stream and one stream of each other transport the server speaks, subscribed to `name`, once the
// server counts them all (a stream's head may reach its client a moment before the server counts it).
async function subscribeEverywhere(ctx, name) {
  const spoken = ['sse', 'ws'].filter((transport) => ctx.speaks.includes(transport));
  const comet = await openStream(ctx.base, { type: 'comet', events: [name] });
  const streams = [];
  for (const transport of spoken) streams.push(await TRANSPORTS[transport].open(ctx, [name]));
  const total = 1 + streams.length;
  await waitUntil(async () => (await ctx.status()).requests.open === total, 3000, 'every stream to be counted');
  return { spoken, comet, streams, total };
}

async function oneCycleEverywhere(ctx) {
  const name = ctx.uniqueName('all');
  const { spoken, comet, streams, total } = await subscribeEverywhere(ctx, name);
  assert.deepEqual((await ctx.status()).requests, { open: total, comet: 1, poll: 0, sse: spoken.includes('sse') ? 1 : 0,
    ws: spoken.includes('ws') ? 1 : 0 });
  await ctx.setEvent(name, 200);
  const records = [(await comet.nextLine(1000 + ctx.SLACK)).record];
  for (const stream of streams) records.push((await stream.next(1000 + ctx.SLACK)).record);
  const events = records.map((r) => r.response.event);
  assert.ok(events.every((e) => e.cycle === 1 && e.connections.total === total), JSON.stringify(events));
  assert.equal(new Set(events.map((e) => e.timings.created)).size, 1, 'one cycle, one start');
  assert.deepEqual(events.map((e) => e.connections.place).sort(), Array.from({ length: total }, (_, i) => i + 1),
    `places 1..${total} once each`);
  [comet, ...streams].forEach((s) => s.destroy());
}

// ---- POST /event/publish: one emit cycle of a name now, to every transport (issue #47) --------------------

// A publish reaches a comet, an SSE and (where spoken) a WebSocket subscriber of its name once each, with its
// data, in one cycle; ids count from 1 for a name without an emitter; no emitter is created.
async function publishReachesEveryone(ctx) {
  const name = ctx.uniqueName('pub');
  const { spoken, comet, streams, total } = await subscribeEverywhere(ctx, name);
  const data = { seq: 1, sentUs: 1700000000000123, text: 'é "q"', list: [1, true, null] };
  const first = await ctx.post('/event/publish', { name, data });
  ctx.assertJson(first);
  assert.deepEqual(first.json, { event: { name, cycle: 1, published: true } });
  ctx.assertNormal(first.text, 'a publish answer');
  const second = await ctx.post('/event/publish', { name });
  assert.deepEqual(second.json, { event: { name, cycle: 2, published: true } });
  const all = [comet, ...streams];
  const echoes = [{ type: 'comet', events: [name] }, ...spoken.map((t) => TRANSPORTS[t].echo([name]))];
  const firsts = [];
  for (const [i, stream] of all.entries()) {
    const next = () => (i === 0 ? stream.nextLine(1000 + ctx.SLACK) : stream.next(1000 + ctx.SLACK));
    const one = (await next()).record;
    const two = (await next()).record;
    ctx.assertEventRecord(one, { name, echo: echoes[i] });
    ctx.assertEventRecord(two, { name, echo: echoes[i] });
    assert.deepEqual(Object.keys(one.response.event), ['name', 'cycle', 'data', 'timings', 'connections'], 'data after the cycle id');
    assert.equal(one.response.event.cycle, 1);
    assert.deepEqual(one.response.event.data, data, 'the published data, as given');
    assert.equal(two.response.event.cycle, 2);
    assert.ok(!('data' in two.response.event), 'a publish without data: no data');
    firsts.push(one.response.event);
  }
  assert.ok(firsts.every((e) => e.connections.total === total), JSON.stringify(firsts));
  assert.equal(new Set(firsts.map((e) => e.timings.created)).size, 1, 'one cycle, one start');
  assert.deepEqual(firsts.map((e) => e.connections.place).sort(), Array.from({ length: total }, (_, i) => i + 1));
  // nothing more: one record per publish
  await assert.rejects(comet.nextLine(300), 'no third record on the comet stream');
  assert.equal((await ctx.status()).events.find((e) => e.name === name), undefined, 'no emitter created');
  all.forEach((st) => st.destroy());
}

// With an emitter of the name, a publish takes the emitter's next id and the emitter continues after it.
async function publishContinuesTheEmitter(ctx) {
  const name = ctx.uniqueName('pubemit');
  const comet = await openStream(ctx.base, { type: 'comet', events: [name] });
  await ctx.setEvent(name, 300);
  assert.equal((await comet.nextLine(1000 + ctx.SLACK)).record.response.event.cycle, 1);
  const published = await ctx.post('/event/publish', { name, data: 'x' });
  assert.equal(published.status, 200, published.text);
  const id = published.json.event.cycle;
  assert.ok(id >= 2, `the emitter's numbering: ${published.text}`);
  const seen = [];
  while (!seen.includes(id + 1)) seen.push((await comet.nextLine(1000 + ctx.SLACK)).record.response.event.cycle);
  assert.deepEqual(seen, Array.from({ length: id }, (_, i) => i + 2), 'every id once, in order: the publish\'s among the emitter\'s');
  comet.destroy();
}

// PB_MAX_EMITTERS bounds emitters, not publishes: more names than the cap are published to.
async function publishBeyondTheCap(ctx) {
  const names = Array.from({ length: ctx.settings.maxEmitters + 2 }, (_, i) => ctx.uniqueName(`pubcap${i}`));
  for (const name of names) {
    const answer = await ctx.post('/event/publish', { name, data: 1 });
    assert.equal(answer.status, 200, answer.text);
    assert.equal(answer.json.event.cycle, 1);
  }
  assert.equal((await ctx.status()).events.length, 0, 'no emitter created');
  await ctx.stillServing();
}

// Bad bodies are 400 with the error body, as for /event/set; GET is 405.
async function publishBadBodies(ctx) {
  for (const body of ['{"name":', '[]', '"a"', { name: 'bad name' }, { name: '' }, { name: 'x'.repeat(65) }, { data: 1 },
    { name: 5 }, '']) {
    ctx.assertRejected(await ctx.post('/event/publish', body), 400, `POST /event/publish ${JSON.stringify(body)}`);
  }
  const asGet = await ctx.get('/event/publish');
  ctx.assertRejected(asGet, 405, 'GET /event/publish');
  assert.equal(asGet.headers.allow, 'POST');
  await ctx.stillServing();
}

// { needs, refuses, name, body(ctx) }: per transport, or once for several.
const perTransport = (title, run) => ['sse', 'ws'].map((transport) => ({
  needs: [transport], name: `${TRANSPORTS[transport].label}: ${title}`, body: (ctx) => run(ctx, TRANSPORTS[transport], transport),
}));
const streamCases = ({ deadline, replay }) => [
  { needs: ['sse'], name: 'SSE: 200 text/event-stream at once, one event per record (id name:cycle, data the record), the clear record ends it', body: sseFraming },
  { needs: ['sse'], name: 'SSE: the id names every subscribed event in order, with its last cycle', body: sseIds },
  { needs: ['sse'], name: 'SSE: a bad query or Last-Event-ID is a 400 error body (unknown transport, names, cursor)', body: sseBadQueries },
  { needs: ['sse'], name: 'SSE: a wrong method on /request is 405 with Allow: POST, GET', body: sseAllowed },
  { needs: ['sse'], name: 'HEAD: a GET endpoint\'s head without its body; an SSE subscription\'s head, nothing held; 405 on a POST-only endpoint', body: headAnswers },
  { needs: ['ws'], name: 'WebSocket: the first message subscribes; one text frame per record; clear closes 1000', body: wsFraming },
  { needs: ['ws'], name: 'WebSocket: a ping is answered with its pong, before and after the subscription', body: wsPing },
  { needs: ['ws'], name: 'WebSocket: a malformed upgrade, or one to another protocol, is refused with its status and closed', body: wsBadUpgrades },
  { needs: ['ws'], name: 'WebSocket: a bad, binary or second subscription gets an error frame and close 1008 / 1003; bad framing 1007 / 1002', body: wsBadSubscriptions },
  { needs: ['ws'], name: 'WebSocket: a message over 16 KiB, in one frame or several, is closed 1009; 16384 bytes is taken', body: wsOversize },
  { needs: ['ws'], name: `WebSocket: no subscription within the body deadline (${deadline} ms): error 408, close 1008, counted late`, body: wsLate },
  ...perTransport('resumed after its cursor, the missed cycles come again in order, then the live ones', resumeWithinBound),
  ...perTransport(`beyond the replay bound (PB_REPLAY_CYCLES ${replay}) one gap record, then the last N cycles`, resumeBeyondBound),
  ...perTransport('a client that never reads is cut and counted in /status; the others get every record on time', neverReading),
  ...perTransport('a held stream counts in /status and connections; a client that leaves is removed', heldAndGone),
  { needs: ['sse'], name: 'comet streams and every stream transport the server speaks share one emit cycle: one start, places 1..n', body: oneCycleEverywhere },
  { needs: ['sse'], name: 'publish: one cycle now to every comet, SSE and WebSocket subscriber of the name, once, with its data; no emitter', body: publishReachesEveryone },
  { name: 'publish: with an emitter of the name, the emitter\'s next id; the emitter continues after it', body: publishContinuesTheEmitter },
  { name: 'publish: PB_MAX_EMITTERS does not apply (no emitter is created)', body: publishBeyondTheCap },
  { name: 'publish: a bad body is 400 with the error body; GET is 405', body: publishBadBodies },
  { refuses: ['ws'], name: 'a server without WebSocket refuses the upgrade: 400 error body saying so, Connection: close', body: wsRefused },
];

// The group suite.js registers; settings: the server's (ctx.settings), which some case names state.
const streamGroup = (settings) => ({ name: 'Server-Sent Events and WebSocket (issue #38)', cases: streamCases(settings) });

module.exports = { streamGroup, TRANSPORTS };
