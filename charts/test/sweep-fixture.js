'use strict';
// Builds a small sweep directory for the comparison tests: copies of the real fixture run with the
// parameters of different permutations written into run.json (three servers, comet and poll, two thread
// levels, one permutation repeated). The measurements are the fixture's; what is tested is how runs are
// picked, grouped, averaged and drawn.
const fs = require('node:fs');
const path = require('node:path');

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

function makeSweep(dir) {
  fs.mkdirSync(path.join(dir, 'runs'), { recursive: true });
  return PERMUTATIONS.map((p, i) => {
    const id = `run${i + 1}-${p.server}-${p.type}-${p.threads}${p.repeat ? `-r${p.repeat}` : ''}`;
    const runDir = path.join(dir, 'runs', id);
    fs.cpSync(FIXTURE, runDir, { recursive: true, filter: (src) => !/[/\\](data|charts|report)$/.test(src) });
    const runFile = path.join(runDir, 'run.json');
    const run = JSON.parse(fs.readFileSync(runFile, 'utf8'));
    const { repeat, ...params } = p;
    Object.assign(run, { id, event: 'event1' }, params);
    fs.writeFileSync(runFile, JSON.stringify(run, null, 2));
    return runDir;
  });
}

module.exports = { makeSweep, PERMUTATIONS };
