'use strict';
// Which inputs of a run directory (docs/run-layout.md) exist. Missing ones are listed, never fatal; a
// directory with none of them is not a run directory.
const fs = require('node:fs');
const path = require('node:path');

function exists(p) {
  try { return fs.statSync(p).isFile(); } catch { return false; }
}

function findInputs(runDir) {
  const p = (...parts) => path.join(runDir, ...parts);
  const inputs = {
    runJson: p('run.json'),
    vmstat: p('sut', 'vmstat.log'),
    pidstat: p('sut', 'pidstat.log'),
    memoryLog: p('sut', 'memory.log'),
    meminfo: p('sut', 'meminfo.txt'),
    resultsCsv: p('jmeter', 'results.csv'),
  };
  const missing = Object.entries(inputs).filter(([, f]) => !exists(f)).map(([, f]) => path.relative(runDir, f));
  let archives = [];
  try {
    archives = fs.readdirSync(p('responses')).filter((f) => /\.(tar\.gz|tgz)$/.test(f)).sort().map((f) => p('responses', f));
  } catch { /* listed as missing below */ }
  if (archives.length === 0) missing.push('responses/*.tar.gz');
  const present = (key) => !missing.includes(path.relative(runDir, inputs[key]));
  return { inputs, archives, missing, present };
}

// Resolves the run's parameters; a missing or unreadable run.json gives nulls and a note.
function readRun(file) {
  const empty = { id: null, server: null, type: null, threads: null, duration: null, rampup: null, event: null,
    interval: null, maxDuration: null, startedAt: null, finishedAt: null, status: null, serverCrashed: null, notes: [] };
  try {
    return { run: { ...empty, ...JSON.parse(fs.readFileSync(file, 'utf8')) }, problem: null };
  } catch (err) {
    return { run: empty, problem: err.code === 'ENOENT' ? null : `run.json unreadable: ${err.message}` };
  }
}

function isUsableRunDir(runDir) {
  try {
    if (!fs.statSync(runDir).isDirectory()) return false;
  } catch { return false; }
  const { inputs, archives } = findInputs(runDir);
  return archives.length > 0 || Object.values(inputs).some(exists);
}

module.exports = { findInputs, readRun, isUsableRunDir };
