'use strict';
// Builds a small sweep directory for the comparison tests: copies of the real fixture run with the
// parameters of different permutations written into run.json (three servers, comet and poll, two thread
// levels, one permutation repeated). The measurements are the fixture's; what is tested is how runs are
// picked, grouped, averaged and drawn. makeVerdictSweep adds a validity verdict (issue #19) to each run's
// analysed summary: one run of each verdict, and one without any (analysed before verdicts existed).
const fs = require('node:fs');
const path = require('node:path');

const { analyzeAndWrite } = require('../../analysis/run-analysis');

const FIXTURE = path.join(__dirname, '..', '..', 'analysis', 'test', 'fixtures', 'run-local');

const PERMUTATIONS = [
  { server: 'node', type: 'comet', threads: 3, interval: 1000 },
  { server: 'tc6', type: 'comet', threads: 3, interval: 1000 },
  { server: 'tc7', type: 'comet', threads: 3, interval: 1000 },
  { server: 'node', type: 'poll', threads: 3, interval: 1000 },
  { server: 'node', type: 'comet', threads: 6, interval: 1000 },
  { server: 'node', type: 'comet', threads: 6, interval: 1000, repeat: 2 },
  { server: 'tc6', type: 'comet', threads: 3, interval: null, event: null },
];

// verdict null: the summary keeps no validity (a run analysed before verdicts existed: 'unknown').
// The 5 s run lasts 8 s instead of the fixture's 4, so its message rate differs (figure T2's x).
const VERDICT_PERMUTATIONS = [
  { server: 'node', type: 'comet', threads: 3, interval: 1000, verdict: 'valid' },
  { server: 'node', type: 'poll', threads: 3, interval: 1000, verdict: 'generator-bound' },
  { server: 'node', type: 'comet', threads: 6, interval: 1000, verdict: 'valid' },
  { server: 'node', type: 'comet', threads: 6, interval: 1000, repeat: 2, verdict: 'disturbed' },
  { server: 'node', type: 'poll', threads: 6, interval: 1000, verdict: 'server-limited' },
  { server: 'node', type: 'poll', threads: 6, interval: 5000, duration: 8, verdict: 'valid' },
  { server: 'tc6', type: 'comet', threads: 3, interval: 1000, verdict: null },
];

function makeSweep(dir, permutations = PERMUTATIONS) {
  fs.mkdirSync(path.join(dir, 'runs'), { recursive: true });
  return permutations.map((p, i) => {
    const id = `run${i + 1}-${p.server}-${p.type}-${p.threads}${p.interval === 5000 ? '-5s' : ''}${p.repeat ? `-r${p.repeat}` : ''}`;
    const runDir = path.join(dir, 'runs', id);
    fs.cpSync(FIXTURE, runDir, { recursive: true, filter: (src) => !/[/\\](data|charts|report)$/.test(src) });
    const runFile = path.join(runDir, 'run.json');
    const run = JSON.parse(fs.readFileSync(runFile, 'utf8'));
    const { repeat, verdict, ...params } = p;
    Object.assign(run, { id, event: 'event1' }, params);
    fs.writeFileSync(runFile, JSON.stringify(run, null, 2));
    return runDir;
  });
}

// validity as analysis/ writes it into data/summary.json
function validityOf(verdict) {
  const valid = verdict === 'valid';
  return {
    verdict,
    reasons: valid ? [] : [{ rule: `fixture-${verdict}`, verdict, text: `fixture: marked ${verdict}` }],
    unknowns: [],
    confidence: 'full',
  };
}

// Resolves to the run directories, analysed, each summary with its permutation's verdict.
async function makeVerdictSweep(dir, permutations = VERDICT_PERMUTATIONS) {
  const runDirs = makeSweep(dir, permutations);
  for (const [i, runDir] of runDirs.entries()) {
    await analyzeAndWrite(runDir);
    const file = path.join(runDir, 'data', 'summary.json');
    const summary = JSON.parse(fs.readFileSync(file, 'utf8'));
    delete summary.validity;
    if (permutations[i].verdict) summary.validity = validityOf(permutations[i].verdict);
    fs.writeFileSync(file, JSON.stringify(summary, null, 2));
  }
  return runDirs;
}

module.exports = { makeSweep, makeVerdictSweep, validityOf, PERMUTATIONS, VERDICT_PERMUTATIONS };
