'use strict';
// The sweep's memory: <sweep dir>/state.tsv, one line per permutation and repeat:
//   <key> TAB <status> TAB <run dir, relative to the sweep dir, or -> TAB <reason>
// key = the run.sh command line and " #<repeat>"; status = done | crashed | failed | interrupted | skipped.
// The file is rewritten whole after every change (lib/atomic-write.js), so a crash, a Ctrl-C or a full
// disk at any moment leaves either the old or the new version, never half a line; a failed write throws.

const fs = require('node:fs');
const path = require('node:path');
const { writeFileAtomic } = require('../atomic-write');

const STATUSES = ['done', 'crashed', 'failed', 'interrupted', 'skipped'];
const HEADER = '# pushbench sweep state: key<TAB>status<TAB>run dir<TAB>reason (written by sweep.sh; safe to read)\n';

function clean(text) {
  return String(text ?? '').replace(/[\t\r\n]+/g, ' ').trim();
}

class SweepState {
  constructor(dir) {
    this.file = path.join(dir, 'state.tsv');
    this.entries = new Map(); // key -> { status, runDir, reason }
    if (fs.existsSync(this.file)) this.load();
  }

  load() {
    const text = fs.readFileSync(this.file, 'utf8');
    for (const [i, line] of text.split('\n').entries()) {
      if (line === '' || line.startsWith('#')) continue;
      const [key, status, runDir, reason = ''] = line.split('\t');
      if (!key || !STATUSES.includes(status)) {
        throw new Error(`${this.file}:${i + 1}: not a state line: ${JSON.stringify(line)}`);
      }
      this.entries.set(key, { status, runDir: runDir === '-' ? null : runDir, reason });
    }
  }

  get(key) {
    return this.entries.get(key) ?? null;
  }

  set(key, status, runDir, reason) {
    if (!STATUSES.includes(status)) throw new Error(`unknown status ${status}`);
    this.entries.set(key, { status, runDir: runDir || null, reason: clean(reason) });
    this.save();
  }

  save() {
    let text = HEADER;
    for (const [key, e] of this.entries) text += `${key}\t${e.status}\t${e.runDir ?? '-'}\t${e.reason}\n`;
    writeFileAtomic(this.file, text);
  }
}

module.exports = { SweepState, STATUSES };
