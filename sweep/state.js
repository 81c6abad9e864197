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
// A state.tsv that exists but holds no line (0 bytes, only comments or NUL bytes) while runs/ holds run
// directories is rebuilt from their run.json (state-rebuild.js; `rebuilt` says so, and the sweep saves
// it); no state.tsv at all is a sweep that has recorded nothing yet. A line that is no state line
// is refused: the file is neither read nor rewritten. Every failure to read or write it is a StateError,
// one line that never quotes the file's bytes; a permission problem (EACCES, EPERM) says so.

const fs = require('node:fs');
const path = require('node:path');
const { writeFileAtomic } = require('../lib/atomic-write');
const { rebuildFromRuns } = require('./state-rebuild');

const STATUSES = ['done', 'crashed', 'failed', 'interrupted', 'skipped'];
const HEADER = '# pushbench sweep state: key<TAB>status<TAB>run dir<TAB>reason<TAB>lane<TAB>started<TAB>finished (written by sweep.sh; safe to read)\n';
const LOCK_WAIT_MS = 10000;

const KEY = /^\.\/run\.sh \S.* #\d+$/;
const PERMISSION = new Set(['EACCES', 'EPERM']);

// state.tsv could not be read or written, or is not a state file: message is one line to show as it is;
// kind: 'permission' (EACCES, EPERM), 'damaged' (not a state file), 'read' or 'write' (anything else, a
// full disk among them); code: the system's error code, when there is one.
class StateError extends Error {
  constructor(kind, message, code) {
    super(message);
    this.kind = kind;
    this.code = code;
  }
}

// A failure of fs on state.tsv (doing: 'read' | 'write') as a StateError.
function stateError(e, doing, file) {
  if (e instanceof StateError) return e;
  if (PERMISSION.has(e.code)) {
    const uid = typeof process.geteuid === 'function' ? ` (uid ${process.geteuid()})` : '';
    return new StateError('permission', `cannot ${doing} ${file}: permission denied (${e.code}), a permission problem, not a full disk: `
      + `let this user${uid} read and write it and its directory`, e.code);
  }
  return new StateError(doing, e.message.split('\n')[0], e.code);
}

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
    this.rebuilt = null;      // { line } when the entries were rebuilt from the run directories
    if (this.load() && this.entries.size === 0) this.rebuild(dir);
  }

  // Reads state.tsv; false when there is none (a sweep that has recorded nothing yet).
  load() {
    let text;
    try {
      text = fs.readFileSync(this.file, 'utf8');
    } catch (e) {
      if (e.code === 'ENOENT') return false;
      throw stateError(e, 'read', this.file);
    }
    if (/^[\0\s]*$/.test(text)) return true;   // empty, or the NUL bytes a crash may leave: no line
    for (const [i, line] of text.split('\n').entries()) {
      if (line === '' || line.startsWith('#')) continue;
      const [key, status, runDir, reason = '', lane = '-', startedAt = '-', finishedAt = '-'] = line.split('\t');
      if (!KEY.test(key ?? '') || !STATUSES.includes(status) || runDir === undefined) {
        throw new StateError('damaged', `${this.file}: line ${i + 1} is not a state line (<run.sh command line> #<repeat> TAB <status> TAB <run dir> ...); `
          + 'the sweep neither reads nor rewrites it: restore it, or empty it (: > state.tsv) to have it rebuilt from the runs\' run.json');
      }
      const opt = (v) => (v === '-' || v === '' ? null : v);
      this.entries.set(key, { status, runDir: opt(runDir), reason, lane: opt(lane), startedAt: opt(startedAt), finishedAt: opt(finishedAt) });
    }
    return true;
  }

  // No line in state.tsv: the entries the run directories tell, if there are any (state-rebuild.js).
  rebuild(dir) {
    let rebuilt;
    try {
      rebuilt = rebuildFromRuns(dir);
    } catch (e) {
      throw stateError(e, 'read', path.join(dir, 'runs'));
    }
    if (!rebuilt) return;
    this.entries = rebuilt.entries;
    this.rebuilt = { line: rebuilt.line };
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
    try {
      withLock(this.file, () => writeFileAtomic(this.file, text));
    } catch (e) {
      throw stateError(e, 'write', this.file);
    }
  }
}

module.exports = { SweepState, StateError, STATUSES, withLock };
