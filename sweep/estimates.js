'use strict';
// What the sweep can estimate before its first run, with run.sh's decisions deciding what is run.sh's:
// each permutation's decisions from lib/decide.js, the module run.sh reads its own from (the split of
// the connections over the engines and the open-file fit its preflight would judge), called in this
// process; the disk the responses take (lib/response-estimate.js and lib/disk-need.js, run.sh's
// estimates), and how long it will all last.

const { decide, threadRoomHere } = require('../lib/decide');
const { responseEstimate } = require('../lib/response-estimate');
const { need } = require('../lib/disk-need');

// The split and the fit read the hosts file, the server type and the connections, nothing else of a
// run (so do its refusals of a level: fewer connections than engines, a blocking Tomcat's thread limit):
// one answer per lane and key serves every permutation with that key. An answer's heap and disk also
// read the type, duration and intervals, so the sweep takes neither from a shared answer.
const decisionsKey = (perm) => `${perm.server} ${perm.connections}`;

// The open-file limits sweep/hosts.js read on a lane's hosts, in the form the decisions take them
// (run.sh --plan's PB_PLAN_OPEN_FILES).
function openFilesSetting(hosts) {
  return hosts.map((h) => `${h.role}:${h.name}=${h.soft}/${h.hard}`).join(' ');
}

// One permutation's decisions: { decisions } or { refused } (run.sh would refuse this run: its message,
// the line it prints after "run.sh: ").
function decideRun(args, env, threadRoom) {
  const d = decide({ argv: args, env, limits: { threadRoom } });
  return d.refused ? { refused: d.refused.message } : { decisions: d };
}

// run.sh's decisions of permutations on lanes (lanes.js, each with the hosts sweep/hosts.js read), made
// once per lane and key, in this process (no run.sh, no bash: lib/decide.js).
class RunDecisions {
  constructor() {
    this.answers = new Map();
    this.room = null;
  }

  // This machine's room for threads (lib/host-facts.js threadRoom), read once and only for a blocking Tomcat.
  threadRoom() {
    this.room ??= threadRoomHere(process.env);
    return this.room;
  }

  // Decides every lane and key not decided yet; rejects when a decision cannot be made.
  async load(perms, lanes) {
    for (const lane of lanes) {
      const env = { ...process.env, ...lane.env, PB_PLAN_OPEN_FILES: openFilesSetting(lane.hosts) };
      for (const perm of perms) {
        const k = `${lane.index} ${decisionsKey(perm)}`;
        if (this.answers.has(k)) continue;
        this.answers.set(k, decideRun(perm.args, env, () => this.threadRoom()));
      }
    }
  }

  // { decisions } | { refused } for a permutation whose decisions load() made.
  get(perm, lane) {
    const a = this.answers.get(`${lane.index} ${decisionsKey(perm)}`);
    if (!a) throw new Error(`no decisions made for ${perm.command} on lane ${lane.name}`);
    return a;
  }
}

// Whether run.sh would run it on that lane: { fits, reason }.
function fit(answer) {
  if (answer.refused) return { fits: false, reason: `run.sh refuses it: ${answer.refused}` };
  const o = answer.decisions.openFiles;
  if (o.fits) return { fits: true, reason: '' };
  return {
    fits: false,
    reason: `does not fit: ${o.hosts.filter((h) => !h.fits).map((h) => `${h.role} ${h.name}: ${h.problem}`).join('; ')}`,
  };
}

// The disk run.sh's preflight will want on each engine for the largest of the runs: { <engine name>: MB },
// from each run's split (its decisions) and lib/disk-need.js. A target run's is its decisions' own (what
// run.sh sizes a target's messages as, lib/decide.js): a target sweep's key (server and level) is one
// permutation's, so its answer is that run's (decided at --duration before a --budget shortens it: the
// safe side).
function engineDiskNeed(perms, decisions, lane) {
  const most = {};
  for (const perm of perms) {
    for (const e of decisions.get(perm, lane).decisions.engines) {
      most[e.name] = Math.max(most[e.name] ?? 0, perm.target ? e.diskMb : need({ ...perm, connections: e.connections }).engineMB);
    }
  }
  return most;
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

// A target sweep's disk from its runs' decisions (lib/decide.js sizes a target's messages; a built-in run's
// estimate above has no target to size): decisionOf(perm) -> its decisions. The sweep directory keeps each
// run's directory (resultsDiskMb: archives, results.csv, data and report), or with --cleanup-raw about the
// largest one's archives; the engines hold the largest run's need (diskMb: raw files, archive, logs) at a
// time. Returns diskEstimate's fields, in bytes.
function decidedDiskEstimate(perms, decisionOf, { cleanupRaw }) {
  const MB = 1024 * 1024;
  let maxRaw = 0;
  let maxArchive = 0;
  let totalArchive = 0;
  for (const p of perms) {
    const d = decisionOf(p);
    maxRaw = Math.max(maxRaw, d.engines.reduce((sum, e) => sum + e.diskMb, 0) * MB);
    maxArchive = Math.max(maxArchive, d.resultsDiskMb * MB);
    totalArchive += d.resultsDiskMb * MB;
  }
  return { maxRaw, totalArchive, keptArchive: cleanupRaw ? maxArchive : totalArchive };
}

// Time one run takes beyond rampup + duration (starting servers and JVMs, archiving, analysis). The
// first guess; the sweep replaces it with the mean measured so far.
const DEFAULT_OVERHEAD_S = 60;

function runSeconds(perm, overheadS) {
  return perm.rampupS + perm.durationS + overheadS;
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
  RunDecisions, decisionsKey, openFilesSetting, fit, engineDiskNeed, diskEstimate, decidedDiskEstimate, runSeconds, formatBytes, formatDuration, DEFAULT_OVERHEAD_S,
};
