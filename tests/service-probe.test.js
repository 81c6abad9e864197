'use strict';
// The server's address and what reaches it (issue #36 items 3 and 6, docs/faults.md), with the real
// servers, JMeter and analyzer on this machine:
// - hosts.conf's bind= lets the server listen on another address than the one the engines target (a proxy,
//   a load balancer or NAT in front of it): the run works, run.json (hosts.sut) and the report record both;
// - an engine host that cannot reach the target is refused before any load (host/probe.sh), naming the
//   host and the address, and nothing is left running;
// - a server stopped (SIGSTOP) for the whole load answers nothing: the verdict is `failed`, exit 1, never a
//   figure; one frozen for 10 s of the window emits 40% fewer cycles than the interval asks: its stall is
//   a shortfall, `server-limited` with `emit-stall`, never `valid`.
// Every address is on 127.0.0.0/8 (all of it is this machine's loopback).
const { test, after } = require('node:test');
const assert = require('node:assert/strict');
const fs = require('node:fs');
const http = require('node:http');
const net = require('node:net');
const path = require('node:path');
const { scratch, hostsFile, runSh, runShUndisturbed } = require('./lib/runsh');

const s = scratch('probe');
after(() => s.cleanup());
const PORT = Number(process.env.PB_PORT_NODE || 8080);
const SMALL_RUN = ['node', '2', '8', '40', 'comet', '-', 'event1', '1000'];
const readJson = (file) => JSON.parse(fs.readFileSync(file, 'utf8'));

// Whether something accepts connections on address:port now.
function listening(address, port) {
  return new Promise((resolve) => {
    const socket = net.connect({ host: address, port, timeout: 2000 });
    socket.on('connect', () => { socket.destroy(); resolve(true); });
    socket.on('error', () => resolve(false));
    socket.on('timeout', () => { socket.destroy(); resolve(false); });
  });
}

// The server's PID from run.sh's "node running on <address>:<port> (pid <n>)" line, or null.
function serverPid(line) {
  const m = /node running on [0-9.]+:\d+ \(pid (\d+)\)/.exec(line);
  return m ? Number(m[1]) : null;
}

// Whether the server at address:port has an event set (its GET /status lists one); false when it does not answer.
function eventSet(address, port) {
  return new Promise((resolve) => {
    const req = http.get({ host: address, port, path: '/status', timeout: 500 }, (res) => {
      let body = '';
      res.on('data', (c) => { body += c; });
      res.on('end', () => { try { resolve(JSON.parse(body).events.length > 0); } catch { resolve(false); } });
    });
    req.on('timeout', () => req.destroy());
    req.on('error', () => resolve(false));
  });
}

test('bind=0.0.0.0 with the engines targeting 127.0.0.3: the run measures the server there, run.json and the report say both', async () => {
  const hosts = hostsFile(s.dir, ['sut sut1 127.0.0.3 local bind=0.0.0.0', 'engine gen1 127.0.0.1 local']);
  const r = await runShUndisturbed(SMALL_RUN, { env: { PB_RESULTS: s.results, PB_STATE: s.state, PB_HOSTS: hosts }, timeoutMs: 180000 });
  assert.equal(r.code, 0, `${r.stdout}\n${r.stderr}`);
  assert.match(r.stdout, new RegExp(`node running on 0\\.0\\.0\\.0:${PORT} \\(pid \\d+\\); the engines target 127\\.0\\.0\\.3:${PORT}`));
  const run = readJson(path.join(r.runDir, 'run.json'));
  assert.deepEqual(run.hosts.sut, { name: 'sut1', address: '127.0.0.3', bind: '0.0.0.0', access: 'local' });
  assert.equal(run.provenance.settings.PB_SERVER_ADDRESS, undefined, 'an address is where, not what: no provenance setting');
  const summary = readJson(path.join(r.runDir, 'data', 'summary.json'));
  assert.equal(summary.validity.verdict, 'valid', JSON.stringify(summary.validity));
  assert.match(fs.readFileSync(path.join(r.runDir, 'report', 'index.html'), 'utf8'), /sut1 \(127\.0\.0\.3; its server listens on 0\.0\.0\.0\)/);
});

test('the engines target an address the server does not listen on: refused before any load, naming the host and the address; nothing left running', async () => {
  const hosts = hostsFile(s.dir, ['sut sut1 127.0.0.3 local bind=127.0.0.1', 'engine gen1 127.0.0.1 local']);
  const r = await runSh(SMALL_RUN, { env: { PB_RESULTS: s.results, PB_STATE: s.state, PB_HOSTS: hosts }, timeoutMs: 120000 });
  assert.equal(r.code, 1, `${r.stdout}\n${r.stderr}`);
  assert.match(r.stdout, new RegExp(`refused: engine gen1 \\(127\\.0\\.0\\.1\\) cannot reach the server under test at 127\\.0\\.0\\.3:${PORT}: `
    + `cannot connect to 127\\.0\\.0\\.3:${PORT} \\(refused or unreachable\\); no load was sent`));
  assert.match(r.stdout, /step probe_service failed/);
  const run = readJson(path.join(r.runDir, 'run.json'));
  assert.equal(run.status, 'incomplete');
  assert.ok(run.notes.some((n) => /^step probe_service failed \(exit 1\): engine gen1/.test(n)), run.notes.join('\n'));
  assert.equal(run.steps.run_controller, undefined, 'the controller ran');
  assert.equal(await listening('127.0.0.1', PORT), false, 'the server under test was left running');
});

test('a server stopped (SIGSTOP) through the whole load answers nothing: verdict failed, exit 1, the report says so', async () => {
  const hosts = hostsFile(s.dir, ['sut local 127.0.0.1 local', 'engine local 127.0.0.1 local']);
  let pid = null;
  let stopped = false;
  let watch = null;
  const r = await runSh(['node', '2', '8', '40', 'poll', '3000', 'event1', '1000'], {
    env: { PB_RESULTS: s.results, PB_STATE: s.state, PB_HOSTS: hosts },
    timeoutMs: 240000,
    onLine: (line) => {
      pid ??= serverPid(line);
      // stopped once the plan's set-up has set the event (the server's /status lists it), before the load's
      // polls: none of them is answered
      if (!watch && pid && /controller started/.test(line)) {
        watch = setInterval(async () => {
          if (stopped || !(await eventSet('127.0.0.1', PORT))) return;
          process.kill(pid, 'SIGSTOP');
          stopped = true;
          clearInterval(watch);
        }, 50);
      }
      // woken after the load, so that its stop is a plain one
      if (stopped && /controller finished/.test(line)) process.kill(pid, 'SIGCONT');
    },
  });
  clearInterval(watch);
  if (pid) try { process.kill(pid, 'SIGCONT'); } catch { /* gone */ }
  assert.ok(stopped, `the server was never stopped:\n${r.stdout}`);
  assert.equal(r.code, 1, `${r.stdout}\n${r.stderr}`);
  const summary = readJson(path.join(r.runDir, 'data', 'summary.json'));
  assert.equal(summary.validity.verdict, 'failed', JSON.stringify(summary.validity, null, 1));
  assert.ok(summary.validity.reasons.some((x) => x.rule === 'no-answer'), JSON.stringify(summary.validity.reasons));
  assert.equal(summary.serverCrashed, false);
  assert.match(r.stdout, /^validity: failed/m);
  assert.match(r.stdout, /run failed: it measured nothing of the server/);
  assert.match(fs.readFileSync(path.join(r.runDir, 'report', 'index.html'), 'utf8'), /data-verdict="failed"/);
});

test('a server frozen (SIGSTOP) for 10 s of a 25 s window: the cycles the interval asks fall short, server-limited with emit-stall', async () => {
  const hosts = hostsFile(s.dir, ['sut local 127.0.0.1 local', 'engine local 127.0.0.1 local']);
  let pid = null;
  let frozen = null;
  const r = await runShUndisturbed(['node', '2', '27', '40', 'comet', '-', 'event1', '1000'], () => {
    pid = null;   // each attempt freezes its own server
    frozen = null;
    return {
      env: { PB_RESULTS: s.results, PB_STATE: s.state, PB_HOSTS: hosts },
      timeoutMs: 240000,
      onLine: (line) => {
        pid ??= serverPid(line);
        const w = /^ {2}wait: (\d+)\//.exec(line);
        if (frozen === null && pid && w && Number(w[1]) >= 6) {
          const stopped = pid;
          frozen = setTimeout(() => process.kill(stopped, 'SIGCONT'), 10000);
          process.kill(stopped, 'SIGSTOP');
        }
      },
    };
  });
  if (pid) try { process.kill(pid, 'SIGCONT'); } catch { /* gone */ }
  assert.ok(frozen, `the server was never frozen:\n${r.stdout}`);
  const summary = readJson(path.join(r.runDir, 'data', 'summary.json'));
  const v = summary.validity;
  assert.equal(v.verdict, 'server-limited', JSON.stringify(v, null, 1));
  assert.ok(v.reasons.some((x) => x.rule === 'emit-stall'), JSON.stringify(v.reasons));
  const e = summary.workload.emit;
  assert.ok(e.cyclesNumbered <= e.cyclesExpected - 7, `cycles emitted ${e.cyclesNumbered} of ${e.cyclesExpected} asked`);
  assert.equal(summary.workload.answers.expected, 40 * e.cyclesExpected, 'asked from the interval, not from the cycles that happened');
  assert.equal(r.code, 0, 'a stall is a server result, not a failed run');
});
