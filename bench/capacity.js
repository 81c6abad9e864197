#!/usr/bin/env node
'use strict';
// Capacity until failure (issue #23 item 3; references 003 and 004): keeps adding held connections at a
// stated rate until the server under test crashes, refuses connections or stops answering in time, and
// records the connections held at failure, the connection rate achieved and the cause.
//
//   node bench/capacity.js <server> [--rate N] [--max N] [--type comet|poll] [--emit MS] [--max-duration MS]
//                          [--hold S] [--timeout S] [--out FILE]
//
// It is one real ./run.sh run whose ramp-up only grows: <max> threads started over <max>/<rate> s
// (JMeter's ramp-up), each holding its connection (comet) or polling again at once (poll), then <hold> s
// at <max>. While it runs, every second it reads the server's GET /status (open requests; an answer
// slower than T s is a timeout), whether the server process is alive (servers/control.sh status), the
// server's log (out of memory) and the answers so far (refused connections, reference 003's criterion over
// the last WINDOW_S seconds: analysis/measure/answer-criterion.js): results.csv's request samples (JMeter's
// HTTP sampler) and the B ... E pairs with their verdict of the stream logs of the run's engines on this host
// (the push sampler and the mux engine, whose answers have no results.csv row). At the first
// failure it stops the run (SIGINT to run.sh, which stops everything and keeps what was collected; a
// crashed server ends the run by itself), has the run analysed, and writes <run>/capacity.json, prints
// one line and adds a card to the run's report. docs/capacity.md describes the output and the causes.
//
// Exit: 0 measured (a failure found, or none up to --max), 1 the run failed before any load, 2 usage.
const fs = require('node:fs');
const os = require('node:os');
const path = require('node:path');
const http = require('node:http');
const zlib = require('node:zlib');
const { StringDecoder } = require('node:string_decoder');
const { spawn, spawnSync } = require('node:child_process');
const { AnswerCriterion, withinSeconds } = require('../analysis/measure/answer-criterion');
const { splitRow, toSample } = require('../analysis/read/jmeter-csv');
const { lineHead, beginOf, endOf } = require('../analysis/read/stream-log');
const { answerSample } = require('../analysis/measure/stream-answers');

const ROOT = path.resolve(__dirname, '..');
const SERVERS = ['node', 'node-cluster', 'tc6', 'tc7', 'tc6-bio', 'tc7-bio'];
const DEFAULTS = { rate: 100, max: 20000, type: 'comet', emitIntervalMs: 2000, maxDurationMs: 30000, hold: 10, timeout: null, out: null };
const WINDOW_S = 10;            // the criterion is judged over the answers of the last WINDOW_S seconds
const MIN_ANSWERS = 20;         // ... once that many are in it
const PROBE_FAILURES = 3;       // consecutive /status probes without an answer in T s: the server stopped answering
const STOP_GRACE_S = 300;      // a run not ended this long after the failure is interrupted
const EVENT = 'capacity';       // no "error" / "timeout" in it (the plan's assertions)
// The server's log says it ran out of memory (JVM heap, native threads, Node.js heap, the kernel).
// (The JVM's command line, which Tomcat logs, names -XX:+ExitOnOutOfMemoryError: not a match.)
const OUT_OF_MEMORY = /java\.lang\.OutOfMemoryError[^\n]*|JavaScript heap out of memory|unable to create (new )?native thread|Cannot allocate memory/;
// A failed sample whose message says the connection was refused, reset or never made.
const REFUSED = /Connection refused|ConnectException|Connection reset|NoHttpResponseException|SocketException/;

const USAGE = `usage: node bench/capacity.js <server> [options]
  <server>              ${SERVERS.join(', ')}
  --rate N              connections added per second (default ${DEFAULTS.rate})
  --max N               stop adding at N connections (default ${DEFAULTS.max}); the run then holds them --hold s
  --type comet|poll     held connections: comet streams or long polls (default ${DEFAULTS.type})
  --emit MS             an event every MS ms (default ${DEFAULTS.emitIntervalMs}; 0: none, comet only)
  --max-duration MS     a long poll's hold (default ${DEFAULTS.maxDurationMs})
  --hold S              seconds at --max before the run ends (default ${DEFAULTS.hold})
  --timeout S           hard bound of the whole run (default ramp-up + hold + 180)
  --out FILE            also write the result JSON there
Environment: PB_ANSWER_WITHIN_S (T, default 6) and every setting of lib/config.sh (PB_TOMCAT_HEAP, ports, ...).
A Tomcat exits at its first OutOfMemoryError (servers/tomcat-common.sh), so out of memory ends the run.`;

class UsageError extends Error {}

function wholeNumber(v, what, min) {
  if (!/^[0-9]{1,9}$/.test(String(v)) || Number(v) < min) throw new UsageError(`${what} must be a whole number >= ${min}, got '${v}'`);
  return Number(v);
}

function parseArgs(argv) {
  const o = { ...DEFAULTS, server: null };
  const takes = { '--rate': 'rate', '--max': 'max', '--type': 'type', '--emit': 'emitIntervalMs', '--max-duration': 'maxDurationMs',
    '--hold': 'hold', '--timeout': 'timeout', '--out': 'out' };
  for (let i = 0; i < argv.length; i++) {
    const a = argv[i];
    if (a === '--help' || a === '-h') return { help: true };
    if (takes[a]) {
      if (i + 1 >= argv.length) throw new UsageError(`${a} needs a value`);
      o[takes[a]] = argv[++i];
    } else if (a.startsWith('-')) {
      throw new UsageError(`unknown option '${a}'`);
    } else if (o.server === null) {
      o.server = a;
    } else {
      throw new UsageError(`unexpected argument '${a}'`);
    }
  }
  if (!o.server) throw new UsageError('which server? (one of ' + SERVERS.join(', ') + ')');
  if (!SERVERS.includes(o.server)) throw new UsageError(`unknown server type '${o.server}' (expected ${SERVERS.join(', ')})`);
  if (!['comet', 'poll'].includes(o.type)) throw new UsageError(`--type must be comet or poll, got '${o.type}'`);
  o.rate = wholeNumber(o.rate, '--rate', 1);
  o.max = wholeNumber(o.max, '--max', 1);
  o.emitIntervalMs = wholeNumber(o.emitIntervalMs, '--emit', 0);
  if (o.emitIntervalMs > 0 && o.emitIntervalMs < 10) throw new UsageError('--emit must be 0 or at least 10 ms (the protocol\'s smallest interval)');
  o.maxDurationMs = wholeNumber(o.maxDurationMs, '--max-duration', 1);
  o.hold = wholeNumber(o.hold, '--hold', 1);
  if (o.type === 'poll' && o.emitIntervalMs === 0 && o.maxDurationMs > 1000 * (o.hold + Math.ceil(o.max / o.rate))) {
    throw new UsageError('--max-duration is longer than the whole run: no poll would be answered');
  }
  o.rampupS = Math.max(1, Math.ceil(o.max / o.rate));
  o.durationS = o.rampupS + o.hold;
  o.timeout = o.timeout === null ? o.durationS + 180 : wholeNumber(o.timeout, '--timeout', 1);
  return o;
}

// The ./run.sh arguments of the capacity run.
function runArgs(o) {
  const args = [o.server, String(o.rampupS), String(o.durationS), String(o.max), o.type];
  if (o.emitIntervalMs > 0) args.push(o.type === 'poll' ? String(o.maxDurationMs) : '-', EVENT, String(o.emitIntervalMs));
  else if (o.type === 'poll') args.push(String(o.maxDurationMs));
  return args;
}

// lib/config.sh's values this bench needs (the one place for defaults; the environment overrides them).
function config() {
  const out = spawnSync('bash', ['-c', 'source lib/config.sh && printf "%s\\n" "$PB_STATE" "$PB_SERVER_ADDRESS" ' +
    '"$PB_PORT_NODE" "$PB_PORT_NODE_CLUSTER" "$PB_PORT_TC6" "$PB_PORT_TC7" "$PB_PORT_TC6_BIO" "$PB_PORT_TC7_BIO"'],
  { cwd: ROOT, encoding: 'utf8' });
  const [state, address, ...ports] = out.stdout.split('\n');
  return { state, address, port: Object.fromEntries(SERVERS.map((s, i) => [s, Number(ports[i])])) };   // in SERVERS' order
}

// GET /status within `ms`: the open request count, or null when no answer came in time.
function openRequests(address, port, ms) {
  return new Promise((resolve) => {
    const req = http.get({ host: address, port, path: '/status', agent: false, timeout: ms }, (res) => {
      let body = '';
      res.setEncoding('utf8');
      res.on('data', (c) => { body += c; });
      res.on('end', () => {
        try { resolve(JSON.parse(body).requests.open); } catch { resolve(null); }
      });
      res.on('error', () => resolve(null));
    });
    req.on('timeout', () => req.destroy());
    req.on('error', () => resolve(null));
  });
}

// Whether the run's server process is alive: servers/control.sh status with the run's own PID files
// ($PB_STATE/runs/<run id>, the run id being its directory's name; run.sh run_pid_dir).
const serverAlive = (server, state, runDir) => spawnSync(path.join(ROOT, 'servers/control.sh'),
  ['--pid-dir', path.join(state, 'runs', path.basename(runDir)), 'status', server], { stdio: 'ignore' }).status === 0;

// New bytes (bytes()) or complete lines (lines()) of a growing file since the last call.
class FileTail {
  constructor(file) { this.file = file; this.offset = 0; this.rest = ''; }
  bytes() {
    let fd;
    try { fd = fs.openSync(this.file, 'r'); } catch { return Buffer.alloc(0); }
    try {
      const size = fs.fstatSync(fd).size;
      if (size <= this.offset) return Buffer.alloc(0);
      const buf = Buffer.alloc(size - this.offset);
      fs.readSync(fd, buf, 0, buf.length, this.offset);
      this.offset = size;
      return buf;
    } finally { fs.closeSync(fd); }
  }
  lines() {
    const buf = this.bytes();
    if (buf.length === 0) return [];
    const parts = (this.rest + buf.toString('utf8')).split('\n');
    this.rest = parts.pop();
    return parts;
  }
}

// The answers in the growing stream logs of the run's engines on this host ($PB_STATE/runs/<run id>/<engine>/
// responses/push-<n>.tsv.gz, docs/run-layout.md "Stream logs"): each B ... E pair of label request whose E
// line carries the verdict becomes the sample the analysis makes of it (measure/stream-answers.js
// answerSample), handed to onAnswer. An engine sync-flushes its log once a second: each log's new bytes go
// into a gunzip stream of its own, whose lines come in the event loop. A log that is no gzip (damaged) is
// read up to the damage.
class StreamLogWatch {
  constructor(runsDir, onAnswer) {
    this.runsDir = runsDir;
    this.onAnswer = onAnswer;
    this.logs = new Map();    // file -> { tail, gunzip, decoder, rest }
    this.began = new Map();   // engine + tab + sample id -> { thread, beganUs } of a request's B line
  }

  poll() {
    let engines;
    try { engines = fs.readdirSync(this.runsDir); } catch { return; }
    for (const engine of engines) {
      const dir = path.join(this.runsDir, engine, 'responses');
      let files;
      try { files = fs.readdirSync(dir).filter((f) => /^push-\d+\.tsv\.gz$/.test(f)); } catch { continue; }
      files.sort((a, b) => Number(a.match(/\d+/)[0]) - Number(b.match(/\d+/)[0]));   // a rotated log's E lines may follow in the next
      for (const f of files) {
        const file = path.join(dir, f);
        if (!this.logs.has(file)) this.logs.set(file, this.open(engine, file));
        const log = this.logs.get(file);
        const buf = log.tail.bytes();
        if (buf.length > 0 && !log.failed) log.gunzip.write(buf);
      }
    }
  }

  open(engine, file) {
    const log = { tail: new FileTail(file), gunzip: zlib.createGunzip(), decoder: new StringDecoder('utf8'), rest: '', failed: false };
    log.gunzip.on('data', (chunk) => {
      const parts = (log.rest + log.decoder.write(chunk)).split('\n');
      log.rest = parts.pop();
      for (const line of parts) this.line(engine, line);
    });
    log.gunzip.on('error', () => { log.failed = true; });
    return log;
  }

  line(engine, line) {
    const h = lineHead(line);
    if (h === null) return;
    const key = `${engine}\t${h.id}`;
    if (h.tag === 'B') {
      const b = beginOf(line);
      if (b?.label === 'request') this.began.set(key, { thread: b.thread, beganUs: h.us });
    } else if (h.tag === 'E' && this.began.has(key)) {
      const b = this.began.get(key);
      this.began.delete(key);
      const e = endOf(line);
      if (e === null || e.failure === undefined) return;   // no verdict: an older push run's, in its results.csv
      this.onAnswer(answerSample({ engine, thread: b.thread, beganUs: b.beganUs, endUs: h.us, ok: e.ok, failure: e.failure,
        responseCode: e.code, headersUs: e.headersUs }));
    }
  }

  close() {
    for (const log of this.logs.values()) log.gunzip.destroy();
  }
}

// The answers so far, as they come: results.csv's request samples and the stream logs' answers; refused
// connections and the answers of the last WINDOW_S seconds (by the time each ended).
class SampleWatch {
  constructor(file, runsDir, run, seconds) {
    this.tail = new FileTail(file);
    this.streams = new StreamLogWatch(runsDir, (s) => this.add(s));
    this.run = run;
    this.seconds = seconds;
    this.header = null;
    this.recent = [];   // { end, sample }
    this.refused = 0;
    this.samples = 0;
    this.firstRefusal = null;
  }

  read() {
    for (const line of this.tail.lines()) {
      const text = line.replace(/\r$/, '');
      if (!text) continue;
      if (this.header === null) { this.header = splitRow(text).fields.map((h) => h.trim()); continue; }
      const { fields } = splitRow(text);
      if (fields.length !== this.header.length) continue;
      const s = toSample(Object.fromEntries(this.header.map((h, k) => [h, fields[k]])));
      if (s.label !== 'request' || !Number.isFinite(s.timeStamp)) continue;
      this.add(s);
    }
    this.streams.poll();
    const newest = this.recent.reduce((m, r) => Math.max(m, r.end), 0);
    this.recent = this.recent.filter((r) => r.end > newest - WINDOW_S * 1000);
  }

  add(s) {
    this.samples++;
    if (!s.success && REFUSED.test(s.failureMessage)) {
      this.refused++;
      this.firstRefusal ??= { at: s.timeStamp + s.elapsed, message: s.failureMessage };
    }
    this.recent.push({ end: s.timeStamp + s.elapsed, sample: s });
  }

  close() { this.streams.close(); }

  // Reference 003's criterion over the window, or null when too few answers are in it to judge.
  criterion() {
    if (this.recent.length < MIN_ANSWERS) return null;
    const c = new AnswerCriterion(this.run, this.seconds);
    for (const r of this.recent) c.add(r.sample);
    return c.result();
  }
}

// The first failure seen in one second of watching, or null. Order: out of memory, a dead server,
// refusals, answers late.
function failureNow(w) {
  if (w.oomLine) return { cause: 'out of memory', detail: `the server's log: ${w.oomLine}` };
  if (!w.alive) return { cause: 'crashed', detail: 'the server process is gone (servers/control.sh status)' };
  if (w.refused > 0) return { cause: 'refused connections', detail: `${w.refused} request(s) failed to connect, first: ${w.firstRefusal}` };
  if (w.probeFailures >= PROBE_FAILURES) return { cause: 'timeouts', detail: `GET /status not answered within ${w.seconds} s ${w.probeFailures} times in a row` };
  if (w.criterion && w.criterion.met === false) {
    const c = w.criterion;
    return { cause: 'timeouts', detail: `answers within ${c.withinSeconds} s in the last ${WINDOW_S} s: ${(c.share * 100).toFixed(1)}% `
      + `(of ${c.answers}; errors ${(c.errorShare * 100).toFixed(1)}%): reference 003's criterion not met` };
  }
  return null;
}

// After the run: the cause from what it left (the server's log and run.json), which is the final word
// when the live watch missed it (a crash in the run's last seconds, a remote SUT's log).
function causeFromRun(runDir, live) {
  let log = '';
  try { log = fs.readFileSync(path.join(runDir, 'sut', 'server.log'), 'utf8'); } catch { /* none */ }
  const oom = OUT_OF_MEMORY.exec(log);
  let run = {};
  try { run = JSON.parse(fs.readFileSync(path.join(runDir, 'run.json'), 'utf8')); } catch { /* none */ }
  if (oom) return { cause: 'out of memory', detail: `sut/server.log: ${oom[0].trim()}`, crashed: run.serverCrashed === true };
  if (live) return { ...live, crashed: run.serverCrashed === true };
  if (run.serverCrashed === true) return { cause: 'crashed', detail: 'run.json: the server died during the run', crashed: true };
  return null;
}

const readJson = (file) => { try { return JSON.parse(fs.readFileSync(file, 'utf8')); } catch { return null; } };

// The analyzer's connections series (data/series.json): the most the server counted up to `second`.
function analyzerHeld(runDir, atMs) {
  const s = readJson(path.join(runDir, 'data', 'series.json'));
  const conns = s?.series?.connections;
  if (!Array.isArray(conns)) return null;
  const last = atMs === null || !Number.isFinite(s.startedAt) ? conns.length : Math.ceil((atMs - s.startedAt) / 1000) + 1;
  const held = conns.slice(0, Math.max(0, last)).filter(Number.isFinite);
  return held.length ? Math.max(...held) : null;
}

// The result line.
function describe(r) {
  const rate = r.rateAchievedPerSecond === null ? '?' : r.rateAchievedPerSecond;
  if (!r.failed) return `capacity: ${r.server} held ${r.held.status ?? '?'} connections (asked ${r.max}) without failing, at ${rate}/s (asked ${r.rateAsked}/s)`;
  return `capacity: ${r.server} failed at ${r.held.status ?? '?'} connections held (server /status; analyzer ${r.held.analyzer ?? '?'}) `
    + `${r.secondsToFailure ?? '?'} s into the load, at ${rate}/s (asked ${r.rateAsked}/s): ${r.cause} (${r.detail})`;
}

function node(script, args) {
  return spawnSync(process.execPath, [path.join(ROOT, script), ...args], { cwd: ROOT, encoding: 'utf8' });
}

const sleep = (ms) => new Promise((resolve) => { setTimeout(resolve, ms); });

async function measure(o) {
  const cfg = config();
  const port = cfg.port[o.server];
  const { seconds } = withinSeconds();
  const runDirFile = path.join(fs.mkdtempSync(path.join(os.tmpdir(), 'pb-capacity-')), 'run-dir');
  // The live watch reads each answer as it is recorded (results.csv's rows, the stream logs' B ... E pairs);
  // the run uses the thread-per-connection push sampler, unless PB_REQUEST_SAMPLER says otherwise
  // (docs/capacity.md). It gunzips the growing logs: the engines write them as gzip during the load
  // (PB_JMETER_STREAM_LOG_CODEC, lib/config.sh), whatever the environment says.
  const env = { PB_REQUEST_SAMPLER: 'push', ...process.env, PB_JMETER_STREAM_LOG_CODEC: 'gzip', PB_RUN_DIR_FILE: runDirFile };
  const args = runArgs(o);
  console.log(`capacity: ./run.sh ${args.join(' ')}  (${o.rate} connections/s up to ${o.max}, T = ${seconds} s)`);
  const child = spawn(path.join(ROOT, 'run.sh'), args, { cwd: ROOT, env, stdio: ['ignore', 'inherit', 'inherit'] });
  const exited = new Promise((resolve) => child.on('exit', (code, signal) => resolve(code ?? (signal ? 128 : 1))));
  let exitCode = null;
  exited.then((c) => { exitCode = c; });

  const run = { type: o.type, event: o.emitIntervalMs > 0 ? EVENT : null, emitIntervalMs: o.emitIntervalMs || null, maxDurationMs: o.type === 'poll' ? o.maxDurationMs : null };
  const started = Date.now();
  const w = { alive: true, oomLine: null, probeFailures: 0, refused: 0, firstRefusal: null, criterion: null, seconds };
  const probes = [];   // { at, open }
  let runDir = null;
  let samples = null;
  let logTail = null;
  let failure = null;
  let serverUp = false;
  while (exitCode === null) {
    await Promise.race([sleep(1000), exited]);
    if (exitCode !== null) break;
    if (!runDir && fs.existsSync(runDirFile)) {
      runDir = fs.readFileSync(runDirFile, 'utf8').trim();
      samples = new SampleWatch(path.join(runDir, 'jmeter', 'results.csv'), path.join(cfg.state, 'runs', path.basename(runDir)), run, seconds);
    }
    if (Date.now() - started > o.timeout * 1000) {
      failure ??= { cause: 'none', detail: `the bench's bound of ${o.timeout} s was reached`, at: Date.now(), bound: true };
      break;
    }
    const open = await openRequests(cfg.address, port, seconds * 1000);
    if (open !== null) {
      serverUp = true;
      probes.push({ at: Date.now(), open });
      w.probeFailures = 0;
      logTail ??= new FileTail(path.join(cfg.state, `${o.server}.log`));
    }
    if (!serverUp) continue;   // still starting: nothing to judge yet
    if (open === null) w.probeFailures++;
    if (runDir) w.alive = serverAlive(o.server, cfg.state, runDir);
    for (const line of logTail.lines()) {
      const m = OUT_OF_MEMORY.exec(line);
      if (m && !w.oomLine) w.oomLine = m[0].trim();
    }
    if (samples) {
      samples.read();
      w.refused = samples.refused;
      w.firstRefusal = samples.firstRefusal?.message ?? null;
      w.criterion = samples.criterion();
    }
    const f = failureNow(w);
    if (f) {
      failure = { ...f, at: Date.now() };
      console.log(`capacity: failure seen: ${f.cause} (${f.detail}); stopping the run`);
      break;
    }
  }
  samples?.close();
  if (exitCode === null) {
    // A dead server ends the run by itself within seconds; anything else is stopped here.
    if (failure?.cause !== 'crashed' && failure?.cause !== 'out of memory') child.kill('SIGINT');
    const stuck = setTimeout(() => child.kill('SIGINT'), STOP_GRACE_S * 1000);
    await exited;
    clearTimeout(stuck);
  }
  return { cfg, seconds, probes, runDir, failure, exitCode, started };
}

async function main(argv) {
  let o;
  try {
    o = parseArgs(argv);
  } catch (err) {
    if (!(err instanceof UsageError)) throw err;
    console.error(`capacity: ${err.message}\n${USAGE}`);
    return 2;
  }
  if (o.help) { console.log(USAGE); return 0; }
  const m = await measure(o);
  if (!m.runDir || !fs.existsSync(path.join(m.runDir, 'run.json'))) {
    console.error(`capacity: run.sh exited ${m.exitCode} before a run directory existed; nothing measured`);
    return m.exitCode === 2 ? 2 : 1;
  }
  // An interrupted run.sh leaves its run unanalysed; the analysis reads whatever was collected.
  if (!fs.existsSync(path.join(m.runDir, 'data', 'summary.json'))) node('analysis/analyze.js', [m.runDir]);
  const cause = causeFromRun(m.runDir, m.failure && m.failure.cause !== 'none' ? m.failure : null);
  const failedAt = cause ? (m.failure?.at ?? null) : null;
  const before = m.probes.filter((p) => failedAt === null || p.at <= failedAt);
  const firstOpen = before.find((p) => p.open > 0);
  const last = before[before.length - 1] ?? null;
  const heldStatus = before.length ? Math.max(...before.map((p) => p.open)) : null;
  const span = firstOpen && last && last.at > firstOpen.at ? (last.at - firstOpen.at) / 1000 : null;
  const result = {
    server: o.server, type: o.type, emitIntervalMs: o.emitIntervalMs || null, maxDurationMs: o.type === 'poll' ? o.maxDurationMs : null,
    rateAsked: o.rate, max: o.max, rampupS: o.rampupS, durationS: o.durationS, withinSeconds: m.seconds,
    failed: Boolean(cause), cause: cause?.cause ?? 'none', detail: cause?.detail ?? `held ${o.max} asked for ${o.hold} s`,
    serverCrashed: cause?.crashed ?? false,
    held: { status: heldStatus, analyzer: analyzerHeld(m.runDir, failedAt) },
    rateAchievedPerSecond: span && heldStatus !== null ? Math.round((heldStatus / span) * 10) / 10 : null,
    secondsToFailure: failedAt && firstOpen ? Math.round((failedAt - firstOpen.at) / 100) / 10 : null,
    boundReached: m.failure?.bound === true,
    runExit: m.exitCode,
    runDir: m.runDir,
    probes: m.probes.map((p) => [Math.round((p.at - m.started) / 100) / 10, p.open]),
  };
  result.line = describe(result);
  fs.writeFileSync(path.join(m.runDir, 'capacity.json'), JSON.stringify(result, null, 1) + '\n');
  if (o.out) fs.writeFileSync(o.out, JSON.stringify(result, null, 1) + '\n');
  const report = node('charts/report.js', [m.runDir]);
  console.log(result.line);
  if (report.status === 0) console.log(`report: ${report.stdout.trim().split('\n').pop()}`);
  console.log(`capacity: ${path.join(m.runDir, 'capacity.json')}`);
  return 0;
}

if (require.main === module) {
  main(process.argv.slice(2)).then((code) => { process.exitCode = code; }, (err) => {
    console.error(`capacity: ${err.stack || err}`);
    process.exitCode = 1;
  });
}

module.exports = { parseArgs, runArgs, failureNow, causeFromRun, describe, UsageError, OUT_OF_MEMORY, REFUSED, SampleWatch };
