#!/usr/bin/env node
'use strict';
// The disk a run needs before it starts (preflight, host/host-check.js): sized from the run with the
// estimate of the responses (lib/response-estimate.js), not a fixed figure. The run's decisions
// (lib/decide.js) take it from runDiskNeed; the command line below prints the same.
//
//   node lib/disk-need.js <type> <duration s> <max-duration ms|-> <emit-interval ms|-> <connections>...
//
// Prints one line per engine's connections: the MB that engine needs (raw responses, their archive
// beside them, BASE_MB of logs and monitors), then one more: the MB the results directory here needs for
// the whole run (every engine's archive, results.csv at CSV_BYTES_PER_SAMPLE, BASE_MB of data sets,
// charts and report). A pull's interval stands in place of the max-duration: one request per pull.
const { responseEstimate } = require('./response-estimate');
const { TEST_TYPES } = require('./test-types');

const BASE_MB = 20;
const CSV_BYTES_PER_SAMPLE = 200;
const MB = 1024 * 1024;

// run: as lib/response-estimate.js takes it, for one engine's connections. Returns { engineMB (what
// preflight checks that engine's free space against), archiveBytes, samples }.
function need(run) {
  const e = responseEstimate(run);
  return { engineMB: Math.ceil((e.rawBytes + e.archiveBytes) / MB) + BASE_MB, archiveBytes: e.archiveBytes, samples: e.files };
}

// A run's whole disk need: { engines: [MB per engine, for each share of the connections], resultsMb (the
// run directory here) }. run: the run schema's names (a pull's interval stands in the max duration's place).
function runDiskNeed(run, shares) {
  let archives = 0;
  let samples = 0;
  const engines = shares.map((connections) => {
    const n = need({ type: run.type, durationS: run.durationS, maxDurationMs: run.maxDurationMs ?? run.pullIntervalMs ?? null,
      emitIntervalMs: run.emitIntervalMs ?? null, connections });
    archives += n.archiveBytes;
    samples += n.samples;
    return n.engineMB;
  });
  return { engines, resultsMb: Math.ceil((archives + samples * CSV_BYTES_PER_SAMPLE) / MB) + BASE_MB };
}

function main(argv) {
  const [type, duration, maxDur, emit, ...connections] = argv;
  const num = (v) => (v === '-' || v === '' || v === undefined ? null : Number(v));
  const ok = (v) => Number.isInteger(v) && v > 0;
  if (!TEST_TYPES.includes(type) || !ok(num(duration)) || connections.length === 0 || !connections.map(num).every(ok)) {
    process.stderr.write(`usage: node lib/disk-need.js <${TEST_TYPES.join('|')}> <duration s> <max-duration ms|-> <emit-interval ms|-> <connections>...\n`);
    return 2;
  }
  const d = runDiskNeed({ type, durationS: num(duration), maxDurationMs: num(maxDur), emitIntervalMs: num(emit) }, connections.map(num));
  process.stdout.write(`${[...d.engines, d.resultsMb].join('\n')}\n`);
  return 0;
}

if (require.main === module) process.exitCode = main(process.argv.slice(2));
module.exports = { need, runDiskNeed, BASE_MB };
