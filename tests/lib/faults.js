'use strict';
// Faults for tests/faults.test.js, made with real parts: a small tmpfs standing in for a full disk
// (mounted, filled to the last byte, unmounted), and the files a run left where a note says they are.
// Needs root (mount); every mount is recorded and undone by unmountAll().
const { execFileSync } = require('node:child_process');
const fs = require('node:fs');
const path = require('node:path');

const mounted = [];

// A tmpfs of <size> (e.g. '16k', '8m') on dir (created if missing).
function mountTmpfs(dir, size) {
  fs.mkdirSync(dir, { recursive: true });
  execFileSync('mount', ['-t', 'tmpfs', '-o', `size=${size},mode=0755`, 'tmpfs', dir]);
  mounted.push(dir);
  return dir;
}

// Fills the file system holding dir until a write fails with ENOSPC, leaving `leave` bytes of it free
// (rounded to its blocks); returns the filler file's size.
function fillDisk(dir, leave = 0) {
  const { bavail, bsize } = fs.statfsSync(dir);
  const file = path.join(dir, '.pb-fill');
  const fd = fs.openSync(file, 'a');
  const chunk = Buffer.alloc(4096, 0x78);
  let written = 0;
  const want = Math.max(0, bavail * bsize - leave);
  try {
    while (leave === 0 || written + chunk.length <= want) {
      written += fs.writeSync(fd, chunk);
    }
  } catch (e) {
    if (e.code !== 'ENOSPC') throw e;
  } finally {
    fs.closeSync(fd);
  }
  return written;
}

function unmount(dir) {
  const k = mounted.indexOf(dir);
  if (k < 0) return;
  execFileSync('umount', [dir]);
  mounted.splice(k, 1);
}

function unmountAll() {
  for (const dir of [...mounted].reverse()) {
    try { unmount(dir); } catch { execFileSync('umount', ['-l', dir]); mounted.splice(mounted.indexOf(dir), 1); }
  }
}

// Files under dir whose names match re, counted (0 when dir is missing).
function countFiles(dir, re = /./) {
  if (!fs.existsSync(dir)) return 0;
  return fs.readdirSync(dir).filter((n) => re.test(n)).length;
}

// The path of a "<what> not copied back; kept in <path> on <host> (<address>)" note of run.json.
function keptPath(notes, what) {
  for (const n of notes) {
    const m = new RegExp(`^${what} not copied back; kept in (\\S+)( \\(.*\\))? on \\S+ \\(`).exec(n);
    if (m) return m[1];
  }
  return null;
}

module.exports = { mountTmpfs, fillDisk, unmount, unmountAll, countFiles, keptPath };
