'use strict';
// Sweeps docs/study's page leaves out (issue #35): a set run again with better parameters (e.g. the
// no-event set's 40 s passes, whose 30 s window held too few long-poll timeouts, run again at 70 s) keeps
// its data committed, but the page draws and judges only the newer runs, so one condition never pools two
// designs. The one list is docs/study/data/superseded.json:
//   { "<sweep name as in data/sweeps/>": "why it is left out, and what replaces it", ... }
// A run belongs to a sweep when that sweep's state.tsv names its run directory.
const fs = require('node:fs');
const path = require('node:path');

// The list, or {} when the data directory has none; a list that is not an object of strings is an error.
function readSuperseded(dataDir) {
  const file = path.join(dataDir, 'superseded.json');
  if (!fs.existsSync(file)) return {};
  const list = JSON.parse(fs.readFileSync(file, 'utf8'));
  const bad = Object.entries(list ?? []).filter(([, why]) => typeof why !== 'string' || !why);
  if (!list || typeof list !== 'object' || Array.isArray(list) || bad.length) {
    throw new Error(`${file}: want {"<sweep>": "<why>"}, got ${JSON.stringify(bad[0] ?? list)}`);
  }
  return list;
}

// Run id -> sweep name for the runs a sweep's state.tsv names (the run directory's basename is its id).
function runsOfSweep(dataDir, sweep) {
  const state = path.join(dataDir, 'sweeps', sweep, 'state.tsv');
  if (!fs.existsSync(state)) throw new Error(`${path.join(dataDir, 'superseded.json')}: no sweep ${sweep} in ${path.join(dataDir, 'sweeps')}`);
  return fs.readFileSync(state, 'utf8').split('\n')
    .filter((line) => line && !line.startsWith('#'))
    .map((line) => line.split('\t')[2])
    .filter(Boolean)
    .map((dir) => path.basename(dir));
}

// runs (each with summary.id) -> { kept, leftOut: [{ id, sweep, why }], sweeps: { name: why } }.
function leaveOutSuperseded(runs, dataDir) {
  const sweeps = readSuperseded(dataDir);
  const sweepOf = new Map();
  for (const sweep of Object.keys(sweeps)) for (const id of runsOfSweep(dataDir, sweep)) sweepOf.set(id, sweep);
  const kept = [];
  const leftOut = [];
  for (const r of runs) {
    const sweep = sweepOf.get(r.summary.id);
    if (sweep) leftOut.push({ id: r.summary.id, sweep, why: sweeps[sweep] });
    else kept.push(r);
  }
  return { kept, leftOut, sweeps };
}

module.exports = { leaveOutSuperseded, readSuperseded };
