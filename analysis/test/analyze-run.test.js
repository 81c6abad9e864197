'use strict';
// The fixture run end to end through analyzeRun, each figure checked against an independent computation
// from the captured bodies and logs.
process.env.TZ = 'UTC';   // pidstat times are local clock times; the fixture was captured in UTC
const test = require('node:test');
const assert = require('node:assert/strict');
const path = require('node:path');
const { analyzeRun } = require('../run-analysis');
const { copyRun, capturedRecords, readJson, CAPTURED } = require('./helpers');

let result;
const records = capturedRecords();
test.before(async () => { result = await analyzeRun(copyRun()); });

test('emit duration per cycle is the largest event duration of that (event, cycle)', () => {
  const expected = new Map();
  for (const r of records.filter((x) => x.response.event)) {
    const e = r.response.event;
    const k = `${e.name}#${e.cycle}`;
    expected.set(k, Math.max(expected.get(k) ?? -1, e.timings.duration));
  }
  const got = new Map(result.datasets.cycles.map((c) => [`${c.event}#${c.cycle}`, c.duration]));
  assert.deepEqual(got, expected);
  assert.ok(result.datasets.cycles.length >= 4);
});

test('requests per emit cycle counts the event records of each cycle', () => {
  for (const c of result.datasets.cycles) {
    const n = records.filter((r) => r.response.event && r.response.event.cycle === c.cycle).length;
    assert.equal(c.requests, n, `cycle ${c.cycle}`);
  }
});

test('clock offset from the time-stamp answer and its JMeter sample', () => {
  const ts = readJson(path.join(CAPTURED, 'bodies', 'timestamp_1.json')).timestamp;
  const sample = readJson(path.join(CAPTURED, 'samples.json')).samples.find((s) => s.label === 'timestamp');
  assert.equal(result.summary.clockOffset.ms, ts.server - ts.client - sample.elapsed / 2);
  // a cycle's elapsed second is its server start time moved onto the client clock
  const c = result.datasets.cycles[0];
  const created = records.find((r) => r.response.event && r.response.event.cycle === c.cycle).response.event.timings.created;
  assert.equal(c.createdSecond, Math.round(((created - result.summary.clockOffset.ms - result.summary.startedAt) / 1000) * 100) / 100);
});

test('responses per second add up to every record sent; connections peak at the largest count seen', () => {
  const s = result.datasets.series;
  assert.equal(s.responses.reduce((a, b) => a + b, 0), records.length);
  assert.equal(s.responsesCumulative.at(-1), records.length);
  assert.equal(result.summary.totals.responsesSent, records.length);
  const peak = Math.max(...records.flatMap((r) => [r.connections.start, r.connections.finish]));
  assert.equal(result.summary.peakConnections, peak);
  assert.equal(s.timeouts.reduce((a, b) => a + b, 0), records.filter((r) => r.response.timeout).length);
});

test('received / unique / missed for the comet streams', () => {
  const m = result.datasets.messages.comet;
  const comet = records.filter((r) => r.request.type === 'comet' && r.response.event);
  assert.equal(m.streams, 3);
  assert.equal(m.received, comet.length);
  assert.equal(m.unique, new Set(comet.map((r) => `${r.file}|${r.response.event.cycle}`)).size);
  assert.equal(m.missed, m.expected - m.unique);
  assert.ok(m.expected >= m.unique);
});

test('CPU, memory and process series come from the SUT monitors', () => {
  const s = result.datasets.series;
  assert.equal(s.cpu.filter((v) => v !== null).length, 7);   // 8 vmstat lines in the capture, first one since boot
  // captured before memory.log existed, with this machine's vmstat repeating its first memory line: no memory %
  assert.ok(s.memory.every((v) => v === null));
  assert.equal(result.summary.memorySource, null);
  assert.ok(result.summary.notes.some((n) => /vmstat's memory columns never changed over 7 samples/.test(n)));
  assert.ok(s.processRssMB.some((v) => v > 10));
  assert.equal(result.summary.memTotalMB, Math.round((Number(/MemTotal:\s+(\d+)/.exec(require('node:fs').readFileSync(path.join(CAPTURED, 'meminfo.txt'), 'utf8'))[1]) / 1024) * 100) / 100);
});

test('the summary flags what was damaged', () => {
  const f = result.summary.flags;
  assert.deepEqual(f.archivesTruncated, ['gen2.tar.gz']);
  assert.equal(f.linesSkippedBy.vmstat, 1);
  assert.equal(f.linesSkippedBy.halfWrittenLines, 2);   // the comet stream's cut line, the entry gen2 broke off in
  assert.equal(result.summary.totals.errorBodies, 2);
  assert.deepEqual(f.missingInputs, ['sut/memory.log']);
  assert.equal(f.serverCrashed, false);
});

test('poll trip times: each event answer from its emit cycle start to the end of its JMeter sample', () => {
  const samples = readJson(path.join(CAPTURED, 'samples.json')).samples;
  const offset = result.summary.clockOffset.ms;
  const trips = records.filter((r) => r.request.type === 'poll' && r.response.event).map((r) => {
    const s = samples.find((x) => x.file === r.file);
    return s.timeStamp + s.elapsed + offset - r.response.event.timings.created;
  }).sort((a, b) => a - b);
  assert.ok(trips.length >= 10);
  const t = result.summary.tripTime;
  assert.equal(t.polls, trips.length);
  assert.equal(t.unmatched, 0);   // gen2's one entry broke off before its record ended
  const near = (got, want) => assert.ok(Math.abs(got - want) <= 0.5, `${got} vs ${want}`);   // whole ms before the offset
  near(t.minMs, trips[0]);
  near(t.maxMs, trips.at(-1));
  near(t.p50Ms, trips[Math.ceil(trips.length / 2) - 1]);
  near(t.meanMs, trips.reduce((a, b) => a + b, 0) / trips.length);
  assert.equal(t.belowZero, trips.filter((v) => v < 0).length);
  const timed = result.datasets.series.tripMean.filter((v) => v !== null);
  assert.ok(timed.length >= 3 && timed.every((v) => v >= t.minMs && v <= t.maxMs));
});
