'use strict';
// analysis/tools/stream-loss.js on a WebSocket run directory made here in the real formats (the mux engine's
// stream log in responses/local.tar.gz, a Tomcat sut/server.log, a /status log): four clients over five emit
// cycles, one whole, one with a hole inside its live stream, one whose stream broke and resumed beyond the
// replay bound (a gap record, then a replay), and one the final cycle (cut short by the clear) never reached;
// a fifth subscription was refused as late (408, close 1008);
// the server's JVM stood still twice (sut/gc.log).
// The tool places each missing message (in-stream, across the reconnection, with the E line's failure and the
// resumed cursor), counts the replayed cycle as late, leaves the final cut out, reads the server's warnings
// and counters, and its net count is the analysis's own (stage/messages.js on the same archive).
const test = require('node:test');
const assert = require('node:assert/strict');
const fs = require('node:fs');
const path = require('node:path');
const zlib = require('node:zlib');
const tar = require('tar');
const { streamLoss, placeOf } = require('../tools/stream-loss');
const { readArchive } = require('../read/responses');
const { ArchiveMeasures } = require('../measure/archive-measures');
const { deliveredMessages } = require('../stage/messages');
const { scratchDir } = require('./helpers');

const T0 = 1_700_000_000_000;   // ms, server clock; the engine's runs 2 ms ahead
const AHEAD = 2;
const us = (ms) => String(Math.round((ms + AHEAD) * 1000));
const created = (cycle) => T0 + cycle * 1000;
const request = (cursor) => ({ type: 'ws', events: ['event1'], ...(cursor ? { cursor: { event1: cursor } } : {}) });
const head = (sent, at, cursor) => ({ request: request(cursor), timings: { duration: sent - at, sent, created: at }, connections: { start: 4, finish: 4 } });
const TOTAL = { 1: 4, 2: 4, 3: 3, 4: 3, 5: 4 };   // each cycle's snapshot
const event = (cycle, at, cursor) => JSON.stringify({ response: { event: { name: 'event1', cycle, timings: { duration: 2, sent: created(cycle) + 2,
  created: created(cycle) }, connections: { total: TOTAL[cycle], place: 1 } } }, ...head(created(cycle) + 2, at, cursor) });
const replay = (cycle, at, cursor) => JSON.stringify({ response: { replay: { name: 'event1', cycle, timings: { duration: at + 1 - created(cycle),
  sent: at + 1, created: created(cycle) } } }, ...head(at + 1, at, cursor) });
const gap = (from, to, at, cursor) => JSON.stringify({ response: { gap: { name: 'event1', from, to, skipped: to - from + 1 } }, ...head(at + 1, at, cursor) });
const clear = (at, cursor) => JSON.stringify({ response: { clear: { reason: 'clear' } }, ...head(T0 + 5500, at, cursor) });
const ok = (id, atMs, records) => ['E', us(atMs), id, '101', '1', String(records), '900', '0', us(T0), 'WebSocket close 1000 clear', '', us(T0)];
const broke = (id, atMs, records) => ['E', us(atMs), id, 'Non HTTP response code: java.io.EOFException', '0', String(records), '900', '0', us(T0),
  'Non HTTP response message: WebSocket stream ended without a close frame', 'java.io.EOFException: WebSocket stream ended without a close frame', us(T0)];
const LATE = JSON.stringify({ error: { status: 408, message: 'subscription not received within 10000 ms (PB_BODY_DEADLINE_MS)' } });
const NOT_ERROR = 'Test failed: text expected not to contain /error/';
const R = (id, cycle, at, cursor) => ['R', us(created(cycle) + 3), id, event(cycle, at, cursor)];

// 1-1 whole: 1..5 live. 1-2: 1, 2, 4, 5 live (3 missing inside its stream, 2.5 s after its request).
// 1-3: 1 live, its stream breaks at 1.8 s; resumed at 4.2 s with cursor 1 beyond the bound: gap 2..3 (missing
// across the reconnection), 4 replayed (late), 5 live. 1-4: 1..4 live; the final cycle 5 (snapshot 4, reached 3)
// never reached it: not missing.
function logText() {
  const a = T0 + 500;
  const b = T0 + 4200;
  return [
    ...['1', '2', '3', '4'].map((id) => ['B', us(T0), id, `Request 1-${id}`, 'request']),
    R('1', 1, a), R('2', 1, a), R('3', 1, a), R('4', 1, a),
    R('1', 2, a), R('2', 2, a), R('4', 2, a),
    broke('3', T0 + 1800, 1),
    R('1', 3, a), R('4', 3, a),
    ['B', us(b - 1), '5', 'Request 1-3', 'request'],
    ['R', us(b + 2), '5', gap(2, 3, b, 1)], ['R', us(b + 2), '5', replay(4, b, 1)],
    R('1', 4, a), R('2', 4, a), R('4', 4, a),
    R('1', 5, a), R('2', 5, a), R('5', 5, b, 1),
    ...['1', '2', '4'].map((id) => ['R', us(T0 + 5502), id, clear(a)]), ['R', us(T0 + 5502), '5', clear(b, 1)],
    ok('1', T0 + 5502, 6), ok('2', T0 + 5502, 5), ok('4', T0 + 5502, 5), ok('5', T0 + 5502, 4),
    ['B', us(T0), '6', 'Request 1-5', 'request'], ['R', us(T0 + 10_001), '6', LATE],
    ['E', us(T0 + 10_002), '6', '101', '0', '1', '120', '0', us(T0), 'WebSocket close 1008 subscription late', NOT_ERROR, us(T0)],
  ].map((f) => f.join('\t') + '\n').join('');
}

async function runDir() {
  const dir = path.join(scratchDir(), 'run');
  const src = path.join(dir, 'src');
  for (const d of [src, path.join(dir, 'responses'), path.join(dir, 'sut')]) fs.mkdirSync(d, { recursive: true });
  fs.writeFileSync(path.join(src, 'push-1.tsv.gz'), zlib.gzipSync(logText()));
  await tar.c({ gzip: true, file: path.join(dir, 'responses', 'local.tar.gz'), cwd: src }, ['push-1.tsv.gz']);
  fs.writeFileSync(path.join(dir, 'sut', 'server.log'), [
    '28-Nov-2026 08:29:58.282 INFO [main] org.apache.catalina.startup.Catalina.start Server startup in 510 ms',
    '28-Nov-2026 08:30:12.001 WARNING [pushbench-emitter-1] pushbench.core.EventEmitter delivering event1#3 failed',
    '28-Nov-2026 08:30:13.001 WARNING [pushbench-emitter-1] pushbench.core.EventEmitter delivering event1#3 failed',
  ].join('\n') + '\n');
  fs.writeFileSync(path.join(dir, 'sut', 'gc.log'), '[1699999999000ms][3ms] Using Serial\n'
    + `[${T0 + 2600}ms][2600ms] Safepoint "GenCollectForAllocation", Time since last: 1 ns, Reaching safepoint: 1 ns, Cleanup: 1 ns, At safepoint: 1 ns, Total: 100000000 ns\n`
    + `[${T0 + 3550}ms][3550ms] Safepoint "Cleanup", Time since last: 1 ns, Reaching safepoint: 1 ns, Cleanup: 1 ns, At safepoint: 1 ns, Total: 100000000 ns\n`);
  const status = (dropped, ws) => JSON.stringify({ requests: { open: ws, comet: 0, poll: 0, sse: 0, ws }, logging: false, events: [],
    bodies: { late: 0, refused: 0 }, streams: { dropped } });
  fs.writeFileSync(path.join(dir, 'status.log'), `${T0} ${status(0, 2)}\n${T0 + 1000} ${status(1, 4)}\n${T0 + 2000} {"cut`);
  return dir;
}

test('stream-loss places each missing message and agrees with the analysis\'s count', async () => {
  const dir = await runDir();
  const r = await streamLoss(dir, { statusFile: path.join(dir, 'status.log') });
  assert.equal(r.clients, 4);
  assert.equal(r.streams, 5, 'client 1-3 reconnected once');
  assert.equal(r.missing, 3);
  assert.equal(r.affectedClients, 2);
  assert.deepEqual({ inStream: r.inStream, reconnection: r.reconnection, late: r.late }, { inStream: 1, reconnection: 2, late: 1 });

  const hole = r.list.find((m) => m.where === 'in-stream');
  assert.deepEqual({ client: hole.client, cycle: hole.cycle, stream: hole.stream, sinceJoinMs: hole.sinceJoinMs, startS: hole.startS },
    { client: 'local Request 1-2', cycle: 3, stream: 1, sinceJoinMs: 2500, startS: 2 });
  assert.equal(hole.first, false, 'cycle 2 reached it after its request: not the join\'s edge');
  assert.equal(hole.beforeFirstRecord, false);
  assert.equal(r.beforeFirstRecord, 0);
  assert.equal(hole.serverStopMs, 100, 'the 100 ms stop ending at 2.6 s lies in its window; the one ending at 3.55 s after it');
  assert.deepEqual({ firstAfterJoin: r.firstAfterJoin, sinceJoinMs: r.sinceJoinMs }, { firstAfterJoin: 0, sinceJoinMs: { min: 2500, median: 2500, max: 2500 } });
  assert.equal(hole.nextRecordTripMs, 2, 'its next record (cycle 4) 3 ms after the cycle began, less the floor\'s 1 ms of delivery');

  const across = r.list.filter((m) => m.where === 'reconnection');
  assert.deepEqual(across.map((m) => m.cycle), [2, 3]);
  for (const m of across) {
    assert.equal(m.client, 'local Request 1-3');
    assert.equal(m.end, 'java.io.EOFException: WebSocket stream ended without a close frame');
    assert.equal(m.endedS, 0.799, 'the E line at 1.8 s put on the server clock, less the floor\'s 1 ms');
    assert.equal(m.resumedS, 3.2);
    assert.equal(m.cursor, 1);
    assert.deepEqual(m.gap, [[2, 3]]);
  }
  assert.deepEqual(r.failedStreams, [{ count: 1, failure: 'java.io.EOFException: WebSocket stream ended without a close frame' },
    { count: 1, failure: `${NOT_ERROR} (${LATE})` }], 'a refused subscription (no record, so no client) is a failed stream with the server\'s error');
  assert.deepEqual(r.cycles.map((c) => [c.cycle, c.total, c.live, c.missing, c.inStream, c.reconnection]),
    [[2, 4, 3, 1, 0, 1], [3, 3, 2, 2, 1, 1]]);

  assert.equal(r.server.log.lines, 2);
  assert.deepEqual(r.server.log.top, [{ count: 2, text: 'WARNING [pushbench-emitter-1] pushbench.core.EventEmitter delivering event1#3 failed' }]);
  assert.deepEqual(r.server.status, { answers: 2, streamsDropped: { first: 0, last: 1 }, bodiesLate: { first: 0, last: 0 },
    bodiesRefused: { first: 0, last: 0 }, openPeak: 4, wsPeak: 4, ssePeak: 0 });

  const m = new ArchiveMeasures(T0);
  await readArchive(path.join(dir, 'responses', 'local.tar.gz'), m.visitor);
  const counted = deliveredMessages(m.result().col).ws;
  assert.equal(counted.missed, r.netMissed);
  assert.equal(counted.expected, r.expected);
  assert.equal(r.netMissed, r.missing, 'no client got a cycle outside its window here');
});

test('a cycle before a client\'s first request, or between its streams, is placed as a reconnection', () => {
  const streams = [{ loss: { created: 1000, lastSent: 3000 } }, { loss: { created: 5000, lastSent: 9000 } }];
  assert.deepEqual(placeOf(streams, 2000), { where: 'in-stream', stream: 0 });
  assert.deepEqual(placeOf(streams, 4000), { where: 'reconnection', stream: 0, before: 0, after: 1 });
  assert.deepEqual(placeOf(streams, 5000), { where: 'reconnection', stream: 0, before: 0, after: 1 }, 'a cycle at the request\'s own ms is before it');
  assert.deepEqual(placeOf(streams, 6000), { where: 'in-stream', stream: 1 });
});
