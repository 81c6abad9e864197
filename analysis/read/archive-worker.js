'use strict';
// Worker thread of stage/archives.js (study 3.4.1): reads one engine's response archive (archive-reader.js:
// gunzip, tar-stream, and each stream log's own gunzip), parses its saved responses (responses.js) and
// measures them (measure/archive-measures.js: the collector and the trip times) here, beside the other
// archives' workers; no bytes cross to the main thread. The one message it sends is { stats, partial }: the
// archive's read statistics and the plain data of its measures, which the main thread merges.
// workerData: { file, engine, baseMs, bases (the collector's time-line bases already fixed), sampleEnds
// (null without results.csv, else { ends: this engine's sample ends, a Float64Array, or null }) }.
const v8 = require('node:v8');
const vm = require('node:vm');
const { parentPort, workerData } = require('node:worker_threads');
const { readArchive } = require('./responses');
const { ArchiveMeasures } = require('../measure/archive-measures');
const { SampleEnds } = require('../measure/trip-time');

// The chunks the archive's own gunzip hands out (the tar's bytes) feed the stream log's gunzip, which holds
// them until it has inflated them, while this thread parses the records they hold: they outlive the young
// generation's collections and only a full collection frees them, outside the V8 heap, where V8 does not
// see them fill anything (by itself it collects them only once some 64 MB have piled up). So this thread
// runs a full collection every FULL_GC_BYTES of them (once per archive of 1M messages). The stream log's own
// chunks die young (each is parsed at once). A full collection here also walks the collector's and trip
// times' data, so it runs no more often: a young collection every 4 MB of both layers and a full one every
// 32 MB cost 0.8-1.5 CPU s more at 2M messages for the same peak RSS, no forced collection ~15 MB more peak
// RSS (docs/trip-time.md, "Analyzer speed and memory"). gc() is V8's own, exposed by the flag to the
// contexts made after it (the flag is per process; the main thread's context, made before, does not get it).
const FULL_GC_BYTES = 8e6;
// A Node.js without it (the flag is V8's, not a documented API) collects as V8 decides: slower to give back,
// never wrong.
v8.setFlagsFromString('--expose-gc');
const collectGarbage = (() => { try { return vm.runInNewContext('gc'); } catch { return () => {}; } })();
let sinceFull = 0;
function spent(bytes) {
  sinceFull += bytes;
  if (sinceFull < FULL_GC_BYTES) return;
  sinceFull = 0;
  collectGarbage();
}

async function main({ file, engine, baseMs, bases, sampleEnds }) {
  const measures = new ArchiveMeasures(baseMs, { bases, sampleEnds: sampleEnds && SampleEnds.ofEngine(engine, sampleEnds.ends) });
  const stats = await readArchive(file, measures.visitor, { engine, spent });
  parentPort.postMessage({ stats, partial: measures.partial() });
}

main(workerData);
