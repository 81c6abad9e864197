'use strict';
// The server JVM's collections over the steady window (measure/server-gc.js, issue #35 item 4) from a real
// Tomcat 7 log: captured/tomcat7-serial-gc.log is the start and 20 s of the middle of sut/gc.log of
// docs/study's run 20261127-000939-tc7-comet-15000-600 (15,000 comet streams, 1 s events, -Xmx2400m, the
// Serial collector), where every young collection turned into a full one. Then a synthetic Tomcat run end to
// end: summary.serverGc over its steady window, and a class histogram taken while it ran.
const test = require('node:test');
const assert = require('node:assert/strict');
const fs = require('node:fs');
const os = require('node:os');
const path = require('node:path');
const { parseGcLogFile, parseGcLogText, stopsOf } = require('../read/gc-log');
const { serverGcOf } = require('../measure/server-gc');
const { analyzeAndWrite } = require('../run-analysis');
const { makeStreamRun } = require('../tools/stream-run');

const CAPTURED = path.join(__dirname, 'fixtures', 'captured');

test('a GC pause line says whether it was full, and the heap after it and its size (MB)', async () => {
  const gc = await parseGcLogFile(path.join(CAPTURED, 'tomcat7-serial-gc.log'));
  assert.equal(gc.skipped, 0);
  assert.equal(gc.pauses.length, 15);
  assert.deepEqual(gc.pauses[0], { epochMs: 1795738201272, pauseMs: 25.336, full: false, afterMB: 11, heapMB: 365 });
  const full = gc.pauses.filter((p) => p.full);
  assert.equal(full.length, 6);
  assert.deepEqual(full[0], { epochMs: 1795738480298, pauseMs: 761.026, full: true, afterMB: 1471, heapMB: 2320 });
  // a line without heap sizes: none read, the pause still is
  const bare = parseGcLogText('[1795000002000ms][1010ms] GC(1) Pause Remark 3.000ms\n');
  assert.deepEqual(bare.pauses, [{ epochMs: 1795000002000, pauseMs: 3, full: false, afterMB: null, heapMB: null }]);
});

test('over a window: the safepoints summed, the full collections counted, the live heap after each', async () => {
  const gc = await parseGcLogFile(path.join(CAPTURED, 'tomcat7-serial-gc.log'));
  // 20 s holding GC(97)-GC(102): three young collections that became full ones, each in one safepoint
  const out = serverGcOf({ gc, stops: stopsOf(gc), fromMs: 1795738486000, toMs: 1795738506000 });
  assert.deepEqual(out, {
    source: 'safepoints',
    stops: 3,
    stoppedMs: 2275.701,                 // 770.814 + 734.815 + 770.072
    stoppedShare: 0.114,                 // of the 20,000 ms
    fullCollections: 3,
    fullCollectionMs: 2261.491,          // 764.935 + 731.032 + 765.524: each inside its safepoint
    liveMB: { first: 1471, last: 1471, min: 1471, max: 1471 },
    heapMB: 2320,
  });
  // the first 15 s of the run: young collections only, the heap still growing
  const early = serverGcOf({ gc, stops: stopsOf(gc), fromMs: 1795738190000, toMs: 1795738205000 });
  assert.equal(early.fullCollections, 0);
  assert.equal(early.liveMB, null);
  assert.equal(early.heapMB, 365);
  assert.equal(early.stops, 4);         // a cleanup safepoint and three collections'
  // the same log before safepoints were logged: the GC pauses are what is summed
  const text = fs.readFileSync(path.join(CAPTURED, 'tomcat7-serial-gc.log'), 'utf8');
  const gcOnly = parseGcLogText(text.split('\n').filter((l) => !l.includes('Safepoint')).join('\n'));
  const bare = serverGcOf({ gc: gcOnly, stops: stopsOf(gcOnly), fromMs: 1795738486000, toMs: 1795738506000 });
  assert.equal(bare.source, 'GC pauses');
  assert.equal(bare.stops, 6);
  assert.equal(bare.stoppedMs, 2261.691);   // the full collections and the young ones before them (0.050 + 0.083 + 0.067)
});

test('a Tomcat run end to end: summary.serverGc over its steady window, and the class histogram taken while it ran', async () => {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'pb-server-gc-'));
  try {
    await makeStreamRun(dir, 40 * 30, { connections: 40, engines: [{ name: 'gen1', offsetMs: 0 }], server: 'tc7' });
    const first = (await analyzeAndWrite(dir)).summary;
    assert.equal(first.serverGc, undefined, 'no sut/gc.log: no serverGc');
    assert.equal(first.serverHeapHistogram, undefined);
    // a full collection before the window, two within it, a young one after it (server clock = client + offset)
    const { fromSecond, toSecond } = first.steadyWindow;
    const at = (second) => Math.round(first.startedAt + first.clockOffset.ms + second * 1000);
    const full = (second, ms, after) => `[${at(second)}ms][${second * 1000}ms] GC(${second}) Pause Full (Allocation Failure) 900M->${after}M(1000M) ${ms}.000ms`;
    fs.mkdirSync(path.join(dir, 'sut'), { recursive: true });
    fs.writeFileSync(path.join(dir, 'sut', 'gc.log'), [
      `[${at(0)}ms][1ms] Using Serial`,
      full(fromSecond - 1, 500, 100),
      full(fromSecond + 2, 300, 400),
      full(fromSecond + 5, 200, 450),
      `[${at(toSecond + 1)}ms][${(toSecond + 1) * 1000}ms] GC(99) Pause Young (Allocation Failure) 900M->500M(1100M) 50.000ms`,
    ].join('\n') + '\n');
    const histogram = fs.readFileSync(path.join(CAPTURED, 'tomcat7-class-histogram.txt'), 'utf8');
    fs.writeFileSync(path.join(dir, 'sut', 'class-histogram.txt'), histogram.replace(/^# taken at epoch ms \d+/, `# taken at epoch ms ${at(fromSecond + 3.3)}`));
    const { summary } = await analyzeAndWrite(dir);
    assert.deepEqual(summary.serverGc, { source: 'GC pauses', stops: 2, stoppedMs: 500, stoppedShare: Math.round(500 / ((toSecond - fromSecond) * 1000) * 1000) / 1000,
      fullCollections: 2, fullCollectionMs: 500, liveMB: { first: 400, last: 450, min: 400, max: 450 }, heapMB: 1000 });
    const h = summary.serverHeapHistogram;
    assert.equal(h.atSecond, Math.round((fromSecond + 3.3) * 10) / 10);   // to a tenth of a second
    assert.equal(h.top.length, 10);
    assert.ok(h.totalBytes > 1e9 && h.top.every((c, i) => i === 0 || c.bytes <= h.top[i - 1].bytes), JSON.stringify(h).slice(0, 300));
  } finally {
    fs.rmSync(dir, { recursive: true, force: true });
  }
});
