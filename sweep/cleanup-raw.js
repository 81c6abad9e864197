'use strict';
// sweep.sh --cleanup-raw (docs/sweep.md): after a run's analysis, delete its raw response archives
// (responses/*.tar.gz) to keep the sweep's disk use to one run's archives, except an archive the analyzer
// flagged truncated or unreadable (data/summary.json flags.archivesTruncated / archivesUnreadable): it is
// evidence of a fault and the only copy of what it holds, so it stays (docs/faults.md). Nothing is deleted
// unless the analysis' outputs are whole (analysis/outputs.js outputsProblem): the archives are what a
// run is analysed again from.
const fs = require('node:fs');
const path = require('node:path');
const { SUMMARY, RAW_REMOVED, readWhole, outputsProblem } = require('../analysis/outputs');
const { writeFileAtomic } = require('../lib/atomic-write');

// Returns { freed: bytes deleted, kept: [archive names kept], problem: why nothing was deleted, or null }.
function removeRawArchives(runDir) {
  const responses = path.join(runDir, 'responses');
  if (!fs.existsSync(responses)) return { freed: 0, kept: [], problem: null };
  const problem = outputsProblem(runDir);
  if (problem) return { freed: 0, kept: [], problem };
  const flags = readWhole(path.join(runDir, SUMMARY)).value.flags ?? {};
  const flagged = new Set([...(flags.archivesTruncated ?? []), ...(flags.archivesUnreadable ?? [])]);
  const archives = fs.readdirSync(responses).filter((f) => f.endsWith('.tar.gz'));
  const kept = archives.filter((f) => flagged.has(f));
  // the note first: a run it is in is never analysed again over its deleted archives (outputs.js)
  writeFileAtomic(path.join(runDir, RAW_REMOVED),
    `The raw response archives of this run were deleted by sweep.sh --cleanup-raw on ${new Date().toISOString()},\n`
    + 'after the analysis had written data/ and charts/.\n'
    + (kept.length ? `Kept, flagged truncated or unreadable by the analysis: ${kept.join(', ')}.\n` : ''));
  let freed = 0;
  for (const f of archives.filter((a) => !flagged.has(a))) {
    freed += fs.statSync(path.join(responses, f)).size;
    fs.rmSync(path.join(responses, f));
  }
  return { freed, kept, problem: null };
}

module.exports = { removeRawArchives };
