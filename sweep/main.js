'use strict';
// sweep.sh: the study's permutations through ./run.sh, one at a time (one per lane with --lanes), resumable. See ./sweep.sh --help.
//
// A sweep directory holds: sweep.json (the selection, reused on resume), state.tsv (one line per
// permutation and repeat, see state.js), sweep.log (every attempt, appended), logs/ (run.sh's output per
// attempt), runs/ (run.sh's run directories: PB_RESULTS) and report/ (comparison report and run index).


const fs = require('node:fs');
const path = require('node:path');
const capacity = require('./capacity');
const { StateError } = require('./state');
const { parse, withDefaults, recheck, USAGE, UsageError } = require('./options');
const { writeReport } = require('./report');
const { calibrate } = require('./calibrate');
const { laneEnvs, defaultLane } = require('./lanes');
const { ROOT, fixed, itemsFor, lockDir, say, stamp } = require('./common');
const { Sweep } = require('./sweep');

// sweep.sh's command line: help, list, calibrate and report answer at once; else the sweep runs (or,
// with --check, is checked) in its directory. Returns the exit code.
async function main(argv) {
  let o;
  try {
    o = parse(argv);
  } catch (e) {
    if (!(e instanceof UsageError)) throw e;
    process.stderr.write(`sweep.sh: ${e.message}\n(./sweep.sh --help for the options)\n`);
    return 2;
  }
  if (o.mode === 'help') {
    process.stdout.write(`${USAGE}\n`);
    return 0;
  }
  if (o.mode === 'list') {
    const { perms } = itemsFor(withDefaults(o.selection));
    process.stdout.write(perms.map((p) => `${p.command}\n`).join(''));
    return 0;
  }
  if (o.mode === 'calibrate') return calibrateHere(o.quiet);
  const dir = path.resolve(o.dir ?? path.join(ROOT, 'sweeps', stamp()));
  if (o.mode === 'report') return reportOnly(dir);
  return startSweep(o, dir);
}

// --calibrate: measures this host's engine (calibrate.js) and says what it sustains. Returns the exit code.
async function calibrateHere(quiet) {
  try {
    const { file, calibration: c } = await calibrate({ log: (l) => say(`calibrate: ${l}`), verbose: !quiet });
    say(`calibration: ${fixed(c.cpuUsPerSample)} µs of engine CPU per sample (${c.measured.samples} samples in `
      + `${c.measured.windowSeconds} s, ${c.measured.samplesPerSecond}/s, the engine at ${fixed(c.measured.engineCpuCores * 100, 0)}% of one core); `
      + `this host (${c.cores} cores) sustains ~${fixed(capacity.sustainableRate(c, capacity.engineCpuLimit()), 0)} samples/s within `
      + `${capacity.engineCpuLimit()}% of its cores`);
    say(`calibration saved: ${file}`);
    return 0;
  } catch (e) {
    process.stderr.write(`sweep.sh: calibration failed: ${e.message}\n`);
    return 1;
  }
}

// --report: writes the comparison report of the sweep directory dir, running nothing. Returns the exit code.
function reportOnly(dir) {
  if (!fs.existsSync(dir)) {
    process.stderr.write(`sweep.sh: ${dir}: no such sweep directory\n`);
    return 2;
  }
  let out;
  try {
    out = writeReport(dir, { log: say });
  } catch (e) {
    if (!(e instanceof StateError)) throw e;
    process.stderr.write(`sweep.sh: ${e.message}\n`);
    return 2;
  }
  if (out) say(`report: ${out}`);
  return 0;
}

// The selection: the one given, or, resuming without one, the one saved in the directory (sweep.json),
// with the durations a --budget chose then; the lanes given, or else those saved. Returns { sel,
// durations, lanes }.
function selectionOf(o, dir) {
  const savedFile = path.join(dir, 'sweep.json');
  const saved = fs.existsSync(savedFile) ? JSON.parse(fs.readFileSync(savedFile, 'utf8')) : {};
  let sel;
  let durations = null;
  if (Object.keys(o.selection).length === 0 && saved.selection) {
    // a usage error (exit 2) when its target file is gone or broken since
    const again = recheck(withDefaults(saved.selection));
    sel = again.sel;
    durations = saved.durations ?? null;
    say(`resuming with the selection saved in ${savedFile}`);
    if (again.changed) {
      say(`WARNING: target file ${sel.target.file} changed since the sweep was started (sha256 ${saved.selection.target.sha256.slice(0, 12)}… `
        + `now ${sel.target.sha256.slice(0, 12)}…): the runs done before measured it as it was (each run.json records its hash)`);
    }
  } else {
    sel = withDefaults(o.selection);
  }
  let lanes = o.lanes;
  if (!lanes && saved.lanes?.length) {
    lanes = saved.lanes;
    say(`resuming on the lanes saved in ${savedFile}: ${lanes.map((l) => l.file).join(', ')}`);
  }
  return { sel, durations, lanes };
}

// Runs the sweep in dir, locked against another sweep (--check leaves no trace: it creates no
// directory). Returns the exit code.
async function startSweep(o, dir) {
  if (o.mode !== 'check') fs.mkdirSync(dir, { recursive: true });
  let chosen;
  try {
    chosen = selectionOf(o, dir);
  } catch (e) {
    if (!(e instanceof UsageError)) throw e;
    process.stderr.write(`sweep.sh: ${e.message}\n`);
    return 2;
  }
  const { sel, durations, lanes } = chosen;
  try {
    if (fs.existsSync(dir)) lockDir(dir);
  } catch (e) {
    process.stderr.write(`sweep.sh: ${e.message}\n`);
    return 2;
  }
  try {
    const sweepObj = new Sweep(o, dir, sel, laneEnvs(lanes ?? [defaultLane()]), { durations });
    if (o.mode !== 'check') sweepObj.saveSelection();
    return await sweepObj.run();
  } catch (e) {
    // state.tsv unreadable, not a state file, or not writable before any run started: one line, nothing run
    if (!(e instanceof UsageError) && !(e instanceof StateError)) throw e;
    process.stderr.write(`sweep.sh: ${e.message}\n`);
    return 2;
  }
}

// The command line (sweep.sh): the exit code is main's.
function cli(argv) {
  main(argv).then((code) => {
    process.exitCode = code;
  }, (e) => {
    process.stderr.write(`sweep.sh: ${e.stack || e}\n`);
    process.exitCode = 1;
  });
}

module.exports = { main, itemsFor, cli };

if (require.main === module) cli(process.argv.slice(2));
