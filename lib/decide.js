#!/usr/bin/env node
'use strict';
// A run's decisions, in one place (issue #37 item 2): from its arguments, the settings (lib/config.sh),
// the hosts file and what was read on the hosts (their open-file limits, this machine's room for
// threads), every pure decision of run.sh as one object; run.sh keeps what bash is good at (processes,
// ssh, traps, tear-down). Nothing here starts anything or reaches another host.
//
//   decide({ argv, env, limits })  ->  decisions (below), or { refused } when run.sh would refuse the run
//       argv     run.sh's arguments: <server> <rampup> <duration> <threads> <type> [...] (lib/args.sh's usage)
//       env      the environment (default process.env); lib/config.sh's defaults fill what it leaves out
//                (lib/config.js). The hosts file is PB_HOSTS, else hosts.conf, else the local default.
//       limits   { openFiles: "<role>:<name>=<soft>/<hard> ..." (PB_PLAN_OPEN_FILES's form; default
//                  env.PB_PLAN_OPEN_FILES; absent: no open-file fit), openFilesFrom: what they came from,
//                  threadRoom: [{ name, room, what }] or a function giving them (lib/host-facts.js
//                  threadRoom on this machine; asked only for a blocking Tomcat) }
//
// The decisions, in the run schema's names (lib/run-schema.js):
//   parameters   { server, type, rampupS, durationS, connections, maxDurationMs, event, emitIntervalMs,
//                  pullIntervalMs, port }
//   connections, hosts (the hosts file, or "(local default)")
//   server       { type, name, address (the engines target it), listen (where it listens: bind= or its
//                  address), port, connections, bioThreads (tc6-bio, tc7-bio: maxThreads, else null) }
//   engines      [{ name, address, access, rmi, localport, connections (its share), heapMb, diskMb, init,
//                  cleanup (true for the engine JMeter starts first, which sets the event, and the one it
//                  starts last, which clears it: jmeterStartOrder) }]
//   resultsDiskMb  the disk the run directory needs here
//   waitS        when run.sh's wait gives up, in seconds from the test's start on the first engine
//   jmeterProperties  the plan's global properties (run.properties), the one JMeter translation table
//   hostLines    hosts.conf's lines as checked: [{ role, name, address, access, target, key, sshPort, dir,
//                  rmi, localport, line, bind }] (file order; run.sh's H_* tables)
//   settings     the settings run.sh exports for the run ({ PB_TOMCAT_BIO_THREADS } when it was auto)
//   threadFit    a blocking Tomcat's maxThreads and the threads it needs with the JVM's own, checked against
//                this machine's room when threadRoom was given (a level that does not fit is refused), else null
//   openFiles    { reserve, limitsFrom, fits, hosts: [{ role, name, connections, need, soft, hard, fits,
//                  problem }] } when limits were given, else null
//   record       run.json's parameters and hosts (docs/run-layout.md), what lib/run-record.js writes
// A refusal: { refused: { stage, code, message, text } }: stage "settings" or "arguments" (run.sh's
// validate_arguments), "hosts" or "heap" (its read_hosts; the heap after the hosts were shown), "limits"
// (a bad PB_PLAN_OPEN_FILES); code, run.sh's exit code (2); message, its first line without "run.sh: ";
// text, all it prints to stderr, word for word.
//
// The CLI (run.sh's --plan and its one reading of the decisions):
//   node lib/decide.js --json <run.sh arguments>    the decisions as JSON (what ./run.sh --plan prints);
//                                                    a refusal: its text on stderr, its exit code
//   node lib/decide.js --shell <run.sh arguments>   the decisions as bash assignments for run.sh to eval
//                                                    (every value single-quoted here), a refusal as
//                                                    DECISION_REFUSED_* variables; exit 0
//   node lib/decide.js --hosts                      the hosts file alone as bash assignments (lib/hosts.sh)
//   node lib/decide.js --usage | --usage-line       run.sh's usage text, its usage line
//   node lib/decide.js --heap <connections> [<sampler>] | --size-mb <size> | --mux-threads <connections> <cores>
//                                                    one engine's heap, a JVM size in MB, its selector threads
//                                                    (lib/jmeter-heap.sh: load/engine.sh and load/controller.sh
//                                                    size theirs here too)
// --open-files "<spec>" before the arguments gives limits measured by run.sh (limitsFrom "measured").

const fs = require('node:fs');
const path = require('node:path');
const { settings } = require('./config');
const { threadRoom } = require('./host-facts');
const { runDiskNeed } = require('./disk-need');
const { PARAMETERS } = require('./run-schema');
const { readTarget, TargetError } = require('./target');
const { parseThreshold, ThresholdError } = require('./thresholds');

const USAGE_LINE = `usage: ./run.sh <server-type> <rampup> <duration> <threads> <test-type> [<max-duration> [<event-name> <emit-interval>]]
       ./run.sh <server-type> <rampup> <duration> <threads> pull <pull-interval> [<event-name> <emit-interval>]
       ./run.sh <server-type> <rampup> <duration> <threads> sse|ws [- [<event-name> <emit-interval>]]
       ./run.sh --target <target file> <rampup> <duration> <connections>
       (any of them preceded by --threshold <expr>, as often as needed)`;

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

const SETTINGS_PORTS = ['PB_PORT_NODE', 'PB_PORT_TC6', 'PB_PORT_TC7', 'PB_PORT_NODE_CLUSTER', 'PB_PORT_TC6_BIO', 'PB_PORT_TC7_BIO',
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

function parseArguments(args) {
  const { thresholds, rest: argv } = thresholdArguments(args);
  const p = argv[0] === '--target' ? parseTargetArguments(argv) : parseBuiltinArguments(argv);
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
  if ((p.type === 'sse' || p.type === 'ws') && s.PB_REQUEST_SAMPLER !== 'mux') {
    argsFail('arguments', `${p.type} needs the mux engine (PB_REQUEST_SAMPLER=mux, the default), got PB_REQUEST_SAMPLER=${s.PB_REQUEST_SAMPLER}`);
  }
  if (Number(s.PB_CHURN_PERCENT) > 0 && p.type !== 'sse' && p.type !== 'ws') {
    argsFail('arguments', `PB_CHURN_PERCENT=${s.PB_CHURN_PERCENT} drops SSE and WebSocket streams only, not ${p.type} streams (leave it at 0)`);
  }
}

// ---------------------------------------------------------------------------------------------------
// The hosts file (format: the header of hosts.conf), every value checked against a strict pattern so
// later steps can put it in a command line. On error "<file>:<line>: <what>", exit 2.

function readHosts(s) {
  const root = s.PB_ROOT;
  const given = s.PB_HOSTS !== undefined && s.PB_HOSTS !== '';
  const file = given ? s.PB_HOSTS : path.join(root, 'hosts.conf');
  const at = (f) => path.resolve(root, f);   // run.sh reads it from the checkout
  const t = { source: file, lines: [] };
  const fail = (ln, message) => { throw new Refusal('hosts', `${t.source}:${ln}: ${message}`, `run.sh: ${t.source}:${ln}: ${message}\n`); };
  if (!given && !fs.existsSync(at(file))) {
    t.source = LOCAL_DEFAULT;
    addLine(t, s, 0, ['sut', 'local', '127.0.0.1', 'local'], fail);
    addLine(t, s, 0, ['engine', 'local', '127.0.0.1', 'local'], fail);
    return t;
  }
  let text;
  try {
    if (!fs.statSync(at(file)).isFile()) throw new Error('not a file');
    fs.accessSync(at(file), fs.constants.R_OK);
    text = fs.readFileSync(at(file), 'utf8');
  } catch {
    throw new Refusal('hosts', `hosts file ${file}: not found or not readable`, `run.sh: hosts file ${file}: not found or not readable\n`);
  }
  const lines = text.split('\n');
  if (lines[lines.length - 1] === '') lines.pop();
  lines.forEach((line, k) => {
    const fields = line.split('#')[0].split(/[ \t\n]+/).filter(Boolean);
    if (fields.length) addLine(t, s, k + 1, fields, fail);
  });
  const last = lines.length;
  if (!t.lines.some((h) => h.role === 'sut')) fail(last, 'no sut line (exactly one host must have the role sut)');
  if (!t.lines.some((h) => h.role === 'engine')) fail(last, 'no engine line (at least one host must have the role engine)');
  return t;
}

function addLine(t, s, ln, fields, fail) {
  if (fields.length < 4) fail(ln, `expected '<role> <name> <address> <access> [option=value ...]', got ${fields.length} field(s)`);
  const [role, name, address, access, ...opts] = fields;
  if (role !== 'sut' && role !== 'engine') fail(ln, `unknown role '${role}' (expected sut or engine)`);
  if (!/^[A-Za-z0-9][A-Za-z0-9_-]{0,31}$/.test(name)) fail(ln, `bad name '${name}' (1-32 of letters, digits, - and _, starting with a letter or digit)`);
  if (!isIpv4(address)) fail(ln, `bad address '${address}' (expected an IPv4 address such as 192.0.2.10)`);
  let kind;
  let target = '';
  const ssh = /^ssh:([A-Za-z_][A-Za-z0-9._-]{0,31})@([A-Za-z0-9][A-Za-z0-9.-]{0,252})$/.exec(access);
  if (access === 'local') kind = 'local';
  else if (ssh) { kind = 'ssh'; target = `${ssh[1]}@${ssh[2]}`; } else fail(ln, `bad access '${access}' (expected local or ssh:<user>@<host>)`);
  const o = hostOptions(s, ln, role, kind, opts, fail);
  const same = (h) => h.name === name;
  for (const h of t.lines) {
    if (h.role === role && same(h)) fail(ln, `duplicate ${role} name '${name}' (first on line ${h.line})`);
    if (same(h) && h.address !== address) fail(ln, `name '${name}' is used on line ${h.line} for another address (${h.address})`);
  }
  const sut = t.lines.find((h) => h.role === 'sut');
  if (role === 'sut' && sut) fail(ln, `a second sut '${name}' (the first is '${sut.name}' on line ${sut.line}; exactly one is allowed)`);
  const h = { role, name, address, access: kind, target, key: o.key, sshPort: o.port, dir: o.dir || s.PB_ROOT, rmi: null, localport: null, line: ln, bind: o.bind };
  if (role === 'engine') {
    const engines = t.lines.filter((e) => e.role === 'engine');
    // Each engine needs its own RMI local port too when several share a host: numbered in file order.
    h.rmi = Number(o.rmi || s.PB_JMETER_RMI_PORT);
    h.localport = Number(s.PB_JMETER_RMI_LOCALPORT) + engines.length;
    const twin = engines.find((e) => e.address === address && e.rmi === h.rmi);
    if (twin) fail(ln, `engine '${name}' uses ${address} rmi port ${h.rmi} like engine '${twin.name}' on line ${twin.line} (give one of them rmi=<another port>)`);
  }
  t.lines.push(h);
}

function hostOptions(s, ln, role, kind, opts, fail) {
  const o = { key: '', port: '', dir: '', rmi: '', bind: '' };
  const seen = new Set();
  for (const opt of opts) {
    if (!opt.includes('=')) fail(ln, `bad option '${opt}' (expected key=, port=, dir=, rmi= or bind=)`);
    const k = opt.slice(0, opt.indexOf('='));
    let v = opt.slice(opt.indexOf('=') + 1);
    if (seen.has(k)) fail(ln, `option '${k}' given twice`);
    seen.add(k);
    switch (k) {
      case 'key': {
        if (kind !== 'ssh') fail(ln, 'key= is only for ssh access');
        if (!/^~?\/?[A-Za-z0-9._/+-]+$/.test(v) || v.includes('..')) fail(ln, `bad key file '${v}'`);
        if (v.startsWith('~/')) v = `${s.HOME ?? process.env.HOME ?? ''}/${v.slice(2)}`;   // ~ is not expanded inside a file
        let readable = false;
        try {
          const f = path.resolve(s.PB_ROOT, v);
          readable = fs.statSync(f).isFile();
          fs.accessSync(f, fs.constants.R_OK);
        } catch { readable = false; }
        if (!readable) fail(ln, `key file '${v}' is not a readable file`);
        o.key = v;
        break;
      }
      case 'port':
        if (kind !== 'ssh') fail(ln, 'port= is only for ssh access');
        if (!isPort(v)) fail(ln, `bad ssh port '${v}' (1-65535)`);
        o.port = v;
        break;
      case 'dir':
        if (!/^\/[A-Za-z0-9._/+-]*$/.test(v) || v.includes('..')) fail(ln, `bad dir '${v}' (an absolute path of letters, digits and . _ / + -)`);
        o.dir = v.endsWith('/') ? v.slice(0, -1) : v;
        if (!o.dir) o.dir = '/';
        break;
      case 'rmi':
        if (role !== 'engine') fail(ln, 'rmi= is only for engines');
        if (!isPort(v)) fail(ln, `bad rmi port '${v}' (1-65535)`);
        o.rmi = v;
        break;
      case 'bind':
        if (role !== 'sut') fail(ln, 'bind= is only for the sut (the address its server listens on)');
        if (!isIpv4(v)) fail(ln, `bad bind address '${v}' (an IPv4 address, or 0.0.0.0 for every interface)`);
        o.bind = v;
        break;
      default:
        fail(ln, `unknown option '${k}' (expected key, port, dir, rmi or bind)`);
    }
  }
  return o;
}

// The address is the host: two entries with one address share its ports. The controller runs here, so
// its callback port clashes on a local engine or one on 127.0.0.0/8.
function checkPorts(t, port, s) {
  const sut = t.lines.find((h) => h.role === 'sut');
  const engines = t.lines.filter((h) => h.role === 'engine');
  const fail = (h, message) => { throw new Refusal('hosts', `${t.source}:${h.line}: ${message}`, `run.sh: ${t.source}:${h.line}: ${message}\n`); };
  for (const e of engines) {
    if (e.address === sut.address && e.rmi === port) {
      fail(e, `engine '${e.name}' rmi port ${e.rmi} is the server's port on ${e.address} (give it rmi=<another port>)`);
    }
    if ((e.access === 'local' || e.address.startsWith('127.')) && e.rmi === Number(s.PB_JMETER_CLIENT_LOCALPORT)) {
      fail(e, `engine '${e.name}' rmi port ${e.rmi} is the controller's callback port on this machine (PB_JMETER_CLIENT_LOCALPORT; give it rmi=<another port>)`);
    }
    for (const o of engines) {
      if (o.address === e.address && o.localport === e.rmi) {
        fail(e, `engine '${e.name}' rmi port ${e.rmi} is the RMI local port of engine '${o.name}' on ${e.address} (PB_JMETER_RMI_LOCALPORT and up, one per engine; give it rmi=<another port>)`);
      }
    }
  }
}

// ---------------------------------------------------------------------------------------------------
// Sizes: each engine's share of the connections, its heap, the disk.

// The shares differ by at most one; the first engines take the remainder.
const split = (total, n) => Array.from({ length: n }, (_, k) => Math.floor(total / n) + (k < total % n ? 1 : 0));

// A JVM size (512m, 3g, 2048 bytes) in MB; null on anything else.
function sizeMb(size) {
  const m = /^([1-9][0-9]*)([mg]?)$/.exec(String(size).toLowerCase());
  if (!m) return null;
  const n = Number(m[1]);
  return m[2] === 'g' ? n * 1024 : m[2] === 'm' ? n : Math.floor(n / 1048576);
}

// An engine's heap (-Xmx, MB) for the connections it drives with a sampler (docs/engine.md):
// mux: PB_JMETER_MUX_HEAP_BASE_MB + PB_JMETER_MUX_HEAP_PER_CONNECTION_KB per connection (a held connection's
// state and the garbage of its answers between two young collections); push, http: PB_JMETER_HEAP_BASE_MB +
// PB_JMETER_HEAP_PER_THREAD_KB per connection (a JMeter thread each). PB_JMETER_HEAP set to a size
// overrides the estimate; null when it is neither auto nor a size. Too small a heap does not fail a run,
// it starves it: the engine collects garbage instead of sending requests (docs/limits.md).
function heapMb(connections, sampler, s) {
  if (s.PB_JMETER_HEAP !== 'auto') return sizeMb(s.PB_JMETER_HEAP);
  const perKb = (base, kb) => Number(base) + Math.floor((connections * Number(kb) + 1023) / 1024);
  if (sampler === 'mux') return perKb(s.PB_JMETER_MUX_HEAP_BASE_MB, s.PB_JMETER_MUX_HEAP_PER_CONNECTION_KB);
  if (sampler === 'push' || sampler === 'http') return perKb(s.PB_JMETER_HEAP_BASE_MB, s.PB_JMETER_HEAP_PER_THREAD_KB);
  throw new Error(`unknown sampler '${sampler}' (mux, push or http)`);
}

// The mux engine's selector threads (testplan.jmx mux.threads): one per PB_MUX_CONNECTIONS_PER_THREAD
// connections, at least 1, at most one per core of the engine's host.
const muxThreads = (connections, cores, s) =>
  Math.max(1, Math.min(cores, Math.ceil(connections / Number(s.PB_MUX_CONNECTIONS_PER_THREAD))));

// The order in which JMeter 5.6's controller starts its engines: not the order given with -R but its
// DistributedRunner's java.util.HashMap iteration order over "<address>:<port>" (its log's "Starting
// distributed test with remote engines: [...]"), one after the other, a few hundred ms to seconds apart:
// buckets ascending, (h ^ (h >>> 16)) & (capacity - 1) of Java's String.hashCode, the capacity the
// smallest power of two from 16 up that holds them at a load factor of 0.75, one bucket's in the order
// given. The engine started first sets the event (Init: each set restarts the server's emitter, and set
// first the event exists before the other engines' first requests); the one started last clears it
// (Clean Up), clear.margin.ms after its own duration and emit interval (CLEAR_MARGIN_MS: the engines' loads
// start up to seconds apart, in either order).
function jmeterStartOrder(keys) {
  let capacity = 16;
  while (keys.length * 4 > capacity * 3) capacity *= 2;
  const bucket = (key) => {
    let h = 0;
    for (const c of key) h = (Math.imul(h, 31) + c.charCodeAt(0)) >>> 0;
    return ((h ^ (h >>> 16)) & (capacity - 1)) >>> 0;
  };
  return keys.map((key, i) => ({ key, i, b: bucket(key) })).sort((x, y) => x.b - y.b || x.i - y.i).map((x) => x.key);
}

// The wait's hard deadline, in seconds from the test's start on the first engine: the test (the plan's
// Request group runs the duration, ramp-up included), its tail (the last polls or emit cycle, the clean-up
// group with its clear margin, the engines' final batch), then 60 s and a fifth of the duration to spare.
const waitSeconds = (p, engineCount = 1) => p.durationS + Math.ceil(Math.max(p.maxDurationMs ?? 0, p.emitIntervalMs ?? 0) / 1000)
  + Math.ceil(clearMarginMs(engineCount) / 1000) + 10 + 60 + Math.floor(p.durationS / 5);

// With several engines, how much later than its own duration and one emit interval the Clean Up clear
// comes (clear.margin.ms). The engines' loads do not start together: the controller starts them one after
// the other, and JMeter runs an engine's setUp groups (Init, on the engine started first) before its load,
// so either may start first. In distributed test runs of two namespace engines the cleaning engine's load
// started 0.99 s after the other's, and 0.22 and 0.47 s before it (Init's first HTTP requests on a cold
// JVM); a clear before another engine's duration is over leaves that engine's next polls waiting for an
// event that no longer exists. The margin covers a spread of 5 s beyond the emit interval, for 5 s more per
// run with several engines.
const CLEAR_MARGIN_MS = 5000;
const clearMarginMs = (engineCount) => (engineCount > 1 ? CLEAR_MARGIN_MS : 0);

// A target run's transport as the engine's request.type (a held stream is read as comet's); the engine
// takes the rest from its target.spec (docs/targets.md "Inside").
const TARGET_REQUEST_TYPE = { sse: 'sse', ws: 'ws', stream: 'comet', poll: 'poll', pull: 'pull' };

// The disk estimate of a target run: as a built-in run of its request type whose clients each get `rate`
// messages a second (lib/response-estimate.js sizes a message as the protocol's record).
const targetDiskRun = (p) => ({ ...p, type: TARGET_REQUEST_TYPE[p.type], emitIntervalMs: Math.max(10, Math.round(1000 / p.target.rate)) });

// The plan's global properties, the one table where the run schema's names become JMeter's
// (load/controller.sh sends them to every engine with -G and sets log.dir.base itself; threads.num,
// mux.threads and log.dir.res are each engine's own, given to load/engine.sh). request.timeout is left
// to the plan, which derives it from the type, duration and interval (load/README.md).
function jmeterProperties(p, address, sampler, churnPercent = '0', engineCount = 1) {
  return [
    ['server.host', address], ['server.port', p.port], ['rampup.period', p.rampupS], ['test.duration', p.durationS],
    ['logging.enabled', 'false'], ['event.enabled', p.event ? 'true' : 'false'], ['event.name', p.event ?? 'none'],
    ['event.frequency', p.emitIntervalMs ?? 0], ['request.type', p.target ? TARGET_REQUEST_TYPE[p.type] : p.type], ['request.events', p.event ?? ''],
    ['request.duration', p.maxDurationMs ?? 0], ['pull.interval', p.pullIntervalMs ?? 0], ['churn.percent', churnPercent],
    ['request.sampler', sampler], ['clear.margin.ms', clearMarginMs(engineCount)],
    // a target run: no time stamps (the server has no /timestamp; publisher and subscribers share a clock)
    ...(p.target ? [['timestamp.threads', 0]] : []),
    // a target's long poll is held until its channel's next message: the silence allowed covers two
    // publish intervals and a margin (the plan derives the built-in poll's from its max duration)
    ...(p.target && p.type === 'poll' ? [['request.timeout', Math.ceil(2000 / p.target.rate) + 30000]] : []),
  ].map(([k, v]) => `${k}=${v}\n`).join('');
}

// ---------------------------------------------------------------------------------------------------
// The open-file fit (the study's section 3.3.3, "Pre-flight checks"): does a process holding
// <connections> sockets fit a host's limits? host/host-check.js judges the same on each host at
// preflight.

function openFilesProblem(conns, soft, hard, holder, reserve, all, engines) {
  const needed = conns + reserve;
  const sf = soft === 'unlimited' ? needed : soft;
  const hd = hard === 'unlimited' ? needed : hard;
  let what;
  let fix;
  if (holder.startsWith('sut:')) {
    what = `the ${holder.slice(4)} server (one process holds every connection)`;
    fix = 'raise the open-files limit on the server host (limits.conf nofile) or lower the threads';
  } else {
    what = 'this JMeter engine';
    fix = 'add engines on other hosts to hosts.conf (the threads are split across them) or raise the limit';
    if (all !== undefined && hd > reserve) {
      const per = hd - reserve;
      fix = `${Math.ceil(all / per)} engines like this one would hold the ${all} connections, hosts.conf has ${engines}: ${fix}`;
    }
  }
  if (hd < needed) {
    return `open files: ${what} needs ${conns} connections + ${reserve} reserve = ${needed}, but a process here may `
      + `open at most ${hd} (ulimit -Hn). At most ${hd - reserve} connections fit; ${fix}`;
  }
  if (sf < needed) {
    return `open files: ${what} needs ${needed} but the soft limit here is ${sf} (hard ${hd}): add 'ulimit -n ${hd}' `
      + 'to the login environment of this host, or lower the threads';
  }
  return null;
}

// "<role>:<name>=<soft>/<hard> ..." -> { 'role:name': { soft, hard } }; a refusal naming a bad entry.
function parseOpenFiles(spec) {
  const out = {};
  for (const entry of String(spec).split(/[ \t\n]+/).filter(Boolean)) {
    const m = /^((sut|engine):[A-Za-z0-9][A-Za-z0-9_-]{0,31})=([0-9]{1,9}|unlimited)\/([0-9]{1,9}|unlimited)$/.exec(entry);
    if (!m) argsFail('limits', `PB_PLAN_OPEN_FILES: bad entry '${entry}' (expected <role>:<name>=<soft>/<hard>)`);
    const v = (x) => (x === 'unlimited' ? x : Number(x));
    out[m[1]] = { soft: v(m[3]), hard: v(m[4]) };
  }
  return out;
}

function openFilesFit(t, p, engines, s, spec, from) {
  const limits = parseOpenFiles(spec);
  for (const h of t.lines) {
    if (!limits[`${h.role}:${h.name}`]) argsFail('limits', `PB_PLAN_OPEN_FILES has no entry for ${h.role}:${h.name} (one per hosts.conf line)`);
  }
  const reserve = Number(s.PB_FD_RESERVE);
  const entry = (h, conns, holder, ...more) => {
    const { soft, hard } = limits[`${h.role}:${h.name}`];
    const problem = openFilesProblem(conns, soft, hard, holder, reserve, ...more);
    return { role: h.role, name: h.name, connections: conns, need: conns + reserve, soft, hard, fits: problem === null, problem };
  };
  const sut = t.lines.find((h) => h.role === 'sut');
  // a target's server is not pushbench's: its limits are its own, and only the engines are judged here
  const hosts = [...(p.target ? [] : [entry(sut, p.connections, `sut:${p.server}`)]),
    // a target run's engine also holds its publisher's connection per channel
    ...engines.map((e) => entry(t.lines[e.index], e.connections + (p.target?.channels ?? 0), 'engine', p.connections, engines.length))];
  return { reserve, limitsFrom: from, fits: hosts.every((h) => h.fits), hosts };
}

// ---------------------------------------------------------------------------------------------------

function decideOrThrow({ argv, env = process.env, limits = {} }) {
  const s = settings(env);
  const bad = settingsProblems(s);
  if (bad.length) argsFail('settings', `bad settings (lib/config.sh; nothing was started):\n${bad.join('\n')}`);
  const p = parseArguments(argv.map(String));
  p.port = p.target ? p.target.port : serverPort(p.server, s);
  const { exports, threadFit } = serverSettings(p, s, limits.threadRoom);
  typeSettings(p, s);

  const t = readHosts(s);
  checkPorts(t, p.port, s);
  const engineIdx = t.lines.map((h, i) => (h.role === 'engine' ? i : -1)).filter((i) => i >= 0);
  if (p.connections < engineIdx.length) {
    argsFail('hosts', `threads (${p.connections}) must be at least the number of engines in ${t.source} (${engineIdx.length})`);
  }
  const shares = split(p.connections, engineIdx.length);
  const disk = runDiskNeed(p.target ? targetDiskRun(p) : p, shares);   // each engine's share and the run directory here (lib/disk-need.js)
  const sampler = s.PB_REQUEST_SAMPLER;
  const heaps = shares.map((c) => heapMb(c, sampler, s));
  if (heaps.some((h) => h === null)) {
    // run.sh printed the size's own complaint first, then its refusal
    const message = `PB_JMETER_HEAP=${s.PB_JMETER_HEAP} is not a heap size (want auto, or e.g. 512m or 3g)`;
    throw new Refusal('heap', message, `not a heap size: '${s.PB_JMETER_HEAP}' (want e.g. 512m or 3g)\nrun.sh: ${message}\n${USAGE_LINE}\n(./run.sh --help for details)\n`);
  }
  const sut = t.lines.find((h) => h.role === 'sut');
  const order = jmeterStartOrder(engineIdx.map((i) => `${t.lines[i].address}:${t.lines[i].rmi}`));
  const engines = engineIdx.map((i, k) => {
    const h = t.lines[i];
    const key = `${h.address}:${h.rmi}`;
    return { index: i, name: h.name, address: h.address, access: h.access, rmi: h.rmi, localport: h.localport,
      connections: shares[k], heapMb: heaps[k], diskMb: disk.engines[k], init: !p.target && key === order[0],
      cleanup: !p.target && key === order[order.length - 1] };
  });
  const spec = limits.openFiles ?? env.PB_PLAN_OPEN_FILES;
  const openFiles = spec !== undefined && spec !== '' ?
    openFilesFit(t, p, engines, s, spec, limits.openFilesFrom ?? 'PB_PLAN_OPEN_FILES') : null;

  const parameters = Object.fromEntries(PARAMETERS.filter((x) => x.name !== 'hosts').map((x) => [x.name, p[x.name] ?? null]));
  const record = {
    ...parameters,
    hosts: {
      sut: { name: sut.name, address: sut.address, bind: sut.bind || sut.address, access: sut.access },
      engines: engines.map((e) => ({ name: e.name, address: e.address, access: e.access, rmi: e.rmi, connections: e.connections, heapMb: e.heapMb })),
    },
  };
  return {
    parameters,
    // the run directory's name after its time stamp (run.sh: <yyyymmdd-hhmmss>-<runName>[-<n>])
    runName: p.target ? `target-${p.target.name}-${p.connections}-${p.durationS}` : `${p.server}-${p.type}-${p.connections}-${p.durationS}`,
    connections: p.connections,
    hosts: t.source,
    server: { type: p.server, name: sut.name, address: p.target ? p.target.host : sut.address, listen: sut.bind || sut.address, port: p.port,
      connections: p.connections, bioThreads: threadFit ? threadFit.threads : null },
    engines: engines.map(({ index, ...e }) => e),
    resultsDiskMb: disk.resultsMb,
    sampler,
    waitS: waitSeconds(p, engines.length),
    jmeterProperties: jmeterProperties(p, p.target ? p.target.host : sut.address, sampler, s.PB_CHURN_PERCENT, engines.length),
    ...(p.target ? { target: p.target } : {}),
    ...(p.thresholds.length ? { thresholds: p.thresholds } : {}),
    settings: exports,
    threadFit,
    openFiles,
    hostLines: t.lines,
    record,
  };
}

function decide(input) {
  try {
    return decideOrThrow(input);
  } catch (e) {
    if (!(e instanceof Refusal)) throw e;
    return { refused: { stage: e.stage, code: e.code, message: e.message.split('\n')[0], text: e.text } };
  }
}

// ---------------------------------------------------------------------------------------------------
// The CLI

// A bash word: single-quoted, safe to eval whatever the value holds.
const sh = (v) => (v === null || v === undefined ? "''" : `'${String(v).replace(/'/g, "'\\''")}'`);
const shArray = (name, values) => `${name}=(${values.map((v, i) => `[${i}]=${sh(v)}`).join(' ')})`;

// The hosts table as run.sh's H_* arrays (indexed like the file's host lines).
function hostsShell(lines, source) {
  const col = (f) => lines.map(f);
  return [
    shArray('H_ROLE', col((h) => h.role)), shArray('H_NAME', col((h) => h.name)), shArray('H_ADDR', col((h) => h.address)),
    shArray('H_ACCESS', col((h) => h.access)), shArray('H_TARGET', col((h) => h.target)), shArray('H_KEY', col((h) => h.key)),
    shArray('H_PORT', col((h) => h.sshPort)), shArray('H_DIR', col((h) => h.dir)), shArray('H_RMI', col((h) => h.rmi ?? '')),
    shArray('H_LOCALPORT', col((h) => h.localport ?? '')), shArray('H_LINE', col((h) => h.line)), shArray('H_BIND', col((h) => h.bind)),
    `SUT_IDX=${sh(lines.findIndex((h) => h.role === 'sut'))}`,
    `ENGINE_IDX=(${lines.map((h, i) => (h.role === 'engine' ? i : null)).filter((i) => i !== null).join(' ')})`,
    `HOSTS_SOURCE=${sh(source)}`,
  ];
}

// The decisions as bash assignments: run.sh's RUN_* parameters (the schema's names in snake case:
// RUN_RAMPUP_S, RUN_CONNECTIONS, ...), the H_* tables with each engine's share, heap and disk, and the whole object as DECISIONS_JSON.
function shellForm(d) {
  if (d.refused) {
    return [`DECISION_REFUSED_STAGE=${sh(d.refused.stage)}`, `DECISION_REFUSED_CODE=${sh(d.refused.code)}`,
      `DECISION_REFUSED_TEXT=${sh(d.refused.text)}`].join('\n');
  }
  const p = d.parameters;
  const bash = { server: p.server, rampup_s: p.rampupS, duration_s: p.durationS, connections: p.connections, type: p.type,
    max_duration_ms: p.maxDurationMs, event: p.event, emit_interval_ms: p.emitIntervalMs, pull_interval_ms: p.pullIntervalMs,
    port: p.port, results_disk_mb: d.resultsDiskMb };
  const perEngine = (f) => d.hostLines.map((h) => {
    const e = h.role === 'engine' ? d.engines.find((x) => x.name === h.name) : null;
    return e ? f(e) : '';
  });
  return [
    "DECISION_REFUSED_STAGE=''",
    ...Object.entries(bash).map(([k, v]) => `RUN_${k.toUpperCase()}=${sh(v)}`),
    ...hostsShell(d.hostLines, d.hosts),
    shArray('H_CONNECTIONS', perEngine((e) => e.connections)),
    shArray('H_HEAP_MB', perEngine((e) => e.heapMb)),
    shArray('H_DISK_MB', perEngine((e) => e.diskMb)),
    shArray('H_INIT', perEngine((e) => (e.init ? 1 : 0))),
    shArray('H_CLEANUP', perEngine((e) => (e.cleanup ? 1 : 0))),
    `RUN_WAIT_S=${sh(d.waitS)}`,
    `RUN_NAME=${sh(d.runName)}`,
    `RUN_JMETER_PROPERTIES=${sh(d.jmeterProperties)}`,
    ...Object.entries(d.settings).map(([k, v]) => `export ${k}=${sh(v)}`),
    `PB_SERVER_ADDRESS=${sh(d.server.listen)}`,
    `DECISIONS_JSON=${sh(JSON.stringify(d))}`,
    // a target run: the file to copy into the run directory and run.json's record of it
    ...(d.thresholds ? [shArray('RUN_THRESHOLDS', d.thresholds)] : []),
    ...(d.target ? [`RUN_TARGET_FILE=${sh(d.target.source)}`, `RUN_TARGET_JSON=${sh(JSON.stringify(d.target))}`,
      `RUN_TARGET_ADDRESSES=(${sh(`${d.target.host}:${d.target.port}`)} ${sh(`${d.target.publishHost}:${d.target.publishPort}`)})`] : []),
  ].join('\n');
}

// This machine's room for threads (lib/host-facts.js, read in this process).
const threadRoomHere = (env) => threadRoom(settings(env));

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

Examples:
  ./run.sh tc6 60 900 5000 comet                 15 min comet test, 1 min ramp-up, no events
  ./run.sh node 5 30 500 comet - event1 2000     comet with an event every 2 s (- = no max-duration)
  ./run.sh tc7 30 600 5000 poll 3000 event1 2000 long poll held up to 3 s, event every 2 s
  ./run.sh node 90 1200 5000 poll 3000           long poll, no events: every poll times out after 3 s
  ./run.sh node 5 30 500 pull 1000 event1 2000   each client pulls every 1 s, event every 2 s
  ./run.sh node 5 30 500 sse - event1 2000       Server-Sent Events with an event every 2 s
  ./run.sh tc7 5 30 500 ws - event1 2000         WebSocket with an event every 2 s

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

// The helper modes, each for one bash caller; each returns the exit code.
const print = (text) => process.stdout.write(text);
const complain = (text, code) => (process.stderr.write(text), code);

function heapCli(args) {   // lib/jmeter-heap.sh's jmeter_heap_mb <connections> [<sampler>]
  if (!(args.length === 1 || args.length === 2) || !/^[0-9]+$/.test(args[0])) {
    return complain(`usage: jmeter_heap_mb <connections> [<sampler>] (got: ${args.join(' ')})\n`, 2);
  }
  const s = settings(process.env);
  const sampler = args[1] ?? s.PB_REQUEST_SAMPLER;
  if (s.PB_JMETER_HEAP === 'auto' && !SAMPLERS.includes(sampler)) return complain(`jmeter_heap_mb: unknown sampler '${sampler}' (mux, push or http)\n`, 2);
  const mb = heapMb(Number(args[0]), sampler, s);
  if (mb === null) return complain(`not a heap size: '${s.PB_JMETER_HEAP}' (want e.g. 512m or 3g)\n`, 1);
  return print(`${mb}\n`), 0;
}

function muxThreadsCli(args) {   // lib/jmeter-heap.sh's jmeter_mux_threads <connections> <cores>
  if (args.length !== 2 || !args.every((v) => /^[0-9]+$/.test(v))) return complain('usage: jmeter_mux_threads <connections> (cores from nproc)\n', 2);
  return print(`${muxThreads(Number(args[0]), Number(args[1]), settings(process.env))}\n`), 0;
}

function sizeMbCli(args) {   // lib/jmeter-heap.sh's jmeter_size_mb <size>
  const mb = sizeMb(args[0] ?? '');
  if (mb === null) return complain(`not a heap size: '${args[0] ?? ''}' (want e.g. 512m or 3g)\n`, 1);
  return print(`${mb}\n`), 0;
}

function hostsCli() {   // lib/hosts.sh's hosts_load: the hosts table alone, as H_* arrays
  try {
    const t = readHosts(settings(process.env));
    print(`${["DECISION_REFUSED_STAGE=''", ...hostsShell(t.lines, t.source)].join('\n')}\n`);
  } catch (e) {
    if (!(e instanceof Refusal)) throw e;
    print(`${shellForm({ refused: { stage: e.stage, code: e.code, message: e.message, text: e.text } })}\n`);
  }
  return 0;
}

// --json (run.sh --plan) and --shell (run.sh's one reading): the run's decisions.
function decideCli(mode, args) {
  const limits = { threadRoom: () => threadRoomHere(process.env) };
  if (args[0] === '--open-files') {
    args.shift();
    limits.openFiles = args.shift();
    limits.openFilesFrom = 'measured';
  }
  if (args[0] === '--') args.shift();
  // run.sh's own reading judges no open-file fit (its preflight measures the hosts); --plan's does.
  if (mode === '--shell') limits.openFiles ??= '';
  const d = decide({ argv: args, env: process.env, limits });
  if (mode === '--shell') return print(`${shellForm(d)}\n`), 0;
  if (d.refused) return complain(d.refused.text, d.refused.code);
  return print(`${JSON.stringify(d, null, 2)}\n`), 0;
}

const HELPERS = { '--heap': heapCli, '--mux-threads': muxThreadsCli, '--size-mb': sizeMbCli, '--hosts': hostsCli };

function main(args) {
  const mode = args.shift();
  if (mode === '--usage') return print(usage()), 0;
  if (mode === '--usage-line') return print(`${USAGE_LINE}\n`), 0;
  if (HELPERS[mode]) return HELPERS[mode](args);
  if (mode === '--json' || mode === '--shell') return decideCli(mode, args);
  return complain('usage: node lib/decide.js --json|--shell [--open-files <spec>] [--] <run.sh arguments> | --hosts | --usage | --usage-line\n', 2);
}

if (require.main === module) process.exitCode = main(process.argv.slice(2));

module.exports = {
  decide, jmeterStartOrder, jmeterProperties, waitSeconds, parseArguments, settingsProblems, readHosts, heapMb, sizeMb, muxThreads, split, openFilesProblem, threadProblem, shellForm,
  serverPort, sh,
  threadRoomHere, usage, USAGE_LINE, BOUNDS, Refusal,
};
