'use strict';
// Stage 2, archives: every engine's response archive read and measured in a worker thread of its own
// (stage/archive-worker.js: the records folded into time lines, emit cycles and message counts by a
// collector, and into trip times, and the answers only the stream logs record into samples;
// measure/archive-measures.js), as many at once as the machine has cores; their partial results are merged
// in archive order into what one collector over all of them, one after the other, would give. Study 3.4.1.
// docs/trip-time.md ("Analyzer speed and memory") gives the layout's reasons.
const fs = require('node:fs');
const os = require('node:os');
const path = require('node:path');
const v8 = require('node:v8');
const { Worker } = require('node:worker_threads');
const { ArchiveVisit, engineOf } = require('../read/responses');
const { ArchiveMeasures } = require('../measure/archive-measures');

const WORKER = path.join(__dirname, 'archive-worker.js');
// A worker's young generation, small: the record reader makes next to no garbage of its own (read/record-bytes.js),
// so the young collections come by the stream log's spent gunzip chunks, freed at each one; a larger young
// generation lets more of them pile up (bench/analyzer.js at 2M messages, full collections every 8 MB: 143-148 MB peak RSS at
// 3 MB, 159-167 at 12, for about the same CPU). The tar's chunks, which only full collections free, are
// bounded in the worker itself (archive-worker.js FULL_GC_BYTES).
const WORKER_LIMITS = { maxYoungGenerationSizeMb: 3 };

// No worker thread's code is optimized on a background thread: its optimizing compiles run on the worker
// itself. Node.js 20's platform has a worker whose event loop has emptied (or that is being stopped) wait
// for every background task of the process; a background compile of that worker's own code that needs a
// garbage collection waits for that worker, which never comes back: the thread, and so the process, hang
// for good (nodejs/node#54918). V8 reads the flag as it makes an isolate: set here, before any worker.
// Measured: docs/faults.md ("An archive worker that never ends"); bench/worker-exit.sh.
v8.setFlagsFromString('--no-concurrent-recompilation');

// files: the archives; baseMs: the first time the time lines keep (stage/clock.js timelineBase);
// sampleEnds: the request samples' ends (stage/samples.js), or null; answers: { errorsBaseMs (the base of
// the error time line the stream logs' answers are to join: stage/samples.js's, or null for baseMs),
// criterion ({ run, seconds }: measure/stream-answers.js) }.
// Returns { col (the collector's result), trips (long polls and pulls), cometTrips, answers (the stream
// logs' answers: measure/stream-answers.js), stats (one per archive) }.
// Without a base (no run start known) each time line anchors on its first value, in archive order: the
// archives are then read one after the other, each worker given the bases fixed before it.
async function readArchives(files, { baseMs, sampleEnds, answers = {} }) {
  const fixed = answers.errorsBaseMs == null ? {} : { answerErrors: answers.errorsBaseMs };
  const criterion = answers.criterion ?? {};
  const measures = new ArchiveMeasures(baseMs, { bases: fixed, criterion });
  const engines = new Map();   // engine -> its archive: an engine's trip times come from one archive
  const jobs = files.map((file) => {
    const engine = engineOf(file);
    const other = engines.get(engine);
    if (other === undefined) engines.set(engine, file);
    return { file, engine, twin: other,
      sampleEnds: sampleEnds ? { ends: sampleEnds.endsOf(engine) } : null };
  });
  const read = (job, bases) => (job.twin !== undefined
    ? Promise.resolve(notRead(job, `engine '${job.engine}' has another archive, ${path.basename(job.twin)}: this one is not read`))
    : measureArchive({ file: job.file, engine: job.engine, baseMs, bases, sampleEnds: job.sampleEnds, criterion }));
  const stats = [];
  const add = ({ stats: s, partial }) => {
    stats.push(s);
    if (partial) measures.merge(partial);
  };
  if (baseMs === null) {
    for (const job of jobs) add(await read(job, measures.bases()));
  } else {
    for (const done of atMost(os.availableParallelism(), jobs.map((job) => () => read(job, fixed)))) add(await done);
  }
  return { ...measures.result(), stats };
}

// Starts the tasks (functions returning a promise that never rejects), at most n at once, in order;
// returns their promises.
function atMost(n, tasks) {
  const settle = [];
  const done = tasks.map(() => new Promise((resolve) => settle.push(resolve)));
  let next = 0;
  const start = () => {
    if (next >= tasks.length) return;
    const i = next++;
    tasks[i]().then((value) => { settle[i](value); start(); });
  };
  for (let k = 0; k < Math.max(1, n); k++) start();
  return done;
}

// A reader whose progress (the tar's bytes read: archive-worker.js) stays the same this long has stalled: a
// bug, never a slow archive (a reader reads on at disk and gunzip speed, in seconds).
const STALL_MS = 60000;

// One archive through its worker; resolves to { stats, partial } (never rejects: a worker that fails or
// stalls is a bug, not bad input; its archive is counted as unreadable, with the problem, and nothing of it
// measured). Only a regular file is read: opening a FIFO or a device could block a thread of libuv's pool
// for good, and the process could then never exit. worker: the reader's script (a test gives one that stalls).
function measureArchive(data, { stallMs = STALL_MS, worker: script = WORKER } = {}) {
  const kind = specialKind(data.file);
  if (kind) return Promise.resolve(notRead(data, `not a regular file (${kind}): not read`));
  return new Promise((resolve) => {
    let finished = false;
    let read = 0;
    let movedAt = Date.now();
    const worker = new Worker(script, { workerData: data, resourceLimits: WORKER_LIMITS });
    const watch = setInterval(() => {
      if (Date.now() - movedAt < stallMs) return;
      finish(notRead(data, `archive reader stalled: no progress for ${Math.round(stallMs / 1000)} s after ${read} bytes of the tar`));
    }, Math.min(5000, stallMs));
    const finish = (result) => {
      if (finished) return;
      finished = true;
      clearInterval(watch);
      // Stopped in the background: a stalled worker's stop waits for what blocks it; it keeps nothing alive.
      worker.unref();
      worker.terminate().catch(() => {});
      resolve(result);
    };
    worker.on('message', (m) => {
      if (m.progress === undefined) { finish(m); return; }
      if (m.progress !== read) movedAt = Date.now();
      read = m.progress;
    });
    worker.on('error', (err) => finish(notRead(data, `archive reader failed: ${err.message}`)));
    worker.on('exit', (code) => finish(notRead(data, `archive reader stopped (exit code ${code})`)));
  });
}

// What is at file when it is there and no regular file, without opening it: 'a directory', 'a FIFO', 'a
// socket', 'a device'; null otherwise (a regular file, or nothing: the reader says what it finds).
function specialKind(file) {
  let st;
  try { st = fs.statSync(file); } catch { return null; }
  if (st.isFile()) return null;
  if (st.isDirectory()) return 'a directory';
  if (st.isFIFO()) return 'a FIFO';
  if (st.isSocket()) return 'a socket';
  return 'a device';
}

// The stats of an archive that gave nothing: { stats, partial: null }.
const notRead = ({ file, engine }, problem) => ({ stats: new ArchiveVisit(file, engine, {}).finish({ problem, unreadable: true }), partial: null });

module.exports = { readArchives, measureArchive };
