'use strict';
// Parser for `vmstat -SM -a 1` (study 3.4.1.1). Column positions come from the header line, so extra
// columns (st, gu, a -t timestamp) do not matter. The first data line is the average since boot and is
// dropped; every further line is one second. Repeated headers are skipped; lines cut mid-way or otherwise
// unreadable are skipped and counted.
const { lineParsers } = require('./lines');

const NEEDED = ['active', 'id'];

// One-line formulas, exported so the tests can pin them down.
const cpuPercent = (idle) => 100 - idle;
const memoryPercent = (activeMB, memTotalMB) => (activeMB / memTotalMB) * 100;
// Frozen memory columns: in a load test free and active memory move by a MB within seconds, so five equal
// samples mean a vmstat that repeats its first sample's memory on every line (docs/limits.md names the
// version). Asked only of runs without sut/memory.log, whose memory % would come from vmstat.
const memoryFrozen = (samples) => samples.length >= 5
  && samples.every((s) => s.active === samples[0].active && s.free === samples[0].free);

function createVmstatParser() {
  let columns = null;       // header names in order
  let sinceBootDropped = false;
  const state = { samples: [], skipped: 0, headers: 0 };

  function line(raw) {
    const text = raw.trim();
    if (text === '') return;
    if (text.startsWith('procs')) { state.headers++; return; }          // group header ("procs ---memory---")
    const fields = text.split(/\s+/);
    if (fields[0] === 'r' && fields[1] === 'b') { columns = fields; return; }
    if (!columns) { state.skipped++; return; }
    // A data line must be as long as the header's numeric part and purely numeric there.
    const index = Object.fromEntries(columns.map((c, i) => [c, i]));
    if (NEEDED.some((c) => index[c] === undefined)) { state.skipped++; return; }
    const numericCount = columns.filter((c) => !/^[A-Z]/.test(c)).length;  // -t adds a "UTC"/"CET" column
    if (fields.length < numericCount) { state.skipped++; return; }
    const values = fields.slice(0, numericCount).map(Number);
    if (values.some((v) => !Number.isFinite(v))) { state.skipped++; return; }
    const active = values[index.active];
    const idle = values[index.id];
    if (idle < 0 || idle > 100) { state.skipped++; return; }
    if (!sinceBootDropped) { sinceBootDropped = true; return; }
    // st: CPU time the hypervisor gave to other guests (null where vmstat has no such column). A run with
    // much of it was measured on a machine that was not all there.
    const steal = index.st === undefined ? null : values[index.st];
    state.samples.push({ active, idle, free: values[index.free], cpu: cpuPercent(idle), steal });
  }

  return { line, state };
}

// Returns { samples: [{active, idle, free, cpu, steal}], skipped, headers }: samples[i] is second i of the monitor.
const { fromFile: parseVmstatFile, fromText: parseVmstatText } = lineParsers(createVmstatParser);

module.exports = { parseVmstatFile, parseVmstatText, cpuPercent, memoryPercent, memoryFrozen };
