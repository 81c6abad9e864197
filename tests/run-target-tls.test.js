'use strict';
// Target runs over TLS (issue #49 item 1, docs/targets.md "TLS") end to end: nginx terminating TLS in front
// of nchan (targets/nchan/nchan.sh --tls) with a CA and a server certificate this test makes
// (targets/tls/make-certs.sh, openssl), on a port of its own. One short run.sh --target of nchan's SSE over
// https:// (subscribe and publish) trusting the test CA (tls.ca): valid, every message published while a
// subscriber was subscribed received by it once, the report saying TLS; then the two failures a user meets
// first, each named in the analysis by kind: a name the certificate does not carry (tls.serverName) and a
// certificate no trusted CA signed (no tls.ca: the JDK's trust store). About a minute on 2 busy cores.
const { test, before, after } = require('node:test');
const assert = require('node:assert/strict');
const fs = require('node:fs');
const path = require('node:path');
const { execFileSync } = require('node:child_process');
const { scratch, hostsFile, LOCAL_HOSTS, runSh, runShUndisturbed } = require('./lib/runsh');

const ROOT = path.resolve(__dirname, '..');
const NCHAN = path.join(ROOT, 'targets', 'nchan', 'nchan.sh');
// The test's own port, moved with the suite's slot as test.sh moves the servers' (PB_PORT_NODE = 18080 + shift).
const PORT = 18190 + (Number(process.env.PB_PORT_NODE ?? 18080) - 18080) + 5;
const CONNECTIONS = 30;

const s = scratch('target-tls');
const certs = path.join(s.dir, 'certs');
const nchanDir = path.join(s.dir, 'nchan');
const env = () => ({ PB_RESULTS: s.results, PB_HOSTS: hostsFile(s.dir, LOCAL_HOSTS) });
const readJson = (dir, file) => JSON.parse(fs.readFileSync(path.join(dir, file), 'utf8'));

// The shipped nchan-sse target over https:// on this test's port, with this tls object: its path (the CA
// named relative to it, as a user's file would).
function targetFile(tls) {
  const t = JSON.parse(fs.readFileSync(path.join(ROOT, 'targets', 'nchan-sse.json'), 'utf8'));
  const secure = (u) => u.replace('http://127.0.0.1:18480/', `https://127.0.0.1:${PORT}/`);
  const out = { ...t, subscribe: { ...t.subscribe, url: secure(t.subscribe.url) }, publish: { ...t.publish, url: secure(t.publish.url) } };
  if (tls) out.tls = tls;
  const file = path.join(s.dir, `nchan-sse-tls-${Math.random().toString(36).slice(2, 8)}.json`);
  fs.writeFileSync(file, `${JSON.stringify(out, null, 2)}\n`);
  return file;
}

const nchan = (...args) => execFileSync(NCHAN, [...args, '--dir', nchanDir], { encoding: 'utf8' });
before(() => {
  execFileSync(path.join(ROOT, 'targets', 'tls', 'make-certs.sh'), [certs]);
  nchan('start', '--port', String(PORT), '--tls', path.join(certs, 'server.pem'), path.join(certs, 'server.key'));
});
after(() => { nchan('stop'); s.cleanup(); });

test('sse over https against nginx+nchan, the test CA trusted: valid, every message received once', { timeout: 300000 }, async () => {
  const file = targetFile({ ca: 'certs/ca.pem' });
  const r = await runShUndisturbed(['--target', file, '2', '8', String(CONNECTIONS)], { env: env(), timeoutMs: 240000 });
  assert.equal(r.code, 0, `run.sh exited ${r.code}\n${r.stdout}\n${r.stderr}`);
  const summary = readJson(r.runDir, 'data/summary.json');
  const t = summary.target;
  assert.equal(summary.validity.verdict, 'valid', JSON.stringify(summary.validity));
  assert.deepEqual(t.tls, { subscribe: true, publish: true, insecure: false, serverName: null, ca: 'certs/ca.pem' });
  assert.equal(t.subscriptions.subscribersAcknowledged, CONNECTIONS, JSON.stringify(t.subscriptions));
  assert.deepEqual(t.subscriptions.failures, [], JSON.stringify(t.subscriptions));
  assert.ok(t.messages.expected >= CONNECTIONS * 3, JSON.stringify(t.messages));
  assert.equal(t.messages.missed, 0, JSON.stringify(t.messages));
  assert.equal(t.messages.duplicated, 0, JSON.stringify(t.messages));
  assert.equal(t.publish.failed, 0, JSON.stringify(t.publish));
  const html = fs.readFileSync(path.join(r.runDir, 'report', 'index.html'), 'utf8');
  assert.match(html, /subscribe and publish; certificates checked against certs\/ca\.pem/, 'the report says how TLS was spoken');
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
