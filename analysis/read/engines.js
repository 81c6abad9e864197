'use strict';
// The engine hosts' monitors (engines/<name>/ in the run directory, docs/run-layout.md): per engine and
// per elapsed second of the run, its host's CPU used and steal (vmstat), its JMeter JVM's %CPU and RSS
// (pidstat) and its pauses (gc.log: its safepoints where logged, else its GC pauses). Engine clocks are taken as the controller's (the client clock
// of every other figure). What is missing is named in `unknown`, never fatal.
const fs = require('node:fs');
const path = require('node:path');
const { parseVmstatFile } = require('./vmstat');
const { parsePidstatFile } = require('./pidstat');
const { parseGcLogFile, pausePerSecond, stopsOf } = require('./gc-log');

const isFile = (f) => { try { return fs.statSync(f).isFile(); } catch { return false; } };

// Each pidstat sample with its elapsed second of the run (a sample closes its second; clocks taken as
// the controller's), those outside [0, seconds) left out.
function forEachSecond(samples, t0, seconds, use) {
  for (const s of samples) {
    if (s.epochMs === null) continue;
    const sec = Math.round((s.epochMs - t0) / 1000) - 1;
    if (sec >= 0 && sec < seconds) use(sec, s);
  }
}

// How many CPUs a list such as "0-3,6" names (/proc/<pid>/status Cpus_allowed_list), or null.
function cpuListCount(text) {
  const list = text.trim();
  if (!/^\d+(-\d+)?(,\d+(-\d+)?)*$/.test(list)) return null;
  return list.split(',').reduce((n, part) => {
    const [a, b = a] = part.split('-').map(Number);
    return n + Math.max(0, b - a + 1);
  }, 0);
}

// The engines to read: run.json's, else every folder under engines/.
function engineNames(runDir, run) {
  const listed = (run.hosts?.engines ?? []).map((e) => e.name).filter((n) => typeof n === 'string' && /^[\w-]+$/.test(n));
  if (listed.length) return listed;
  try {
    return fs.readdirSync(path.join(runDir, 'engines'), { withFileTypes: true }).filter((d) => d.isDirectory()).map((d) => d.name).sort();
  } catch { return []; }
}

// Returns [{ name, address, cores (the host's), cpusAllowed (the JVM's, when recorded), hostCpu[], steal[],
// jvmCpu[], jvmRssMB[], gcPauseMs[] (stop time per second, booked in the second a stop ended: read/gc-log.js
// stopsOf), stops[] (stopsOf's, epoch ms) or null, safepointsLogged, skipped, unknown[] }].
async function readEngineMonitors(runDir, run, t0, seconds) {
  const out = [];
  for (const name of engineNames(runDir, run)) {
    const dir = path.join(runDir, 'engines', name);
    const f = (file) => path.join(dir, file);
    const e = { name, address: (run.hosts?.engines ?? []).find((x) => x.name === name)?.address ?? null, cores: null, cpusAllowed: null,
      hostCpu: new Array(seconds).fill(null), steal: new Array(seconds).fill(null), jvmCpu: new Array(seconds).fill(null),
      jvmRssMB: new Array(seconds).fill(null), gcPauseMs: null, stops: null, safepointsLogged: false, skipped: 0, unknown: [] };
    if (isFile(f('vmstat.log'))) {
      const vm = await parseVmstatFile(f('vmstat.log'));
      e.skipped += vm.skipped;
      const startedAt = isFile(f('started-at.txt')) ? Number(fs.readFileSync(f('started-at.txt'), 'utf8').trim()) : NaN;
      if (!Number.isFinite(startedAt)) e.unknown.push(`engine ${name}: vmstat start unknown (no started-at.txt): its seconds placed from the run start`);
      const shift = Number.isFinite(startedAt) ? Math.floor((startedAt - t0) / 1000) : 0;
      vm.samples.forEach((s, i) => {
        const sec = shift + i;
        if (sec >= 0 && sec < seconds) { e.hostCpu[sec] = s.cpu; e.steal[sec] = s.steal; }
      });
    } else e.unknown.push(`engine ${name}: host CPU unknown (no engines/${name}/vmstat.log)`);
    if (isFile(f('pidstat.log'))) {
      const ps = await parsePidstatFile(f('pidstat.log'));
      e.skipped += ps.skipped;
      e.cores = ps.cores;
      e.cpusAllowed = isFile(f('cpus-allowed.txt')) ? cpuListCount(fs.readFileSync(f('cpus-allowed.txt'), 'utf8')) : null;
      forEachSecond(ps.samples, t0, seconds, (sec, s) => { e.jvmCpu[sec] = s.cpu; e.jvmRssMB[sec] = Math.round(s.rssMB * 100) / 100; });
    } else e.unknown.push(`engine ${name}: JMeter JVM CPU unknown (no engines/${name}/pidstat.log)`);
    if (isFile(f('gc.log'))) {
      const gc = await parseGcLogFile(f('gc.log'));
      e.skipped += gc.skipped;
      e.stops = stopsOf(gc);
      e.safepointsLogged = gc.safepoints.length > 0;
      e.gcPauseMs = pausePerSecond(e.stops, t0, seconds);
    } else e.unknown.push(`engine ${name}: GC pauses unknown (no engines/${name}/gc.log)`);
    out.push(e);
  }
  return out;
}

// The JMeter controller's JVM (controller/pidstat.log, taken where run.sh ran): %CPU per elapsed second,
// or null without the file. It is part of the load generator: its CPU is not 'other processes'.
async function readControllerCpu(runDir, t0, seconds) {
  const file = path.join(runDir, 'controller', 'pidstat.log');
  if (!isFile(file)) return null;
  const cpu = new Array(seconds).fill(null);
  forEachSecond((await parsePidstatFile(file)).samples, t0, seconds, (sec, s) => { cpu[sec] = s.cpu; });
  return cpu;
}

module.exports = { readEngineMonitors, readControllerCpu, engineNames, cpuListCount };
