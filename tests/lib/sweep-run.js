'use strict';
// Test helper: runs ./sweep.sh and reads its state.tsv (sweep/state.js's columns).
const fs = require('node:fs');
const path = require('node:path');
const { spawn } = require('node:child_process');

const ROOT = path.resolve(__dirname, '..', '..');
const SWEEP = path.join(ROOT, 'sweep.sh');

// Resolves { code, out (stdout and stderr), seconds }; env adds variables; onOutput(out, child) sees
// the output so far after every chunk (to interrupt a sweep mid-way).
function runSweep(args, { env = {}, onOutput } = {}) {
  return new Promise((resolve) => {
    const child = spawn(SWEEP, args, { cwd: ROOT, env: { ...process.env, ...env }, stdio: ['ignore', 'pipe', 'pipe'] });
    let out = '';
    const take = (d) => {
      out += d;
      if (onOutput) onOutput(out, child);
    };
    child.stdout.on('data', take);
    child.stderr.on('data', take);
    const t0 = Date.now();
    child.on('close', (code) => resolve({ code, out, seconds: (Date.now() - t0) / 1000 }));
  });
}

// [{ key, status, runDir, reason, lane, started, finished (ms, NaN when none) }]
function readState(dir) {
  return fs.readFileSync(path.join(dir, 'state.tsv'), 'utf8').split('\n').filter((l) => l && !l.startsWith('#')).map((l) => {
    const [key, status, runDir, reason, lane, startedAt, finishedAt] = l.split('\t');
    return { key, status, runDir, reason, lane, started: Date.parse(startedAt), finished: Date.parse(finishedAt) };
  });
}

module.exports = { runSweep, readState, SWEEP };
