'use strict';
// /proc/meminfo of the SUT host: MemTotal is the base of memory-% (the study hard-coded 4096 MB; we read it).
const fs = require('node:fs');

// Returns MemTotal in MiB (vmstat -SM reports MiB), or null when the file has no MemTotal line.
function parseMeminfo(text) {
  const m = /^MemTotal:\s+(\d+)\s*kB/m.exec(text);
  return m ? Number(m[1]) / 1024 : null;
}

function readMemTotalMB(file) {
  return parseMeminfo(fs.readFileSync(file, 'utf8'));
}

module.exports = { parseMeminfo, readMemTotalMB };
