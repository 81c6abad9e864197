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

// Each chunk a gunzip hands out is garbage once its lines are read: hundreds of MB over a large run, held
// outside the V8 heap, where V8 does not see it fill anything: by itself it collects those chunks only when
// some 64 MB of them have piled up. So this thread collects by the inflated bytes: a young-generation
// collection every MINOR_GC_BYTES (it frees the chunks of the last few MB), a full one every FULL_GC_BYTES
// (it frees those that were still in use at a young collection and outlived it). The pile then stays small
// whatever the archive's size (docs/trip-time.md, "Analyzer speed and memory"). gc() is V8's own, exposed by
// the flag to the contexts made after it (the flag is per process; the main thread's context, made before,
// does not get it).
const MINOR_GC_BYTES = 4e6;
const FULL_GC_BYTES = 32e6;
// A Node.js without it (the flag is V8's, not a documented API) collects as V8 decides: slower to give back,
// never wrong.
v8.setFlagsFromString('--expose-gc');
const collectGarbage = (() => { try { return vm.runInNewContext('gc'); } catch { return () => {}; } })();
const inflated = { sinceMinor: 0, sinceFull: 0 };
function spent(bytes) {
  inflated.sinceMinor += bytes;
  if (inflated.sinceMinor < MINOR_GC_BYTES) return;
  inflated.sinceFull += inflated.sinceMinor;
  inflated.sinceMinor = 0;
  if (inflated.sinceFull < FULL_GC_BYTES) { collectGarbage({ type: 'minor' }); return; }
  inflated.sinceFull = 0;
  collectGarbage();
}

async function main({ file, engine, baseMs, bases, sampleEnds }) {
  const measures = new ArchiveMeasures(baseMs, { bases, sampleEnds: sampleEnds && SampleEnds.ofEngine(engine, sampleEnds.ends) });
  const stats = await readArchive(file, measures.visitor, { engine, spent });
  parentPort.postMessage({ stats, partial: measures.partial() });
}

main(workerData);
