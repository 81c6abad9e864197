'use strict';
// state.tsv rebuilt from the run directories (docs/sweep.md, "An empty state.tsv"): when state.tsv holds
// no line while <sweep dir>/runs/ holds run directories (state.js), each run's run.json says which
// run.sh command line it ran (its parameters) and how it ended. A complete run is recorded done (crashed
// when the server under test crashed), the repeats of one command line numbered in the order they started;
// a run that did not complete (interrupted, failed, still running) is not recorded, so a resume runs it
// again as it runs an interrupted one. The lanes are not known ('-'). Nothing here writes a file.
const fs = require('node:fs');
const path = require('node:path');
const { runParameters, runRecord } = require('../lib/run-schema');
const { commandLine } = require('./permutations');

// The run.sh command line of a run from run.json's parameters, as sweep/permutations.js builds it. run.json's
// thresholds are the target file's own first, then the command line's (lib/decide.js): fileThresholds, the
// count of the file's (its copy in the run directory), are left out, as the command line never gave them.
function commandOf(runJson, { fileThresholds = 0 } = {}) {
  const run = runParameters(runJson);   // a run.json or its record, old names too (lib/run-schema.js)
  const thresholds = (runJson.thresholds ?? []).slice(runJson.target ? fileThresholds : 0).flatMap((t) => ['--threshold', t]);
  if (runJson.target) return commandLine([...thresholds, '--target', runJson.target.source, ...[run.rampupS, run.durationS, run.connections].map(String)]);
  const args = [run.server, run.rampupS, run.durationS, run.connections, run.type];
  const sixth = run.type === 'pull' ? run.pullIntervalMs : run.maxDurationMs;
  const given = (v) => v !== null && v !== undefined && v !== '';
  if (given(run.event) && given(run.emitIntervalMs)) args.push(given(sixth) ? sixth : '-', run.event, run.emitIntervalMs);
  else if (given(sixth)) args.push(sixth);
  if (runJson.tls) args.push('--tls');   // run.json's tls: the run went through the TLS front (lib/decide.js)
  return commandLine([...thresholds, ...args.map(String)]);
}

// How many thresholds a target run's file carried (its copy, target.json, in the run directory); 0 when none
// or unreadable.
function fileThresholdCount(runDir) {
  try {
    const t = JSON.parse(fs.readFileSync(path.join(runDir, 'target.json'), 'utf8')).thresholds;
    return Array.isArray(t) ? t.length : 0;
  } catch {
    return 0;
  }
}

const iso = (ms) => (Number.isFinite(ms) ? new Date(ms).toISOString() : null);

// The run directories of <dir>/runs with their run.json: [{ rel, run }] and how many had none readable.
// A directory that cannot be listed throws (its code kept: a permission problem is told apart).
function readRuns(dir) {
  const runsDir = path.join(dir, 'runs');
  let names;
  try {
    names = fs.readdirSync(runsDir, { withFileTypes: true }).filter((d) => d.isDirectory()).map((d) => d.name).sort();
  } catch (e) {
    if (e.code === 'ENOENT') return { runs: [], unreadable: 0 };
    throw e;
  }
  const runs = [];
  let unreadable = 0;
  for (const name of names) {
    try {
      // the run schema's names; one it refuses (a field missing or unknown) is unreadable
      const run = runRecord(JSON.parse(fs.readFileSync(path.join(runsDir, name, 'run.json'), 'utf8')));
      runs.push({ rel: path.join('runs', name), run });
    } catch {
      unreadable++;
    }
  }
  return { runs, unreadable };
}

// The state entries the run directories tell (key -> entry, as state.js keeps them) and one line saying
// what was rebuilt, or null when runs/ holds no run directory.
function rebuildFromRuns(dir) {
  const { runs, unreadable } = readRuns(dir);
  if (!runs.length && !unreadable) return null;
  const complete = runs.filter((r) => r.run.status === 'complete')
    .sort((a, b) => (a.run.startedAt ?? 0) - (b.run.startedAt ?? 0) || a.rel.localeCompare(b.rel));
  const entries = new Map();
  const repeats = new Map();
  for (const { rel, run } of complete) {
    const command = commandOf(run, { fileThresholds: fileThresholdCount(path.join(dir, rel)) });
    const repeat = (repeats.get(command) ?? 0) + 1;
    repeats.set(command, repeat);
    const status = run.serverCrashed === true ? 'crashed' : 'done';
    entries.set(`${command} #${repeat}`, { status, runDir: rel,
      reason: `${status === 'crashed' ? 'the server under test crashed during the run; ' : ''}recorded from its run.json (state.tsv was empty)`,
      lane: null, startedAt: iso(run.startedAt), finishedAt: iso(run.finishedAt) });
  }
  const count = (s) => [...entries.values()].filter((e) => e.status === s).length;
  const unfinished = runs.length - complete.length;
  const line = `state.tsv is empty but ${path.join(path.basename(dir), 'runs')} holds ${runs.length + unreadable} run directories: `
    + `rebuilt from their run.json: ${count('done')} done, ${count('crashed')} crashed`
    + `${unfinished ? `; ${unfinished} that did not complete run again` : ''}`
    + `${unreadable ? `; ${unreadable} without a readable run.json left out` : ''}`;
  return { entries, line };
}

module.exports = { commandOf, rebuildFromRuns };
