'use strict';
// stage/archives.js reads each engine's archive in a worker thread of its own and merges the workers' partial
// results (measure/archive-measures.js, collect.js merge, trip-time.js merge): the merge must give what one
// collector and one pair of trip times over every archive, one after the other on this thread, give. Checked
// on the fixture run (long polls saved one file per sample, trip times from results.csv's sample ends), a
// real run.sh run, and a generated comet run (stream logs of three engines, each with its own clock); with
// and without a run start (time lines anchored on their first value). An archive that is cut, or no archive,
// is counted as such among good ones, which read as they read alone. A worker compiles on its own thread.
const test = require('node:test');
const assert = require('node:assert/strict');
const fs = require('node:fs');
const path = require('node:path');
const { readArchive } = require('../read/responses');
const { findInputs, readRun } = require('../read/run-inputs');
const { readArchives, measureArchive } = require('../stage/archives');
const { readSamples } = require('../stage/samples');
const { clientStart, timelineBase } = require('../stage/clock');
const { ArchiveMeasures } = require('../measure/archive-measures');
const { makeStreamRun } = require('../tools/stream-run');
const { RUN, REAL_RUN, scratchDir } = require('./helpers');

const ENGINES = [{ name: 'e1', offsetMs: 1.5 }, { name: 'e2', offsetMs: -3.25 }, { name: 'e3', offsetMs: 0.25 }];

// The run's inputs as run-analysis.js reads them before the archives.
async function inputsOf(runDir) {
  const { inputs, archives } = findInputs(runDir);
  const { run } = readRun(inputs.runJson);
  const { csv } = await readSamples(fs.existsSync(inputs.resultsCsv) ? inputs.resultsCsv : null, null);
  const { t0 } = clientStart(run, csv);
  return { archives, t0, sampleEnds: csv?.sampleEnds ?? null };
}

// One ArchiveMeasures over every archive, one after the other on this thread: what the merge must give.
async function oneAfterTheOther(files, { baseMs, sampleEnds }) {
  const one = new ArchiveMeasures(baseMs, { sampleEnds });
  const stats = [];
  for (const file of files) stats.push(await readArchive(file, one.visitor));
  return { ...one.result(), stats };
}

// What the later stages see of a result, as plain data: the collector's result with its time lines'
// slots, and the trip-time figures (each engine at an offset of its own) on a time axis from t0.
function figuresOf({ col, trips, cometTrips, stats }, t0) {
  const offsets = new Map(ENGINES.map((e, i) => [e.name, { offset: e.offsetMs, errorBoundMs: 0.1 * (i + 1) }]));
  const tripFigures = (t) => t.result(2, t0, 1200, 0.5, { fromSecond: 5, toSecond: 100, seconds: 95 }, offsets);
  return {
    col: { ...col, timelines: Object.fromEntries(Object.entries(col.timelines).map(([k, t]) => [k, t.partial()])), cycles: [...col.cycles] },
    trips: tripFigures(trips), cometTrips: tripFigures(cometTrips), stats,
  };
}

async function assertSameAsOneAfterTheOther(files, opts, t0) {
  const merged = await readArchives(files, opts);
  const one = await oneAfterTheOther(files, opts);
  assert.deepEqual(figuresOf(merged, t0), figuresOf(one, t0));
  return { merged, one };
}

let streamRun = null;
async function generatedRun() {
  if (streamRun) return streamRun;
  const dir = path.join(scratchDir(), 'run');
  const made = await makeStreamRun(dir, 6000, { connections: 60, engines: ENGINES });
  streamRun = { dir, ...made };
  return streamRun;
}

test('the fixture run (long polls, sample files, trip times by sample ends): merged = one collector over both archives', async () => {
  const { archives, t0, sampleEnds } = await inputsOf(RUN);
  assert.equal(archives.length, 2);
  const { merged } = await assertSameAsOneAfterTheOther(archives, { baseMs: timelineBase(t0), sampleEnds }, t0);
  assert.ok(merged.col.counts.records > 0 && merged.trips.engines.size > 0 && merged.col.cycles.size > 0);
  // the same without a run start: the time lines anchor on their first values, in archive order
  await assertSameAsOneAfterTheOther(archives, { baseMs: null, sampleEnds }, t0);
});

test('a real run.sh run: merged = one collector', async () => {
  const { archives, t0, sampleEnds } = await inputsOf(REAL_RUN);
  const { merged } = await assertSameAsOneAfterTheOther(archives, { baseMs: timelineBase(t0), sampleEnds }, t0);
  assert.ok(merged.col.counts.events > 0);
});

test('three engines of stream logs, each on its own clock: merged = one collector, trip times per engine', async () => {
  const run = await generatedRun();
  const { archives, t0, sampleEnds } = await inputsOf(run.dir);
  assert.equal(archives.length, 3);
  const { merged } = await assertSameAsOneAfterTheOther(archives, { baseMs: timelineBase(t0), sampleEnds }, t0);
  assert.equal(merged.col.counts.events, run.cycles * run.connections);
  assert.equal(merged.cometTrips.engines.size, 3);
  assert.equal(merged.col.cometStreams.length, run.connections);
  assert.ok(merged.col.cycles.size >= run.cycles);
  await assertSameAsOneAfterTheOther(archives, { baseMs: null, sampleEnds }, t0);
});

test('a cut archive and a file that is no archive among good ones: counted, the good ones read as alone', async () => {
  const run = await generatedRun();
  const { t0, sampleEnds } = await inputsOf(run.dir);
  const dir = scratchDir();
  const [e1, e2, e3] = run.archives;
  const cut = path.join(dir, 'e2.tar.gz');
  const bytes = fs.readFileSync(e2);
  fs.writeFileSync(cut, bytes.subarray(0, Math.floor(bytes.length * 0.6)));
  const junk = path.join(dir, 'e4.tar.gz');
  fs.writeFileSync(junk, 'no archive at all\n');
  const twin = path.join(dir, 'e1.tgz');
  fs.copyFileSync(e1, twin);
  const files = [e1, cut, junk, e3, twin];
  const opts = { baseMs: timelineBase(t0), sampleEnds };
  const merged = await readArchives(files, opts);
  const [s1, sCut, sJunk, s3, sTwin] = merged.stats;
  assert.equal(sCut.truncated, true);
  assert.equal(sCut.unreadable, false);
  assert.equal(sCut.truncatedEntries, 1);
  assert.ok(sCut.problem);
  assert.equal(sJunk.unreadable, true);
  assert.equal(sJunk.entries, 0);
  assert.equal(sTwin.unreadable, true);
  assert.match(sTwin.problem, /engine 'e1' has another archive, e1\.tar\.gz/);
  // the good ones as alone
  assert.deepEqual(s1, await readArchive(e1, {}));
  assert.deepEqual(s3, await readArchive(e3, {}));
  assert.deepEqual(sCut, await readArchive(cut, {}));
  // what was read of the cut one counts, as when read one after the other
  const one = await oneAfterTheOther([e1, cut, junk, e3], opts);
  const a = figuresOf({ ...merged, stats: merged.stats.slice(0, 4) }, t0);
  assert.deepEqual(a, figuresOf(one, t0));
  const whole = await readArchives([e1, e3], opts);
  assert.ok(merged.col.counts.events > whole.col.counts.events, 'the cut archive\'s records count');
  assert.ok(merged.col.counts.events < run.cycles * run.connections, 'but not those after the cut');
});

test('a trip-time histogram rebuilt from its partial gives the same buckets and figures, below zero and past its first range too', () => {
  const { SignedHistogram } = require('../measure/trip-time');
  const cycleSettings = { bitBucketSize: 32, numberOfSignificantValueDigits: 2, lowestDiscernibleValue: 100, highestTrackableValue: 100_000, autoResize: true };
  const runSettings = { bitBucketSize: 32, numberOfSignificantValueDigits: 3, lowestDiscernibleValue: 1, autoResize: true };
  for (const settings of [cycleSettings, runSettings]) {
    const h = new SignedHistogram(settings);
    for (let i = 0; i < 5000; i++) h.record(((i * 7919) % 20011) * 13.7 - 3000);   // -3 ms to +271 ms
    h.record(5_000_000, 3);                                                        // 5 s: past the cycle histogram's first range
    const back = SignedHistogram.fromPartial(structuredClone(h.partial()), settings);
    const buckets = (x) => { const out = []; x.forEach((v, n) => out.push([v, n])); return out; };
    assert.deepEqual(buckets(back), buckets(h));
    for (const p of [0, 1, 10, 50, 90, 99, 99.9, 100]) assert.equal(back.valueAt(p), h.valueAt(p), `p${p}`);
    assert.equal(back.count, h.count);
    assert.equal(back.countBelow(0), h.countBelow(0));
    // a rebuilt histogram still grows: a late value far past what it held is recorded, not refused
    back.record(60_000_000);
    back.record(-60_000_000);
    assert.equal(back.count, h.count + 2);
    assert.equal(back.valueAt(100) >= 60_000_000 * 0.99, true, `p100 ${back.valueAt(100)}`);
  }
});

test('an emit cycle in two partials: requests add up, its start is what one collector would give, pull first sights included', () => {
  const { Collector } = require('../measure/collect');
  const { eventFields } = require('../read/record-bytes');
  // one response of one record: an event record, or a pull answer with one event
  const event = (cycle, created, duration) => ({ type: 'event', obj: { response: { event: { name: 'e', cycle, timings: { created, duration },
    connections: { total: 7, place: 2 } } }, request: { type: 'comet', events: ['e'] }, timings: { sent: created + 10, created: 0 } } });
  const pull = (cycle, created) => ({ type: 'pull', obj: { response: { pull: { events: [{ name: 'e', cycle, timings: { created } }],
    cursor: { e: cycle } } }, request: { type: 'pull', cursor: { e: cycle - 1 } }, timings: { sent: created + 10, created: 0 } } });
  const feed = (collector, engine, records) => records.forEach(({ type, obj }, i) => {
    const st = { name: `request_${i}`, kind: 'request', engine, thread: 't1', records: 1 };
    if (type === 'event') collector.event(eventFields(obj), st); else collector.record(obj, type, st);
    collector.endStream(st);
  });
  const a = [event(1, 1000, 3), pull(3, 500), event(4, 400, 1)];
  const b = [event(1, 900, 5), event(3, 450, 2), pull(4, 300), event(2, 2000, 1)];
  const one = new Collector(0);
  feed(one, 'e1', a);
  feed(one, 'e2', b);
  const merged = new Collector(0);
  const left = new Collector(0);
  feed(left, 'e1', a);
  const right = new Collector(0);
  feed(right, 'e2', b);
  merged.merge(structuredClone(left.partial()));
  merged.merge(structuredClone(right.partial()));
  const cycles = (c) => [...c.result().cycles.values()];
  assert.deepEqual(cycles(merged), cycles(one));
  const byCycle = new Map(cycles(one).map((c) => [c.cycle, c]));
  assert.equal(byCycle.get(1).created, 900);    // the later archive's earlier event record
  assert.equal(byCycle.get(3).created, 450);    // a pull's first sight, then an event record's earlier start
  assert.equal(byCycle.get(4).created, 400);    // a pull's start after an event record's does not count
  assert.equal(byCycle.get(1).requests, 2);
  assert.equal(byCycle.get(1).duration, 5);
  const { timelines: _t, cycles: _c, ...rest } = merged.result();
  const { timelines: _t1, cycles: _c1, ...restOne } = one.result();
  assert.deepEqual(rest, restOne);
});

test('a reader that stalls is given up: unreadable, with the problem, not a hang', async () => {
  const file = path.join(scratchDir(), 'gen1.tar.gz');
  fs.writeFileSync(file, '');
  const started = Date.now();
  const worker = path.join(__dirname, 'fixtures', 'stalled-worker.js');
  const { stats, partial } = await measureArchive({ file, engine: 'gen1', baseMs: null, bases: {}, sampleEnds: null, criterion: {} }, { stallMs: 1500, worker });
  assert.equal(partial, null);
  assert.equal(stats.unreadable, true);
  assert.match(stats.problem, /^archive reader stalled: no progress for 2 s after 0 bytes of the tar$/);
  assert.ok(Date.now() - started < 10000, `given up after ${Date.now() - started} ms`);
});

test('an archive worker optimizes its code on its own thread, never on a background one that its end could wait for', async () => {
  const worker = path.join(__dirname, 'fixtures', 'compile-probe-worker.js');
  const file = path.join(scratchDir(), 'gen1.tar.gz');
  fs.writeFileSync(file, '');
  const { stats } = await measureArchive({ file, engine: 'gen1', baseMs: null, bases: {}, sampleEnds: null, criterion: {} }, { worker });
  assert.equal(stats.concurrentRecompilation, false);
  // the probe can tell: this thread's isolate, made before stage/archives.js set the flag, still compiles in the background
  require('node:v8').setFlagsFromString('--allow-natives-syntax');
  assert.equal(new Function('return %IsConcurrentRecompilationSupported()')(), true);
});

test('an archive that is a FIFO (or a device, a directory) is not opened: unreadable, named, nothing blocks', async () => {
  const fifo = path.join(scratchDir(), 'gen1.tar.gz');
  require('node:child_process').execFileSync('mkfifo', [fifo]);
  const { stats, partial } = await measureArchive({ file: fifo, engine: 'gen1', baseMs: null, bases: {}, sampleEnds: null, criterion: {} });
  assert.equal(partial, null);
  assert.equal(stats.unreadable, true);
  assert.equal(stats.problem, 'not a regular file (a FIFO): not read');
  const dir = path.join(scratchDir(), 'gen2.tar.gz');
  fs.mkdirSync(dir);
  const d = await measureArchive({ file: dir, engine: 'gen2', baseMs: null, bases: {}, sampleEnds: null, criterion: {} });
  assert.equal(d.stats.problem, 'not a regular file (a directory): not read');
});
