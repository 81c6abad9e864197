'use strict';
// The study's test permutations (its section 4.2 and Appendix A) as run.sh command lines, in the
// appendix's order: per server (node, tc6, tc7) comet with events, comet without, long poll with events
// (held up to 180 s), long poll without events (held 1, 5, 10 or 30 s); inside each, emit interval or
// max duration outer, concurrent requests inner. 3 x (20 + 5 + 20 + 20) = 195.
// The extended study (issue #23, --study extended) runs the same grid for three more servers after them:
// node-cluster, tc6-bio and tc7-bio, 390 in all (docs/sweep.md).
// Pull (issue #26, --types ...,pull) is beyond the study: after each server's long polls, pull with events
// at every emit interval, each client pulling at every pull interval chosen (default: the emit interval
// itself, CHIRON's fair case), concurrent requests inner (docs/pull.md). It is never in the default.
// Server-Sent Events (issue #38, --types ...,sse) are beyond it too: after pull, the grid of comet (with
// events at every emit interval, then without), the same held stream on another transport. WebSocket
// (--types ...,ws) likewise after sse, on the servers that speak it (not tc6, tc6-bio: lib/test-types.js).
// A target sweep (issue #47, --target FILE) is none of that grid: one permutation per level, each
// ./run.sh --target <the file, absolute> <rampup> <duration> <level> (docs/targets.md).
// Thresholds (issue #49, --threshold EXPR) go on every command line before its arguments, in their order.

const { TEST_TYPES: TYPES, speaks } = require('../lib/test-types');

const SERVERS = ['node', 'tc6', 'tc7'];
const EXTENDED_SERVERS = ['node-cluster', 'tc6-bio', 'tc7-bio'];
const STUDIES = { default: SERVERS, extended: [...SERVERS, ...EXTENDED_SERVERS] };
const DEFAULT_TYPES = ['comet', 'poll'];
// --pull-intervals: ms, or EMIT_PULL for 'the permutation's emit interval'.
const EMIT_PULL = 'emit';
const DEFAULT_PULL_INTERVALS = [EMIT_PULL];
const LEVELS = [1000, 5000, 10000, 15000, 20000];
const EMIT_SECONDS = [1, 5, 10, 30];
const EMIT_INTERVALS_MS = EMIT_SECONDS.map((s) => s * 1000);   // the default of --emit-intervals
const POLL_MAX_SECONDS = [1, 5, 10, 30];
const POLL_WITH_EVENTS_MAX_SECONDS = 180;
const EVENT = 'event1';
// The study ran every test for 600 s (its section 5). It gives no ramp-up for the sweep; 30 s is the
// ramp-up of its own 600 s example (section 3.3.2: ./run.sh tc7 30 600 5000 poll 3000 event1 2000).
const DEFAULT_DURATION = 600;
const DEFAULT_RAMPUP = 30;

// A word of a command line as a shell reads it: as it is when it holds nothing a shell would take apart,
// else in single quotes (a threshold's < and >, a path's spaces).
function shellWord(w) {
  return /^[A-Za-z0-9_.,:\/=+@%-]+$/.test(w) ? w : `'${w.replace(/'/g, "'\\''")}'`;
}

// The command line of run.sh's arguments, as --list prints it and state.tsv keys it.
function commandLine(args) {
  return ['./run.sh', ...args].map(shellWord).join(' ');
}

// run.sh's --threshold pairs for a list of threshold texts (lib/thresholds.js).
const thresholdArgs = (thresholds) => thresholds.flatMap((t) => ['--threshold', t]);

// One permutation: what run.sh gets, plus the fields the sweep reasons about (fit, disk, report).
// A pull's interval takes the max-duration's place on run.sh's command line.
// connections: the connection count (run.sh's <threads> argument, docs/architecture.md).
// thresholds: texts (lib/thresholds.js), each given as --threshold before the arguments.
// tls: the run over TLS through an nginx front (run.sh's --tls, after the arguments; docs/engine.md).
function permutation(server, type, connections, { maxDurationMs = null, emitIntervalMs = null, pullIntervalMs = null }, rampupS, durationS, thresholds = [], tls = false) {
  const args = [...thresholdArgs(thresholds), server, String(rampupS), String(durationS), String(connections), type];
  const sixth = type === 'pull' ? pullIntervalMs : maxDurationMs;
  if (emitIntervalMs !== null) args.push(sixth === null ? '-' : String(sixth), EVENT, String(emitIntervalMs));
  else if (sixth !== null) args.push(String(sixth));
  if (tls) args.push('--tls');
  return {
    server, type, connections, rampupS, durationS,
    maxDurationMs, pullIntervalMs, event: emitIntervalMs === null ? null : EVENT, emitIntervalMs,
    ...(thresholds.length ? { thresholds } : {}),
    ...(tls ? { tls } : {}),
    args,
    command: commandLine(args),
  };
}

// One level of a target sweep. target: { file (absolute), name, transport } (options.js targetOf); the
// type is the file's transport, as run.json records it.
function targetPermutation(target, connections, rampupS, durationS, thresholds = []) {
  const args = [...thresholdArgs(thresholds), '--target', target.file, String(rampupS), String(durationS), String(connections)];
  return {
    server: 'target', type: target.transport, connections, rampupS, durationS,
    maxDurationMs: null, pullIntervalMs: null, event: null, emitIntervalMs: null,
    target,
    ...(thresholds.length ? { thresholds } : {}),
    args,
    command: commandLine(args),
  };
}

// The same permutation with another duration (the time budget's choice, budget.js).
function withDuration(p, duration) {
  if (p.target) return targetPermutation(p.target, p.connections, p.rampupS, duration, p.thresholds);
  return permutation(p.server, p.type, p.connections, { maxDurationMs: p.maxDurationMs, emitIntervalMs: p.emitIntervalMs, pullIntervalMs: p.pullIntervalMs }, p.rampupS, duration, p.thresholds, p.tls);
}

// The pull intervals (ms) for one emit interval: each of --pull-intervals, EMIT_PULL as the emit interval, ascending, once.
function pullIntervalsFor(pullIntervals, emitIntervalMs) {
  return [...new Set(pullIntervals.map((v) => (v === EMIT_PULL ? emitIntervalMs : v)))].sort((a, b) => a - b);
}

// Every permutation for the given selection, in Appendix A's order; with a target, one per level.
function permutations({ servers = SERVERS, types = DEFAULT_TYPES, levels = LEVELS, rampup = DEFAULT_RAMPUP,
  duration = DEFAULT_DURATION, pullIntervals = DEFAULT_PULL_INTERVALS, emitIntervalsMs = EMIT_INTERVALS_MS, target = null, thresholds = [], tls = false } = {}) {
  if (target) return levels.map((n) => targetPermutation(target, n, rampup, duration, thresholds));
  const out = [];
  const add = (...a) => out.push(permutation(...a, rampup, duration, thresholds, tls));
  for (const server of STUDIES.extended.filter((s) => servers.includes(s))) {
    const heldStreams = (type) => {
      for (const emit of emitIntervalsMs) for (const n of levels) add(server, type, n, { emitIntervalMs: emit });
      for (const n of levels) add(server, type, n, {});
    };
    if (types.includes('comet')) heldStreams('comet');
    if (types.includes('poll')) {
      for (const emit of emitIntervalsMs) {
        for (const n of levels) {
          add(server, 'poll', n, { emitIntervalMs: emit, maxDurationMs: POLL_WITH_EVENTS_MAX_SECONDS * 1000 });
        }
      }
      for (const max of POLL_MAX_SECONDS) for (const n of levels) add(server, 'poll', n, { maxDurationMs: max * 1000 });
    }
    if (types.includes('pull')) {
      for (const emit of emitIntervalsMs) {
        for (const pullIntervalMs of pullIntervalsFor(pullIntervals, emit)) {
          for (const n of levels) add(server, 'pull', n, { emitIntervalMs: emit, pullIntervalMs });
        }
      }
    }
    if (types.includes('sse')) heldStreams('sse');
    if (types.includes('ws') && speaks(server, 'ws')) heldStreams('ws');
  }
  return out;
}

// --filter: a substring of the command line, or a regular expression matching it. Every filter must match.
function matchesFilters(command, filters) {
  return filters.every((f) => {
    if (command.includes(f)) return true;
    try {
      return new RegExp(f).test(command);
    } catch {
      return false;
    }
  });
}

module.exports = {
  SERVERS, EXTENDED_SERVERS, STUDIES, TYPES, DEFAULT_TYPES, EMIT_PULL, DEFAULT_PULL_INTERVALS, LEVELS, EMIT_SECONDS, EMIT_INTERVALS_MS, POLL_MAX_SECONDS, POLL_WITH_EVENTS_MAX_SECONDS, EVENT,
  DEFAULT_DURATION, DEFAULT_RAMPUP, permutations, matchesFilters, withDuration, commandLine,
};
