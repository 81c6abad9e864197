'use strict';
// Trip-time accuracy (issue #22 item 4; the study's trip time, CHIRON's, for comet records and long-poll
// answers; issue #38 for SSE and WebSocket records): a known delay put between the JMeter engine and the server moves the reported median trip
// time by that delay. Real parts only: run.sh over ssh between network namespaces (tests/lib/netns.sh),
// the Node.js server, JMeter with the push sampler, and a delaying TCP proxy (tests/lib/delay-proxy.js) in
// a namespace of its own, since this kernel has no netem.
//
// The wiring: hosts.conf gives the SUT the address P, which the SUT host holds on its loopback (the server
// listens there) and which the engine reaches only through the proxy's host (a route P via the proxy). The
// proxy's host delivers P locally (P on its loopback) to the proxy, whose own connections to P go on to
// the SUT (a policy rule ahead of the local table, for its locally made packets only). ssh still reaches the
// SUT at its own address (hosts.conf's fourth field). Each run goes through the proxy: without the delay
// it forwards at once, with it every byte waits DELAY_MS in each direction, so a record reaches the engine
// DELAY_MS later, and the request, the answer and the time-stamp exchanges all alike (the clock offset
// estimate, the midpoint of a round trip, does not move with a symmetric delay).
//
// The bound: |shift of p50 - DELAY_MS| <= BOUND_MS, a quarter of the delay. What may move the shift
// besides the delay: the proxy's timers firing late (its event loop: ~1 ms on a quiet machine, more when
// other suites run), the run-to-run spread of the p50 of a few hundred trip times on this shared 2-core
// machine, and the clock offset's estimate (the namespaces share one clock, so its true value is 0: the
// test checks that the reported offset lies within its own error bound: half the best round trip plus half
// of the server's whole-ms stamp).
// A quarter of the delay still tells the trip time apart from its likely faults: the delay lost (shift 0,
// e.g. an offset taken without the round trip's half), half of it (an offset taken from the sample's start
// or end instead of the send) or doubled (the round trip instead of the one way).
// Measured, three passes with 100 ms: comet +103.2, +99.4, +99.7 ms; poll +110.2, +102.4, +97.2 ms (every
// offset within its bound, the largest -7.1 ± 8.8 ms); with SSE and WebSocket (26 Nov 2026, one pass, beside
// another suite): comet +99.4, poll +100.0, SSE +99.2, WebSocket +100.5 ms; with 10 s runs instead of 15 (27
// Nov 2026, one pass): comet +100.5, poll +99.4, SSE +99.5, WebSocket +99.8 ms. Earlier, 40 ms with a 10 ms
// bound at a machine load of ~25 (other suites and benches) gave comet +23.5 and poll +5.1 and +50.0 ms: a
// baseline run's p50 rose to 54 ms (3-19 ms otherwise), so under such load this test can still fail; every
// run's figures are printed.

// Needs root, openssh-server, JMeter (load/install-jmeter.sh) and Node. Takes 4-9 minutes: six run.sh
// runs over ssh of 10 s of load each, 35-75 s each with the engines' start, the archives and the analysis.

const { test, before, after } = require('node:test');
const assert = require('node:assert/strict');
const fs = require('node:fs');
const path = require('node:path');
const { spawn, spawnSync } = require('node:child_process');

const { NetnsHosts, ROOT } = require('./lib/hosts-netns');

const STATE = process.env.PB_STATE || path.join(ROOT, 'build', 'state');
const RESULTS = path.join(process.env.PB_RESULTS || path.join(ROOT, 'build', 'results'), `trip-accuracy-${process.pid}`);
const NODE_PORT = process.env.PB_PORT_NODE || '8080';
const DELAY_MS = 100;       // one way, each direction
const BOUND_MS = 25;        // |p50 shift - DELAY_MS| at most this (see above)
const RUNS = {              // small: 20 connections, an event every 500 ms, 10 s each
  comet: ['node', '2', '10', '20', 'comet', '-', 'event1', '500'],
  poll: ['node', '2', '10', '20', 'poll', '3000', 'event1', '500'],
  sse: ['node', '2', '10', '20', 'sse', '-', 'event1', '500'],
  ws: ['node', '2', '10', '20', 'ws', '-', 'event1', '500'],
};
// The held streams (comet, SSE, WebSocket) are stamped on arrival by the same engine code on the same
// path, so comet's run without the delay is the baseline of all three (two runs fewer); a poll has its own.
const BASELINE = { comet: 'comet', sse: 'comet', ws: 'comet', poll: 'poll' };
const HELD = new Set(['comet', 'sse', 'ws']);

// sut, eng1, and a third namespace that holds the proxy.
const hosts = new NetnsHosts(3, path.join(STATE, `netns-pbt${process.pid}`), `pbt${process.pid % 100000}`);
let proxyAddress;   // P: what hosts.conf calls the SUT
let hostsConf;

function ip(ns, ...args) {
  const r = spawnSync('ip', ['netns', 'exec', ns, ...args], { encoding: 'utf8' });
  if (r.status !== 0) throw new Error(`ip netns exec ${ns} ${args.join(' ')}: ${r.stderr}`);
}

// Starts the proxy in its namespace; resolves to the child once it listens.
function startProxy(delayMs) {
  const proxyHost = hosts.hosts[2];
  const child = spawn('ip', ['netns', 'exec', proxyHost.ns, process.execPath, path.join(ROOT, 'tests', 'lib', 'delay-proxy.js'),
    proxyAddress, NODE_PORT, proxyAddress, NODE_PORT, String(delayMs), proxyHost.address], { stdio: ['ignore', 'pipe', 'pipe'] });
  return new Promise((resolve, reject) => {
    let err = '';
    child.stderr.on('data', (d) => { err += d; });
    child.stdout.on('data', (d) => { if (/^listening /m.test(String(d))) resolve(child); });
    child.on('exit', (code) => reject(new Error(`delay-proxy exited ${code}: ${err}`)));
  });
}

function stopProxy(child) {
  return new Promise((resolve) => {
    if (child.exitCode !== null) { resolve(); return; }
    child.removeAllListeners('exit');
    child.on('exit', resolve);
    child.kill('SIGTERM');
  });
}

const tail = (text, n = 40) => text.split('\n').slice(-n).join('\n');
const sleep = (ms) => new Promise((r) => setTimeout(r, ms));

// One run.sh through the proxy; resolves to its data/summary.json and the peers the server saw.
async function runThrough(delayMs, args) {
  const proxy = await startProxy(delayMs);
  const runDirFile = path.join(RESULTS, `.run-dir-${Date.now()}`);
  fs.mkdirSync(RESULTS, { recursive: true });
  const peers = new Set();
  let sampling = true;
  const watch = (async () => {
    while (sampling) {
      for (const c of hosts.connections(hosts.sut, NODE_PORT)) peers.add(c.peer);
      await sleep(1000);
    }
  })();
  const r = await new Promise((resolve) => {
    const child = spawn(path.join(ROOT, 'run.sh'), args, {
      cwd: ROOT,
      env: { ...process.env, ...hosts.env, PB_HOSTS: hostsConf, PB_RESULTS: RESULTS, PB_RUN_DIR_FILE: runDirFile },
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    let out = '';
    child.stdout.on('data', (d) => { out += d; });
    child.stderr.on('data', (d) => { out += d; });
    child.on('close', (code) => resolve({ code, out }));
  });
  sampling = false;
  await watch;
  await stopProxy(proxy);
  assert.equal(r.code, 0, `run.sh ${args.join(' ')} exited ${r.code}:\n${tail(r.out)}`);
  const runDir = fs.readFileSync(runDirFile, 'utf8').trim();
  const summary = JSON.parse(fs.readFileSync(path.join(runDir, 'data', 'summary.json'), 'utf8'));
  return { summary, peers: [...peers] };
}

before(() => {
  hosts.start();
  const [sut, engine, proxyHost] = hosts.hosts;
  proxyAddress = `${hosts.net}.250`;
  // The SUT holds P on its loopback and answers no ARP for it (the proxy's host does not either).
  ip(sut.ns, 'ip', 'addr', 'add', `${proxyAddress}/32`, 'dev', 'lo');
  for (const h of [sut, proxyHost]) ip(h.ns, 'sysctl', '-qw', 'net.ipv4.conf.all.arp_ignore=1');
  // The proxy's host: P delivered locally; what it sends to P itself goes to the SUT.
  ip(proxyHost.ns, 'ip', 'addr', 'add', `${proxyAddress}/32`, 'dev', 'lo');
  ip(proxyHost.ns, 'ip', 'route', 'add', `${proxyAddress}/32`, 'via', sut.address, 'dev', 'eth0', 'table', '200');
  ip(proxyHost.ns, 'ip', 'rule', 'add', 'pref', '50', 'iif', 'lo', 'to', `${proxyAddress}/32`, 'lookup', '200');
  ip(proxyHost.ns, 'ip', 'rule', 'add', 'pref', '100', 'lookup', 'local');
  ip(proxyHost.ns, 'ip', 'rule', 'del', 'pref', '0');
  // The engine reaches P through the proxy's host.
  ip(engine.ns, 'ip', 'route', 'add', `${proxyAddress}/32`, 'via', proxyHost.address, 'dev', 'eth0');
  // hosts.conf: the SUT at P, reached over ssh at its own address; one engine.
  const lines = fs.readFileSync(hosts.hostsFile, 'utf8').split('\n');
  const sutLine = lines.find((l) => l.startsWith('sut ')).split(/\s+/);
  const engineLine = lines.find((l) => /^engine\s+eng1\s/.test(l));
  sutLine[2] = proxyAddress;
  hostsConf = path.join(hosts.state, 'hosts-via-proxy.conf');
  fs.writeFileSync(hostsConf, `${sutLine.join(' ')}\n${engineLine}\n`);
});

after(() => {
  if (hosts.up) hosts.down();
  fs.rmSync(RESULTS, { recursive: true, force: true });
});

const baselines = new Map();   // baseline kind -> its run without the delay, made once
async function baseline(kind) {
  if (!baselines.has(BASELINE[kind])) baselines.set(BASELINE[kind], await runThrough(0, RUNS[BASELINE[kind]]));
  return baselines.get(BASELINE[kind]);
}

for (const [kind, args] of Object.entries(RUNS)) {
  test(`a ${DELAY_MS} ms delay between engine and server moves the ${kind} trip time's p50 by ${DELAY_MS} ± ${BOUND_MS} ms`, async () => {
    const trip = (summary) => (HELD.has(kind) ? summary.tripTime?.comet : summary.tripTime);
    const without = await baseline(kind);
    const withDelay = await runThrough(DELAY_MS, args);
    const proxyHost = hosts.hosts[2];
    for (const [name, r] of [['without', without], ['with', withDelay]]) {
      // Every connection the server held came from the proxy, none from the engine directly. The SUT's
      // own connections (servers/control.sh asks GET /timestamp at P until the server answers) come from P.
      const remote = r.peers.filter((p) => p !== proxyAddress);
      assert.deepEqual(remote, [proxyHost.address], `${name} the delay: the server's peers were ${r.peers}`);
      const t = trip(r.summary);
      const count = HELD.has(kind) ? t?.records : t?.polls;
      assert.ok(count >= 200, `${name} the delay: only ${count} ${kind} trip times (${JSON.stringify(t)})`);
      assert.ok(Number.isFinite(t.p50Ms), `${name} the delay: no p50 (${JSON.stringify(t)})`);
      // One clock for every namespace: the true offset is 0, and the reported one must lie within its bound.
      const { ms, errorBoundMs } = r.summary.clockOffset;
      assert.ok(Math.abs(ms) <= errorBoundMs, `${name} the delay: clock offset ${ms} ms outside its bound ±${errorBoundMs} ms`);
    }
    const p50 = [trip(without.summary).p50Ms, trip(withDelay.summary).p50Ms];
    const bounds = [without.summary.clockOffset.errorBoundMs, withDelay.summary.clockOffset.errorBoundMs];
    const shift = p50[1] - p50[0];
    console.log(`# ${kind}: p50 ${p50[0]} ms without (${BASELINE[kind]}), ${p50[1]} ms with ${DELAY_MS} ms: shift ${shift.toFixed(2)} ms`
      + ` (clock offset error bounds ${bounds[0]} and ${bounds[1]} ms)`);
    for (const r of [without, withDelay]) {
      const { ms, errorBoundMs } = r.summary.clockOffset;
      const { p50Ms, p90Ms, p99Ms } = trip(r.summary);
      console.log(`#   clock offset ${ms} ± ${errorBoundMs} ms; trip p50 ${p50Ms}, p90 ${p90Ms}, p99 ${p99Ms} ms`);
    }
    assert.ok(Math.abs(shift - DELAY_MS) <= BOUND_MS,
      `${kind}: p50 moved ${shift.toFixed(2)} ms (${p50[0]} -> ${p50[1]}), not ${DELAY_MS} ± ${BOUND_MS} ms`);
  });
}
