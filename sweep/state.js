'use strict';
// The sweep's memory: <sweep dir>/state.tsv, one line per permutation and repeat:
//   <key> TAB <status> TAB <run dir, relative to the sweep dir, or -> TAB <reason> TAB <lane> TAB <started> TAB <finished>
// key = the run.sh command line and " #<repeat>"; status = done | crashed | failed | interrupted | skipped;
// lane = the lane (lanes.js) the run ran on; started, finished = ISO times of that run ('-' when none).
// Older files with the first four columns only are read as they are.
// The file is rewritten whole after every change (lib/atomic-write.js), so a crash, a Ctrl-C or a full
// disk at any moment leaves either the old or the new version, never half a line; a failed write throws.
// Every write holds state.tsv.lock (created exclusively, holding the writer's PID; a stale one, whose
// PID is gone, is taken over), so lanes finishing at once, or anything else writing, never interleave.

const fs = require('node:fs');
const path = require('node:path');
const { writeFileAtomic } = require('../lib/atomic-write');

const STATUSES = ['done', 'crashed', 'failed', 'interrupted', 'skipped'];
const HEADER = '# pushbench sweep state: key<TAB>status<TAB>run dir<TAB>reason<TAB>lane<TAB>started<TAB>finished (written by sweep.sh; safe to read)\n';
const LOCK_WAIT_MS = 10000;

function clean(text) {
  return String(text ?? '').replace(/[\t\r\n]+/g, ' ').trim();
}

const alive = (pid) => {
  try {
    process.kill(pid, 0);
    return true;
  } catch (e) {
    return e.code === 'EPERM';
  }
};

// Runs fn while holding <file>.lock.
function withLock(file, fn) {
  const lock = `${file}.lock`;
  const until = Date.now() + LOCK_WAIT_MS;
  for (;;) {
    try {
      fs.writeFileSync(lock, `${process.pid}\n`, { flag: 'wx' });
      break;
    } catch (e) {
      if (e.code !== 'EEXIST') throw e;
      const pid = Number(fs.readFileSync(lock, 'utf8').trim());
      if (!pid || (pid !== process.pid && !alive(pid))) {
        fs.rmSync(lock, { force: true });
        continue;
      }
      if (Date.now() > until) throw new Error(`${lock} is held by PID ${pid}`);
      Atomics.wait(new Int32Array(new SharedArrayBuffer(4)), 0, 0, 20);
    }
  }
  try {
    return fn();
  } finally {
    fs.rmSync(lock, { force: true });
  }
}

class SweepState {
  constructor(dir) {
    this.file = path.join(dir, 'state.tsv');
    this.entries = new Map(); // key -> { status, runDir, reason, lane, startedAt, finishedAt }
    if (fs.existsSync(this.file)) this.load();
  }

  load() {
    const text = fs.readFileSync(this.file, 'utf8');
    for (const [i, line] of text.split('\n').entries()) {
      if (line === '' || line.startsWith('#')) continue;
      const [key, status, runDir, reason = '', lane = '-', startedAt = '-', finishedAt = '-'] = line.split('\t');
      if (!key || !STATUSES.includes(status)) {
        throw new Error(`${this.file}:${i + 1}: not a state line: ${JSON.stringify(line)}`);
      }
      const opt = (v) => (v === '-' || v === '' ? null : v);
      this.entries.set(key, { status, runDir: opt(runDir), reason, lane: opt(lane), startedAt: opt(startedAt), finishedAt: opt(finishedAt) });
    }
  }

  get(key) {
    return this.entries.get(key) ?? null;
  }

  // extra: { lane, startedAt, finishedAt } of the run, when it ran.
  set(key, status, runDir, reason, extra = {}) {
    if (!STATUSES.includes(status)) throw new Error(`unknown status ${status}`);
    this.entries.set(key, { status, runDir: runDir || null, reason: clean(reason), lane: extra.lane ?? null,
      startedAt: extra.startedAt ?? null, finishedAt: extra.finishedAt ?? null });
    this.save();
  }

  save() {
    let text = HEADER;
    for (const [key, e] of this.entries) {
      text += `${key}\t${e.status}\t${e.runDir ?? '-'}\t${e.reason}\t${clean(e.lane) || '-'}\t${e.startedAt ?? '-'}\t${e.finishedAt ?? '-'}\n`;
    }
    withLock(this.file, () => writeFileAtomic(this.file, text));
  }
}

module.exports = { SweepState, STATUSES, withLock };
