'use strict';
// Which inputs of a run directory (docs/run-layout.md) exist. Missing ones are listed, never fatal; a
// directory with none of them is not a run directory.
const fs = require('node:fs');
const path = require('node:path');
const { PARAMETERS, RunSchemaError, runRecord } = require('../../lib/run-schema');

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

// Resolves the run's parameters through the run schema (lib/run-schema.js: a run.json in the old names
// reads to the new ones); a missing run.json gives nulls, an unreadable one or one the schema refuses
// (a field missing, unknown or of the wrong kind, named) gives nulls and a problem.
function readRun(file) {
  const empty = { id: null, ...Object.fromEntries(PARAMETERS.map((p) => [p.name, null])),
    startedAt: null, finishedAt: null, status: null, serverCrashed: null, notes: [] };
  let json;
  try {
    json = JSON.parse(fs.readFileSync(file, 'utf8'));
  } catch (err) {
    return { run: empty, problem: err.code === 'ENOENT' ? null : `run.json unreadable: ${err.message}` };
  }
  try {
    return { run: { ...empty, ...runRecord(json) }, problem: null };
  } catch (err) {
    if (!(err instanceof RunSchemaError)) throw err;
    return { run: empty, problem: `run.json refused: ${err.message}` };
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
