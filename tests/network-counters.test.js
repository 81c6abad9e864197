'use strict';
// The network cost per delivered message (issue #26, docs/pull.md) checked against traffic whose size is
// known: a SUT host and a client host, each a network namespace (tests/lib/netns.sh, prefix pn<pid>), so
// the SUT's counters see this test's traffic only. host/netstat-log.sh samples the SUT namespace once a
// second, as host/monitor.sh runs it in a real run; a fixed-size responder there (tests/lib/fixed-traffic.js)
// answers N requests, each on a new connection from the client namespace; analysis/measure/network.js turns
// the samples into the run's deltas and per-message figures. Needs root and openssh-server; ~15 s.
//
// The bounds, from TCP and IP, for N connections each carrying one request of Q bytes and one response of
// R bytes (both below 64 KB, over a 1500-byte MTU: a segment carries at most MSS = 1448 payload bytes):
//   new connections      exactly N accepted (PassiveOpens), none opened (ActiveOpens)
//   bytes                payload <= IP bytes <= payload + 60 x segments (20 B IP + 20-40 B TCP header per
//                        segment; fewer headers are counted when the kernel sends several segments as one
//                        offloaded packet, which is why only the upper bound is per segment)
//   segments in          per connection at least SYN, handshake ACK, request, FIN (4) and at most those, one
//                        ACK per response segment and the last ACK (5 + ceil(R / MSS))
//   segments out         per connection at least SYN-ACK and the response's segments (1 + ceil(R / MSS)) and
//                        at most those, an ACK of the request, a FIN and an ACK of the client's FIN (+3)
//   retransmissions      none (two namespaces on one bridge lose nothing)
const { test, before, after } = require('node:test');
const assert = require('node:assert/strict');
const path = require('node:path');
const { spawn } = require('node:child_process');
const { NetnsHosts, ROOT } = require('./lib/hosts-netns');
const { parseNetstatLog, networkCost } = require('../analysis/measure/network');

const STATE = process.env.PB_STATE || path.join(ROOT, 'build', 'state');
const hosts = new NetnsHosts(2, path.join(STATE, `netns-pn${process.pid}`), `pn${process.pid}`);
const TRAFFIC = path.join(ROOT, 'tests', 'lib', 'fixed-traffic.js');
const PORT = 9000;
const MSS = 1448;
const children = [];

before(() => { hosts.start(); });
after(() => {
  for (const c of children) if (c.exitCode === null) c.kill('SIGTERM');
  if (hosts.up) hosts.down();
});

// Runs a command inside a host's namespace; resolves { code, stdout } when it exits.
function inNamespace(host, args, { onStdout } = {}) {
  const child = spawn('ip', ['netns', 'exec', host.ns, ...args], { stdio: ['ignore', 'pipe', 'pipe'] });
  children.push(child);
  let stdout = '';
  let stderr = '';
  child.stdout.on('data', (d) => { stdout += d; if (onStdout) onStdout(stdout); });
  child.stderr.on('data', (d) => { stderr += d; });
  const done = new Promise((resolve) => child.on('close', (code) => resolve({ code, stdout, stderr })));
  return { child, done };
}

// Resolves when test(text) holds for the output so far, or rejects after ms.
function waitFor(read, test, ms, what) {
  return new Promise((resolve, reject) => {
    const t0 = Date.now();
    const poll = () => {
      if (test(read())) return resolve();
      if (Date.now() - t0 > ms) return reject(new Error(`timed out waiting for ${what}`));
      setTimeout(poll, 50);
    };
    poll();
  });
}

for (const [N, Q, R] of [[400, 1000, 5000], [300, 300, 200]]) {
  test(`${N} requests of ${Q} B answered with ${R} B on new connections: the counters' deltas within the bounds of TCP`, async () => {
    const sut = hosts.sut;
    const client = hosts.engines[0];
    const server = inNamespace(sut, [process.execPath, TRAFFIC, 'serve', sut.address, String(PORT), String(R)]);
    let served = '';
    server.child.stdout.on('data', (d) => { served += d; });
    await waitFor(() => served, (s) => s.includes('listening'), 10000, 'the responder');

    // The sampler as in a run; the traffic starts after its second sample and ends two samples before the last.
    const log = inNamespace(sut, [path.join(ROOT, 'host', 'netstat-log.sh'), '60']);
    let text = '';
    log.child.stdout.on('data', (d) => { text += d; });
    await waitFor(() => text, (t) => t.split('\n').filter(Boolean).length >= 2, 10000, 'two samples');
    const sentFrom = Date.now();
    const sender = inNamespace(client, [process.execPath, TRAFFIC, 'send', sut.address, String(PORT), String(N), String(Q), '10']);
    const sent = await sender.done;
    const sentTo = Date.now();
    assert.equal(sent.code, 0, sent.stderr);
    const report = JSON.parse(sent.stdout);
    assert.deepEqual(report, { requests: N, sentBytes: N * Q, receivedBytes: N * R, failed: 0 }, 'every request answered in full');
    const before = text.split('\n').filter(Boolean).length;
    await waitFor(() => text, (t) => t.split('\n').filter(Boolean).length >= before + 2, 10000, 'two samples after the traffic');
    log.child.kill('SIGTERM');
    server.child.kill('SIGTERM');

    // The analysis' deltas over the window from the last sample before the traffic to the first after it.
    const { samples, skipped } = parseNetstatLog(text);
    assert.equal(skipped, 0);
    const t0 = samples[0].ms;
    const fromSecond = samples.filter((s) => s.ms <= sentFrom).length - 1;
    const toSecond = samples.findIndex((s) => s.ms >= sentTo);
    assert.ok(fromSecond >= 0 && toSecond > fromSecond, `samples ${samples.map((s) => s.ms - sentFrom)}`);
    // Each request is one delivered message, counted at the second it was sent.
    const perSecond = new Array(toSecond + 1).fill(0);
    perSecond[fromSecond] = N;
    const n = networkCost({ samples, t0, offsetMs: 0, window: { fromSecond, toSecond, seconds: toSecond - fromSecond },
      events: perSecond, requests: perSecond, hosts: { sut: { name: 'sut', address: sut.address }, engines: [{ name: 'eng1', address: client.address }] } });
    assert.equal(n.available, true, JSON.stringify(n));
    assert.equal(n.sharedWithEngine, false);

    assert.equal(n.passiveOpens, N, 'one accepted connection per request');
    assert.equal(n.activeOpens, 0);
    assert.equal(n.newConnections, N);
    assert.equal(n.perMessage.newConnections, 1);
    assert.equal(n.perMessage.requests, 1);
    assert.equal(n.retransSegs, 0);

    const dataSegments = Math.ceil(R / MSS);
    const within = (value, low, high, what) => assert.ok(value >= low && value <= high, `${what}: ${value} not in [${low}, ${high}]`);
    within(n.inSegs / N, 4, 5 + dataSegments, 'segments in per connection');
    within(n.outSegs / N, 1 + dataSegments, 4 + dataSegments, 'segments out per connection');
    within(n.inBytes, N * Q, N * Q + 60 * n.inSegs, 'IP bytes in');
    within(n.outBytes, N * R, N * R + 60 * n.outSegs, 'IP bytes out');
    within(n.perMessage.bytes, Q + R, Q + R + (60 * (n.inSegs + n.outSegs)) / N, 'bytes per message');
    // What the counters add beyond the payload, for the report (docs/pull.md quotes it).
    const header = (bytes, payload, segs) => ((bytes - payload) / segs).toFixed(1);
    process.stdout.write(`# ${N} x (${Q} B in, ${R} B out): ${n.inSegs / N} segments in and ${n.outSegs / N} out per connection; `
      + `${header(n.inBytes, N * Q, n.inSegs)} B counted beyond the payload per segment in, ${header(n.outBytes, N * R, n.outSegs)} out; `
      + `${n.perMessage.bytes} B per message for ${Q + R} B of payload\n`);
  });
}
