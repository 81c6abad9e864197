#!/usr/bin/env node
'use strict';
// node charts/study-collect.js [--data docs/study/data] <sweep-dir|run-dir>...: copies what docs/study's page
// needs from finished runs into the repository (issue #25: the derived data, never the raw archives):
// for each run, data/runs/<run id>/ gets run.json (parameters, notes, provenance), data/summary.json and
// data/series.json; for each sweep directory, data/sweeps/<name>/ gets its sweep.json (the selection) and
// state.tsv (every permutation's status, failures included). Runs not yet analysed are analysed first
// (charts/collect-runs.js). A run already collected is overwritten with the same files. Then
// `node charts/study.js` builds the page from data/ alone.
const fs = require('node:fs');
const path = require('node:path');
const { loadRuns, findRunDirs } = require('./collect-runs');

const RUN_FILES = ['run.json', 'data/summary.json', 'data/series.json'];
const SWEEP_FILES = ['sweep.json', 'state.tsv'];

async function collect(dataDir, args) {
  const { runs, problems } = await loadRuns(args);
  for (const r of runs) {
    const dest = path.join(dataDir, 'runs', r.summary.id);
    for (const f of RUN_FILES) {
      const src = path.join(r.dir, f);
      if (!fs.existsSync(src)) continue;
      fs.mkdirSync(path.dirname(path.join(dest, f)), { recursive: true });
      fs.copyFileSync(src, path.join(dest, f));
    }
  }
  const sweeps = args.map((a) => path.resolve(a)).filter((d) => fs.existsSync(path.join(d, 'sweep.json')));
  for (const d of sweeps) {
    const dest = path.join(dataDir, 'sweeps', path.basename(d));
    fs.mkdirSync(dest, { recursive: true });
    for (const f of SWEEP_FILES) if (fs.existsSync(path.join(d, f))) fs.copyFileSync(path.join(d, f), path.join(dest, f));
  }
  return { runs, problems, sweeps };
}

async function main(argv) {
  let dataDir = path.join(__dirname, '..', 'docs', 'study', 'data');
  const args = [];
  for (let i = 0; i < argv.length; i++) {
    if (argv[i] === '--data' && argv[i + 1]) dataDir = path.resolve(argv[++i]);
    else if (argv[i].startsWith('-')) return usage();
    else args.push(argv[i]);
  }
  if (!args.length) return usage();
  const found = args.flatMap((a) => findRunDirs(a));
  if (!found.length) {
    console.error(`study-collect: no run directory under ${args.join(', ')}`);
    return 1;
  }
  const { runs, problems, sweeps } = await collect(dataDir, args);
  for (const p of problems) console.error(`study-collect: left out ${p.dir}: ${p.problem}`);
  console.log(`${runs.length} runs and ${sweeps.length} sweeps collected into ${dataDir}${problems.length ? `, ${problems.length} left out` : ''}`);
  return problems.length ? 1 : 0;
}

function usage() {
  console.error('usage: node charts/study-collect.js [--data <dir, default docs/study/data>] <sweep-dir|run-dir>...');
  return 2;
}

if (require.main === module) {
  main(process.argv.slice(2)).then((code) => { process.exitCode = code; }, (err) => {
    console.error(`study-collect: ${err.stack || err}`);
    process.exitCode = 1;
  });
}

module.exports = { collect };
