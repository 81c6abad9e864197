'use strict';
// Target runs (issue #47, docs/targets.md) end to end against a real third-party push server: nginx with the
// nchan module, from Debian's packages (targets/nchan/nchan.sh), on a port of this test's own. One short
// run.sh --target per transport of nchan (SSE, WebSocket, long poll, a held stream), each from the shipped
// target file with only the port changed: valid, every message published while a subscriber was subscribed
// received by it once, each timed; the run directory keeps the target file (its hash in run.json); the
// thresholds give junit.xml. Then what a user gets wrong: a bad file (exit 2 naming the key, nothing
// started), a target nobody listens on (exit 1 before any load), a subscribe refused (a 404 for every
// subscription: the verdict failed, exit 1), a publish refused (every publish answered 404: not valid,
// named), a target that closes every stream (failed: nothing received). The SSE run also monitors nchan's
// process (hosts.conf pid=). The long poll also carries a cursor taken from each message's body into a
// query parameter nchan ignores (nchan's own cursor is its Last-Modified/Etag headers, which the file echoes;
// no nchan location needs a body's value): nchan's access log shows every poll asking with the seq of the
// message it got last (subscribe.cursor.fromMessage). Every run's progress line shows the engines' sampled
// trip-time p99. About 3.5 minutes on 2 busy cores.
const { test, before, after } = require('node:test');
const assert = require('node:assert/strict');
const fs = require('node:fs');
const path = require('node:path');
const { execFileSync } = require('node:child_process');
const { scratch, hostsFile, LOCAL_HOSTS, runSh, runShUndisturbed } = require('./lib/runsh');

const ROOT = path.resolve(__dirname, '..');
const NCHAN = path.join(ROOT, 'targets', 'nchan', 'nchan.sh');
// The test's own port, moved with the suite's slot as test.sh moves the servers' (PB_PORT_NODE = 18080 + shift).
const PORT = 18190 + (Number(process.env.PB_PORT_NODE ?? 18080) - 18080);
const CONNECTIONS = 50;
const ARGS = ['2', '8', String(CONNECTIONS)];

const s = scratch('target');
const nchanDir = path.join(s.dir, 'nchan');
const accessLog = path.join(s.dir, 'nchan-access.log');
const env = () => ({ PB_RESULTS: s.results, PB_HOSTS: hostsFile(s.dir, LOCAL_HOSTS) });
const readJson = (dir, file) => JSON.parse(fs.readFileSync(path.join(dir, file), 'utf8'));

// A shipped target file with this test's port, and any key changed: its path.
function targetFile(name, change = (t) => t) {
  const text = fs.readFileSync(path.join(ROOT, 'targets', `${name}.json`), 'utf8').replaceAll(':18480/', `:${PORT}/`);
  const file = path.join(s.dir, `${name}-${Math.random().toString(36).slice(2, 8)}.json`);
  fs.writeFileSync(file, `${JSON.stringify(change(JSON.parse(text)), null, 2)}\n`);
  return file;
}

const nchan = (...args) => execFileSync(NCHAN, [...args, '--dir', nchanDir], { encoding: 'utf8' });
// The SSE run monitors the target's server: hosts.conf's sut line names nginx's master by its PID.
const MONITORED = 'sse';
const monitoredDir = () => { const d = path.join(s.dir, 'monitored'); fs.mkdirSync(d, { recursive: true }); return d; };
const monitoredHosts = () => hostsFile(monitoredDir(), [`sut local 127.0.0.1 local pid=${fs.readFileSync(path.join(nchanDir, 'nginx.pid'), 'utf8').trim()}`,
  'engine local 127.0.0.1 local']);
before(() => nchan('start', '--port', String(PORT), '--access-log', accessLog));
after(() => { nchan('stop'); s.cleanup(); });

for (const [name, transport] of [['nchan-sse', 'sse'], ['nchan-ws', 'ws'], ['nchan-poll', 'poll'], ['nchan-stream', 'stream']]) {
  test(`${transport} against nchan: valid, every message received once and timed`, { timeout: 300000 }, async () => {
    // the long poll's cursor from the message too: the seq of the last message, in a query parameter
    const file = targetFile(name, transport !== 'poll' ? undefined : (t) => ({ ...t,
      subscribe: { ...t.subscribe, url: `${t.subscribe.url}?since={{cursor}}`, cursor: { ...t.subscribe.cursor, fromMessage: '/seq', initial: '0' } } }));
    const monitored = transport === MONITORED;
    const r = await runShUndisturbed(['--target', file, '--threshold', 'received>=100', '--threshold', 'trip.p99<=1000', ...ARGS],
      { env: { ...env(), ...(monitored ? { PB_HOSTS: monitoredHosts() } : {}) }, timeoutMs: 240000 });
    assert.equal(r.code, 0, `run.sh --target ${name} exited ${r.code}\n${r.stdout}\n${r.stderr}`);
    assert.match(r.stdout, /engines: [0-9]+ connections, [0-9]+ messages\/s/, 'the progress line shows the engines\' load');
    assert.match(r.stdout, /messages\/s, trip p99 ~-?[0-9.]+ ms \(sampled, engine clock\)/, 'the progress line shows the sampled trip time');
    const run = readJson(r.runDir, 'run.json');
    assert.equal(run.server, 'target');
    assert.equal(run.type, transport);
    assert.equal(run.status, 'complete');
    assert.equal(run.target.name, name);
    assert.equal(run.target.sha256, require('node:crypto').createHash('sha256').update(fs.readFileSync(file)).digest('hex'));
    assert.equal(fs.readFileSync(path.join(r.runDir, 'target.json'), 'utf8'), fs.readFileSync(file, 'utf8'), 'the target file is kept as given');
    assert.deepEqual(run.thresholds, ['received>=100', 'trip.p99<=1000']);
    assert.equal(fs.existsSync(path.join(r.runDir, 'sut', 'pidstat.log')), monitored, 'the target monitored only when hosts.conf names its process');

    const summary = readJson(r.runDir, 'data/summary.json');
    const t = summary.target;
    assert.equal(summary.serverMonitored, monitored);
    if (monitored) {
      assert.ok(t.server.cpuMeanPercent >= 0 && t.server.cores >= 1 && t.server.rssPeakMB > 0, JSON.stringify(t.server));
      assert.ok(t.server.microsPerMessage > 0, `the server's CPU per message: ${JSON.stringify(t.server)}`);
      assert.ok(!summary.validity.unknowns.some((u) => /not monitored/.test(u)));
    } else assert.ok(summary.validity.unknowns.includes('the server: not monitored (a target run)'));
    assert.equal(summary.validity.verdict, 'valid', JSON.stringify(summary.validity));
    assert.equal(t.subscribers, CONNECTIONS);
    assert.equal(t.subscriptions.subscribersAcknowledged, CONNECTIONS, JSON.stringify(t.subscriptions));
    assert.equal(t.subscriptions.failed, 0, JSON.stringify(t.subscriptions));
    // 10 channels at 1 message a second for 6 s (8 s less the drain): each subscriber expects ~5 (it
    // subscribed within the 2 s ramp-up)
    assert.ok(t.messages.expected >= CONNECTIONS * 3, JSON.stringify(t.messages));
    assert.equal(t.messages.missed, 0, JSON.stringify(t.messages));
    assert.equal(t.messages.received, t.messages.expected);
    assert.equal(t.messages.duplicated, 0, JSON.stringify(t.messages));
    assert.equal(t.messages.unmatched, 0, JSON.stringify(t.messages));
    // every message received is timed (one published while its subscription's head was on its way, counted
    // early, is timed too), except one stamped before its subscription's request that reached the server after
    assert.equal(t.tripTime.messages + t.tripTime.publishedBeforeRequest, t.messages.received + t.messages.early, JSON.stringify(t));
    assert.equal(t.tripTime.untimed, 0);
    assert.ok(t.tripTime.p50Ms > 0 && t.tripTime.p50Ms <= t.tripTime.p99Ms, JSON.stringify(t.tripTime));
    assert.equal(t.publish.failed, 0, JSON.stringify(t.publish));
    assert.ok(t.publish.share >= 0.9, `the publishers kept their rate: ${JSON.stringify(t.publish)}`);
    if (transport === 'poll') {
      // this run's polls in nchan's access log: /lp/<run id>-<engine>-<channel>?since=<cursor>
      const prefix = `GET /lp/${path.basename(r.runDir)}-`;
      const since = fs.readFileSync(accessLog, 'utf8').split('\n').filter((l) => l.startsWith(prefix))
        .map((l) => /\?since=([^ &]*)$/.exec(l)?.[1]);
      assert.ok(since.every((v) => v !== undefined && /^[0-9]+$/.test(v)), `every poll carried a cursor: ${since.filter((v) => !/^[0-9]+$/.test(v ?? '')).slice(0, 5)}`);
      const firsts = since.filter((v) => v === '0').length;
      assert.equal(firsts, CONNECTIONS, 'each subscription\'s first poll carries the initial value');
      const carried = since.filter((v) => v !== '0').map(Number);
      assert.ok(carried.length >= t.messages.received + t.messages.early,
        `each message got is followed by a poll carrying its seq: ${carried.length} polls for ${t.messages.received + t.messages.early} messages`);
      assert.ok(Math.max(...carried) <= 8, `the cursors are published seqs (1 a second for at most 8 s): ${Math.max(...carried)}`);
    }

    assert.deepEqual(summary.thresholds.results.map((x) => [x.text, x.pass]), [['received>=100', true], ['trip.p99<=1000', true]]);
    const junit = fs.readFileSync(path.join(r.runDir, 'junit.xml'), 'utf8');
    assert.match(junit, /<testsuites tests="2" failures="0">/);
    const report = fs.readFileSync(path.join(r.runDir, 'report', 'index.html'), 'utf8');
    assert.match(report, /id="thresholds" data-failed="0"><strong>Thresholds: all 2 passed/, 'the report shows the thresholds');
  });
}

test('a bad target file: exit 2 naming the key, nothing started', async () => {
  const file = targetFile('nchan-sse', (t) => ({ ...t, chanels: 3 }));
  const r = await runSh(['--target', file, ...ARGS], { env: env(), timeoutMs: 60000 });
  assert.equal(r.code, 2, r.stderr);
  assert.match(r.stderr, /chanels: unknown key/);
  assert.equal(r.runDir, null, 'no run directory');
});

test('a target nobody listens on: exit 1 before any load, naming the address', async () => {
  const file = targetFile('nchan-sse', (t) => JSON.parse(JSON.stringify(t).replaceAll(`:${PORT}/`, `:${PORT + 1}/`)));
  const r = await runSh(['--target', file, ...ARGS], { env: env(), timeoutMs: 120000 });
  assert.equal(r.code, 1, r.stdout);
  assert.match(r.stdout, new RegExp(`cannot reach the target at 127\\.0\\.0\\.1:${PORT + 1}.*no load was sent`));
  assert.equal(readJson(r.runDir, 'run.json').status, 'incomplete');
});

test('a subscribe refused (404 for every subscription): the verdict failed, exit 1', { timeout: 300000 }, async () => {
  const file = targetFile('nchan-sse', (t) => ({ ...t, subscribe: { ...t.subscribe, url: t.subscribe.url.replace('/sse/', '/nosuch/') } }));
  const r = await runSh(['--target', file, '1', '5', '20'], { env: env(), timeoutMs: 240000 });
  assert.equal(r.code, 1, r.stdout);
  const summary = readJson(r.runDir, 'data/summary.json');
  assert.equal(summary.validity.verdict, 'failed', JSON.stringify(summary.validity));
  assert.equal(summary.target.subscriptions.acknowledged, 0);
  assert.ok(summary.target.subscriptions.failed >= 20, JSON.stringify(summary.target.subscriptions));
});

test('a publish refused (404 for every publish): not valid, the failed publishes named', { timeout: 300000 }, async () => {
  const file = targetFile('nchan-sse', (t) => ({ ...t, publish: { ...t.publish, url: t.publish.url.replace('/pub/', '/nopub/') } }));
  const r = await runSh(['--target', file, '1', '5', '20'], { env: env(), timeoutMs: 240000 });
  const summary = readJson(r.runDir, 'data/summary.json');
  assert.notEqual(summary.validity.verdict, 'valid', JSON.stringify(summary.validity));
  assert.equal(summary.target.publish.ok, 0);
  assert.ok(summary.target.publish.failed > 0);
  assert.ok(summary.validity.reasons.some((x) => /publish/i.test(x.text)), JSON.stringify(summary.validity.reasons));
});

test('a target that closes every stream (a plain 200 at once): nothing received, the verdict failed, exit 1', { timeout: 300000 }, async () => {
  const file = targetFile('nchan-sse', (t) => ({ ...t, subscribe: { ...t.subscribe, url: t.subscribe.url.replace(/\/sse\/\{\{channel\}\}$/, '/health') } }));
  const r = await runSh(['--target', file, '1', '5', '20'], { env: env(), timeoutMs: 240000 });
  assert.equal(r.code, 1, r.stdout);
  const summary = readJson(r.runDir, 'data/summary.json');
  assert.equal(summary.validity.verdict, 'failed', JSON.stringify(summary.validity));
  assert.equal(summary.target.messages.received, 0);
  assert.ok(summary.target.subscriptions.count > 20, `each stream ended and was asked again: ${JSON.stringify(summary.target.subscriptions)}`);
  assert.ok(summary.validity.reasons.some((x) => x.rule === 'nothing-received'), JSON.stringify(summary.validity.reasons));
});
