'use strict';
// A run's arguments and settings decided (lib/decide.js's first part, issue #37 item 2): run.sh's usage and
// its bounds, every setting and argument checked against a strict pattern before it is used anywhere (a
// file name, a JMeter property, a remote command), a target file read (lib/target.js) and the thresholds
// (lib/thresholds.js); a bad one is a Refusal naming it (stage, text, exit code), as run.sh prints it.
const path = require('node:path');
const { readTarget, TargetError, tokensFit } = require('./target');
const { parseThreshold, ThresholdError } = require('./thresholds');

const USAGE_LINE = `usage: ./run.sh <server-type> <rampup> <duration> <threads> <test-type> [<max-duration> [<event-name> <emit-interval>]]
       ./run.sh <server-type> <rampup> <duration> <threads> pull <pull-interval> [<event-name> <emit-interval>]
       ./run.sh <server-type> <rampup> <duration> <threads> sse|ws [- [<event-name> <emit-interval>]]
       ./run.sh --target <target file> <rampup> <duration> <connections>
       (any of them preceded by --threshold <expr>, as often as needed; a built-in server's by --tls)`;

// Bounds. The protocol allows poll durations of 1..3600000 ms and emit intervals of 10..3600000 ms.
const BOUNDS = {
  maxSeconds: 86400,        // rampup and duration: at most a day
  maxConnections: 1000000,  // total across all engines; preflight checks what really fits
  maxDurationMs: [1, 3600000],
  emitIntervalMs: [10, 3600000],
  pullIntervalMs: [1, 3600000],
};

const SERVERS = ['node', 'tc6', 'tc7', 'node-cluster', 'tc6-bio', 'tc7-bio'];
const TYPES = ['comet', 'poll', 'pull', 'sse', 'ws'];
const SAMPLERS = ['mux', 'push', 'http'];
const LOCAL_DEFAULT = '(local default)';

class Refusal extends Error {
  constructor(stage, message, text, code = 2) {
    super(message);
    this.stage = stage;
    this.code = code;
    this.text = text;
  }
}

// run.sh's refusal of an argument or a setting (lib/args.sh args_fail): the message and the usage line.
const argsFail = (stage, message) => {
  throw new Refusal(stage, message, `run.sh: ${message}\n${USAGE_LINE}\n(./run.sh --help for details)\n`);
};

// ---------------------------------------------------------------------------------------------------
// Settings: a value that would break a command line, a property
// file or run.json, or that a server would read wrongly, refused naming the setting.

const SETTINGS_PORTS = ['PB_PORT_NODE', 'PB_PORT_TC6', 'PB_PORT_TC7', 'PB_PORT_NODE_CLUSTER', 'PB_PORT_TC6_BIO', 'PB_PORT_TC7_BIO', 'PB_PORT_TLS',
  'PB_JMETER_RMI_PORT', 'PB_JMETER_RMI_LOCALPORT', 'PB_JMETER_CLIENT_LOCALPORT'];
const SETTINGS_COUNTS = ['PB_MAX_EMITTERS', 'PB_BODY_DEADLINE_MS', 'PB_STREAM_BACKLOG_BYTES', 'PB_TOMCAT_MAX_THREADS', 'PB_TOMCAT_MAX_CONNECTIONS',
  'PB_TOMCAT_ACCEPT_COUNT', 'PB_TOMCAT_CONNECTION_TIMEOUT', 'PB_TOMCAT_BIO_JVM_THREADS', 'PB_TOMCAT_BIO_THREAD_KB', 'PB_JMETER_HEAP_BASE_MB',
  'PB_JMETER_HEAP_PER_THREAD_KB', 'PB_JMETER_MUX_HEAP_BASE_MB', 'PB_JMETER_MUX_HEAP_PER_CONNECTION_KB', 'PB_MUX_CONNECTIONS_PER_THREAD',
  'PB_START_TIMEOUT_NODE', 'PB_START_TIMEOUT_TOMCAT', 'PB_START_TIMEOUT_TC6', 'PB_START_TIMEOUT_TC7', 'PB_START_TIMEOUT_NODE_CLUSTER',
  'PB_START_TIMEOUT_TC6_BIO', 'PB_START_TIMEOUT_TC7_BIO', 'PB_STOP_TIMEOUT'];
const SETTINGS_ZERO_OK = ['PB_TOMCAT_BIO_THREAD_MARGIN', 'PB_FD_RESERVE'];

// bash's printf %q of a value, for the messages that quote a setting as run.sh did.
function shellQuoted(v) {
  if (v === '') return "''";
  if (/^[A-Za-z0-9_./:=,+@%^-]+$/.test(v)) return v;
  if (/[\x00-\x1f\x7f]/.test(v)) {
    const esc = { '\n': '\\n', '\t': '\\t', '\r': '\\r', '\\': '\\\\', "'": "\\'" };
    return `$'${[...v].map((c) => esc[c] ?? (c < ' ' || c === '\x7f' ? `\\${c.charCodeAt(0).toString(8).padStart(3, '0')}` : c)).join('')}'`;
  }
  return v.replace(/[^A-Za-z0-9_./:=,+@%^-]/g, (c) => `\\${c}`);
}

const isPort = (v) => /^[1-9][0-9]{0,4}$/.test(v) && Number(v) <= 65535;

function isIpv4(a) {
  const m = /^([0-9]{1,3})\.([0-9]{1,3})\.([0-9]{1,3})\.([0-9]{1,3})$/.exec(a);
  return !!m && m.slice(1).every((p) => (p === '0' || !p.startsWith('0')) && Number(p) <= 255);
}

// PB_CHURN_PERCENT (docs/engine.md "Churn"): 0 to 100, up to 3 decimals.
const isChurnPercent = (v) => /^(100|[1-9]?[0-9])(\.[0-9]{1,3})?$/.test(v ?? '') && Number(v) <= 100;

function settingsProblems(s) {
  const out = [];
  for (const [k, v] of Object.entries(s).sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0))) {   // bash's compgen -e order
    if (k.startsWith('PB_') && /[\x00-\x1f\x7f]/.test(v)) out.push(`${k} holds a control character (a newline?): ${shellQuoted(v)}`);
  }
  for (const k of SETTINGS_PORTS) if (!isPort(s[k])) out.push(`${k} must be a port (1-65535), got ${shellQuoted(s[k])}`);
  for (const k of SETTINGS_COUNTS) if (!/^[1-9][0-9]{0,8}$/.test(s[k])) out.push(`${k} must be a whole number >= 1, got ${shellQuoted(s[k])}`);
  for (const k of SETTINGS_ZERO_OK) if (!/^(0|[1-9][0-9]{0,8})$/.test(s[k])) out.push(`${k} must be a whole number >= 0, got ${shellQuoted(s[k])}`);
  if (!/^(0|[1-9][0-9]{0,3})$/.test(s.PB_REPLAY_CYCLES) || Number(s.PB_REPLAY_CYCLES) > 1024) {
    out.push(`PB_REPLAY_CYCLES must be a whole number from 0 to 1024, got ${shellQuoted(s.PB_REPLAY_CYCLES)}`);
  }
  if (!isIpv4(s.PB_SERVER_ADDRESS)) out.push(`PB_SERVER_ADDRESS must be an IPv4 address (0.0.0.0: every interface), got ${shellQuoted(s.PB_SERVER_ADDRESS)}`);
  if (!SAMPLERS.includes(s.PB_REQUEST_SAMPLER)) out.push(`PB_REQUEST_SAMPLER must be mux, push or http, got ${shellQuoted(s.PB_REQUEST_SAMPLER)}`);
  if (!isChurnPercent(s.PB_CHURN_PERCENT)) {
    out.push(`PB_CHURN_PERCENT must be a percentage from 0 to 100 (up to 3 decimals), got ${shellQuoted(s.PB_CHURN_PERCENT)}`);
  }
  if (!['lz4', 'gzip'].includes(s.PB_JMETER_STREAM_LOG_CODEC)) {
    out.push(`PB_JMETER_STREAM_LOG_CODEC must be lz4 or gzip, got ${shellQuoted(s.PB_JMETER_STREAM_LOG_CODEC)}`);
  }
  if (!/^[01]$/.test(s.PB_JMETER_RMI_SSL)) out.push(`PB_JMETER_RMI_SSL must be 1 (SSL) or 0 (plain RMI), got ${shellQuoted(s.PB_JMETER_RMI_SSL)}`);
  if (!['refuse', 'accept'].includes(s.PB_SSH_NEW_HOST_KEYS)) out.push(`PB_SSH_NEW_HOST_KEYS must be refuse or accept, got ${shellQuoted(s.PB_SSH_NEW_HOST_KEYS)}`);
  return out;
}

// ---------------------------------------------------------------------------------------------------
// The arguments, each against a strict pattern before it is used
// anywhere (a file name, a JMeter property, a remote command).

function integer(what, value, min, max) {
  if (!/^[0-9]{1,9}$/.test(value)) argsFail('arguments', `${what} must be a whole number, got '${value}'`);
  const n = Number(value);
  if (n < min || n > max) argsFail('arguments', `${what} must be between ${min} and ${max}, got ${n}`);
  return n;
}

function eventName(name) {
  if (!/^[A-Za-z0-9][A-Za-z0-9_-]{0,63}$/.test(name)) {
    argsFail('arguments', `event-name must be 1-64 of A-Z a-z 0-9 _ - starting with a letter or digit, got '${name}'`);
  }
  const lower = name.toLowerCase();
  if (lower.includes('error') || lower.includes('timeout')) {
    argsFail('arguments', `event-name must not contain 'error' or 'timeout' (the plan's assertions would fail every response), got '${name}'`);
  }
  return name;
}

// pull's interval, in max-duration's place (pull takes none: a pull is answered at once).
function pullInterval(value, event, emit) {
  if (value === '-') argsFail('arguments', 'pull needs a pull-interval in ms (e.g. ./run.sh node 5 30 500 pull 1000 event1 2000)');
  if (!/^[0-9]{1,9}$/.test(value) || Number(value) < BOUNDS.pullIntervalMs[0]) {
    argsFail('arguments', `pull-interval must be a positive whole number of ms, got '${value}'`);
  }
  const interval = integer('pull-interval', value, ...BOUNDS.pullIntervalMs);
  // A seventh argument that is a number with no emit-interval after it: a max-duration given to pull.
  if (/^[0-9]+$/.test(event) && !/^[0-9]+$/.test(emit)) {
    argsFail('arguments', 'pull takes no max-duration: pull <pull-interval> [<event-name> <emit-interval>]');
  }
  return interval;
}

// run.sh's arguments -> the run's parameters in the run schema's names (the CLI's <threads> is the
// run's connections from here on).
// --threshold <expr> pairs (lib/thresholds.js), wherever they stand: { thresholds: [texts], rest: the other arguments }.
function thresholdArguments(argv) {
  const thresholds = [];
  const rest = [];
  for (let i = 0; i < argv.length; i++) {
    if (argv[i] !== '--threshold') { rest.push(argv[i]); continue; }
    if (i + 1 >= argv.length) argsFail('arguments', '--threshold needs an expression after it, e.g. --threshold \'trip.p99<=250\'');
    try {
      thresholds.push(parseThreshold(argv[++i]).text);
    } catch (e) {
      if (e instanceof ThresholdError) argsFail('arguments', e.message);
      throw e;
    }
  }
  return { thresholds, rest };
}

// --tls, wherever it stands (docs/engine.md "TLS for the built-in servers"): { tls: true when given, rest }.
function tlsArgument(argv) {
  const rest = argv.filter((a) => a !== '--tls');
  return { tls: rest.length < argv.length, rest };
}

function parseArguments(args) {
  const { thresholds, rest } = thresholdArguments(args);
  const { tls, rest: argv } = tlsArgument(rest);
  if (tls && argv[0] === '--target') {
    argsFail('arguments', '--tls is for the built-in servers: a target run speaks TLS through its file (https:// and wss:// URLs, its tls key; docs/targets.md "TLS")');
  }
  const p = argv[0] === '--target' ? parseTargetArguments(argv) : parseBuiltinArguments(argv);
  p.tls = tls;
  // a target file's own thresholds first, then the command line's (docs/thresholds.md)
  const { thresholds: fromFile = [], ...target } = p.target ?? {};
  if (p.target) p.target = target;
  p.thresholds = [...fromFile, ...thresholds];
  return p;
}

function parseBuiltinArguments(argv) {
  const a = (i) => (argv[i] === undefined || argv[i] === '' ? '-' : argv[i]);   // bash's ${n:--}
  if (argv.length < 5 || argv.length > 8) {
    if (argv[4] === 'pull') argsFail('arguments', 'pull takes no max-duration: pull <pull-interval> [<event-name> <emit-interval>]');
    argsFail('arguments', `expected 5 to 8 arguments, got ${argv.length}`);
  }
  const p = { server: null, type: null, rampupS: null, durationS: null, connections: null,
    maxDurationMs: null, event: null, emitIntervalMs: null, pullIntervalMs: null };
  if (!SERVERS.includes(argv[0])) argsFail('arguments', `server-type must be node, node-cluster, tc6, tc7, tc6-bio or tc7-bio, got '${argv[0]}'`);
  p.server = argv[0];
  p.rampupS = integer('rampup', argv[1], 0, BOUNDS.maxSeconds);
  p.durationS = integer('duration', argv[2], 1, BOUNDS.maxSeconds);
  p.connections = integer('threads', argv[3], 1, BOUNDS.maxConnections);
  // The duration includes the ramp-up (the plan's Request group): a ramp-up as long never reaches the
  // full number of connections.
  if (p.rampupS >= p.durationS) argsFail('arguments', `rampup (${p.rampupS} s) must be shorter than duration (${p.durationS} s), which includes it`);
  if (!TYPES.includes(argv[4])) argsFail('arguments', `test-type must be comet, poll, pull, sse or ws, got '${argv[4]}'`);
  p.type = argv[4];
  if (p.type === 'ws' && (p.server === 'tc6' || p.server === 'tc6-bio')) {
    argsFail('arguments', `${p.server} does not speak WebSocket (Tomcat 6 has no WebSocket API; docs/protocol.md): ws runs on node, node-cluster, tc7 and tc7-bio`);
  }
  const [sixth, event, emit] = [a(5), a(6), a(7)];
  if (p.type === 'pull') {
    p.pullIntervalMs = pullInterval(sixth, event, emit);
  } else if ((p.type === 'sse' || p.type === 'ws') && sixth !== '-') {
    argsFail('arguments', `${p.type} takes no max-duration (a stream is held until the end): write - in its place, e.g. ${p.type} - event1 2000`);
  } else if (sixth !== '-') {
    p.maxDurationMs = integer('max-duration', sixth, ...BOUNDS.maxDurationMs);
  } else if (p.type === 'poll') {
    argsFail('arguments', 'poll needs a max-duration in ms (e.g. ./run.sh node 5 30 500 poll 3000)');
  }
  if (event !== '-') {
    p.event = eventName(event);
    if (emit === '-') argsFail('arguments', `event-name '${p.event}' needs an emit-interval in ms after it`);
    p.emitIntervalMs = integer('emit-interval', emit, ...BOUNDS.emitIntervalMs);
  } else if (emit !== '-') {
    argsFail('arguments', 'an emit-interval was given without an event-name');
  }
  return p;
}

// A target run (docs/targets.md): the server is the target file's, started by nobody here; the test type is
// its transport. The file is read and checked here, once (lib/target.js), and its record goes to run.json.
function parseTargetArguments(argv) {
  if (argv.length !== 5) argsFail('arguments', `--target takes a target file and <rampup> <duration> <connections>, got ${argv.length - 1} argument(s)`);
  let read;
  try {
    read = readTarget(argv[1]);
  } catch (e) {
    if (e instanceof TargetError) argsFail('arguments', e.message);
    throw e;
  }
  const t = read.target;
  const p = { server: 'target', type: t.transport, rampupS: integer('rampup', argv[2], 0, BOUNDS.maxSeconds),
    durationS: integer('duration', argv[3], 1, BOUNDS.maxSeconds), connections: integer('connections', argv[4], 1, BOUNDS.maxConnections),
    maxDurationMs: null, event: null, emitIntervalMs: null, pullIntervalMs: t.transport === 'pull' ? t.intervalMs : null };
  if (p.rampupS >= p.durationS) argsFail('arguments', `rampup (${p.rampupS} s) must be shorter than duration (${p.durationS} s), which includes it`);
  try { tokensFit(t.tokens, p.connections); } catch (e) {   // a {{token}} per connection: refused with both numbers
    if (e instanceof TargetError) argsFail('arguments', `target file ${argv[1]}: ${e.message}`);
    throw e;
  }
  if (p.durationS * 1000 <= t.drainMs * 2) argsFail('arguments', `duration (${p.durationS} s) must be longer than ${(t.drainMs * 2) / 1000} s: the publishers stop ${t.drainMs / 1000} s before its end`);
  p.target = { name: t.name, file: 'target.json', thresholds: t.thresholds, source: path.resolve(argv[1]), sha256: read.sha256, transport: t.transport,
    channels: t.channels, rate: t.rate, drainMs: t.drainMs, subscribeUrl: t.subscribe.url, publishUrl: t.publish.url,
    host: t.subscribe.host, port: t.subscribe.port, publishHost: t.publish.host, publishPort: t.publish.port, monitored: false };
  return p;
}

// The port a server type listens on: PB_PORT_<TYPE> (- as _), as servers/control.sh reads it.
const serverPort = (server, s) => Number(s[`PB_PORT_${server.toUpperCase().replace(/-/g, '_')}`]);

// The settings a server type reads (node-cluster's size; a blocking Tomcat's maxThreads, sized for the
// level when auto, against this machine's room for threads: lib/host-facts.js). Returns what run.sh
// exports and the thread fit.
function serverSettings(p, s, threadRoom) {
  if (p.server === 'node-cluster') {
    const w = s.PB_NODE_CLUSTER_WORKERS;
    if (w !== 'auto' && !(/^[1-9][0-9]{0,3}$/.test(w) && Number(w) <= 1024)) {
      argsFail('arguments', `PB_NODE_CLUSTER_WORKERS (the cluster size) must be auto or a whole number from 1 to 1024, got '${w}'`);
    }
  }
  if (p.server !== 'tc6-bio' && p.server !== 'tc7-bio') return { exports: {}, threadFit: null };
  const exports = {};
  let threads = s.PB_TOMCAT_BIO_THREADS;
  if (threads === 'auto') {
    threads = String(p.connections + Number(s.PB_TOMCAT_BIO_THREAD_MARGIN));
    exports.PB_TOMCAT_BIO_THREADS = threads;
  }
  if (!/^[1-9][0-9]{0,8}$/.test(threads)) argsFail('arguments', `PB_TOMCAT_BIO_THREADS must be auto or a whole number >= 1, got '${threads}'`);
  const room = typeof threadRoom === 'function' ? threadRoom() : threadRoom;
  const problem = threadProblem(Number(threads), room ?? [], s);
  if (problem) argsFail('arguments', `${p.server}: ${problem}`);
  return { exports, threadFit: { threads: Number(threads), need: Number(threads) + Number(s.PB_TOMCAT_BIO_JVM_THREADS), checked: !!room } };
}

// The thread fit of a blocking connector: the first limit (lib/host-facts.js threadRoom: { name, room (-1:
// none), what }) that leaves no room for its threads and the JVM's own (PB_TOMCAT_BIO_JVM_THREADS), as a
// line naming it, or null. host/host-check.js and servers/bio-limits.sh check ask this on the SUT's host.
function threadProblem(threads, room, s) {
  const jvm = Number(s.PB_TOMCAT_BIO_JVM_THREADS);
  const short = room.find((l) => l.room >= 0 && threads + jvm > l.room);
  return short ? `a blocking connector with ${threads} threads (+${jvm} of the JVM) cannot start here: `
    + `${short.name} allows ${short.room} more (${short.what}); see docs/limits.md` : null;
}

// The request sampler must speak the type: sse and ws are spoken by the mux engine only; churn
// (PB_CHURN_PERCENT) drops their streams only.
function typeSettings(p, s) {
  if (p.target) {
    if (s.PB_REQUEST_SAMPLER !== 'mux') argsFail('arguments', `a target run needs the mux engine (PB_REQUEST_SAMPLER=mux, the default), got PB_REQUEST_SAMPLER=${s.PB_REQUEST_SAMPLER}`);
    if (Number(s.PB_CHURN_PERCENT) > 0) argsFail('arguments', `PB_CHURN_PERCENT=${s.PB_CHURN_PERCENT}: churn is not offered for target runs yet (leave it at 0)`);
    return;
  }
  if (p.tls && s.PB_REQUEST_SAMPLER !== 'mux') {
    argsFail('arguments', `--tls needs the mux engine (PB_REQUEST_SAMPLER=mux, the default): the ${s.PB_REQUEST_SAMPLER} sampler speaks no TLS, got PB_REQUEST_SAMPLER=${s.PB_REQUEST_SAMPLER}`);
  }
  if ((p.type === 'sse' || p.type === 'ws') && s.PB_REQUEST_SAMPLER !== 'mux') {
    argsFail('arguments', `${p.type} needs the mux engine (PB_REQUEST_SAMPLER=mux, the default), got PB_REQUEST_SAMPLER=${s.PB_REQUEST_SAMPLER}`);
  }
  if (Number(s.PB_CHURN_PERCENT) > 0 && p.type !== 'sse' && p.type !== 'ws') {
    argsFail('arguments', `PB_CHURN_PERCENT=${s.PB_CHURN_PERCENT} drops SSE and WebSocket streams only, not ${p.type} streams (leave it at 0)`);
  }
}


function usage() {
  const b = BOUNDS;
  return `${USAGE_LINE}

One pushbench test run, from start to report.

  server-type    node | tc6 | tc7            (Node.js, Tomcat 6, Tomcat 7)
                 node-cluster               (Node.js on PB_NODE_CLUSTER_WORKERS processes, default one per core)
                 tc6-bio | tc7-bio          (Tomcat 6 / 7 on the blocking connector: a thread per connection)
  rampup         seconds during which all threads are started (0..${b.maxSeconds})
  duration       seconds the test runs, ramp-up included (1..${b.maxSeconds})
  threads        concurrent connections in total, split evenly across the engines in hosts.conf
  test-type      comet | poll | pull | sse | ws
                                            (pull: short polling, each client asks every pull-interval ms;
                                             sse: Server-Sent Events, a held stream as comet's, which
                                             reconnects with Last-Event-ID as EventSource does;
                                             ws: WebSocket, the same held stream, which subscribes again
                                             with the cursor it got; not on tc6, tc6-bio: Tomcat 6 has no
                                             WebSocket API)
  max-duration   ms each long poll is held at most (${b.maxDurationMs.join('..')}); required for poll.
                 For comet it is ignored: write - in its place to give an event without it. sse and ws
                 take none: write - there.
  event-name     the event to create and subscribe to: 1-64 of A-Z a-z 0-9 _ -, starting with a
                 letter or digit, not containing "error" or "timeout" (the plan's assertions look
                 for those words). Omit it (or write -) for no event emitter.
  emit-interval  ms between emit cycles (${b.emitIntervalMs.join('..')}); required with an event name.
  pull-interval  pull only, in max-duration's place: ms between one client's pulls (${b.pullIntervalMs.join('..')}).
                 A pull is answered at once, so pull takes no max-duration.
  --tls          anywhere among them: the engines speak TLS (https, wss) to nginx terminating it in front of
                 the server (targets/tls/front.sh on the server's host, port PB_PORT_TLS, a CA and
                 certificate made per run); the server's CPU excludes nginx's. The mux engine only
                 (PB_REQUEST_SAMPLER=mux). docs/engine.md "TLS for the built-in servers".

Examples:
  ./run.sh tc6 60 900 5000 comet                 15 min comet test, 1 min ramp-up, no events
  ./run.sh node 5 30 500 comet - event1 2000     comet with an event every 2 s (- = no max-duration)
  ./run.sh tc7 30 600 5000 poll 3000 event1 2000 long poll held up to 3 s, event every 2 s
  ./run.sh node 90 1200 5000 poll 3000           long poll, no events: every poll times out after 3 s
  ./run.sh node 5 30 500 pull 1000 event1 2000   each client pulls every 1 s, event every 2 s
  ./run.sh node 5 30 500 sse - event1 2000       Server-Sent Events with an event every 2 s
  ./run.sh tc7 5 30 500 ws - event1 2000         WebSocket with an event every 2 s
  ./run.sh node 5 30 500 sse - event1 2000 --tls the same SSE streams over TLS, through an nginx front

Your own push server: ./run.sh --target <target file> <rampup> <duration> <connections> measures a
server pushbench did not start (nothing is started, stopped or configured on it): the engines subscribe
as the file says (sse, ws, stream, poll or pull), publish on their own channels and time every message.
The file's keys: docs/targets.md; examples: targets/*.json (targets/nchan/nchan.sh starts nginx+nchan).
  ./run.sh --target targets/nchan-sse.json 5 30 1000

The plan only: ./run.sh --plan <the arguments of a run> checks them, the settings and the hosts file as
a run does (exit 2 on the same errors), then prints one JSON object, starting nothing: the run's
decisions (lib/decide.js): its parameters, the server, each engine's share of the connections (threads),
heap and disk, and the open-file fit preflight would judge (limits read on each host, or given as
PB_PLAN_OPEN_FILES="<role>:<name>=<soft>/<hard> ..."). Exit 0, or 3 when a host's limits cannot be
read. docs/architecture.md describes the object.

One run at a time per state directory (PB_STATE, default build/state): a second run.sh is refused
before it starts anything (exit 5), naming the run that holds it. A run killed beyond any trap (kill -9,
the OOM killer) is found by the next start, which refuses (exit 6) until it is stopped:
  ./run.sh --stop-stale      stop the processes a killed run recorded, collect what they wrote into its
                             run directory, mark it incomplete with a note
  ./run.sh --stop <run id>   stop that run: a live one (SIGTERM to its run.sh, whose teardown is waited
                             for) or a killed one (as --stop-stale)

Environment: PB_HOSTS (hosts file, default hosts.conf; without one everything runs on this machine),
PB_RESULTS (results base directory, default results/), PB_RUN_DIR_FILE (file to write the run directory to).
Exit codes: 0 complete, 1 run failed (a step failed, or the verdict is failed: docs/validity.md) or
incomplete (results kept), 2 usage or hosts.conf error, 3 preflight failed, 4 complete but the server
under test crashed, 5 another run holds the state directory, 6 a run killed beyond any trap waits for
./run.sh --stop-stale, 7 complete but a threshold failed (docs/thresholds.md), 130 interrupted.
`;
}

module.exports = { BOUNDS, LOCAL_DEFAULT, Refusal, SAMPLERS, SERVERS, SETTINGS_COUNTS, SETTINGS_PORTS, SETTINGS_ZERO_OK, TYPES, USAGE_LINE, argsFail, eventName, integer, isChurnPercent, isIpv4, isPort, parseArguments, parseBuiltinArguments, parseTargetArguments, pullInterval, serverPort, serverSettings, settingsProblems, shellQuoted, threadProblem, thresholdArguments, tlsArgument, typeSettings, usage };
