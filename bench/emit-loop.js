#!/usr/bin/env node
'use strict';
// Emit-loop benchmark: how long does one emit cycle take per held comet connection, per server, and how
// does that compare with a bare `net` socket write loop over the same number of connections?
//
//   node bench/emit-loop.js [--servers node,tc6,tc7] [--levels 1000,5000,15000] [--cycles 5]
//                           [--frequency 1000] [--per-client 8000]
//
// For each server (started with servers/control.sh unless it is already running from it) and each level N:
// N comet connections are opened from child processes (at most --per-client each, to stay under the
// per-process open-file cap), an event is set every --frequency ms, and each completed cycle's
// lastCycle.durationMicros is read from GET /status. The first cycle is a warm-up; the median of the next
// --cycles is reported as µs per connection. The baseline holds N sockets in a bare net server and times
// a loop writing one record-sized line to each. Everything started here is stopped at the end, on error
// and on Ctrl-C.

const path = require('node:path');
const http = require('node:http');
const { fork, execFileSync } = require('node:child_process');

const root = path.resolve(__dirname, '..');
const control = path.join(root, 'servers', 'control.sh');
const EVENT = 'bench';

function parseArgs(argv) {
  const options = { servers: ['node', 'tc6', 'tc7'], levels: [1000, 5000, 15000], cycles: 5, frequency: 1000, perClient: 8000 };
  const list = (value) => value.split(',').map((s) => s.trim()).filter(Boolean);
  for (let i = 0; i < argv.length; i++) {
    const flag = argv[i];
    const value = argv[i + 1];
    if (flag === '--help' || flag === '-h') usage(0);
    if (value === undefined) usage(2, `${flag} needs a value`);
    i++;
    if (flag === '--servers') options.servers = list(value);
    else if (flag === '--levels') options.levels = list(value).map(Number);
    else if (flag === '--cycles') options.cycles = Number(value);
    else if (flag === '--frequency') options.frequency = Number(value);
    else if (flag === '--per-client') options.perClient = Number(value);
    else usage(2, `unknown option ${flag}`);
  }
  const positive = (n) => Number.isInteger(n) && n > 0;
  if (!options.levels.length || !options.levels.every(positive)) usage(2, '--levels: positive integers');
  if (!positive(options.cycles) || options.cycles > 100) usage(2, '--cycles: 1..100');
  if (!positive(options.frequency) || options.frequency < 10) usage(2, '--frequency: ms, at least 10');
  if (!positive(options.perClient) || options.perClient > 19000) usage(2, '--per-client: 1..19000');
  for (const name of options.servers) if (!/^[a-z0-9_-]+$/.test(name)) usage(2, `bad server name ${name}`);
  return options;
}

function usage(code, problem) {
  if (problem) process.stderr.write(`emit-loop: ${problem}\n`);
  process.stderr.write('usage: node bench/emit-loop.js [--servers node,tc6,tc7] [--levels 1000,5000,15000] ' +
    '[--cycles 5] [--frequency 1000] [--per-client 8000]\n');
  process.exit(code);
}

const sleep = (ms) => new Promise((resolve) => setTimeout(resolve, ms));

function portOf(name) {
  const variable = `PB_PORT_${name.toUpperCase()}`;
  if (process.env[variable]) return Number(process.env[variable]);
  return Number(execFileSync('bash', ['-c', `source "$1" && echo "\${!2}"`, 'port', path.join(root, 'lib', 'config.sh'), variable],
    { encoding: 'utf8' }).trim());
}

function runControl(action, name) {
  try {
    return { ok: true, out: execFileSync(control, [action, name], { encoding: 'utf8', stdio: ['ignore', 'pipe', 'pipe'], timeout: 180000 }) };
  } catch (err) {
    return { ok: false, out: `${err.stdout || ''}${err.stderr || ''}` };
  }
}

function httpJson(port, method, urlPath, body) {
  const payload = body === undefined ? null : Buffer.from(JSON.stringify(body));
  return new Promise((resolve, reject) => {
    const req = http.request({ host: '127.0.0.1', port, method, path: urlPath, agent: false, timeout: 30000,
      headers: payload ? { 'Content-Type': 'application/json', 'Content-Length': payload.length } : {} }, (res) => {
      const chunks = [];
      res.on('data', (c) => chunks.push(c));
      res.on('end', () => {
        try { resolve(JSON.parse(Buffer.concat(chunks).toString('utf8'))); } catch (err) { reject(err); }
      });
    });
    req.on('timeout', () => req.destroy(new Error(`${method} ${urlPath}: no answer`)));
    req.on('error', reject);
    req.end(payload || undefined);
  });
}

// Child processes, so cleanup can end exactly what this run started.
const children = new Set();
function spawnChild(script) {
  const child = fork(path.join(__dirname, script), [], { stdio: ['ignore', 'inherit', 'inherit', 'ipc'] });
  children.add(child);
  child.on('exit', () => children.delete(child));
  return child;
}

function ask(child, message, replyType, timeoutMs) {
  return new Promise((resolve, reject) => {
    const timer = setTimeout(() => { cleanup(); reject(new Error(`no ${replyType} from child in ${timeoutMs} ms`)); }, timeoutMs);
    const onMessage = (reply) => {
      if (reply.type === replyType) { cleanup(); resolve(reply); } else if (reply.type === 'failed') { cleanup(); reject(new Error(reply.message)); }
    };
    const onExit = () => { cleanup(); reject(new Error('child exited')); };
    function cleanup() { clearTimeout(timer); child.off('message', onMessage); child.off('exit', onExit); }
    child.on('message', onMessage);
    child.on('exit', onExit);
    child.send(message);
  });
}

async function closeChildren(list) {
  await Promise.all(list.map((child) => new Promise((resolve) => {
    if (child.exitCode !== null || child.signalCode !== null) { resolve(); return; }
    const timer = setTimeout(() => { child.kill('SIGKILL'); }, 5000);
    child.once('exit', () => { clearTimeout(timer); resolve(); });
    try { child.send({ type: 'close' }); } catch { child.kill('SIGKILL'); }
  })));
}

// Opens n connections spread over child processes, each from its own loopback source address (so the
// ephemeral ports of one address are never the limit). Returns the clients.
async function openClients(port, n, mode, perClient) {
  const clients = [];
  const shares = [];
  for (let left = n; left > 0; left -= perClient) shares.push(Math.min(perClient, left));
  const ready = shares.map((count, i) => {
    const child = spawnChild('comet-clients.js');
    clients.push(child);
    return ask(child, { type: 'start', host: '127.0.0.1', port, count, mode, event: EVENT,
      localAddress: `127.0.${20 + i}.1`, concurrency: 200 }, 'ready', 60000 + count * 20);
  });
  const results = await Promise.all(ready);
  const connected = results.reduce((sum, r) => sum + r.connected, 0);
  if (connected < n) throw new Error(`only ${connected} of ${n} connections opened`);
  return clients;
}

async function linesReceived(clients) {
  const stats = await Promise.all(clients.map((child) => ask(child, { type: 'stats' }, 'stats', 10000)));
  return stats.reduce((sum, s) => sum + s.lines, 0);
}

function median(values) {
  const sorted = values.slice().sort((a, b) => a - b);
  const middle = Math.floor(sorted.length / 2);
  return sorted.length % 2 ? sorted[middle] : (sorted[middle - 1] + sorted[middle]) / 2;
}

async function until(condition, timeoutMs, what) {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    if (await condition()) return;
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await sleep(100);
  }
}

// One server at one level: median µs per connection over the measured cycles.
async function measureServer(port, n, options) {
  await httpJson(port, 'POST', '/event/clear', {});
  const clients = await openClients(port, n, 'comet', options.perClient);
  try {
    await until(async () => (await httpJson(port, 'GET', '/status')).requests.comet >= n, 60000, `${n} comet requests on the server`);
    await httpJson(port, 'POST', '/event/set', { name: EVENT, frequency: options.frequency });
    const samples = [];
    let last = null;
    // Each distinct lastCycle is one completed cycle; the first is a warm-up.
    const budget = (options.cycles + 2) * options.frequency * 3 + 60000;
    await until(async () => {
      const event = (await httpJson(port, 'GET', '/status')).events.find((e) => e.name === EVENT);
      const cycle = event && event.lastCycle;
      if (cycle && cycle.total >= n && (!last || cycle.durationMicros !== last.durationMicros)) {
        samples.push(cycle);
        last = cycle;
      }
      return samples.length >= options.cycles + 1;
    }, budget, `${options.cycles + 1} emit cycles`);
    const measured = samples.slice(1);
    const lines = await linesReceived(clients);
    await httpJson(port, 'POST', '/event/clear', {});
    return { perConnection: median(measured.map((c) => c.durationMicros / c.total)), cycles: measured.length,
      linesPerConnection: lines / n };
  } finally {
    await closeChildren(clients);
  }
}

// A record like the servers write, so the baseline writes the same number of bytes per connection.
function sampleLine(n) {
  const now = Date.now();
  return `${JSON.stringify({
    response: { event: { name: EVENT, cycle: 17, timings: { duration: 3, sent: now, created: now - 3 }, connections: { total: n, place: n } } },
    request: { type: 'comet', events: [EVENT] },
    timings: { duration: 4211, sent: now, created: now - 4211 },
    connections: { start: n, finish: n },
  })}\n`;
}

async function measureBare(n, options) {
  const server = spawnChild('bare-net-server.js');
  try {
    const { port } = await ask(server, { type: 'listen' }, 'listening', 10000);
    const clients = await openClients(port, n, 'raw', options.perClient);
    try {
      await until(async () => (await ask(server, { type: 'count' }, 'count', 10000)).open >= n, 60000, `${n} sockets on the bare server`);
      const line = sampleLine(n);
      const samples = [];
      for (let i = 0; i < options.cycles + 1; i++) {
        await sleep(options.frequency);
        samples.push(await ask(server, { type: 'emit', line }, 'emitted', 60000));
      }
      const measured = samples.slice(1);
      await sleep(200);
      const lines = await linesReceived(clients);
      return { perConnection: median(measured.map((c) => c.durationMicros / c.total)), cycles: measured.length,
        linesPerConnection: lines / n };
    } finally {
      await closeChildren(clients);
    }
  } finally {
    await closeChildren([server]);
  }
}

function printTable(options, results) {
  const columns = [...options.servers, 'bare-net'];
  const cell = (r) => (r && r.perConnection !== undefined ? r.perConnection.toFixed(2) : r && r.problem ? 'failed' : '-');
  const header = ['N', ...columns.map((c) => `${c} µs/conn`), ...options.servers.map((s) => `${s}/bare`)];
  const rows = options.levels.map((n) => {
    const bare = results[`bare-net:${n}`];
    return [String(n), ...columns.map((c) => cell(results[`${c}:${n}`])),
      ...options.servers.map((s) => {
        const r = results[`${s}:${n}`];
        return r && r.perConnection !== undefined && bare && bare.perConnection ? `${(r.perConnection / bare.perConnection).toFixed(1)}x` : '-';
      })];
  });
  const widths = header.map((h, i) => Math.max(h.length, ...rows.map((r) => r[i].length)));
  const format = (r) => r.map((v, i) => v.padStart(widths[i])).join('  ');
  console.log(`\nemit loop: µs per connection (median of ${options.cycles} cycles after a warm-up; event every ${options.frequency} ms)`);
  console.log(format(header));
  for (const r of rows) console.log(format(r));
  for (const [key, r] of Object.entries(results)) {
    if (r.problem) console.log(`${key}: ${r.problem}`);
    else console.log(`${key}: ${r.perConnection.toFixed(2)} µs/conn over ${r.cycles} cycles; ${r.linesPerConnection.toFixed(1)} records received per connection`);
  }
}

async function main() {
  const options = parseArgs(process.argv.slice(2));
  const results = {};
  const startedServers = [];
  let interrupted = false;

  const stopStarted = () => {
    for (const name of startedServers.splice(0)) {
      const stopped = runControl('stop', name);
      process.stdout.write(stopped.out);
    }
  };
  const onSignal = async () => {
    if (interrupted) return;
    interrupted = true;
    console.error('\ninterrupted: stopping what this run started');
    for (const child of children) child.kill('SIGKILL');
    stopStarted();
    process.exit(130);
  };
  process.on('SIGINT', onSignal);
  process.on('SIGTERM', onSignal);

  try {
    for (const name of options.servers) {
      const port = portOf(name);
      const wasRunning = runControl('status', name).ok;
      if (!wasRunning) {
        console.log(`starting ${name} on port ${port}`);
        const started = runControl('start', name);
        process.stdout.write(started.out);
        if (!started.ok) {
          for (const n of options.levels) results[`${name}:${n}`] = { problem: `could not start ${name}` };
          continue;
        }
        startedServers.push(name);
      }
      for (const n of options.levels) {
        console.log(`${name}: ${n} connections`);
        try {
          results[`${name}:${n}`] = await measureServer(port, n, options);
        } catch (err) {
          results[`${name}:${n}`] = { problem: err.message };
        }
      }
      if (!wasRunning) {
        process.stdout.write(runControl('stop', name).out);
        startedServers.splice(startedServers.indexOf(name), 1);
      }
    }
    for (const n of options.levels) {
      console.log(`bare-net: ${n} connections`);
      try {
        results[`bare-net:${n}`] = await measureBare(n, options);
      } catch (err) {
        results[`bare-net:${n}`] = { problem: err.message };
      }
    }
  } finally {
    await closeChildren(Array.from(children));
    stopStarted();
  }
  printTable(options, results);
  process.exitCode = Object.values(results).some((r) => r.problem) ? 1 : 0;
}

main().catch((err) => {
  console.error(`emit-loop: ${err.stack || err}`);
  process.exitCode = 1;
});
