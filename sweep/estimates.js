'use strict';
// What the sweep can estimate before its first run, with run.sh deciding what is run.sh's: each
// permutation's decisions from ./run.sh --plan (lib/decisions.sh: the split of the connections over the engines
// and the open-file fit its preflight would judge), the disk the responses take (lib/response-estimate.js
// and lib/disk-need.js, run.sh's estimates), and how long it will all last.

const os = require('node:os');
const path = require('node:path');
const { spawn } = require('node:child_process');
const { responseEstimate } = require('../lib/response-estimate');
const { need } = require('../lib/disk-need');

const RUN_SH = path.join(__dirname, '..', 'run.sh');
// ./run.sh --plan processes at a time: one per core (each is CPU, mostly Node starting for lib/disk-need.js).
const DECISIONS_AT_ONCE = os.cpus().length;

// run.sh's split and fit read the hosts file, the server type and the connections, nothing else of a
// run (lib/hosts.sh hosts_split_connections, lib/open-files.sh; so do its refusals of a level: fewer
// connections than engines, a blocking Tomcat's thread limit): one answer per lane and key serves every
// permutation with that key. An answer's heap and disk also read the type, duration and intervals, so the
// sweep takes neither from a shared answer.
const decisionsKey = (perm) => `${perm.server} ${perm.connections}`;

// The open-file limits sweep/hosts.sh read on a lane's hosts, as run.sh --plan takes them.
function openFilesSetting(hosts) {
  return hosts.map((h) => `${h.role}:${h.name}=${h.soft}/${h.hard}`).join(' ');
}

// One ./run.sh --plan: resolves { decisions } (its JSON), { refused } (exit 2: run.sh would refuse this run,
// its message) or rejects with run.sh's message (the decisions could not be made).
function askRunSh(args, env) {
  return new Promise((resolve, reject) => {
    const child = spawn(RUN_SH, ['--plan', ...args], { env: { ...process.env, ...env }, stdio: ['ignore', 'pipe', 'pipe'] });
    let out = '';
    let err = '';
    child.stdout.on('data', (d) => { out += d; });
    child.stderr.on('data', (d) => { err += d; });
    child.on('error', reject);
    child.on('close', (code) => {
      if (code === 0) {
        try {
          resolve({ decisions: JSON.parse(out) });
        } catch (e) {
          reject(new Error(`./run.sh --plan ${args.join(' ')} printed no decisions (${e.message})`));
        }
      } else if (code === 2) {
        resolve({ refused: err.split('\n').find((l) => l.startsWith('run.sh: '))?.slice(8) ?? err.trim() });
      } else {
        reject(new Error(`./run.sh --plan ${args.join(' ')} exited ${code}: ${err.trim()}`));
      }
    });
  });
}

// run.sh's decisions (./run.sh --plan) of permutations on lanes (lanes.js, each with the hosts sweep/hosts.sh read), asked
// once per lane and key.
class RunDecisions {
  constructor() {
    this.answers = new Map();
  }

  // Asks run.sh for every lane and key not asked yet, DECISIONS_AT_ONCE at a time; rejects when one fails.
  async load(perms, lanes) {
    const todo = [];
    for (const lane of lanes) {
      const env = { ...lane.env, PB_PLAN_OPEN_FILES: openFilesSetting(lane.hosts) };
      for (const perm of perms) {
        const k = `${lane.index} ${decisionsKey(perm)}`;
        if (this.answers.has(k)) continue;
        this.answers.set(k, null);
        todo.push(async () => { this.answers.set(k, await askRunSh(perm.args, env)); });
      }
    }
    const next = async () => {
      while (todo.length) await todo.shift()();
    };
    await Promise.all(Array.from({ length: DECISIONS_AT_ONCE }, next));
  }

  // { decisions } | { refused } for a permutation whose decisions load() asked for.
  get(perm, lane) {
    const a = this.answers.get(`${lane.index} ${decisionsKey(perm)}`);
    if (!a) throw new Error(`no decisions asked for ${perm.command} on lane ${lane.name}`);
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
// from each run's split (its decisions) and lib/disk-need.js.
function engineDiskNeed(perms, decisions, lane) {
  const most = {};
  for (const perm of perms) {
    for (const e of decisions.get(perm, lane).decisions.engines) {
      most[e.name] = Math.max(most[e.name] ?? 0, need({ ...perm, connections: e.connections }).engineMB);
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
  RunDecisions, decisionsKey, openFilesSetting, fit, engineDiskNeed, diskEstimate, runSeconds, formatBytes, formatDuration, DEFAULT_OVERHEAD_S,
};
