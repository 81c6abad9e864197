'use strict';
// SSE clients across reconnections (docs/protocol.md "Replay and gaps", analysis/measure/collect.js): the
// mux engine's stream log of two clients whose first streams break and whose second resume with
// Last-Event-ID, read by the archive measures. One gets the cycle it missed as a replay record, the other
// a gap record beyond the replay bound, then a replay. Received / unique / missed are counted per client
// over its streams (a replay is a message, a gap's cycles are missed), trip times come from live event
// records only (a replayed cycle is no second sample), and the records of every kind are read (none bad).
// WebSocket clients (issue #38: a stream resumed with its subscription's cursor) are counted the same way,
// under `ws`: the same log with ws requests and 101 answers.
const test = require('node:test');
const assert = require('node:assert/strict');
const fs = require('node:fs');
const path = require('node:path');
const zlib = require('node:zlib');
const tar = require('tar');
const { readArchive } = require('../read/responses');
const { ArchiveMeasures } = require('../measure/archive-measures');
const { deliveredMessages } = require('../stage/messages');
const { scratchDir } = require('./helpers');

const T0 = 1_700_000_000_000;   // ms
const us = (ms) => String(Math.round(ms * 1000));
const created = (cycle) => T0 + cycle * 1000;
let transport = 'sse';   // the requests' type in logText (each test sets it)
const request = (cursor) => ({ type: transport, events: ['event1'], ...(cursor ? { cursor: { event1: cursor } } : {}) });
const head = (sent, at, cursor) => ({ request: request(cursor), timings: { duration: sent - at, sent, created: at },
  connections: { start: 2, finish: 2 } });
const event = (cycle, at, cursor) => JSON.stringify({ response: { event: { name: 'event1', cycle, timings: { duration: 2,
  sent: created(cycle) + 2, created: created(cycle) }, connections: { total: 2, place: 1 } } }, ...head(created(cycle) + 2, at, cursor) });
const replay = (cycle, at, cursor) => JSON.stringify({ response: { replay: { name: 'event1', cycle, timings: { duration: at + 1 - created(cycle),
  sent: at + 1, created: created(cycle) } } }, ...head(at + 1, at, cursor) });
const gap = (from, to, at, cursor) => JSON.stringify({ response: { gap: { name: 'event1', from, to, skipped: to - from + 1 } },
  ...head(at + 1, at, cursor) });
const clear = (at, cursor) => JSON.stringify({ response: { clear: { reason: 'clear' } }, ...head(T0 + 5500, at, cursor) });
const ok = (id, atMs, records) => ['E', us(atMs), id, transport === 'ws' ? '101' : '200', '1', String(records), '900', '0', us(T0), 'OK', '', us(T0)];
const cut = (id, atMs, records) => ['E', us(atMs), id, 'Non HTTP response code: java.io.EOFException', '0', String(records), '900', '40', us(T0),
  'Non HTTP response message: Premature end of chunk coded message body', 'java.io.EOFException', us(T0)];

// Client 1-1: cycles 1, 2 live, its stream breaks; resumed at 3.5 s with cursor 2: cycle 3 replayed, 4 and 5 live.
// Client 1-2: cycle 1 live, its stream breaks; resumed at 4.2 s with cursor 1 beyond the bound: a gap of 2..3,
// cycle 4 replayed, 5 live. Both end at the clear (5.5 s).
function logText() {
  const a1 = T0 + 500;
  const a2 = T0 + 3500;
  const b2 = T0 + 4200;
  return [
    ['B', us(T0), '1', 'Request 1-1', 'request'], ['B', us(T0), '2', 'Request 1-2', 'request'],
    ['R', us(created(1) + 3), '1', event(1, a1)], ['R', us(created(1) + 3), '2', event(1, a1)],
    ['R', us(created(2) + 3), '1', event(2, a1)],
    cut('2', T0 + 2300, 1), cut('1', T0 + 2500, 2),
    ['B', us(a2 - 1), '3', 'Request 1-1', 'request'],
    ['R', us(a2 + 2), '3', replay(3, a2, 2)],
    ['B', us(b2 - 1), '4', 'Request 1-2', 'request'],
    ['R', us(b2 + 2), '4', gap(2, 3, b2, 1)], ['R', us(b2 + 2), '4', replay(4, b2, 1)],
    ['R', us(created(4) + 3), '3', event(4, a2, 2)],
    ['R', us(created(5) + 3), '3', event(5, a2, 2)], ['R', us(created(5) + 3), '4', event(5, b2, 1)],
    ['R', us(T0 + 5502), '3', clear(a2, 2)], ['R', us(T0 + 5502), '4', clear(b2, 1)],
    ok('3', T0 + 5502, 4), ok('4', T0 + 5502, 4),
  ].map((f) => f.join('\t') + '\n').join('');
}

async function archive() {
  const dir = scratchDir();
  const src = path.join(dir, 'src');
  fs.mkdirSync(src, { recursive: true });
  fs.writeFileSync(path.join(src, 'push-1.tsv.gz'), zlib.gzipSync(logText()));
  const file = path.join(dir, 'local.tar.gz');
  await tar.c({ gzip: true, file, cwd: src }, ['push-1.tsv.gz']);
  return file;
}

for (const type of ['sse', 'ws']) test(`${type === 'sse' ? 'SSE' : 'WebSocket'} clients: messages counted across reconnections, replays once, gaps missed, trip times live only`, async () => {
  transport = type;
  const other = type === 'sse' ? 'ws' : 'sse';
  const m = new ArchiveMeasures(T0);
  const stats = await readArchive(await archive(), m.visitor);
  assert.equal(stats.badLines, 0, 'replay and gap records are records');
  assert.equal(stats.byKind.request, 4);
  const { col, cometTrips } = m.result();
  assert.deepEqual({ [type]: col.counts[type], [other]: col.counts[other], replays: col.counts.replays, gaps: col.counts.gaps, events: col.counts.events, comet: col.counts.comet },
    { [type]: 4, [other]: 0, replays: 2, gaps: 1, events: 6, comet: 0 });
  assert.equal(col.resumedClients.length, 2);
  assert.equal(col.cycles.get('event1#3').requests, 0, 'a replayed cycle is known, but reached no request live');
  assert.equal(col.cycles.get('event1#3').created, created(3));
  assert.equal(col.cycles.get('event1#5').requests, 2);

  const messages = deliveredMessages(col);
  assert.equal(messages[other], undefined, `no ${other} clients`);
  assert.deepEqual(messages[type], { clients: 2, streams: 4, received: 8, unique: 8, duplicates: 0, expected: 10, missed: 2,
    receivedPercent: 80, replays: 2, gapSkipped: 2 });
  assert.equal(deliveredMessages(col).comet.streams, 0, 'no comet streams');

  const engine = cometTrips.engines.get('local');
  assert.equal(engine.count, 6, 'a trip time for each live event record, none for a replay');
});

test('the same cycle twice on one client (a replay of one it got live) counts once', async () => {
  transport = 'sse';
  const { Collector } = require('../measure/collect');
  const c = new Collector(T0);
  const st = { name: 'request_1.push', kind: 'request', engine: 'e', thread: 'Request 1-1', records: 0 };
  const again = { ...st, name: 'request_2.push', records: 0 };
  st.records = 1;
  c.record(JSON.parse(replay(3, T0 + 3500, 2)), 'replay', st);
  c.endStream(st);
  again.records = 1;
  c.record(JSON.parse(replay(3, T0 + 3600, 2)), 'replay', again);
  c.endStream(again);
  const [client] = c.result().resumedClients;
  assert.equal(client.received, 2);
  assert.equal(client.uniqueByEvent.event1, 1);
  assert.equal(client.streams, 2);
});
