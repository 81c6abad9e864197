'use strict';
// A garbage collection asked for by the analysis (study 3.4.1: reading a run's archives in bounded memory).
// Typed arrays and Buffers keep their bytes outside V8's heap, where V8 does not see them fill anything: by
// itself it collects them only once some 64 MB have piled up. Where the analysis makes such garbage at a
// known rate (gunzip's chunks in stage/archive-worker.js, the per-cycle histograms in trip-time.js), it collects
// at that rate instead. gc() is V8's own, exposed by the flag to the contexts made after it (the flag is per
// process: a context made before it, as a thread's main one, does not get it). A Node.js without it collects
// as V8 decides: slower to give back, never wrong.
const v8 = require('node:v8');
const vm = require('node:vm');

v8.setFlagsFromString('--expose-gc');
const gc = (() => { try { return vm.runInNewContext('gc'); } catch { return null; } })();

// type: 'minor' (the young generation: garbage made since the last collection) or 'major' (all of it).
// (gc() alone is the major one: V8 11 takes any options object, { type: 'major' } too, as a minor one.)
function collectGarbage(type) {
  if (gc === null) return;
  if (type === 'major') gc(); else gc({ type: 'minor' });
}

module.exports = { collectGarbage };
