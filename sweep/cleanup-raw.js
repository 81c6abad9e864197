'use strict';
// sweep.sh --cleanup-raw (docs/sweep.md): after a run's analysis, delete its raw response archives
// (responses/*.tar.gz) to keep the sweep's disk use to one run's archives, except an archive the analyzer
// flagged truncated or unreadable (data/summary.json flags.archivesTruncated / archivesUnreadable): it is
// evidence of a fault and the only copy of what it holds, so it stays (docs/faults.md).
const fs = require('node:fs');
const path = require('node:path');

// Returns { freed: bytes deleted, kept: [archive names kept] }; nothing is deleted without a summary.
function removeRawArchives(runDir) {
  const responses = path.join(runDir, 'responses');
  const summaryFile = path.join(runDir, 'data', 'summary.json');
  if (!fs.existsSync(summaryFile) || !fs.existsSync(responses)) return { freed: 0, kept: [] };
  let flags;
  try {
    flags = JSON.parse(fs.readFileSync(summaryFile, 'utf8')).flags ?? {};
  } catch {
    return { freed: 0, kept: [] }; // an unreadable summary: the analysis is in doubt, keep everything
  }
  const flagged = new Set([...(flags.archivesTruncated ?? []), ...(flags.archivesUnreadable ?? [])]);
  let freed = 0;
  const kept = [];
  for (const f of fs.readdirSync(responses)) {
    if (!f.endsWith('.tar.gz')) continue;
    if (flagged.has(f)) {
      kept.push(f);
      continue;
    }
    freed += fs.statSync(path.join(responses, f)).size;
    fs.rmSync(path.join(responses, f));
  }
  fs.writeFileSync(path.join(responses, 'REMOVED.txt'),
    `The raw response archives of this run were deleted by sweep.sh --cleanup-raw on ${new Date().toISOString()},\n`
    + 'after the analysis had written data/ and charts/.\n'
    + (kept.length ? `Kept, flagged truncated or unreadable by the analysis: ${kept.join(', ')}.\n` : ''));
  return { freed, kept };
}

module.exports = { removeRawArchives };
