'use strict';
// A run the sweep records done or crashed counts as analysed only when its analysis' outputs are whole
// (analysis/outputs.js: data/summary.json and every other output readable). One whose outputs are missing
// or not whole (an analysis cut short by a full disk) is analysed again, by node analysis/analyze.js in a
// process of its own as run.sh runs it, before --cleanup-raw may delete what it is analysed from.
const path = require('node:path');
const { spawn } = require('node:child_process');
const { analyzeUnlessWhole } = require('../analysis/outputs');

const ANALYZE = path.join(__dirname, '..', 'analysis', 'analyze.js');

// Runs analysis/analyze.js on runDir; resolves to the first line it wrote to stderr ('' when none).
function runAnalyzeJs(runDir) {
  return new Promise((resolve) => {
    const child = spawn(process.execPath, [ANALYZE, runDir], { stdio: ['ignore', 'ignore', 'pipe'] });
    let err = '';
    child.stderr.on('data', (d) => { if (err.length < 2000) err += d; });
    child.on('error', (e) => resolve(e.message));
    child.on('close', () => resolve(err.trim().split('\n')[0]));
  });
}

// Resolves to { reanalysed, was, problem } (analyzeUnlessWhole) and error: analyze.js's first stderr line.
async function ensureAnalysed(runDir) {
  let error = '';
  const result = await analyzeUnlessWhole(runDir, { analyse: async (dir) => { error = await runAnalyzeJs(dir); } });
  return { ...result, error };
}

// The sweep's line about it, or null when the outputs were whole.
function analysedLine(rel, a) {
  if (!a.was) return null;
  if (!a.reanalysed) return `${rel}: the analysis' outputs are not whole: ${a.problem}`;
  if (!a.problem) return `${rel}: analysed again: its outputs were not whole (${a.was})`;
  return `${rel}: analysed again, its outputs still not whole: ${a.problem}${a.error ? ` (analysis/analyze.js: ${a.error})` : ''}`;
}

module.exports = { ensureAnalysed, analysedLine };
