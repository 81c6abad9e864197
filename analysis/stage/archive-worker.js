'use strict';
// Worker thread of stage/archives.js (study 3.4.1): reads one engine's response archive (read/archive-reader.js:
// gunzip, tar-stream, and each stream log's own gunzip), parses its saved responses (read/responses.js) and
// measures them (measure/archive-measures.js: the collector and the trip times) here, beside the other
// archives' workers; no bytes cross to the main thread. The one message it sends is { stats, partial }: the
// archive's read statistics and the plain data of its measures, which the main thread merges; before it,
// every PROGRESS_MS, { progress: the tar's bytes read so far }, by which the main thread tells a reader that
// stalls (stage/archives.js STALL_MS) from a slow one.
// workerData: { file, engine, baseMs, bases (the time-line bases already fixed: ArchiveMeasures bases()),
// sampleEnds (null without results.csv, else { ends: this engine's sample ends, a Float64Array, or null }),
// criterion ({ run, seconds } of the capacity criterion, for the answers only the stream logs record) }.
const { parentPort, workerData } = require('node:worker_threads');
const { readArchive } = require('../read/responses');
const { ArchiveMeasures } = require('../measure/archive-measures');
const { SampleEnds } = require('../measure/trip-time');
const { collectGarbage } = require('../measure/garbage');

// The chunks the archive's own gunzip hands out (the tar's bytes) feed the stream log's gunzip, which holds
// them until it has inflated them, while this thread parses the records they hold: they outlive the young
// generation's collections and only a full collection frees them (measure/garbage.js: V8 by itself lets
// some 64 MB of them pile up). So this thread runs a full collection every FULL_GC_BYTES of them. The
// stream log's own chunks die young (each is parsed at once), freed by the young generation's collections
// (stage/archives.js caps it). Each full collection also walks the collector's and trip times' data: at 2M
// messages of bench/analyzer.js's run, every 1 / 2 / 8 MB gave 126-129 / 131-134 / 141-147 MB peak RSS for
// 4.0-4.1 / 3.6-3.8 / 3.5-3.6 CPU s (2-3 runs each, a quiet machine; docs/trip-time.md, "Analyzer speed and memory").
const FULL_GC_BYTES = 2e6;
const PROGRESS_MS = 2000;
let sinceFull = 0;
let read = 0;
function spent(bytes) {
  read += bytes;
  sinceFull += bytes;
  if (sinceFull < FULL_GC_BYTES) return;
  sinceFull = 0;
  collectGarbage('major');
}

async function main({ file, engine, baseMs, bases, sampleEnds, criterion }) {
  const measures = new ArchiveMeasures(baseMs, { bases, criterion, sampleEnds: sampleEnds && SampleEnds.ofEngine(engine, sampleEnds.ends) });
  const progress = setInterval(() => parentPort.postMessage({ progress: read }), PROGRESS_MS);
  progress.unref();   // never what keeps this thread alive
  const stats = await readArchive(file, measures.visitor, { engine, spent });
  clearInterval(progress);
  parentPort.postMessage({ stats, partial: measures.partial() });
}

main(workerData);
