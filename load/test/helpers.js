'use strict';
// Shared by the load/ tests: the real Node server (servers/control.sh), the real JMeter (load/*.sh),
// and readers for what a run leaves behind.
const { spawn, spawnSync } = require('node:child_process');
const fs = require('node:fs');
const path = require('node:path');
const zlib = require('node:zlib');
const { parse } = require('csv-parse/sync');
const { lineHead, beginOf, endOf } = require('../../analysis/read/stream-log');

const ROOT = path.resolve(__dirname, '..', '..');
const BUILD = process.env.PB_BUILD || path.join(ROOT, 'build');
const JMETER_HOME = process.env.JMETER_HOME || path.join(BUILD, 'jmeter');
const NODE_PORT = Number(process.env.PB_PORT_NODE || 8080);
const RESULTS = process.env.PB_RESULTS || path.join(BUILD, 'test-results');
const RMI_PORT = Number(process.env.PB_JMETER_RMI_PORT || 1099);
const RMI_LOCALPORT = Number(process.env.PB_JMETER_RMI_LOCALPORT || 4000);

// Columns docs/run-layout.md promises in results.csv.
const REQUIRED_COLUMNS = ['timeStamp', 'elapsed', 'label', 'responseCode', 'success', 'failureMessage',
  'threadName', 'grpThreads', 'allThreads', 'bytes', 'responseFile'];

function requireJMeter() {
  const jar = path.join(JMETER_HOME, 'bin', 'ApacheJMeter.jar');
  if (!fs.existsSync(jar)) {
    throw new Error(`JMeter is not installed (${jar} missing): run load/install-jmeter.sh or ./setup.sh`);
  }
}

function sh(args, opts = {}) {
  return spawnSync(args[0], args.slice(1), { cwd: ROOT, encoding: 'utf8', ...opts });
}

// Starts the Node server under test unless it already runs; returns a function that stops it again
// only if this call started it.
function ensureNodeServer() {
  const control = path.join(ROOT, 'servers', 'control.sh');
  if (!fs.existsSync(control)) throw new Error('servers/control.sh is missing');
  if (sh([control, 'status', 'node']).status === 0) return () => {};
  const started = sh([control, 'start', 'node']);
  if (started.status !== 0) {
    throw new Error(`servers/control.sh start node failed:\n${started.stdout}${started.stderr}`);
  }
  return () => { sh([control, 'stop', 'node']); };
}

function newRunDir(name) {
  const stamp = new Date().toISOString().replace(/[-:]/g, '').replace(/\..*/, '');
  const dir = path.join(RESULTS, `load-${stamp}-${name}-${process.pid}`);
  fs.rmSync(dir, { recursive: true, force: true });
  fs.mkdirSync(dir, { recursive: true });
  return dir;
}

function writeProps(dir, props) {
  const file = path.join(dir, 'test.properties');
  fs.writeFileSync(file, Object.entries(props).map(([k, v]) => `${k}=${v}`).join('\n') + '\n');
  return file;
}

// Runs load/controller.sh to its end (bounded by limitMs); resolves {code, ms, output}.
function runController(args, limitMs) {
  return new Promise((resolve, reject) => {
    const started = Date.now();
    const child = spawn(path.join(ROOT, 'load', 'controller.sh'), args, { cwd: ROOT, detached: true });
    let output = '';
    child.stdout.on('data', (d) => { output += d; });
    child.stderr.on('data', (d) => { output += d; });
    const timer = setTimeout(() => {
      // Its own process group (detached): stop exactly the JVM this test started.
      try { process.kill(-child.pid, 'SIGKILL'); } catch { /* already gone */ }
      reject(new Error(`controller did not end by itself within ${limitMs} ms:\n${output}`));
    }, limitMs);
    child.on('error', (e) => { clearTimeout(timer); reject(e); });
    child.on('close', (code) => {
      clearTimeout(timer);
      resolve({ code, ms: Date.now() - started, output });
    });
  });
}

function readResults(runDir) {
  const file = path.join(runDir, 'jmeter', 'results.csv');
  const text = fs.readFileSync(file, 'utf8');
  const header = parse(text, { to_line: 1 })[0];
  const rows = parse(text, { columns: true, skip_empty_lines: true });
  return { header, rows };
}

function byLabel(rows) {
  const out = {};
  for (const r of rows) (out[r.label] ||= []).push(r);
  return out;
}

// The push sampler's samples in one engine's responses directory, read from its stream logs
// (push-<n>.tsv.gz, docs/run-layout.md): sample id -> {thread, label, beganMicros (its B line), records: [{micros, record}], end, connectedMicros
// (the mux engine's C line, on a connection's first connected sample)}.
function streamSamples(dir) {
  const samples = new Map();
  const logs = fs.readdirSync(dir).filter((f) => /^push-\d+\.tsv\.gz$/.test(f))
    .sort((a, b) => Number(a.match(/\d+/)[0]) - Number(b.match(/\d+/)[0]));
  for (const f of logs) {
    for (const line of zlib.gunzipSync(fs.readFileSync(path.join(dir, f))).toString('utf8').split('\n')) {
      const h = lineHead(line);   // the stream log's one reader (analysis/read/stream-log.js)
      if (h === null) continue;
      if (h.tag === 'B') {
        const b = beginOf(line);
        samples.set(h.id, { thread: b.thread, label: b.label, beganMicros: h.us, records: [], end: null });
      } else if (h.tag === 'R') samples.get(h.id).records.push({ micros: h.us, record: line.slice(h.restAt) });
      else if (h.tag === 'C') samples.get(h.id).connectedMicros = h.us;   // the mux engine: its connection's first connect
      else {
        // an E line with the verdict (the mux engine's, the push sampler's) adds failure (11th field) and headers µs (12th)
        const e = endOf(line);
        samples.get(h.id).end = { micros: h.us, code: e.code, ok: e.ok, records: e.records,
          ...(e.failure !== undefined ? { failure: e.failure, headersMicros: e.headersUs ?? 0 } : {}) };
      }
    }
  }
  return samples;
}

// The push sampler's responseFile, <dir>/<label>_<id>.push: the sample's place in the stream logs.
const PUSH_FILE = /^(.+)_(\d+)\.push$/;

// The sample a responseFile names, or null: a file of its own, or a push sample in the stream logs.
function savedSample(file) {
  const push = PUSH_FILE.exec(path.basename(file));
  if (!push) return fs.existsSync(file) ? { file } : null;
  const sample = streamSamples(path.dirname(file)).get(push[2]);
  return sample && sample.label === push[1] ? sample : null;
}

// The JSON records of one saved response: one for a poll/control answer, one per line for comet.
function records(file) {
  const push = PUSH_FILE.exec(path.basename(file));
  const lines = push ? savedSample(file)?.records.map((r) => r.record)
    : fs.readFileSync(file, 'utf8').split('\n');
  if (!lines) throw new Error(`${file}: no such sample in the stream logs of ${path.dirname(file)}`);
  return lines.filter((l) => l.trim() !== '').map((l) => JSON.parse(l));
}

function engine(args) {
  return sh([path.join(ROOT, 'load', 'engine.sh'), ...args]);
}

module.exports = {
  ROOT, JMETER_HOME, NODE_PORT, RMI_PORT, RMI_LOCALPORT, REQUIRED_COLUMNS,
  requireJMeter, ensureNodeServer, newRunDir, writeProps, runController, readResults, byLabel, records,
  streamSamples, savedSample,
  engine, sh,
};
