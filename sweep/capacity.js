'use strict';
// Will the load generator keep up? (issue #19 item 4) Before a sweep starts, each permutation's sample
// rate offered to the JMeter engines is set against what the engines can sustain, measured per engine
// host by ./sweep.sh --calibrate (calibrate.js): engine CPU microseconds per sample at the plan's
// settings, and the host's cores.
//
// The formula (the one place it lives):
//   offered samples/s  comet with events        connections x events per second (1000 / emit ms)
//                      comet without events     0 (each stream is one sample, held all run)
//                      sse, ws                  as comet (held streams: lib/test-types.js)
//                      long poll with events    connections x events per second (a poll ends at the
//                                               next emit, or at its max duration if that comes first)
//                      long poll without events connections / max duration in s (every poll times out)
//                      pull                     connections x pulls per second (1000 / pull ms), events or not
//                      plus, while it ramps up, connections / ramp-up s thread starts (each counted as
//                      a sample); the peak, at the end of the ramp-up, is steady + starts
//   needed engine CPU  an engine's share of the peak rate (its connections in run.sh's split, from
//                      lib/decide.js) x its host's cpuUsPerSample / 1e6, in cores
//   generator-bound    when some engine needs more than ENGINE_CPU_LIMIT of its host's cores
// A permutation predicted generator-bound would measure JMeter rather than the server: give the sweep
// more engines (hosts.conf) or drop it.

const fs = require('node:fs');
const os = require('node:os');
const path = require('node:path');

const ROOT = path.resolve(__dirname, '..');

// Share of an engine host's cores the predicted need may take before the permutation counts as
// generator-bound, in percent: PB_ENGINE_CPU_LIMIT (1-100), default 80. The analysis' engine-cpu rule
// flags a run whose engines sat at >= 95%; 80% leaves room for GC, the response archive and the rest.
const DEFAULT_ENGINE_CPU_LIMIT = 80;

function engineCpuLimit(env = process.env) {
  const raw = env.PB_ENGINE_CPU_LIMIT;
  if (raw === undefined || raw === '') return DEFAULT_ENGINE_CPU_LIMIT;
  if (!/^[0-9]+(\.[0-9]+)?$/.test(raw) || Number(raw) <= 0 || Number(raw) > 100) {
    throw new Error(`PB_ENGINE_CPU_LIMIT must be a percentage in (0, 100], got '${raw}'`);
  }
  return Number(raw);
}

// Samples per second offered to all engines together: { steady, starts, peak }.
function offeredRate(perm) {
  let steady = 0;
  if (perm.type === 'pull') {
    steady = perm.connections * (1000 / perm.pullIntervalMs);
  } else if (perm.emitIntervalMs) {
    const holdMs = perm.type === 'poll' && perm.maxDurationMs ? Math.min(perm.emitIntervalMs, perm.maxDurationMs) : perm.emitIntervalMs;
    steady = perm.connections * (1000 / holdMs);
  } else if (perm.type === 'poll' && perm.maxDurationMs) {
    steady = perm.connections / (perm.maxDurationMs / 1000);
  }
  const starts = perm.connections / Math.max(1, perm.rampupS);   // a ramp-up of 0 starts them all in one second
  return { steady, starts, peak: steady + starts };
}

// Cores a rate of samples/s takes at cpuUsPerSample microseconds of engine CPU each.
const coresNeeded = (rate, cpuUsPerSample) => (rate * cpuUsPerSample) / 1e6;

// Samples/s one calibrated host sustains within the limit.
const sustainableRate = (cal, limitPct) => (cal.cores * (limitPct / 100) * 1e6) / cal.cpuUsPerSample;

// How many engines like the calibrated one keep a rate within the limit.
const enginesNeeded = (rate, cal, limitPct) => Math.max(1, Math.ceil(rate / sustainableRate(cal, limitPct)));

// perm: a permutation (permutations.js); engines: [{ name, connections (its share: the plan's split),
// calibration: { cores, cpuUsPerSample } | null }]. Returns { rate, engines: [{ name, connections, rate,
// needCores, cores, limitCores, bound }], generatorBound (true, false, or null when some engine has no
// calibration), needCores }.
function predict(perm, engines, limitPct) {
  const rate = offeredRate(perm);
  const per = engines.map((e) => {
    const r = perm.connections ? rate.peak * (e.connections / perm.connections) : 0;
    const own = { name: e.name, connections: e.connections, rate: r };
    if (!e.calibration) return { ...own, needCores: null, cores: null, limitCores: null, bound: null };
    const needCores = coresNeeded(r, e.calibration.cpuUsPerSample);
    const limitCores = e.calibration.cores * (limitPct / 100);
    return { ...own, needCores, cores: e.calibration.cores, limitCores, bound: needCores > limitCores };
  });
  const known = per.every((e) => e.bound !== null);
  return {
    rate,
    engines: per,
    generatorBound: per.some((e) => e.bound) ? true : known ? false : null,
    needCores: known ? per.reduce((s, e) => s + e.needCores, 0) : null,
  };
}

// ---- the stored calibrations

// Where calibrations live: PB_CALIBRATION, else $PB_BUILD/calibration (PB_BUILD as lib/config.sh sets it).
function calibrationDir(env = process.env) {
  return env.PB_CALIBRATION || path.join(env.PB_BUILD || path.join(ROOT, 'build'), 'calibration');
}

// This machine's name, as a calibration's file name: <dir>/<host>.json.
const thisHost = () => os.hostname().split('.')[0] || 'localhost';

const isLoopback = (address) => /^127\./.test(address ?? '');

// A stored calibration, checked: { file, calibration } or { file, problem }.
function readCalibration(file) {
  let c;
  try {
    c = JSON.parse(fs.readFileSync(file, 'utf8'));
  } catch (e) {
    return { file, problem: `unreadable (${e.code === 'ENOENT' ? 'missing' : e.message})` };
  }
  if (!(Number.isFinite(c?.cpuUsPerSample) && c.cpuUsPerSample > 0) || !(Number.isInteger(c?.cores) && c.cores > 0)) {
    return { file, problem: 'no positive cpuUsPerSample and cores in it' };
  }
  return { file, calibration: c };
}

// The calibration of one engine of hosts.conf ({ name, address }): <dir>/<name>.json, or, for an engine on
// this machine (a 127.0.0.0/8 address), <dir>/<this host>.json as ./sweep.sh --calibrate writes it.
// Returns { file, calibration } | { file, problem } | { files, missing: true }.
function calibrationFor(engine, dir) {
  const names = [engine.name, ...(isLoopback(engine.address) ? [thisHost()] : [])];
  const files = [...new Set(names)].map((n) => path.join(dir, `${n}.json`));
  const found = files.find((f) => fs.existsSync(f));
  return found ? readCalibration(found) : { files, missing: true };
}

function writeCalibration(dir, host, calibration) {
  fs.mkdirSync(dir, { recursive: true });
  const file = path.join(dir, `${host}.json`);
  const tmp = `${file}.tmp-${process.pid}`;
  fs.writeFileSync(tmp, `${JSON.stringify(calibration, null, 2)}\n`);
  fs.renameSync(tmp, file);
  return file;
}

module.exports = {
  DEFAULT_ENGINE_CPU_LIMIT, engineCpuLimit, offeredRate, coresNeeded, sustainableRate, enginesNeeded, predict,
  calibrationDir, thisHost, calibrationFor, readCalibration, writeCalibration,
};
