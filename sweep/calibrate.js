'use strict';
// ./sweep.sh --calibrate: measures what one JMeter engine on this machine costs per sample, for the
// sweep's generator-bound prediction (capacity.js, issue #19 item 4).
//
// One short real run through ./run.sh (so the engine starts exactly as in a sweep: load/engine.sh, the
// plan's settings, the heap and collector of lib/config.sh): the Node.js server and one engine on this
// machine, a long poll with events (every thread answered at each emit: a known, steady sample rate).
// While it runs, the engine JVM's CPU time (utime + stime of /proc/<pid>/stat, read every second) is
// sampled; afterwards the steady window (from the ramp-up's end + SETTLE_MS to the load's end -
// SETTLE_MS) gives
//   cpuUsPerSample = engine CPU microseconds in the window / answers ending in the window
// (results.csv: request samples, or the mux engine's summary samples' SampleCount); cores are the machine's, or those PB_ENGINE_CPUS pins the engine to. Stored as
// <calibration dir>/<this host>.json (capacity.js: calibrationDir):
//   { host, cores, cpuUsPerSample, measuredAt, jmeterVersion, settings, measured }
// The run directory is deleted afterwards; only the JSON stays.

const fs = require('node:fs');
const os = require('node:os');
const path = require('node:path');
const { spawn, spawnSync } = require('node:child_process');

const { readResultsCsv, SUMMARY_LABEL } = require('../analysis/read/jmeter-csv');
const capacity = require('./capacity');

const ROOT = path.resolve(__dirname, '..');
const ENGINE_NAME = 'calibration';   // hosts.conf name of the engine, so its PID file is its own

// The load offered, each overridable from the environment: connections x (1000 / emit interval ms) samples/s, here
// 200 x 2 = 400/s, small enough for a 2-core machine that also runs the server, long enough for a
// steady window of ~20 s.
const SETTINGS = {   // the run schema's names (lib/run-schema.js); the environment keeps its settings' names
  connections: Number(process.env.PB_CALIBRATION_THREADS || 200),
  emitIntervalMs: Number(process.env.PB_CALIBRATION_EMIT_MS || 500),
  rampupS: 2,
  durationS: Number(process.env.PB_CALIBRATION_SECONDS || 30),
};
const SETTLE_MS = 3000;   // left out at both ends of the steady window

// lib/config.sh's values the calibration depends on (the one place they are set).
function config() {
  const r = spawnSync('bash', ['-c', 'source lib/config.sh && printf "%s\\n" "$PB_STATE" "$JMETER_VERSION" "$PB_JMETER_GC" "$PB_JMETER_HEAP" "${PB_ENGINE_CPUS:-}"'],
    { cwd: ROOT, encoding: 'utf8' });
  if (r.status !== 0) throw new Error(`cannot read lib/config.sh: ${r.stderr}`);
  const [state, jmeterVersion, gc, heap, engineCpus] = r.stdout.split('\n');
  return { state, jmeterVersion, gc, heap, engineCpus };
}

// The cores an engine may use: those of PB_ENGINE_CPUS (a taskset list such as 0-1,3) when it pins the
// engine, else every core of this machine.
function engineCores(cpuList) {
  if (!cpuList) return os.cpus().length;
  const cpus = new Set();
  for (const part of cpuList.split(',')) {
    const [a, b = a] = part.split('-').map(Number);
    for (let c = a; c <= b; c++) cpus.add(c);
  }
  return cpus.size;
}

function clockTicks() {
  const r = spawnSync('getconf', ['CLK_TCK'], { encoding: 'utf8' });
  const n = Number(r.stdout?.trim());
  return Number.isFinite(n) && n > 0 ? n : 100;
}

// utime + stime (clock ticks) of a process, or null when it is gone.
function cpuTicks(pid) {
  try {
    const stat = fs.readFileSync(`/proc/${pid}/stat`, 'utf8');
    const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');   // fields from the 3rd on
    return Number(fields[11]) + Number(fields[12]);                     // 14th and 15th
  } catch {
    return null;
  }
}

// The engine's PID while run.sh runs: its PID file is in the run's work directory, <state>/runs/<id>, the
// id being the name of the run directory run.sh wrote to dirFile (PB_RUN_DIR_FILE).
function enginePid(stateDir, dirFile) {
  try {
    const id = path.basename(fs.readFileSync(dirFile, 'utf8').trim());
    const pid = Number(fs.readFileSync(path.join(stateDir, 'runs', id, `engine-${ENGINE_NAME}.pid`), 'utf8').trim().split(/\s+/)[0]);
    return Number.isInteger(pid) && pid > 0 ? pid : null;
  } catch {
    return null;
  }
}

// The CPU ticks at time t (ms), linearly between the two readings around it; null outside them.
function ticksAt(readings, t) {
  for (let i = 1; i < readings.length; i++) {
    const a = readings[i - 1];
    const b = readings[i];
    if (a.t <= t && t <= b.t) return a.ticks + ((b.ticks - a.ticks) * (t - a.t)) / Math.max(1, b.t - a.t);
  }
  return null;
}

// The measurement from the run's results.csv and the CPU readings (exported for its unit test).
async function measure(resultsCsv, readings, settings, ticksPerSecond) {
  const ends = [];
  let firstStart = Infinity;
  // An answer ends at its sample's end; a summary sample of the mux engine stands for the SampleCount
  // answers that ended in its interval, counted at the interval's end.
  await readResultsCsv(resultsCsv, (s) => {
    if (s.label !== 'request' && s.label !== SUMMARY_LABEL) return;
    firstStart = Math.min(firstStart, s.timeStamp);
    const n = s.label === SUMMARY_LABEL ? s.sampleCount ?? 0 : 1;
    for (let i = 0; i < n; i++) ends.push(s.timeStamp + s.elapsed);
  });
  if (!ends.length) throw new Error(`no request samples in ${resultsCsv}`);
  const from = firstStart + settings.rampupS * 1000 + SETTLE_MS;
  const to = firstStart + settings.durationS * 1000 - SETTLE_MS;
  if (to - from < 5000) throw new Error(`the steady window is ${to - from} ms: give the calibration a longer run`);
  const samples = ends.filter((t) => t >= from && t < to).length;
  const t0 = ticksAt(readings, from);
  const t1 = ticksAt(readings, to);
  if (t0 === null || t1 === null) throw new Error('the engine\'s CPU readings do not cover the steady window');
  if (samples === 0) throw new Error('no request sample ended in the steady window');
  const cpuUs = ((t1 - t0) / ticksPerSecond) * 1e6;
  const seconds = (to - from) / 1000;
  return {
    cpuUsPerSample: cpuUs / samples,
    samples,
    windowSeconds: seconds,
    samplesPerSecond: samples / seconds,
    engineCpuCores: cpuUs / 1e6 / seconds,
  };
}

function runSh(args, env, onOutput) {
  return new Promise((resolve) => {
    const child = spawn(path.join(ROOT, 'run.sh'), args, { cwd: ROOT, env, stdio: ['ignore', 'pipe', 'pipe'] });
    let tail = '';
    const take = (d) => {
      tail = (tail + d).slice(-4000);
      onOutput?.(d);
    };
    child.stdout.on('data', take);
    child.stderr.on('data', take);
    child.on('close', (code) => resolve({ code, tail }));
  });
}

// Runs the calibration and stores it; returns { file, calibration }. log(line) reports progress.
async function calibrate({ log = () => {}, verbose = false, env = process.env } = {}) {
  const cfg = config();
  const settings = { ...SETTINGS, type: 'poll', maxDurationMs: 180000, event: 'event1', server: 'node' };
  for (const k of ['connections', 'emitIntervalMs', 'durationS']) {
    if (!(Number.isInteger(settings[k]) && settings[k] > 0)) throw new Error(`calibration setting ${k} must be a positive whole number`);
  }
  const dir = capacity.calibrationDir(env);
  fs.mkdirSync(dir, { recursive: true });
  const work = fs.mkdtempSync(path.join(dir, '.run-'));
  try {
    const hosts = path.join(work, 'hosts.conf');
    fs.writeFileSync(hosts, `sut local 127.0.0.1 local\nengine ${ENGINE_NAME} 127.0.0.1 local\n`);
    const dirFile = path.join(work, 'run-dir');
    const args = ['node', String(settings.rampupS), String(settings.durationS), String(settings.connections), 'poll',
      String(settings.maxDurationMs), settings.event, String(settings.emitIntervalMs)];
    log(`./run.sh ${args.join(' ')} (the Node.js server and one engine on this machine, ~${settings.connections * 1000 / settings.emitIntervalMs} samples/s)`);

    const readings = [];
    const timer = setInterval(() => {
      const pid = enginePid(cfg.state, dirFile);
      const ticks = pid ? cpuTicks(pid) : null;
      if (ticks !== null) readings.push({ t: Date.now(), ticks });
    }, 1000);
    let r;
    try {
      r = await runSh(args, { ...env, PB_HOSTS: hosts, PB_RESULTS: path.join(work, 'results'), PB_RUN_DIR_FILE: dirFile },
        verbose ? (d) => process.stdout.write(d) : null);
    } finally {
      clearInterval(timer);
    }
    if (r.code !== 0) throw new Error(`run.sh exited ${r.code}:\n${r.tail.trim().split('\n').slice(-8).join('\n')}`);
    const runDir = path.resolve(ROOT, fs.readFileSync(dirFile, 'utf8').trim());
    const measured = await measure(path.join(runDir, 'jmeter', 'results.csv'), readings, settings, clockTicks());
    const calibration = {
      host: capacity.thisHost(),
      cores: engineCores(cfg.engineCpus),
      cpuUsPerSample: Math.round(measured.cpuUsPerSample * 10) / 10,
      measuredAt: new Date().toISOString(),
      jmeterVersion: cfg.jmeterVersion,
      settings: { ...settings, jmeterGc: cfg.gc, jmeterHeap: cfg.heap, engineCpus: cfg.engineCpus || null },
      measured: {
        samples: measured.samples,
        windowSeconds: measured.windowSeconds,
        samplesPerSecond: Math.round(measured.samplesPerSecond),
        engineCpuCores: Math.round(measured.engineCpuCores * 1000) / 1000,
      },
    };
    const file = capacity.writeCalibration(dir, calibration.host, calibration);
    return { file, calibration };
  } finally {
    fs.rmSync(work, { recursive: true, force: true });
  }
}

module.exports = { calibrate, measure, ticksAt, cpuTicks, engineCores, SETTINGS, ENGINE_NAME };
