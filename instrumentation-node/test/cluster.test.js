'use strict';
// node-cluster (cluster.js): the real primary and two real workers on PB_PORT_NODE_CLUSTER (test.sh sets
// it per slot). One emit cycle spans the workers with one id and start time, places 1..total once each
// and one cluster-wide total, for comet, SSE and WebSocket streams alike; /status sums the workers; a worker
// that dies ends the server with its status.
const test = require('node:test');
const assert = require('node:assert/strict');
const path = require('node:path');
const { spawn } = require('node:child_process');
const { request, openStream, waitUntil } = require('../../conformance/http-client');
const { openSse, openWs } = require('../../conformance/stream-clients');
const { workerCount } = require('../cluster');
const { exitStatusOf, blockOffsets, sumCounts } = require('../cluster-primary');

const PORT = Number(process.env.PB_PORT_NODE_CLUSTER || 18081);
const base = `http://127.0.0.1:${PORT}`;
const WORKERS = 2;

function startCluster() {
  const child = spawn(process.execPath, [path.join(__dirname, '..', 'cluster.js'), String(PORT), String(WORKERS)],
    { stdio: ['ignore', 'ignore', 'pipe'] });
  let log = '';
  child.stderr.on('data', (d) => { log += d; });
  const exited = new Promise((resolve) => child.on('exit', (code, signal) => resolve({ code, signal })));
  return { child, exited, log: () => log };
}

test('workers: auto is the host cores, else a whole number from 1 to 1024', () => {
  assert.equal(workerCount('auto', 6), 6);
  assert.equal(workerCount('3'), 3);
  for (const bad of ['0', '-1', '2.5', 'two', '', '1025', '01']) assert.equal(workerCount(bad), null, bad);
  assert.equal(exitStatusOf(null, 'SIGKILL'), 137);
  assert.equal(exitStatusOf(3, null), 3);
});

test('a cycle\'s blocks: each worker starts after the sizes before it; /status counts are summed', () => {
  assert.deepEqual(blockOffsets([3, 0, 5, 2]), [0, 3, 3, 8]);
  assert.deepEqual(blockOffsets([]), []);
  const counts = [
    { open: 2, comet: 1, poll: 0, sse: 1, ws: 0, bodies: { late: 1, refused: 0 }, streams: { dropped: 2 } },
    { open: 3, comet: 0, poll: 1, sse: 0, ws: 2 },
  ];
  assert.deepEqual(sumCounts(counts), {
    requests: { open: 5, comet: 1, poll: 1, sse: 1, ws: 2 }, bodies: { late: 1, refused: 0 }, streams: { dropped: 2 },
  });
});

test('a bad worker count is refused before anything starts (exit 2)', async () => {
  const run = spawn(process.execPath, [path.join(__dirname, '..', 'cluster.js'), String(PORT), '0'], { stdio: ['ignore', 'ignore', 'pipe'] });
  let err = '';
  run.stderr.on('data', (d) => { err += d; });
  const code = await new Promise((resolve) => run.on('exit', resolve));
  assert.equal(code, 2);
  assert.match(err, /workers must be "auto" or a whole number/);
});

test('one emit cycle across the workers: one id and start, places 1..total once each, /status summed', async (t) => {
  const server = startCluster();
  t.after(() => server.child.kill('SIGKILL'));
  await waitUntil(async () => /all 2 workers listening/.test(server.log()), 10000, 'both workers listening');
  const streams = [];
  for (let i = 0; i < 12; i++) streams.push(await openStream(base, { type: 'comet', events: ['spread'] }));
  t.after(() => streams.forEach((s) => s.destroy && s.destroy()));
  // Round-robin gives each worker some of the streams; /status must count all of them.
  await waitUntil(async () => (await request(base, 'GET', '/status')).json.requests.open === 12, 3000, '12 open');
  await request(base, 'POST', '/event/set', { body: { name: 'spread', frequency: 200 } });
  const first = [];
  for (const s of streams) first.push((await s.nextLine(3000)).record.response.event);
  assert.ok(first.every((e) => e.cycle === 1 && e.connections.total === 12), JSON.stringify(first));
  assert.equal(new Set(first.map((e) => e.timings.created)).size, 1, 'one start time for the cycle');
  assert.deepEqual(first.map((e) => e.connections.place).sort((a, b) => a - b), Array.from({ length: 12 }, (_, i) => i + 1));
  const second = [];
  for (const s of streams) second.push((await s.nextLine(3000)).record);
  assert.ok(second.every((r) => r.response.event.cycle === 2));
  // Each worker's records count the whole server's open requests (relayed every ~50 ms).
  assert.ok(second.every((r) => r.connections.finish === 12), JSON.stringify(second.map((r) => r.connections)));
  const status = (await request(base, 'GET', '/status')).json;
  assert.deepEqual(status.requests, { open: 12, comet: 12, poll: 0, sse: 0, ws: 0 });
  assert.equal(status.events[0].lastCycle.total, 12);
  const cleared = (await request(base, 'POST', '/event/clear', { body: {} })).json;
  assert.deepEqual(cleared, { clear: { events: 1, requests: 12 } });
  server.child.kill('SIGTERM');
  assert.deepEqual(await server.exited, { code: 0, signal: null });
});

test('SSE and WebSocket streams across the workers: one cycle, places once each, /status sums them; a resumed one is replayed', async (t) => {
  const server = startCluster();
  t.after(() => server.child.kill('SIGKILL'));
  await waitUntil(async () => /all 2 workers listening/.test(server.log()), 10000, 'both workers listening');
  const streams = [];
  t.after(() => streams.forEach((s) => s.destroy()));
  for (let i = 0; i < 3; i++) streams.push(await openSse(base, { type: 'sse', events: 'mixed' }));
  for (let i = 0; i < 3; i++) {
    const ws = await openWs(base);
    ws.send(JSON.stringify({ type: 'ws', events: ['mixed'] }));
    streams.push(ws);
  }
  await waitUntil(async () => (await request(base, 'GET', '/status')).json.requests.open === 6, 3000, '6 open');
  const status = (await request(base, 'GET', '/status')).json;
  assert.deepEqual(status.requests, { open: 6, comet: 0, poll: 0, sse: 3, ws: 3 });
  assert.deepEqual(status.streams, { dropped: 0 });
  await request(base, 'POST', '/event/set', { body: { name: 'mixed', frequency: 100 } });
  const first = [];
  for (const s of streams) first.push((await s.next(3000)).record.response.event);
  assert.ok(first.every((e) => e.cycle === 1 && e.connections.total === 6), JSON.stringify(first));
  assert.deepEqual(first.map((e) => e.connections.place).sort((a, b) => a - b), [1, 2, 3, 4, 5, 6]);
  // Every worker keeps every cycle: a stream resumed on either worker gets the ones it missed.
  await waitUntil(async () => (await request(base, 'GET', '/status')).json.events[0].cycle >= 4, 3000, 'cycle 4');
  for (let i = 0; i < 2; i++) {
    const again = await openSse(base, { type: 'sse', events: 'mixed' }, { lastEventId: 'mixed:1' });
    streams.push(again);
    const replayed = [(await again.next(3000)).record.response, (await again.next(3000)).record.response];
    assert.deepEqual(replayed.map((r) => r.replay && r.replay.cycle), [2, 3], JSON.stringify(replayed));
  }
  server.child.kill('SIGTERM');
  assert.deepEqual(await server.exited, { code: 0, signal: null });
});

test('a worker that dies ends the server with the worker\'s status', async (t) => {
  const server = startCluster();
  t.after(() => server.child.kill('SIGKILL'));
  await waitUntil(async () => /all 2 workers listening/.test(server.log()), 10000, 'both workers listening');
  const pids = /worker pids: (\d+) (\d+)/.exec(server.log());
  process.kill(Number(pids[1]), 'SIGKILL');
  const { code } = await server.exited;
  assert.equal(code, 137);
  assert.match(server.log(), /worker 1 \(pid \d+\) exited \(SIGKILL\)/);
});
