'use strict';
// sweep.sh's command line.

const { STUDIES, TYPES, DEFAULT_TYPES, EMIT_PULL, DEFAULT_PULL_INTERVALS, LEVELS, EMIT_INTERVALS_MS, DEFAULT_DURATION, DEFAULT_RAMPUP } = require('./permutations');
const { parseBudget, BudgetError } = require('./budget');
const { parseLanes, LaneError } = require('./lanes');
const { readTarget, TargetError } = require('../lib/target');
const { parseThreshold, ThresholdError } = require('../lib/thresholds');

const path = require('node:path');

const USAGE = `usage: ./sweep.sh [options]

Runs the study's 195 permutations (Appendix A) through ./run.sh, one after another, resumably; or,
with --target FILE, your push server (a target file, docs/targets.md) at each level.

Selection (each narrows the full list; the order stays Appendix A's):
  --study default|extended   default: the study's 195 (node, tc6, tc7); extended: the same grid for
                             node-cluster, tc6-bio and tc7-bio as well, 390 (docs/sweep.md)
  --servers node,tc6,tc7     servers to test (default: the study's; any of ${STUDIES.extended.join(', ')})
  --types comet,poll,pull,sse,ws
                             request types (default: comet,poll, the study's); pull adds short polling
                             with events after each server's long polls (docs/pull.md); sse adds
                             Server-Sent Events after them, comet's grid (docs/protocol.md); ws adds
                             WebSocket after those, the same grid, on every server but tc6 and tc6-bio
  --pull-intervals emit,500  with pull: ms between one client's pulls, each crossed with every emit
                             interval; emit = that emit interval (default: emit only)
  --levels 1000,5000,...     concurrent requests (default: 1000,5000,10000,15000,20000)
  --emit-intervals 1000,...  ms between emit cycles of the runs with events (default: the study's
                             ${EMIT_INTERVALS_MS.join(',')}); others go beyond its grid, e.g. 500 to load a server harder
  --filter TEXT              keep command lines containing TEXT or matching it as a regular
                             expression; repeat to require several
  --duration S               seconds per run (default ${DEFAULT_DURATION}, as in the study)
  --rampup S                 ramp-up seconds per run (default ${DEFAULT_RAMPUP})
  --repeat N                 run every permutation N times (default 1)
  --budget T                 fit the sweep into T (e.g. 10h, 90m, 1h30m): each run's duration is
                             chosen between its floor and --duration so the runs fit on the lanes;
                             the durations are printed and saved in sweep.json (docs/sweep.md)
  --target FILE              a target sweep (docs/targets.md): your push server, one run per level,
                             ./run.sh --target FILE <rampup> <duration> <level>; --levels, --duration,
                             --rampup, --repeat, --filter and --budget apply, the study's grid does not
                             (--servers, --types, --emit-intervals, --pull-intervals, --study refused)
  --threshold EXPR           a pass/fail on every run (docs/thresholds.md, e.g. 'trip.p99<=250'),
                             given to each run.sh as --threshold EXPR; repeat for several
  --tls                      every run over TLS: given to each run.sh as --tls (the built-in server
                             behind an nginx TLS front, docs/engine.md); not with --target (a target
                             speaks TLS through its file's https:// and wss:// URLs)

Running:
  --lanes A.conf,B.conf      several independent host sets (each a hosts.conf: one sut, its engines;
                             no host in two lanes): one run per lane at a time, in parallel, from one
                             plan and one state file; a lane whose hosts fail is taken out and its run
                             retried on another lane (docs/sweep.md). Saved for resume.
  --dir D                    the sweep directory (default sweeps/<date-time>); give an existing one to
                             resume it: done runs are skipped, its saved selection is reused unless
                             you give a new one
  --retry-failed             also run again what failed before (interrupted runs always are)
  --cleanup-raw              delete each run's raw response archives once it is analysed
                             (data/, charts/ and the report stay)
  --settle S                 rest S seconds between two runs (default 0): on one 2-core machine a
                             run right after a heavy one measured lower (docs/limits.md)
  --yes                      do not ask before starting
  --quiet                    run.sh's output only to the sweep's logs/, not the terminal

Other modes:
  --list                     print the ./run.sh command lines the selection holds, one per line
  --check                    check hosts, file limits and disk, print the plan and the permutations
                             predicted generator-bound (from the engines' calibration), run nothing
  --calibrate                measure this machine's JMeter engine CPU per sample with a short real
                             run (~1 minute) and store it for --check (docs/sweep.md)
  --report                   (re)write the comparison report and run index of --dir D
  --help

Environment: PB_HOSTS (hosts file), PB_SSH_OPTS, and every setting of lib/config.sh, passed to run.sh;
PB_ENGINE_CPU_LIMIT (% of an engine host's cores a permutation may need, default 80), PB_CALIBRATION
(where calibrations are stored, default $PB_BUILD/calibration).
Exit codes: 0 every selected run done (or skipped up front), 1 some run failed, 2 usage error,
3 preflight failed, 7 every run done but some run's threshold failed, 130 interrupted.`;

class UsageError extends Error {}

function list(value, allowed, what) {
  const items = value.split(',').map((s) => s.trim()).filter(Boolean);
  if (items.length === 0) throw new UsageError(`${what}: empty list`);
  for (const i of items) {
    if (allowed && !allowed.includes(i)) throw new UsageError(`${what}: unknown '${i}' (expected ${allowed.join(', ')})`);
  }
  return items;
}

function count(value, what, min) {
  if (!/^[0-9]{1,9}$/.test(value) || Number(value) < min) throw new UsageError(`${what} must be a whole number >= ${min}, got '${value}'`);
  return Number(value);
}

// Runs fn, turning the errors of budget.js, lanes.js, lib/target.js and lib/thresholds.js into usage errors.
function guard(fn) {
  try {
    return fn();
  } catch (e) {
    if (e instanceof BudgetError || e instanceof LaneError || e instanceof TargetError || e instanceof ThresholdError) throw new UsageError(e.message);
    throw e;
  }
}

// A target file read and checked (lib/target.js, the one reader run.sh uses too): what the sweep keeps of
// it in its selection, { file (absolute), name, transport, sha256 }, or a usage error with lib/target.js's
// message naming the key.
function targetOf(file) {
  const { target, sha256 } = guard(() => readTarget(file));
  return { file: path.resolve(file), name: target.name, transport: target.transport, sha256 };
}

// The options that choose the study's grid, which a target sweep has none of.
const GRID_OPTIONS = { servers: '--servers', types: '--types', emitIntervalsMs: '--emit-intervals', pullIntervals: '--pull-intervals', study: '--study' };

function parse(argv) {
  const o = {
    mode: 'run', selection: {}, filters: [], dir: null,
    retryFailed: false, cleanupRaw: false, yes: false, quiet: false, settle: 0, lanes: null,
  };
  const takes = new Set(['--servers', '--types', '--pull-intervals', '--levels', '--emit-intervals', '--filter', '--duration', '--rampup', '--repeat', '--dir', '--settle', '--study',
    '--budget', '--lanes', '--target', '--threshold']);
  for (let i = 0; i < argv.length; i++) {
    let a = argv[i];
    let v;
    const eq = a.indexOf('=');
    if (a.startsWith('--') && eq > 0) {
      v = a.slice(eq + 1);
      a = a.slice(0, eq);
    }
    if (takes.has(a) && v === undefined) {
      if (i + 1 >= argv.length) throw new UsageError(`${a} needs a value`);
      // `--dir --list` is a forgotten value, not a directory named --list.
      if (argv[i + 1].startsWith('--')) throw new UsageError(`${a} needs a value, got the option ${argv[i + 1]}`);
      v = argv[++i];
    }
    switch (a) {
      case '--servers': o.selection.servers = list(v, STUDIES.extended, a); break;
      case '--study': o.selection.study = list(v, Object.keys(STUDIES), a)[0]; break;
      case '--types': o.selection.types = list(v, TYPES, a); break;
      case '--pull-intervals': o.selection.pullIntervals = list(v, null, a).map((n) => (n === EMIT_PULL ? n : count(n, a, 1))); break;
      case '--levels': o.selection.levels = list(v, null, a).map((n) => count(n, '--levels', 1)); break;
      case '--emit-intervals': o.selection.emitIntervalsMs = list(v, null, a).map((n) => count(n, a, 10)); break;
      case '--filter': o.filters.push(v); o.selection.filters = o.filters; break;
      case '--duration': o.selection.duration = count(v, a, 1); break;
      case '--rampup': o.selection.rampup = count(v, a, 0); break;
      case '--repeat': o.selection.repeat = count(v, a, 1); break;
      case '--budget': o.selection.budget = guard(() => parseBudget(v)); break;
      case '--target': o.selection.target = targetOf(v); break;
      case '--tls': o.selection.tls = true; break;
      case '--threshold': o.selection.thresholds = [...(o.selection.thresholds ?? []), guard(() => parseThreshold(v)).text]; break;
      case '--lanes': o.lanes = guard(() => parseLanes(v)); break;
      case '--dir': o.dir = v; break;
      case '--retry-failed': o.retryFailed = true; break;
      case '--cleanup-raw': o.cleanupRaw = true; break;
      case '--settle': o.settle = count(v, a, 0); break;
      case '--yes': case '-y': o.yes = true; break;
      case '--quiet': o.quiet = true; break;
      case '--list': o.mode = 'list'; break;
      case '--check': o.mode = 'check'; break;
      case '--calibrate': o.mode = 'calibrate'; break;
      case '--report': o.mode = 'report'; break;
      case '--help': case '-h': o.mode = 'help'; break;
      default: throw new UsageError(`unknown option '${argv[i]}'`);
    }
  }
  if (o.mode === 'report' && !o.dir) throw new UsageError('--report needs --dir <sweep dir>');
  if (o.selection.target && o.selection.tls) {
    throw new UsageError('--tls is for the built-in servers: a target sweep speaks TLS through its file (https:// and wss:// URLs, its tls key; docs/targets.md "TLS")');
  }
  if (o.selection.target) {
    const grid = Object.keys(GRID_OPTIONS).filter((k) => o.selection[k] !== undefined).map((k) => GRID_OPTIONS[k]);
    if (grid.length) {
      throw new UsageError(`${grid.join(', ')} ${grid.length > 1 ? 'do' : 'does'} not apply to --target: a target sweep runs the target file's `
        + 'transport at each of --levels (with --duration, --rampup, --repeat, --filter, --budget, --threshold)');
    }
  }
  if (o.selection.pullIntervals && !(o.selection.types ?? []).includes('pull')) {
    throw new UsageError('--pull-intervals needs pull among --types (e.g. --types comet,poll,pull)');
  }
  return o;
}

// The selection with defaults filled in; a target sweep's has no grid (servers, types, intervals, study).
function withDefaults(sel) {
  const grid = sel.target ? {} : {
    servers: sel.servers ?? STUDIES[sel.study ?? 'default'],
    study: sel.study ?? 'default',
    types: sel.types ?? DEFAULT_TYPES,
    pullIntervals: sel.pullIntervals ?? DEFAULT_PULL_INTERVALS,
  };
  return {
    ...grid,
    levels: sel.levels ?? LEVELS,
    ...(sel.target ? {} : { emitIntervalsMs: sel.emitIntervalsMs ?? EMIT_INTERVALS_MS }),
    filters: sel.filters ?? [],
    duration: sel.duration ?? DEFAULT_DURATION,
    rampup: sel.rampup ?? DEFAULT_RAMPUP,
    repeat: sel.repeat ?? 1,
    budget: sel.budget ?? null,
    ...(sel.target ? { target: sel.target } : {}),
    ...(sel.thresholds?.length ? { thresholds: sel.thresholds } : {}),
    ...(sel.tls ? { tls: true } : {}),
  };
}

// A saved selection checked again before a resume runs it: its target file read again (a file gone or
// broken since is a usage error with lib/target.js's message; one changed since is returned with its new
// hash and said by the caller) and its thresholds parsed again. Returns { sel, changed: bool }.
function recheck(sel) {
  for (const t of sel.thresholds ?? []) guard(() => parseThreshold(t));
  if (!sel.target) return { sel, changed: false };
  const target = targetOf(sel.target.file);
  return { sel: { ...sel, target }, changed: target.sha256 !== sel.target.sha256 };
}

module.exports = { parse, withDefaults, recheck, targetOf, USAGE, UsageError };
