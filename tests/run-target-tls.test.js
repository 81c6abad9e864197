'use strict';
// Target runs over TLS (issue #49 item 1, docs/targets.md "TLS") end to end: nginx terminating TLS in front
// of nchan (targets/nchan/nchan.sh --tls) and in front of pushbench's Node.js server (targets/tls/front.sh),
// with a CA and a server certificate this test makes (targets/tls/make-certs.sh, openssl), on ports of its
// own. One short run.sh --target of nchan's SSE over https:// (subscribe and publish) trusting the test CA
// (tls.ca), each connection carrying a token of its own in its subscribe and publish headers (issue #49 item
// 2): valid, every message published while a subscriber was subscribed received by it once, the report
// saying TLS, and no token in the console's output nor in any file of the run directory (compressed ones
// read through). Then the Node.js server behind the TLS front, from targets/pushbench-node-sse.json over
// https:// at 200 connections: valid, nothing missed, every connection's handshake counted; a WebSocket
// over wss:// through the same front gets a published record; the front's nginx gone once stopped. Then
// the two failures a user meets first, each named in the analysis by kind: a name the certificate does not
// carry (tls.serverName) and a certificate no trusted CA signed (no tls.ca: the JDK's trust store). Last,
// the built-in runs over TLS (run.sh --tls; docs/engine.md "TLS for the built-in servers"): Node.js comet
// and ws behind the front run.sh starts itself on PB_PORT_TLS with a CA it makes: valid, none missed, every
// connection's handshake counted, run.json's tls, the report saying so, the front's nginx gone after the
// run and its keys with it, also after a run interrupted (SIGINT) in its wait. About 4.5 minutes on 2 busy
// cores.
const { test, before, after } = require('node:test');
const assert = require('node:assert/strict');
const crypto = require('node:crypto');
const fs = require('node:fs');
const path = require('node:path');
const https = require('node:https');
const zlib = require('node:zlib');
const { execFileSync } = require('node:child_process');
const WebSocket = require('ws');
const { scratch, hostsFile, LOCAL_HOSTS, runSh, runShUndisturbed } = require('./lib/runsh');

const ROOT = path.resolve(__dirname, '..');
const NCHAN = path.join(ROOT, 'targets', 'nchan', 'nchan.sh');
const FRONT = path.join(ROOT, 'targets', 'tls', 'front.sh');
const CONTROL = path.join(ROOT, 'servers', 'control.sh');
// The test's own ports, moved with the suite's slot as test.sh moves the servers' (PB_PORT_NODE = 18080 +
// shift): nchan's, and the TLS front's before the Node.js server (which listens on test.sh's PB_PORT_NODE).
const PORT = 18190 + (Number(process.env.PB_PORT_NODE ?? 18080) - 18080) + 5;
const FRONT_PORT = PORT + 1;
const NODE_PORT = Number(process.env.PB_PORT_NODE ?? 18080);
const CONNECTIONS = 30;
const NODE_CONNECTIONS = 200;

const s = scratch('target-tls');
const certs = path.join(s.dir, 'certs');
const nchanDir = path.join(s.dir, 'nchan');
const env = () => ({ PB_RESULTS: s.results, PB_HOSTS: hostsFile(s.dir, LOCAL_HOSTS) });
const readJson = (dir, file) => JSON.parse(fs.readFileSync(path.join(dir, file), 'utf8'));

// The shipped nchan-sse target over https:// on this test's port, with this tls object: its path (the CA
// named relative to it, as a user's file would).
// change(target) may change any other key.
function targetFile(tls, { name = 'nchan-sse', from = 'http://127.0.0.1:18480/', to = `https://127.0.0.1:${PORT}/`, change = (t) => t } = {}) {
  const t = JSON.parse(fs.readFileSync(path.join(ROOT, 'targets', `${name}.json`), 'utf8'));
  const secure = (u) => u.replace(from, to);
  const out = change({ ...t, subscribe: { ...t.subscribe, url: secure(t.subscribe.url) }, publish: { ...t.publish, url: secure(t.publish.url) } });
  if (tls) out.tls = tls;
  const file = path.join(s.dir, `${name}-tls-${Math.random().toString(36).slice(2, 8)}.json`);
  fs.writeFileSync(file, `${JSON.stringify(out, null, 2)}\n`);
  return file;
}

// Every file under dir as text, a compressed one read through: gzip (and zlib) inflated, a tar's members
// each read the same way. [{ file, text }], file naming a tar's member as <tar>!<member>.
function filesAsText(dir) {
  const out = [];
  const read = (name, buf) => {
    if (buf.length >= 2 && buf[0] === 0x1f && buf[1] === 0x8b) return read(`${name}(gunzipped)`, zlib.gunzipSync(buf));
    if (buf.length >= 2 && buf[0] === 0x78 && [0x01, 0x5e, 0x9c, 0xda].includes(buf[1])) {
      try { return read(`${name}(inflated)`, zlib.inflateSync(buf)); } catch { /* not zlib after all: read as it is */ }
    }
    if (buf.length >= 512 && buf.toString('latin1', 257, 262) === 'ustar') {
      for (let at = 0; at + 512 <= buf.length && buf[at] !== 0;) {
        const member = buf.toString('latin1', at, at + 100).replace(/\0.*$/s, '');
        const size = parseInt(buf.toString('latin1', at + 124, at + 136).replace(/\0.*$/s, '').trim() || '0', 8);
        if (buf[at + 156] === 0x30 || buf[at + 156] === 0) read(`${name}!${member}`, buf.subarray(at + 512, at + 512 + size));
        at += 512 + Math.ceil(size / 512) * 512;
      }
      return;
    }
    out.push({ file: name, text: buf.toString('latin1') });
  };
  for (const e of fs.readdirSync(dir, { recursive: true, withFileTypes: true })) {
    if (e.isFile()) { const f = path.join(e.parentPath ?? e.path, e.name); read(path.relative(dir, f), fs.readFileSync(f)); }
  }
  return out;
}

const nchan = (...args) => execFileSync(NCHAN, [...args, '--dir', nchanDir], { encoding: 'utf8' });
before(() => {
  execFileSync(path.join(ROOT, 'targets', 'tls', 'make-certs.sh'), [certs]);
  nchan('start', '--port', String(PORT), '--tls', path.join(certs, 'server.pem'), path.join(certs, 'server.key'));
});
after(() => { nchan('stop'); s.cleanup(); });

test('sse over https against nginx+nchan, the test CA trusted, a token per connection: valid, every message received once, no token in the run\'s files', { timeout: 300000 }, async () => {
  // one distinct random value a connection, in the subscribe and publish headers ({{token}}, docs/targets.md "Tokens")
  const tokens = Array.from({ length: CONNECTIONS }, () => `pbtok${crypto.randomBytes(12).toString('hex')}`);
  fs.writeFileSync(path.join(s.dir, 'tokens.txt'), `${tokens.join('\n')}\n`);
  const file = targetFile({ ca: 'certs/ca.pem' }, {
    change: (t) => ({
      ...t,
      subscribe: { ...t.subscribe, headers: { ...t.subscribe.headers, Authorization: 'Bearer {{token}}' } },
      publish: { ...t.publish, headers: { ...t.publish.headers, Cookie: 'sid={{token}}' } },
      tokens: 'tokens.txt',
    }),
  });
  const r = await runShUndisturbed(['--target', file, '2', '8', String(CONNECTIONS)], { env: env(), timeoutMs: 240000 });
  assert.equal(r.code, 0, `run.sh exited ${r.code}\n${r.stdout}\n${r.stderr}`);
  const files = filesAsText(r.runDir);
  assert.ok(files.some((f) => /^responses\/.*\.tar\.gz\(gunzipped\)!.*\.gz\(gunzipped\)$/.test(f.file)), `the stream logs read through: ${files.map((f) => f.file).join(' ')}`);
  assert.ok(files.some((f) => f.file === 'target.json' && f.text.includes('Bearer {{token}}')), 'the target file is kept, its placeholder unfilled');
  for (const token of tokens) {
    assert.ok(!`${r.stdout}${r.stderr}`.includes(token), 'a token in the console\'s output');
    const holding = files.filter((f) => f.text.includes(token)).map((f) => f.file);
    assert.deepEqual(holding, [], `a token in the run directory's files: ${holding.join(', ')}`);
  }
  const summary = readJson(r.runDir, 'data/summary.json');
  const t = summary.target;
  assert.equal(summary.validity.verdict, 'valid', JSON.stringify(summary.validity));
  const { handshakes, ...how } = t.tls;
  assert.deepEqual(how, { subscribe: true, publish: true, insecure: false, serverName: null, ca: 'certs/ca.pem' });
  assert.ok(handshakes.count >= CONNECTIONS && handshakes.meanUs > 0 && handshakes.maxUs >= handshakes.meanUs, JSON.stringify(handshakes));
  assert.equal(t.subscriptions.subscribersAcknowledged, CONNECTIONS, JSON.stringify(t.subscriptions));
  assert.deepEqual(t.subscriptions.failures, [], JSON.stringify(t.subscriptions));
  assert.ok(t.messages.expected >= CONNECTIONS * 3, JSON.stringify(t.messages));
  assert.equal(t.messages.missed, 0, JSON.stringify(t.messages));
  assert.equal(t.messages.duplicated, 0, JSON.stringify(t.messages));
  assert.equal(t.publish.failed, 0, JSON.stringify(t.publish));
  const html = fs.readFileSync(path.join(r.runDir, 'report', 'index.html'), 'utf8');
  assert.match(html, /subscribe and publish; certificates checked against certs\/ca\.pem/, 'the report says how TLS was spoken');
});

// A WebSocket over TLS through the front at 127.0.0.1:<port> (trusting ca, PEM text): the upgrade, the
// subscription to name, then POST /event/publish over https repeated every 200 ms until its record arrives
// (the subscription is taken when the server reads it, not at the 101). Resolves the record's data; rejects
// after 10 s.
function wssRecord(port, ca, name) {
  const post = (seq) => new Promise((resolve) => {
    const req = https.request({ host: '127.0.0.1', port, path: '/event/publish', method: 'POST', ca, agent: false,
      headers: { 'Content-Type': 'application/json' } }, (res) => { res.resume(); res.on('end', resolve); });
    req.on('error', resolve);
    req.end(JSON.stringify({ name, data: { seq } }));
  });
  return new Promise((resolve, reject) => {
    const ws = new WebSocket(`wss://127.0.0.1:${port}/request`, { ca, perMessageDeflate: false });
    let timer = null;
    const give = setTimeout(() => { clearInterval(timer); ws.terminate(); reject(new Error('no record over wss within 10 s')); }, 10000);
    ws.on('error', (e) => { clearInterval(timer); clearTimeout(give); reject(e); });
    ws.on('open', () => {
      ws.send(JSON.stringify({ type: 'ws', events: [name] }));
      let seq = 0;
      timer = setInterval(() => post(++seq), 200);
    });
    ws.on('message', (data) => {
      clearInterval(timer);
      clearTimeout(give);
      ws.terminate();
      resolve(JSON.parse(data.toString('utf8')).response.event);
    });
  });
}

test('sse over https against pushbench\'s Node.js server behind nginx terminating TLS: valid, nothing missed, every handshake counted; wss through it; nginx gone once stopped', { timeout: 300000 }, async () => {
  const frontDir = path.join(s.dir, 'front');
  const nodeEnv = { ...process.env, PB_STATE: s.state, PB_PORT_NODE: String(NODE_PORT) };
  const file = targetFile({ ca: 'certs/ca.pem' }, { name: 'pushbench-node-sse', from: 'http://127.0.0.1:8080/', to: `https://127.0.0.1:${FRONT_PORT}/` });
  execFileSync(CONTROL, ['start', 'node'], { env: nodeEnv, encoding: 'utf8' });
  let frontPid = null;
  let r;
  try {
    execFileSync(FRONT, ['start', '--port', String(FRONT_PORT), '--upstream', `127.0.0.1:${NODE_PORT}`,
      '--tls', path.join(certs, 'server.pem'), path.join(certs, 'server.key'), '--dir', frontDir], { encoding: 'utf8' });
    frontPid = Number(fs.readFileSync(path.join(frontDir, 'nginx.pid'), 'utf8'));
    r = await runShUndisturbed(['--target', file, '2', '10', String(NODE_CONNECTIONS)], { env: { ...env(), PB_STATE: s.state }, timeoutMs: 240000 });
    // a WebSocket through the front too (its upgrade headers passed on): wss, subscribed, a published record received
    const event = await wssRecord(FRONT_PORT, fs.readFileSync(path.join(certs, 'ca.pem')), 'tls-ws');
    assert.equal(event.name, 'tls-ws');
    assert.ok(event.data.seq >= 1, JSON.stringify(event));
  } finally {
    execFileSync(FRONT, ['stop', '--dir', frontDir], { encoding: 'utf8' });
    execFileSync(CONTROL, ['stop', 'node'], { env: nodeEnv, encoding: 'utf8' });
  }
  assert.ok(frontPid > 0);
  assert.throws(() => process.kill(frontPid, 0), { code: 'ESRCH' }, 'the front\'s nginx is gone once stopped');
  assert.equal(r.code, 0, `run.sh exited ${r.code}\n${r.stdout}\n${r.stderr}`);
  const summary = readJson(r.runDir, 'data/summary.json');
  const t = summary.target;
  assert.equal(summary.validity.verdict, 'valid', JSON.stringify(summary.validity));
  const { handshakes, ...how } = t.tls;
  assert.deepEqual(how, { subscribe: true, publish: true, insecure: false, serverName: null, ca: 'certs/ca.pem' });
  assert.equal(t.subscriptions.subscribersAcknowledged, NODE_CONNECTIONS, JSON.stringify(t.subscriptions));
  assert.deepEqual(t.subscriptions.failures, [], JSON.stringify(t.subscriptions));
  assert.ok(t.messages.expected >= NODE_CONNECTIONS * 5, JSON.stringify(t.messages));
  assert.equal(t.messages.missed, 0, JSON.stringify(t.messages));
  assert.equal(t.messages.duplicated, 0, JSON.stringify(t.messages));
  assert.equal(t.publish.failed, 0, JSON.stringify(t.publish));
  // the subscribers' handshakes (summary.json target.tls.handshakes, from the engine's summary samples): one
  // per subscription at least, each timed, and in the report
  assert.ok(handshakes.count >= NODE_CONNECTIONS && handshakes.meanUs > 0 && handshakes.maxUs >= handshakes.meanUs, JSON.stringify(handshakes));
  const html = fs.readFileSync(path.join(r.runDir, 'report', 'index.html'), 'utf8');
  assert.match(html, new RegExp(`; ${handshakes.count.toLocaleString('en-GB')} subscriber handshakes \\(`), 'the report counts the handshakes');
});

for (const [what, tls, kind] of [
  ['a name the certificate does not carry (tls.serverName)', { ca: 'certs/ca.pem', serverName: 'wrong.example' }, 'TLS: wrong host name'],
  ['a certificate no trusted CA signed (the JDK\'s trust store)', null, 'TLS: certificate untrusted'],
]) {
  test(`${what}: every subscription and publish fails, named '${kind}'`, { timeout: 300000 }, async () => {
    const r = await runSh(['--target', targetFile(tls), '1', '5', '10'], { env: env(), timeoutMs: 240000 });
    assert.equal(r.code, 1, r.stdout);
    const summary = readJson(r.runDir, 'data/summary.json');
    const t = summary.target;
    assert.equal(summary.validity.verdict, 'failed', JSON.stringify(summary.validity));
    assert.equal(t.subscriptions.acknowledged, 0);
    assert.equal(t.subscriptions.failures.length, 1, JSON.stringify(t.subscriptions.failures));
    assert.equal(t.subscriptions.failures[0].kind, kind);
    assert.equal(t.subscriptions.failures[0].count, t.subscriptions.failed);
    assert.ok(t.subscriptions.failed >= 10, JSON.stringify(t.subscriptions));
    assert.equal(t.publish.ok, 0);
    assert.deepEqual(t.publish.failures.map((f) => f.kind), [kind], JSON.stringify(t.publish.failures));
    const html = fs.readFileSync(path.join(r.runDir, 'report', 'index.html'), 'utf8');
    assert.ok(html.includes(`Subscription failed: ${kind}`), 'the report names the failure');
  });
}

// The built-in servers over TLS (run.sh --tls): the engines' native transports through nginx, which run.sh
// starts on the server's host (PB_PORT_TLS, test.sh's slot) with a CA and certificate made for the run.
for (const [type, args, connections] of [
  ['comet', ['node', '3', '12', '200', 'comet', '-', 'event1', '1000', '--tls'], 200],
  ['ws', ['--tls', 'node', '2', '10', '100', 'ws', '-', 'event1', '1000'], 100],
]) {
  test(`./run.sh ${args.join(' ')}: valid, none missed, every handshake counted, run.json tls, the front gone after the run`, { timeout: 300000 }, async () => {
    const r = await runShUndisturbed(args, { env: env(), timeoutMs: 240000 });
    assert.equal(r.code, 0, `run.sh exited ${r.code}\n${r.stdout}\n${r.stderr}`);
    const run = readJson(r.runDir, 'run.json');
    assert.deepEqual(run.tls, { front: 'nginx', port: Number(process.env.PB_PORT_TLS ?? 8443), ca: 'per run' });
    const summary = readJson(r.runDir, 'data/summary.json');
    assert.equal(summary.validity.verdict, 'valid', JSON.stringify(summary.validity));
    const m = summary.messages[type];
    assert.equal(m.streams >= connections, true, JSON.stringify(m));
    assert.ok(m.expected >= connections * 5, JSON.stringify(m));
    assert.equal(m.missed, 0, JSON.stringify(m));
    assert.equal(m.duplicates, 0, JSON.stringify(m));
    const { handshakes, ...how } = summary.tls;
    assert.deepEqual(how, run.tls);
    assert.ok(handshakes.count >= connections && handshakes.meanUs > 0 && handshakes.maxUs >= handshakes.meanUs, JSON.stringify(handshakes));
    const html = fs.readFileSync(path.join(r.runDir, 'report', 'index.html'), 'utf8');
    assert.match(html, /the server sat behind a TLS front \(nginx on port [0-9]+, a CA made for the run, names checked\): its CPU excludes nginx/);
    // the front's nginx (its pid as front.sh printed it into run.log) gone, its directory and keys removed
    const pid = Number(/tls front: running \(pid ([0-9]+),/.exec(fs.readFileSync(path.join(r.runDir, 'run.log'), 'utf8'))?.[1]);
    assert.ok(pid > 0, 'the front\'s pid in run.log');
    assert.throws(() => process.kill(pid, 0), { code: 'ESRCH' }, 'the front\'s nginx is gone after the run');
    assert.ok(!fs.existsSync(path.join(process.env.PB_STATE || path.join(ROOT, 'build', 'state'), 'runs', run.id)), 'the run\'s state directory (the front\'s, the CA\'s keys) removed');
  });
}

test('./run.sh … --tls interrupted (SIGINT during the wait): exit 130, the front\'s nginx stopped with the run', { timeout: 300000 }, async () => {
  const state = process.env.PB_STATE || path.join(ROOT, 'build', 'state');
  let runDir = null;
  let frontPid = null;
  const r = await runSh(['node', '2', '60', '50', 'sse', '-', 'event1', '1000', '--tls'], {
    env: env(),
    timeoutMs: 180000,
    onLine: (line, child) => {
      const m = /^run directory: (.+)$/.exec(line);
      if (m) runDir = m[1];
      if (frontPid === null && /^ {2}wait: /.test(line)) {
        frontPid = Number(fs.readFileSync(path.join(state, 'runs', path.basename(runDir), 'tls-front', 'nginx.pid'), 'utf8'));
        child.kill('SIGINT');
      }
    },
  });
  assert.ok(frontPid > 0, `run.sh never reached the wait:\n${r.stdout}\n${r.stderr}`);
  assert.equal(r.code, 130, r.stdout + r.stderr);
  assert.throws(() => process.kill(frontPid, 0), { code: 'ESRCH' }, 'the front\'s nginx is gone after the interrupted run');
  const run = readJson(r.runDir, 'run.json');
  assert.equal(run.status, 'incomplete');
  assert.equal(run.tls.front, 'nginx');
  assert.ok(!fs.existsSync(path.join(state, 'runs', run.id)), 'the run\'s state directory (the front\'s, the CA\'s keys) removed');
});
