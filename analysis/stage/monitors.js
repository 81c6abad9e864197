'use strict';
// Stage 4, monitors: the SUT host's (study 3.4.1.1: vmstat for CPU, pidstat for the server process, and
// for memory sut/memory.log with MemTotal from it or sut/meminfo.txt), and the load generator's (each
// engine's host and JVM, the controller's JVM: read/engines.js), which the validity stage sets beside them.
const { parseVmstatFile, memoryFrozen } = require('../read/vmstat');
const { parsePidstatFile } = require('../read/pidstat');
const { parseMemoryLogFile } = require('../read/memory-log');
const { readMemTotalMB } = require('../read/meminfo');
const fs = require('node:fs');
const path = require('node:path');
const { readEngineMonitors, readControllerCpu, cpuListCount } = require('../read/engines');

const NONE = { samples: [], skipped: 0 };

// inputs, present: read/run-inputs.js findInputs'. Returns { vmstat, pidstat, memoryLog, memTotalMB,
// memorySource ('memory.log', 'vmstat' or null: memory % is not computed), notes, serverCores }.
async function readSutMonitors(inputs, present) {
  const vmstat = present('vmstat') ? await parseVmstatFile(inputs.vmstat) : NONE;
  const pidstat = present('pidstat') ? await parsePidstatFile(inputs.pidstat) : NONE;
  const memoryLog = present('memoryLog') ? await parseMemoryLogFile(inputs.memoryLog) : NONE;
  let memTotalMB = memoryLog.samples.length ? memoryLog.samples[0].totalKB / 1024 : null;
  if (memTotalMB === null && present('meminfo')) memTotalMB = readMemTotalMB(inputs.meminfo);
  const { memorySource, notes } = memorySourceOf(memoryLog, vmstat, memTotalMB);
  return { vmstat, pidstat, memoryLog, memTotalMB, memorySource, notes, serverCores: serverCores(inputs, pidstat.cores ?? null) };
}

// The cores the server process may use: those of sut/cpus-allowed.txt (its Cpus_allowed_list, which
// PB_SERVER_CPUS narrows) when fewer than the host's, else the host's (pidstat's banner), or null.
function serverCores(inputs, hostCores) {
  let allowed = null;
  try {
    allowed = cpuListCount(fs.readFileSync(path.join(path.dirname(inputs.pidstat), 'cpus-allowed.txt'), 'utf8'));
  } catch { /* a run without the file (before PB_SERVER_CPUS): the host's cores */ }
  return allowed !== null && (hostCores === null || allowed < hostCores) ? allowed : hostCores;
}

// Memory % comes from sut/memory.log. A run without one falls back on vmstat's memory columns, unless
// they never changed (a vmstat that repeats its first sample's memory: docs/limits.md); none at all
// without MemTotal.
function memorySourceOf(memoryLog, vmstat, memTotalMB) {
  const notes = [];
  let memorySource = memoryLog.samples.length ? 'memory.log' : vmstat.samples.length ? 'vmstat' : null;
  if (memorySource === 'vmstat' && memoryFrozen(vmstat.samples)) {
    memorySource = null;
    notes.push(`memory % not computed: vmstat's memory columns never changed over ${vmstat.samples.length} samples (procps-ng 4.0.2 repeats its first sample) and there is no sut/memory.log`);
  }
  if (memorySource !== null && memTotalMB === null) {
    memorySource = null;
    notes.push('memory % not computed: no MemTotal (sut/meminfo.txt)');
  }
  return { memorySource, notes };
}

// The load generator's monitors per elapsed second of the run: { engines (read/engines.js
// readEngineMonitors), controllerCpu (per second, or null) }.
async function readLoadGenerator(runDir, run, t0, seconds) {
  return { engines: await readEngineMonitors(runDir, run, t0, seconds), controllerCpu: await readControllerCpu(runDir, t0, seconds) };
}

module.exports = { readSutMonitors, readLoadGenerator };
