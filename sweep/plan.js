'use strict';
// What the sweep can know before its first run: which permutations fit the hosts' open-file limits,
// how much disk the saved responses will take, and how long it will all last.

// A JMeter thread or a held request costs one socket, i.e. one open file, in the engine and in the
// server process; each process also needs PB_FD_RESERVE files of its own (jars, logs, epoll, ...).
// run.sh's preflight (host/host-check.sh) refuses a run whose process would need more than the soft
// limit a process started on that host gets, so that is the limit here; the hard limit says whether
// raising the soft one (ulimit -n) would help.
function limitNote(h, need) {
  return need <= h.hard ? ` (the hard limit ${h.hard} would allow it: raise the soft limit with ulimit -n on that host)` : '';
}

// run.sh splits the threads evenly over the engines; the first (threads % n) engines get one more.
function shares(threads, engines) {
  return Array.from({ length: engines }, (_, k) => Math.floor(threads / engines) + (k < threads % engines ? 1 : 0));
}

function fit(perm, hosts, reserve) {
  const sut = hosts.find((h) => h.role === 'sut');
  const engines = hosts.filter((h) => h.role === 'engine');
  const needSut = perm.threads + reserve;
  if (needSut > sut.soft) {
    return {
      fits: false,
      reason: `does not fit: the server process on sut ${sut.name} would need ${needSut} open files `
        + `(${perm.threads} connections + ${reserve} reserve), its limit is ${sut.soft}${limitNote(sut, needSut)}`,
    };
  }
  const split = shares(perm.threads, engines.length);
  for (const [k, e] of engines.entries()) {
    const share = split[k];
    if (share + reserve > e.soft) {
      const per = Math.max(1, e.soft - reserve);
      return {
        fits: false,
        reason: `does not fit: engine ${e.name} would hold ${share} connections + ${reserve} reserve, `
          + `its limit is ${e.soft} open files${limitNote(e, share + reserve)}; with that limit `
          + `${Math.ceil(perm.threads / per)} engines would be needed, hosts.conf has ${engines.length}`,
      };
    }
  }
  if (perm.threads < engines.length) {
    return { fits: false, reason: `${perm.threads} threads cannot be split over ${engines.length} engines` };
  }
  return { fits: true, reason: '' };
}

// Response volume. JMeter saves one file per sample: a comet request is one file that grows by one
// record per emit; a long poll is one file per answer (an event or a timeout). Record size measured on
// real runs (an event record ~300 bytes, a timeout ~210); every small file costs a whole file-system
// block on the engine until it is archived. Archives measured at 3-6 % of the records' bytes plus
// ~20 bytes per file; the figures below round up.
const RECORD_BYTES = 320;
const BLOCK_BYTES = 4096;
const ARCHIVE_RATIO = 0.08;        // gzip'd tar of JSON records vs the records' bytes
const ARCHIVE_BYTES_PER_FILE = 25; // tar header per file, after gzip

function responseEstimate(perm) {
  const seconds = perm.duration;
  let files;
  let bytesPerFile;
  if (perm.type === 'comet') {
    files = perm.threads;
    const records = perm.emitMs ? Math.ceil((seconds * 1000) / perm.emitMs) + 1 : 1;
    bytesPerFile = records * RECORD_BYTES;
  } else {
    // A poll ends at the next emit or at its max duration, whichever comes first; a pull's interval
    // stands in the max duration's place (as in lib/disk-need.js).
    const holdMs = Math.max(1, Math.min(perm.emitMs ?? Infinity, perm.maxDurationMs ?? perm.pullMs ?? Infinity));
    files = perm.threads * Math.ceil((seconds * 1000) / holdMs);
    bytesPerFile = RECORD_BYTES;
  }
  const rawBytes = files * Math.ceil(bytesPerFile / BLOCK_BYTES) * BLOCK_BYTES;
  const archiveBytes = Math.round(files * (bytesPerFile * ARCHIVE_RATIO + ARCHIVE_BYTES_PER_FILE));
  return { files, rawBytes, archiveBytes };
}

// Disk needed: the engines hold one run's raw files at a time (archived, then removed by run.sh);
// the sweep directory keeps every archive, or only one at a time with --cleanup-raw.
function diskEstimate(perms, { cleanupRaw }) {
  let maxRaw = 0;
  let maxArchive = 0;
  let totalArchive = 0;
  for (const p of perms) {
    const e = responseEstimate(p);
    maxRaw = Math.max(maxRaw, e.rawBytes);
    maxArchive = Math.max(maxArchive, e.archiveBytes);
    totalArchive += e.archiveBytes;
  }
  return { maxRaw, totalArchive, keptArchive: cleanupRaw ? maxArchive : totalArchive };
}

// Time one run takes beyond rampup + duration (starting servers and JVMs, archiving, analysis). The
// first guess; the sweep replaces it with the mean measured so far.
const DEFAULT_OVERHEAD_S = 60;

function runSeconds(perm, overheadS) {
  return perm.rampup + perm.duration + overheadS;
}

function formatBytes(n) {
  const units = ['B', 'KB', 'MB', 'GB', 'TB'];
  let u = 0;
  while (n >= 1024 && u < units.length - 1) {
    n /= 1024;
    u++;
  }
  return `${n.toFixed(u === 0 ? 0 : 1)} ${units[u]}`;
}

function formatDuration(seconds) {
  const s = Math.max(0, Math.round(seconds));
  const h = Math.floor(s / 3600);
  const m = Math.floor((s % 3600) / 60);
  const r = s % 60;
  if (h) return `${h}h${String(m).padStart(2, '0')}m`;
  if (m) return `${m}m${String(r).padStart(2, '0')}s`;
  return `${r}s`;
}

module.exports = {
  fit, shares, responseEstimate, diskEstimate, runSeconds, formatBytes, formatDuration, DEFAULT_OVERHEAD_S,
};
