'use strict';
// The SSE and WebSocket streams of issue #38 (docs/protocol.md "Server-Sent Events", "Replay and gaps",
// "Clients that do not read"), without sockets: the SSE event writer, the replay bound and its gap record,
// the stream's ids, and the cut of a stream whose client does not read.
const test = require('node:test');
const assert = require('node:assert/strict');
const { StreamRequest, wholeSetting } = require('../stream-request');
const { sseChannel, sseEvent } = require('../sse');
const { PullHistory } = require('../pull');
const { RequestPool } = require('../request-pool');
const { eventRecord, cycleHead, replayRecord, gapRecord } = require('../records');
const { FakeResponse } = require('./fake-response');
const { quietLog } = require('./helpers');

// A channel that keeps what it was given: [{ text, id }], the end, and a backlog a test sets.
function recordingChannel() {
  return {
    ids: true, sent: [], ended: null, waiting: 0, cuts: 0,
    open() { this.opened = true; },
    send(text, id) { this.sent.push({ text, id, record: JSON.parse(text) }); },
    end(text, id, reason) { this.ended = { text, id, reason }; },
    backlog() { return this.waiting; },
    cut() { this.cuts++; },
  };
}

const cycleOf = (name, id, created) => { const c = { name, id, created }; c.head = cycleHead(c); return c; };
// Parses an SSE text into events: [{ id, data }] (the fields this server writes).
const sseEvents = (text) => text.split('\n\n').filter(Boolean).map((block) => {
  const event = {};
  for (const line of block.split('\n')) {
    const colon = line.indexOf(':');
    event[line.slice(0, colon)] = line.slice(colon + 2);
  }
  return event;
});

function openStream({ echo, history = new PullHistory(), replayCycles = 100, channel = recordingChannel(), backlogBytes } = {}) {
  const pool = new RequestPool();
  let dropped = 0;
  const stream = new StreamRequest({ echo, channel, pool, log: quietLog(), created: 1000, backlogBytes,
    onDropped: () => { dropped++; } });
  stream.open(history, replayCycles);
  return { stream, pool, channel, dropped: () => dropped };
}

test('SSE event writer: the head at once, then one event per record: id, then data exactly the comet line', () => {
  const res = new FakeResponse();
  const echo = { type: 'sse', events: ['e1', 'e2'] };
  const { stream } = openStream({ echo, channel: sseChannel(res) });
  assert.equal(res.status, 200);
  assert.deepEqual(res.headers, { 'Content-Type': 'text/event-stream', 'Cache-Control': 'no-cache' });
  const cycle = cycleOf('e1', 7, 1500);
  stream.deliver(cycle, 2, 3);
  const [event] = sseEvents(res.chunks.join(''));
  assert.deepEqual(Object.keys(event), ['id', 'data'], 'no event: field; every record is a message event');
  assert.equal(event.id, 'e1:7,e2:0', 'the id: the stream cursor, every subscribed name in subscription order');
  const record = JSON.parse(event.data);
  assert.equal(event.data, JSON.stringify(eventRecord(stream, cycle, 2, 3, record.timings.sent, 1)),
    'data is the event record byte for byte, as a comet line without its newline');
  assert.equal(res.chunks.join(''), sseEvent(event.data, event.id));
  assert.equal(sseEvent('{}', 'a:1'), 'id: a:1\ndata: {}\n\n');
  stream.clear('clear');
  const events = sseEvents(res.chunks.join(''));
  assert.equal(events.length, 2);
  assert.deepEqual(JSON.parse(events[1].data).response, { clear: { reason: 'clear' } });
  assert.equal(events[1].id, 'e1:7,e2:0', 'the clear record keeps the cursor');
  assert.ok(res.ended);
  assert.equal(stream.deliver(cycleOf('e1', 8, 1600), 1, 1), false, 'nothing is written after the end');
  assert.equal(res.writesAfterEnd, 0);
});

test('a new stream starts after the latest cycle of each name; ids follow each record', () => {
  const history = new PullHistory();
  history.record({ name: 'a', id: 4, created: 400 });
  const { stream, channel } = openStream({ echo: { type: 'sse', events: ['a', 'b', 'a'] }, history });
  assert.equal(stream.idText(), 'a:4,b:0');
  assert.deepEqual(channel.sent, [], 'no cursor: nothing is replayed');
  stream.deliver(cycleOf('b', 1, 500), 1, 1);
  stream.deliver(cycleOf('a', 5, 600), 1, 1);
  assert.deepEqual(channel.sent.map((s) => s.id), ['a:4,b:1', 'a:5,b:1']);
});

test('replay bound: the last N cycles after the cursor again, the rest as one gap record, then the live cycles', () => {
  const history = new PullHistory();
  for (let id = 1; id <= 10; id++) history.record({ name: 'a', id, created: id * 100 });
  for (let id = 1; id <= 2; id++) history.record({ name: 'b', id, created: id * 100 + 50 });
  const echo = { type: 'sse', events: ['a', 'b'], cursor: { a: 2, b: 1 } };
  const { stream, channel } = openStream({ echo, history, replayCycles: 3 });
  const kinds = channel.sent.map(({ record }) => Object.keys(record.response)[0]);
  assert.deepEqual(kinds, ['gap', 'replay', 'replay', 'replay', 'replay']);
  assert.deepEqual(channel.sent[0].record.response.gap, { name: 'a', from: 3, to: 7, skipped: 5 });
  assert.deepEqual(channel.sent.slice(1).map(({ record }) => `${record.response.replay.name}#${record.response.replay.cycle}`),
    ['a#8', 'a#9', 'a#10', 'b#2']);
  assert.deepEqual(channel.sent.map((s) => s.id), ['a:7,b:1', 'a:8,b:1', 'a:9,b:1', 'a:10,b:1', 'a:10,b:2']);
  const replay = channel.sent[1].record;
  assert.deepEqual(replay.request, echo, 'the echo carries the cursor the stream resumed at');
  assert.equal(replay.response.replay.timings.created, 800);
  assert.equal(replay.response.replay.timings.duration, replay.response.replay.timings.sent - 800);
  assert.equal(replay.response.replay.connections, undefined, 'a replayed cycle is in no snapshot');
  stream.deliver(cycleOf('a', 11, 1100), 1, 1);
  assert.equal(channel.sent.at(-1).record.response.event.cycle, 11);
  for (const { text } of channel.sent) assert.doesNotMatch(text, /error|timeout/);
});

test('replay bound 0: every missed cycle is a gap; a cursor at or past the latest misses nothing', () => {
  const history = new PullHistory();
  for (let id = 1; id <= 4; id++) history.record({ name: 'a', id, created: id });
  const none = openStream({ echo: { type: 'ws', events: ['a'], cursor: { a: 1 } }, history, replayCycles: 0 });
  assert.deepEqual(none.channel.sent.map((s) => s.record.response), [{ gap: { name: 'a', from: 2, to: 4, skipped: 3 } }]);
  for (const cursor of [4, 9]) {
    const caughtUp = openStream({ echo: { type: 'ws', events: ['a'], cursor: { a: cursor } }, history, replayCycles: 0 });
    assert.deepEqual(caughtUp.channel.sent, [], `cursor ${cursor}`);
  }
  const all = openStream({ echo: { type: 'ws', events: ['a'], cursor: { a: 1 } }, history, replayCycles: 5 });
  assert.deepEqual(all.channel.sent.map((s) => s.record.response.replay.cycle), [2, 3, 4], 'within the bound: no gap');
});

test('history.replay: the bound never passes what the history keeps; restarted ids start over', () => {
  const history = new PullHistory({ keep: 4 });
  for (let id = 1; id <= 10; id++) history.record({ name: 'a', id, created: id });
  const { cycles, gap } = history.replay('a', 0, 100);
  assert.deepEqual(cycles.map((c) => c.id), [7, 8, 9, 10]);
  assert.deepEqual(gap, { from: 1, to: 6 });
  assert.deepEqual(history.replay('nothing', 3, 10), { cycles: [], gap: null });
  history.record({ name: 'a', id: 1, created: 99 });
  assert.deepEqual(history.replay('a', 0, 10), { cycles: [{ id: 1, created: 99 }], gap: null });
});

test('replay and gap records: the envelope of every record, neither word of the substring rule', () => {
  const request = { echo: { type: 'sse', events: ['a'], cursor: { a: 1 } }, created: 1000, start: 3 };
  assert.deepEqual(replayRecord(request, 'a', { id: 2, created: 1100 }, 1500, 4), {
    response: { replay: { name: 'a', cycle: 2, timings: { duration: 400, sent: 1500, created: 1100 } } },
    request: request.echo, timings: { duration: 500, sent: 1500, created: 1000 }, connections: { start: 3, finish: 4 },
  });
  assert.deepEqual(gapRecord(request, 'a', 2, 5, 1500, 4).response, { gap: { name: 'a', from: 2, to: 5, skipped: 4 } });
});

test('a client that does not read: past the backlog bound the stream is cut, counted, and never written again', () => {
  const channel = recordingChannel();
  const { stream, pool, dropped } = openStream({ echo: { type: 'ws', events: ['a'] }, channel, backlogBytes: 1000 });
  channel.waiting = 1000;
  stream.deliver(cycleOf('a', 1, 10), 1, 1);
  assert.equal(channel.cuts, 0, 'at the bound: kept');
  channel.waiting = 1001;
  stream.deliver(cycleOf('a', 2, 20), 1, 1);
  assert.equal(channel.cuts, 1);
  assert.equal(dropped(), 1);
  assert.equal(pool.size, 0, 'out of the pool: the next cycles do not reach it');
  assert.equal(stream.deliver(cycleOf('a', 3, 30), 1, 1), false);
  assert.equal(stream.clear('clear'), false, 'no last record for a cut stream');
  assert.equal(channel.sent.length, 2);
  assert.equal(channel.ended, null);
});

test('an SSE stream over a response that does not drain is cut: the response destroyed', () => {
  const res = new FakeResponse();
  const { stream, dropped } = openStream({ echo: { type: 'sse', events: ['a'] }, channel: sseChannel(res), backlogBytes: 10 });
  res.writableLength = 11;
  stream.deliver(cycleOf('a', 1, 10), 1, 1);
  assert.ok(res.destroyed);
  assert.equal(dropped(), 1);
});

test('settings: a whole number within its range, else the default', () => {
  assert.equal(wholeSetting('5', 0, 1024, 100), 5);
  assert.equal(wholeSetting(' 0 ', 0, 1024, 100), 0);
  for (const raw of [undefined, '', '-1', '1025', '2.5', 'ten', '1e3']) assert.equal(wholeSetting(raw, 0, 1024, 100), 100, String(raw));
});

test('one parser: the analysis reads an SSE event\'s data and a WebSocket frame as it reads a comet line', () => {
  const { EventRecordReader, EventFields } = require('../../analysis/read/record-bytes');
  const cycle = cycleOf('event1', 17, 1700000000120);
  for (const type of ['sse', 'ws']) {
    const res = new FakeResponse();
    const channel = type === 'sse' ? sseChannel(res) : recordingChannel();
    const { stream } = openStream({ echo: { type, events: ['event1'] }, channel });
    stream.deliver(cycle, 12, 5000);
    const text = type === 'sse' ? sseEvents(res.chunks.join(''))[0].data : channel.sent[0].text;
    const bytes = Buffer.from(`${text}\n`);
    const fields = new EventFields();
    assert.equal(new EventRecordReader().read(bytes, 0, bytes.length - 1, fields), true, `${type}: the byte reader takes it`);
    assert.equal(fields.name, 'event1');
    assert.equal(fields.cycle, 17);
    assert.equal(fields.place, 12);
    assert.deepEqual(fields.request, { type, events: ['event1'] });
  }
});
