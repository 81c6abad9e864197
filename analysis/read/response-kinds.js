'use strict';
// Saved responses are named after their sampler's label (run-layout.md): "request_17.json" is a request.
// An engine's stream log (push-<n>.tsv.gz, the push sampler's records of every sample) is kind 'stream'.
const KINDS = ['request', 'timestamp', 'setevent', 'logging', 'clear', 'stream'];
const STREAM_LOG = /^push-\d{1,9}\.tsv\.gz$/;

// The kind of a file in the archive, or null for a name without a known label prefix.
function kindOf(entryPath) {
  const base = entryPath.slice(entryPath.lastIndexOf('/') + 1);
  if (STREAM_LOG.test(base)) return 'stream';
  const underscore = base.indexOf('_');
  if (underscore < 0) return null;
  const kind = base.slice(0, underscore);
  return KINDS.includes(kind) ? kind : null;
}

module.exports = { KINDS, kindOf };
