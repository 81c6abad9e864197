'use strict';
// How much one engine's saved responses take on disk (the study's section 3.3.3, "Archive Test
// Responses"): run.sh's disk need (lib/disk-need.js, for its preflight) and the sweep's disk summary
// (sweep/estimates.js) both size from this one estimate.
//
// JMeter saves one file per sample: a held stream (comet, sse: lib/test-types.js) is one file that grows by
// one record per emit; a long poll is one file per answer (an event or a timeout), a pull one per pull. Record size measured on
// real runs (an event record ~300 bytes, a timeout ~210); every small file costs a whole file-system
// block on the engine until it is archived. Archives measured at 3-6 % of the records' bytes plus
// ~20 bytes per file; the figures below round up.
const { isHeldStream } = require('./test-types');

const RECORD_BYTES = 320;
const BLOCK_BYTES = 4096;
const ARCHIVE_RATIO = 0.08;        // gzip'd tar of JSON records vs the records' bytes
const ARCHIVE_BYTES_PER_FILE = 25; // tar header per file, after gzip

// run: the run schema's names (lib/run-schema.js): { type, durationS, connections, maxDurationMs, emitIntervalMs,
// pullIntervalMs } (null when not given).
// Returns { files, rawBytes (the files as saved), archiveBytes (their .tar.gz) }.
function responseEstimate(run) {
  const seconds = run.durationS;
  let files;
  let bytesPerFile;
  if (isHeldStream(run.type)) {
    files = run.connections;
    const records = run.emitIntervalMs ? Math.ceil((seconds * 1000) / run.emitIntervalMs) + 1 : 1;
    bytesPerFile = records * RECORD_BYTES;
  } else {
    // A poll ends at the next emit or at its max duration, whichever comes first; a pull's interval
    // stands in the max duration's place.
    const holdMs = Math.max(1, Math.min(run.emitIntervalMs ?? Infinity, run.maxDurationMs ?? run.pullIntervalMs ?? Infinity));
    files = run.connections * Math.ceil((seconds * 1000) / holdMs);
    bytesPerFile = RECORD_BYTES;
  }
  const rawBytes = files * Math.ceil(bytesPerFile / BLOCK_BYTES) * BLOCK_BYTES;
  const archiveBytes = Math.round(files * (bytesPerFile * ARCHIVE_RATIO + ARCHIVE_BYTES_PER_FILE));
  return { files, rawBytes, archiveBytes };
}

module.exports = { responseEstimate };
