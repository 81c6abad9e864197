#!/usr/bin/env node
'use strict';
// How fast files can be created where the JMeter engines save their responses, fresh and right after as
// many were deleted: what one run meets when the run before it cleaned up its response files.
//
//   node bench/inode-churn.js [--files <n>] [--dir <dir>]
//
// Defaults: 100,000 files (a 15k long-poll headline run saves ~125,000 per engine), in $PB_STATE/tmp (the
// engines' working directories live under $PB_STATE, lib/config.sh). Prints the file system, whether an
// ext4 one has a journal, both creation rates and their ratio. On ext4 without a journal the inode
// allocator skips every inode deleted in the last 60 s (360 s while its inode table block is still dirty),
// reading that block for each one it skips, so creating files right after many were deleted slows down
// (docs/limits.md, the engines' file system row). "Fresh" is only fresh on a machine that deleted no
// files in the minutes before: run it twice in a row and the first run's clean-up slows the second.
// Exit 2 on bad usage.
const fs = require('node:fs');
const path = require('node:path');

const ROOT = path.join(__dirname, '..');

function usage(message) {
  if (message) console.error(`inode-churn: ${message}`);
  console.error('usage: node bench/inode-churn.js [--files <n>] [--dir <dir>]');
  process.exit(2);
}

function parseArgs(argv) {
  // $PB_STATE as lib/config.sh sets it: default $PB_BUILD/state, $PB_BUILD default build/
  const state = process.env.PB_STATE || path.join(process.env.PB_BUILD || path.join(ROOT, 'build'), 'state');
  const opts = { files: 100000, dir: path.join(state, 'tmp') };
  for (let i = 0; i < argv.length; i += 2) {
    const [key, value] = [argv[i], argv[i + 1]];
    if (value === undefined) usage(`${key} wants a value`);
    if (key === '--files') {
      if (!/^[1-9][0-9]{0,7}$/.test(value)) usage('--files wants 1 to 99,999,999');
      opts.files = Number(value);
    } else if (key === '--dir') opts.dir = value;
    else usage(`unknown option ${key}`);
  }
  return opts;
}

// The mount holding `dir` (the longest mount point that is a prefix of its real path), from mountinfo.
function mountOf(dir) {
  const real = fs.realpathSync(dir);
  let best = null;
  for (const line of fs.readFileSync('/proc/self/mountinfo', 'utf8').split('\n')) {
    const [left, right] = line.split(' - ');
    if (!right) continue;
    const point = left.split(' ')[4].replace(/\\040/g, ' ');
    const [type, source] = right.split(' ');
    const inside = point === '/' || real === point || real.startsWith(`${point}/`);
    if (inside && (!best || point.length >= best.point.length)) best = { point, type, source };
  }
  return best;
}

// true / false for ext4 (the kernel's journal_task shows "<none>" without a journal), null otherwise.
function ext4Journal(mount) {
  if (mount?.type !== 'ext4') return null;
  try {
    return fs.readFileSync(`/sys/fs/ext4/${path.basename(mount.source)}/journal_task`, 'utf8').trim() !== '<none>';
  } catch { return null; }
}

function createFiles(dir, n) {
  fs.mkdirSync(dir);
  const t0 = process.hrtime.bigint();
  for (let i = 1; i <= n; i++) fs.closeSync(fs.openSync(path.join(dir, `request_${i}.json`), 'w'));
  return Number(process.hrtime.bigint() - t0) / 1e6;
}

function main() {
  const { files, dir } = parseArgs(process.argv.slice(2));
  fs.mkdirSync(dir, { recursive: true });
  const work = fs.mkdtempSync(path.join(dir, 'inode-churn-'));
  const cleanUp = () => fs.rmSync(work, { recursive: true, force: true });
  process.on('SIGINT', () => { cleanUp(); process.exit(130); });
  try {
    const mount = mountOf(work);
    const journal = ext4Journal(mount);
    const fresh = createFiles(path.join(work, 'a'), files);
    const t0 = Date.now();
    fs.rmSync(path.join(work, 'a'), { recursive: true });
    const deleteMs = Date.now() - t0;
    const after = createFiles(path.join(work, 'b'), files);
    const rate = (ms) => Math.round(files / (ms / 1000));
    console.log(`${work}: ${mount ? `${mount.type} on ${mount.source}` : 'unknown file system'}${journal === null ? '' : journal ? ', with a journal' : ', no journal'}`);
    console.log(`create ${files} files, fresh:                ${fresh.toFixed(0).padStart(8)} ms  ${String(rate(fresh)).padStart(9)} files/s`);
    console.log(`delete them:                                ${String(deleteMs).padStart(8)} ms`);
    console.log(`create ${files} files, right after deleting: ${after.toFixed(0).padStart(8)} ms  ${String(rate(after)).padStart(9)} files/s`);
    console.log(`after deleting / fresh: ${(after / fresh).toFixed(2)}x the time`);
    console.log(JSON.stringify({ dir: work, fsType: mount?.type ?? null, journal, files, freshMs: Math.round(fresh), deleteMs,
      afterDeleteMs: Math.round(after), ratio: Math.round((after / fresh) * 100) / 100 }));
  } finally {
    cleanUp();
  }
}

if (require.main === module) main();
module.exports = { mountOf, ext4Journal };
