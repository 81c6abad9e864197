'use strict';
// The run's thresholds judged (issue #49 item 3, docs/thresholds.md): run.json's `thresholds` (the target
// file's and --threshold's, checked by lib/thresholds.js before the run) evaluated over the finished
// summary. The last stage: a threshold may read any figure, the verdict included.
//   judgeThresholds(texts, summary)  summary.thresholds: { results, passed, failed }, or null without any
//   junitFile(runDir, id, judged)    <run-dir>/junit.xml written whole (a run without thresholds: removed)
const fs = require('node:fs');
const path = require('node:path');
const { parseThreshold, evaluate, junitXml, ThresholdError } = require('../../lib/thresholds');
const { writeFileAtomic } = require('../../lib/atomic-write');

// A threshold run.json holds but this checkout cannot parse (a run.json edited by hand) fails, named.
function judgeThresholds(texts, summary) {
  if (!Array.isArray(texts) || texts.length === 0) return null;
  const results = texts.map((text) => {
    try {
      return evaluate([parseThreshold(text)], summary)[0];
    } catch (e) {
      if (!(e instanceof ThresholdError)) throw e;
      return { text: String(text), metric: null, unit: null, op: null, limit: null, value: null, pass: false, why: e.message };
    }
  });
  const passed = results.filter((r) => r.pass).length;
  return { results, passed, failed: results.length - passed };
}

function junitFile(runDir, id, judged) {
  const file = path.join(runDir, 'junit.xml');
  if (!judged) return fs.rmSync(file, { force: true });
  return writeFileAtomic(file, junitXml(id ?? path.basename(runDir), judged.results));
}

module.exports = { judgeThresholds, junitFile };
