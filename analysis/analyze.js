#!/usr/bin/env node
'use strict';
// node analysis/analyze.js <run-dir>: raw run files -> <run-dir>/data/*.json and <run-dir>/charts/*.json.
// Exit 0 when the run directory could be analysed (missing inputs are reported in data/summary.json),
// 2 for a usage error, 1 when the directory is not a run directory at all.
const path = require('node:path');
const { analyzeAndWrite } = require('./run-analysis');
const { isUsableRunDir } = require('./read/run-inputs');

async function main(argv) {
  if (argv.length !== 1 || argv[0].startsWith('-')) {
    console.error('usage: node analysis/analyze.js <run-dir>');
    return 2;
  }
  const runDir = path.resolve(argv[0]);
  if (!isUsableRunDir(runDir)) {
    console.error(`analyze: ${runDir} is not a run directory (no run.json, sut/, jmeter/ or responses/ files)`);
    return 1;
  }
  const { summary } = await analyzeAndWrite(runDir);
  const f = summary.flags;
  const t = summary.target;   // a target run (stage/target.js) has no server figures
  if (t) {
    console.log(`analyzed ${summary.id}: target ${t.name ?? '-'}: ${t.messages.received} of ${t.messages.expected} messages expected received, ` +
      `trip time p99 ${t.tripTime.p99Ms ?? '-'} ms, ${t.publish.ok} of ${t.publish.count} publishes answered 2xx, ${summary.charts.written.length} charts`);
  } else {
    console.log(`analyzed ${summary.id}: ${summary.totals.responsesSent} responses in ${summary.durationSeconds} s ` +
      `(${summary.responsesPerSecond}/s), peak ${summary.peakConnections ?? '-'} connections, ` +
      `${summary.charts.written.length} charts`);
  }
  if (f.missingInputs.length) console.log(`missing inputs: ${f.missingInputs.join(', ')}`);
  if (f.archivesUnreadable.length || f.archivesTruncated.length) {
    console.log(`archives unreadable: ${f.archivesUnreadable.join(', ') || '-'}; truncated: ${f.archivesTruncated.join(', ') || '-'}`);
  }
  if (f.linesSkipped || f.filesSkipped) console.log(`skipped: ${f.linesSkipped} lines, ${f.filesSkipped} files`);
  console.log(`data: ${path.join(runDir, 'data')}`);
  return 0;
}

if (require.main === module) {
  main(process.argv.slice(2)).then((code) => { process.exitCode = code; }, (err) => {
    // a write that failed (a full disk, a permission) in one line; anything else with its stack
    console.error(`analyze: ${err.code ? err.message : err.stack || err}`);
    process.exitCode = 1;
  });
}

module.exports = { main };
