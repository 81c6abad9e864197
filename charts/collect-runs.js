'use strict';
// Finds the run directories among the arguments of compare.js (a run dir, or a sweep dir whose
// subdirectories — or whose runs/ subdirectories — are run dirs) and loads what the comparison reads:
// data/summary.json, data/series.json and run.json's provenance (lib/provenance.js). A run not yet
// analysed, or whose analysis' outputs are missing or not whole, is analysed first (analysis/outputs.js
// analyzeUnlessWhole); one that stays unreadable is left out with the reason. params.hostSet says what
// hardware the run ran on (lib/provenance.js hostSet).
const fs = require('node:fs');
const path = require('node:path');
const { analyzeAndWrite } = require('../analysis/run-analysis');
const { SUMMARY, readWhole, analyzeUnlessWhole } = require('../analysis/outputs');
const { hostSet } = require('../lib/provenance');
const { summaryParameters } = require('../lib/run-schema');

function readProvenance(dir) {
  try {
    return JSON.parse(fs.readFileSync(path.join(dir, 'run.json'), 'utf8')).provenance ?? null;
  } catch {
    return null;
  }
}

const isDir = (p) => { try { return fs.statSync(p).isDirectory(); } catch { return false; } };
const isRunDir = (p) => fs.existsSync(path.join(p, 'run.json')) || fs.existsSync(path.join(p, 'data', 'summary.json'));

function findRunDirs(arg, depth = 0) {
  const dir = path.resolve(arg);
  if (!isDir(dir)) return [];
  if (isRunDir(dir)) return [dir];
  if (depth >= 2) return [];
  return fs.readdirSync(dir).sort().map((n) => path.join(dir, n)).filter(isDir).flatMap((d) => findRunDirs(d, depth + 1));
}

// One run as the comparison reads it, analysed again first when its outputs are not whole:
// { run } or { problem }. reanalysed: its report must be written again.
async function loadRun(dir) {
  const { reanalysed, problem } = await analyzeUnlessWhole(dir, { data: ['series.json'], analyse: analyzeAndWrite });
  const summary = readWhole(path.join(dir, SUMMARY)).value;
  const series = readWhole(path.join(dir, 'data', 'series.json')).value?.series;
  if (!summary?.parameters || !series) return { problem: problem ?? 'data/summary.json or data/series.json holds no run' };
  // The run schema's names, whichever a summary was written with (lib/run-schema.js).
  const p = summaryParameters(summary.parameters, `${path.join(dir, SUMMARY)} parameters`);
  const params = { server: p.server, type: p.type, connections: p.connections, emitIntervalMs: p.emitIntervalMs,
    maxDurationMs: p.maxDurationMs, pullIntervalMs: p.pullIntervalMs, events: Boolean(p.event && p.emitIntervalMs), rampupS: p.rampupS, durationS: p.durationS };
  const provenance = readProvenance(dir);
  params.hostSet = hostSet(provenance);
  return { run: { dir, summary, series, params, provenance, loadStart: summary.loadStartSecond ?? 0, reanalysed } };
}

// Returns [{ dir, summary, series, params, reanalysed }] and [{ dir, problem }] for runs that could not be loaded.
async function loadRuns(args) {
  const dirs = [...new Set(args.flatMap((a) => findRunDirs(a)))];
  const runs = [];
  const problems = [];
  for (const dir of dirs) {
    try {
      const { run, problem } = await loadRun(dir);
      if (run) runs.push(run);
      else problems.push({ dir, problem });
    } catch (err) {
      problems.push({ dir, problem: err.message });
    }
  }
  return { runs, problems };
}

// Runs with the same parameters, on the same kind of hosts, are repeats of one permutation (pulls at
// different pull intervals are different permutations).
const permutationKey = (p) => [p.server, p.type, p.connections, p.events ? p.emitIntervalMs : 'none', p.type === 'poll' && !p.events ? p.maxDurationMs : '-', p.durationS,
  ...(p.type === 'pull' ? [`pull ${p.pullIntervalMs}`] : []), ...(p.hostSet ? [p.hostSet] : [])].join('|');

module.exports = { findRunDirs, loadRuns, permutationKey };
