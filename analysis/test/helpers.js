'use strict';
// Shared by the analysis and chart tests: fixture paths and a scratch copy of the fixture run.
const fs = require('node:fs');
const os = require('node:os');
const path = require('node:path');

const FIXTURES = path.join(__dirname, 'fixtures');
const CAPTURED = path.join(FIXTURES, 'captured');
const RUN = path.join(FIXTURES, 'run-local');                       // built from real captures, with damage
const REAL_RUN = path.join(FIXTURES, 'real-node-comet-100-15');     // a real run.sh run, inputs only

// Scratch directories live under $PB_STATE/tmp (or the system temp dir) and go when the test process ends.
const scratch = [];
process.on('exit', () => { for (const d of scratch) fs.rmSync(d, { recursive: true, force: true }); });

function scratchDir(prefix = 'pb-analysis-') {
  const base = process.env.PB_STATE ? path.join(process.env.PB_STATE, 'tmp') : os.tmpdir();
  fs.mkdirSync(base, { recursive: true });
  const dir = fs.mkdtempSync(path.join(base, prefix));
  scratch.push(dir);
  return dir;
}

// A copy of the fixture run without anything an earlier analysis wrote.
function copyRun(dest = path.join(scratchDir(), 'run'), source = RUN) {
  fs.cpSync(source, dest, { recursive: true, filter: (src) => !/[/\\](data|charts|report)$/.test(src) });
  return dest;
}

const readJson = (file) => JSON.parse(fs.readFileSync(file, 'utf8'));

// The captured bodies, parsed independently of the analyzer (one JSON per line).
function capturedRecords() {
  const dir = path.join(CAPTURED, 'bodies');
  const out = [];
  for (const f of fs.readdirSync(dir).filter((n) => n.startsWith('request_'))) {
    for (const line of fs.readFileSync(path.join(dir, f), 'utf8').split('\n')) {
      if (!line.startsWith('{')) continue;
      const obj = JSON.parse(line);
      if (obj.response) out.push({ file: f, ...obj });
    }
  }
  return out;
}

module.exports = { FIXTURES, CAPTURED, RUN, REAL_RUN, scratchDir, copyRun, readJson, capturedRecords };
