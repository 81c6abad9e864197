'use strict';
// A target run's accounting (measure/target.js, read/target-log.js; docs/targets.md "What is measured") on a
// hand-written stream log of one engine: a reconnection whose replay brings a message it missed (received)
// and one published while it was away (early), a duplicate, an out-of-order message, an unmatched greeting,
// a missed message, a seq nobody published, a failed publish, and arrivals logged before their publish's E
// line (timed once it comes). Then a whole analyzeRun on a synthetic run of two engines
// (tools/target-run.js) and its report page.
const test = require('node:test');
const assert = require('node:assert/strict');
const fs = require('node:fs');
const path = require('node:path');
const { TargetLogVisit } = require('../read/target-log');
const { TargetEngine, PerSecond, targetFigures, RUN_HISTOGRAM } = require('../measure/target');
const { SignedHistogram } = require('../measure/trip-time');
const { extractor } = require('../measure/extract');
const { analyzeAndWrite } = require('../run-analysis');
const { makeTargetRun } = require('../tools/target-run');
const { scratchDir } = require('./helpers');

const T0_MS = 1_700_000_000_000;
const at = (s) => String(Math.round(T0_MS * 1000 + s * 1e6));   // µs of second s of the run
const B = (s, id, thread, label) => ['B', at(s), id, thread, label].join('\t');
const R = (s, id, text) => ['R', at(s), id, text].join('\t');
// E: code, ok, records, bytes, cut, sent µs, message, failure, headers µs
const E = (s, id, { code = '200', ok = 1, sent, message = 'end of test', failure = '', headers }) =>
  ['E', at(s), id, code, ok, 0, 10, 0, sent === undefined ? at(s) : at(sent), message, failure, headers === null ? '0' : at(headers)].join('\t');
const msg = (seq) => JSON.stringify({ seq, data: 'x' });
const publish = (id, channel, seq, sent, { code = '201', ok = 1, failure = '', endAfter = 0.008 } = {}) => ({
  begin: [sent - 0.001, B(sent - 0.001, id, `Publish ${channel}`, `publish ${seq}`)],
  end: [sent + endAfter, E(sent + endAfter, id, { code, ok, sent, message: ok ? 'Created' : 'Service Unavailable', failure, headers: sent + 0.007 })] });

// The log, its lines in time order. Channels 2: connections 1 and 3 on channel 0, connection 2 on channel 1.
function handWrittenLog() {
  const lines = [];
  const put = (s, line) => lines.push([s, lines.length, line]);
  const pubs = [publish('p1', 0, 1, 1.0), publish('p2', 0, 2, 2.0), publish('p3', 0, 3, 3.0),
    publish('p4', 0, 4, 4.0, { code: '503', ok: 0, failure: 'HTTP 503' }), publish('p5', 0, 5, 5.0),
    publish('q1', 1, 1, 1.5), publish('q2', 1, 2, 2.5)];
  for (const p of pubs) { put(...p.begin); put(...p.end); }
  // connection 1 (channel 0): a greeting, 1, 3, 2 (out of order), 2 again (duplicate), 5
  put(0.1, B(0.1, 's1', 'Request 1-1', 'request'));
  put(0.103, R(0.103, 's1', 'retry: 3000 hello'));
  put(1.005, R(1.005, 's1', msg(1)));   // before its publish's E line (1.008)
  put(3.004, R(3.004, 's1', msg(3)));
  put(3.006, R(3.006, 's1', msg(2)));
  put(3.007, R(3.007, 's1', msg(2)));
  put(5.003, R(5.003, 's1', msg(5)));
  put(6.0, E(6.0, 's1', { sent: 0.1001, headers: 0.102 }));
  // connection 3 (channel 0): subscribed, dropped at 2.5 s, back at 3.5 s: replayed 2 (published while
  // subscribed: received, not timed) and 3 (published while away: early); then 5 live
  put(0.2, B(0.2, 's3a', 'Request 1-3', 'request'));
  put(1.006, R(1.006, 's3a', msg(1)));
  put(2.5, E(2.5, 's3a', { ok: 0, sent: 0.2001, message: 'OK', failure: 'stream closed by the server', headers: 0.202 }));
  put(3.5, B(3.5, 's3b', 'Request 1-3', 'request'));
  put(3.503, R(3.503, 's3b', msg(2)));
  put(3.504, R(3.504, 's3b', msg(3)));
  put(5.004, R(5.004, 's3b', msg(5)));
  put(6.0, E(6.0, 's3b', { sent: 3.5001, headers: 3.502 }));
  // connection 2 (channel 1): 1, then seq 9 that no one published; 2 never comes (missed)
  put(0.3, B(0.3, 's2', 'Request 1-2', 'request'));
  put(1.51, R(1.51, 's2', msg(1)));
  put(4.0, R(4.0, 's2', msg(9)));
  put(6.0, E(6.0, 's2', { sent: 0.3001, headers: 0.302 }));
  lines.sort((a, b) => a[0] - b[0] || a[1] - b[1]);
  return `${lines.map((l) => l[2]).join('\n')}\n`;
}

const near = (actual, expected, share, what) => assert.ok(Math.abs(actual - expected) <= share * expected, `${what ?? ''} ${actual} vs ${expected}`);

function account(text, { channels = 2, windowUs = 5e6, seconds = 7 } = {}) {
  const perSecond = new PerSecond(T0_MS);
  const trips = new SignedHistogram(RUN_HISTOGRAM);
  const engine = new TargetEngine({ name: 'gen1', channels, transport: 'sse', extract: extractor({ seq: '/seq' }), timedBy: 'publish',
    perSecond, trips, publishWindowUs: windowUs });
  const visit = new TargetLogVisit('gen1.tar.gz', 'gen1', engine);
  visit.open('push-1.tsv.gz', 'stream');
  const buf = Buffer.from(text);
  for (let i = 0; i < buf.length; i += 97) visit.data(buf.subarray(i, i + 97));   // lines split across chunks
  visit.close(false);
  const stats = visit.finish({});
  const result = engine.result();
  return { stats, ...targetFigures({ target: { name: 't', transport: 'sse', channels, rate: 1 }, results: [result], engineCount: 1, trips,
    perSecond, seconds, timedBy: 'publish' }) };
}

test('the accounting of a hand-written stream log: every kind of arrival counted once, in its place', () => {
  const { stats, target: f, series } = account(handWrittenLog());
  assert.deepEqual([stats.subscriptions, stats.publishes, stats.badLines, stats.unendedSamples], [4, 7, 0, 0]);
  assert.equal(f.subscribers, 3);
  assert.deepEqual(f.subscriptions, { count: 4, acknowledged: 4, failed: 1, reconnections: 1, subscribersAcknowledged: 3,
    failures: [{ kind: 'stream closed by the server', count: 1 }] });
  // expected: connection 1: 1, 2, 3, 5 (4 failed); connection 3: 1, 2 (first stream), 5 (second); connection 2: 1, 2
  assert.deepEqual(f.messages, { expected: 9, received: 8, missed: 1, missedPercent: 11.111, deliveredPercent: 88.889, duplicated: 1,
    outOfOrder: 1, early: 1, unpublished: 1, unmatched: 1, arrivals: 11 });
  // timed: 1 (5 ms), 3 (4 ms), 2 (1,006 ms), 5 (3 ms) of connection 1; 1 (6 ms) and 5 (4 ms) of connection 3;
  // 1 (10 ms) of connection 2. Not timed: a duplicate, the replays (published before their stream's request),
  // seq 9 (no publish: untimed)
  assert.equal(f.tripTime.messages, 7);
  assert.equal(f.tripTime.untimed, 1);
  assert.equal(f.tripTime.publishedBeforeRequest, 2);
  const m = f.messages;
  assert.equal(f.tripTime.messages + f.tripTime.untimed + f.tripTime.publishedBeforeRequest, m.received + m.early + m.unpublished,
    'each distinct arrival timed, untimed or published before its request');
  assert.equal(f.tripTime.timedBy, 'publish');
  assert.equal(f.tripTime.p50Ms, 5);
  assert.equal(f.tripTime.maxMs, 1006);
  near(f.tripTime.p99Ms, 1006, 0.001, 'p99: HdrHistogram, 3 significant digits');
  assert.deepEqual(f.publish.failures, [{ kind: 'HTTP 503', count: 1 }]);
  assert.deepEqual([f.publish.count, f.publish.ok, f.publish.failed], [7, 6, 1]);
  // 6 publishes answered 2xx in the 5 s from the first; 1 a second on each of 2 channels asked
  assert.deepEqual([f.publish.askedPerSecond, f.publish.achievedPerSecond, f.publish.share, f.publish.windowSeconds], [2, 1.2, 0.6, 5]);
  assert.deepEqual([f.publish.latencyP50Ms, f.publish.latencyP99Ms], [7, 7]);
  // per second: first arrivals (early and unpublished ones too), subscriptions open, trip p99
  assert.deepEqual(series.received, [0, 3, 0, 4, 1, 2, 0]);
  assert.deepEqual(series.subscriptions, [3, 3, 3, 3, 3, 3, 3]);
  near(series.tripP99[3], 1006, 0.01, 'a second\'s p99: 2 significant digits');
  near(series.tripP99[1], 10, 0.01);
  assert.equal(series.tripP99[2], null);
});

test('the seq rule and the extracted sentUs: a message matched by neither rule is unmatched, never a failure', () => {
  const perSecond = new PerSecond(T0_MS);
  const trips = new SignedHistogram(RUN_HISTOGRAM);
  const engine = new TargetEngine({ name: 'e', channels: 1, transport: 'ws', extract: extractor({ seq: 'n=(\\d+)', sentUs: 'at=(\\d+)' }),
    timedBy: 'sentUs rule', perSecond, trips });
  engine.subscriptionBegan('k', 1, Number(at(0)));
  engine.message('k', Number(at(1.002)), `n=1 at=${at(1)}`);
  engine.message('k', Number(at(1.5)), 'keep-alive');
  engine.message('k', Number(at(2.004)), 'n=2 without a stamp');
  engine.subscriptionEnded('k', { endUs: Number(at(3)), code: '101', ok: true, headersUs: Number(at(0.001)) });
  engine.publishEnded({ channel: 0, seq: 1, sentUs: Number(at(1)), code: '200', ok: true, headersUs: Number(at(1.001)), failure: '', message: 'OK' });
  engine.publishEnded({ channel: 0, seq: 2, sentUs: Number(at(2)), code: '200', ok: true, headersUs: Number(at(2.001)), failure: '', message: 'OK' });
  const r = engine.result();
  assert.deepEqual([r.expected, r.received, r.unmatched, r.untimed], [2, 2, 1, 1]);
  assert.equal(trips.count, 1);
  assert.equal(Math.round(trips.valueAt(50)), 2000, 'arrival - the extracted sentUs, µs');
});

test('a poll subscriber keeps one subscription across its answers: a message published between polls is expected', () => {
  const perSecond = new PerSecond(T0_MS);
  const trips = new SignedHistogram(RUN_HISTOGRAM);
  const engine = new TargetEngine({ name: 'e', channels: 1, transport: 'poll', extract: extractor({ seq: '/seq' }), timedBy: 'publish',
    perSecond, trips });
  const poll = (key, from, to, seqs) => {
    engine.subscriptionBegan(key, 1, Number(at(from)));
    for (const [seq, s] of seqs) engine.message(key, Number(at(s)), msg(seq));
    engine.subscriptionEnded(key, { endUs: Number(at(to)), code: '200', ok: true, headersUs: Number(at(to)) });
  };
  engine.publishEnded({ channel: 0, seq: 1, sentUs: Number(at(1)), code: '200', ok: true, headersUs: null, failure: '', message: 'OK' });
  engine.publishEnded({ channel: 0, seq: 2, sentUs: Number(at(2.5)), code: '200', ok: true, headersUs: null, failure: '', message: 'OK' });
  poll('a', 0, 1.01, [[1, 1.01]]);            // the first answer's head "subscribes"
  poll('b', 2.6, 2.61, [[2, 2.61]]);          // seq 2 was published between the polls: carried by the cursor
  const r = engine.result();
  assert.deepEqual([r.expected, r.received, r.early], [1, 1, 1], 'published before the first answer\'s head: seq 1 early; seq 2 expected');
  assert.equal(trips.count, 2, 'both timed: a poll subscriber subscribes from its first request');
});

test('failed subscriptions are counted by kind, a TLS failure as the engine names it', () => {
  const tlsE = (s, id, kind) => E(s, id, { code: 'Non HTTP response code: javax.net.ssl.SSLHandshakeException', ok: 0, sent: s,
    message: 'Non HTTP response message: No subject alternative DNS name matching wrong.example found.', failure: kind, headers: null });
  const lines = [B(0.1, 'a', 'Request 1-1', 'request'), tlsE(0.11, 'a', 'TLS: wrong host name'),
    B(0.2, 'b', 'Request 1-2', 'request'), tlsE(0.21, 'b', 'TLS: certificate untrusted'),
    B(3.2, 'c', 'Request 1-2', 'request'), tlsE(3.21, 'c', 'TLS: certificate untrusted')];
  const { target: f } = account(`${lines.join('\n')}\n`);
  assert.deepEqual(f.subscriptions.failures, [{ kind: 'TLS: certificate untrusted', count: 2 }, { kind: 'TLS: wrong host name', count: 1 }]);
  assert.equal(f.subscriptions.failed, 3);
  assert.equal(f.subscriptions.acknowledged, 0, 'no head was read');
});

test('a cut log: a subscription without its E line is counted unended, the rest still read', () => {
  const text = handWrittenLog().split('\n').filter((l) => !l.startsWith('E\t') || !l.includes('\ts2\t')).join('\n');
  const { stats, target: f } = account(`${text}\nE\tbroken`);
  assert.equal(stats.unendedSamples, 1);
  assert.equal(stats.halfLines, 1, 'a last line without its line end');
  assert.equal(f.subscriptions.failed, 2, 'the unended one failed');
  assert.equal(f.messages.received, 7, 'its messages are not expected: it never acknowledged');
});

test('analyzeRun on a synthetic target run: summary.json\'s target figures, the verdict, the charts and the report', async () => {
  const dir = path.join(scratchDir('pb-target-'), 'run');
  const { expected: x } = await makeTargetRun(dir);
  const { summary } = await analyzeAndWrite(dir);
  const written = JSON.parse(fs.readFileSync(path.join(dir, 'data', 'summary.json'), 'utf8'));
  assert.deepEqual(written.target, summary.target);
  const f = written.target;
  assert.equal(written.serverMonitored, false);
  assert.equal(f.subscribers, x.subscribers);
  assert.deepEqual([f.subscriptions.count, f.subscriptions.failed, f.subscriptions.reconnections], [x.subscriptions, x.failedSubscriptions, 2]);
  for (const k of ['expected', 'received', 'missed', 'duplicated', 'outOfOrder', 'early', 'unmatched']) assert.equal(f.messages[k], x[k], k);
  assert.deepEqual([f.publish.count, f.publish.ok, f.publish.failed], [x.publishes, x.publishesOk, x.publishFailures]);
  assert.equal(f.tripTime.messages, x.received, 'each live message timed once');
  assert.equal(f.tripTime.maxMs, Math.round(x.tripMs[1] * 100) / 100);
  assert.ok(f.tripTime.p50Ms >= x.tripMs[0] && f.tripTime.p50Ms <= 3.6, JSON.stringify(f.tripTime));
  // the loss beyond 0.1%, the failed publishes and the failed subscription make it server-limited, each
  // named with its numbers
  assert.equal(written.validity.verdict, 'server-limited');
  const rules = written.validity.reasons.map((r) => r.rule);
  assert.deepEqual(rules, ['messages-missed', 'publish-failed', 'subscriptions-failed']);
  assert.match(written.validity.reasons[2].text, new RegExp(`^${f.subscriptions.failed} of ${f.subscriptions.count} subscriptions failed`));
  assert.match(written.validity.reasons[0].text, new RegExp(`^${x.missed} of the ${x.expected} messages the subscribers expected were missed \\(0\\.917%`));
  assert.ok(written.validity.unknowns.includes('the server: not monitored (a target run)'));
  assert.deepEqual(written.flags.missingInputs, [], 'sut/ and results.csv are not missing: a target run has none');
  for (const id of ['target-trip-time', 'target-received', 'target-subscriptions']) {
    assert.ok(fs.existsSync(path.join(dir, 'charts', `${id}.json`)), id);
  }
  const series = JSON.parse(fs.readFileSync(path.join(dir, 'data', 'series.json'), 'utf8')).series;
  assert.equal(series.received.reduce((a, b) => a + b, 0), x.received + x.early, 'first arrivals per second');
  assert.equal(Math.max(...series.subscriptions), x.subscribers);

  const { writeReport } = require('../../charts/report');
  const html = fs.readFileSync(await writeReport(dir), 'utf8');
  assert.match(html, /data-verdict="server-limited"/);
  assert.match(html, /Server not monitored/);
  assert.match(html, /Target synthetic-sse/);
  assert.ok(html.includes(`Messages expected / received / missed</td><td class="num">${x.expected} / ${x.received} / ${x.missed}<`), 'the figures with their units');
  assert.match(html, /Trip time p50 \/ p90 \/ p99 \/ max \(ms\)/);
  assert.match(html, /<canvas id="chart-target-trip-time"/);
  assert.match(html, /<canvas id="chart-target-received"/);
  assert.doesNotMatch(html, /Server process|Emit cycles|Poll trip time/, 'no server panels');
});

test('a target.json changed since the run is named; without one no message is matched and the run failed', async () => {
  const dir = path.join(scratchDir('pb-target-'), 'run');
  const { expected: x } = await makeTargetRun(dir, { perEngine: 2, engines: ['gen1'] });
  fs.appendFileSync(path.join(dir, 'target.json'), '\n');
  const { analyzeRun } = require('../run-analysis');
  const changed = (await analyzeRun(dir)).summary;
  assert.ok(changed.flags.problems.includes('target.json is not the file the run used (its sha256 differs from run.json\'s)'), changed.flags.problems.join('; '));
  assert.equal(changed.target.messages.received, x.received, 'still read with its rules');
  fs.rmSync(path.join(dir, 'target.json'));
  const none = (await analyzeRun(dir)).summary;
  assert.match(none.flags.problems[0], /^target\.json: missing: no message can be matched/);
  assert.equal(none.target.messages.received, 0);
  assert.equal(none.target.messages.unmatched, x.unmatched + x.received + x.early + x.duplicated);
  assert.equal(none.validity.verdict, 'failed');
  assert.equal(none.validity.reasons[0].rule, 'nothing-received');
});

test('a run over TLS: summary.json says how (target.tls) with the subscribers\' handshakes summed from the engine\'s summary samples, the report marks insecure', async () => {
  const dir = path.join(scratchDir('pb-target-'), 'run');
  await makeTargetRun(dir, { perEngine: 2, engines: ['gen1'] });
  const file = path.join(dir, 'target.json');
  const t = JSON.parse(fs.readFileSync(file, 'utf8'));
  const secure = (u) => u.replace(/^http:/, 'https:');
  const text = JSON.stringify({ ...t, subscribe: { ...t.subscribe, url: secure(t.subscribe.url) }, tls: { insecure: true } });
  fs.writeFileSync(file, text);
  const run = JSON.parse(fs.readFileSync(path.join(dir, 'run.json'), 'utf8'));
  run.target.sha256 = require('node:crypto').createHash('sha256').update(text).digest('hex');
  fs.writeFileSync(path.join(dir, 'run.json'), JSON.stringify(run));
  // the engine's summary samples: two intervals with handshakes (3 at a mean of 1,000 µs, 1 at 5,000), one without
  fs.mkdirSync(path.join(dir, 'jmeter'), { recursive: true });
  const sample = (message) => `1700000001000,1000,request-summary,200,"${message}",t 1-1,true,,0,0,1,1,0,1,0,0,\n`;
  fs.writeFileSync(path.join(dir, 'jmeter', 'results.csv'), 'timeStamp,elapsed,label,responseCode,responseMessage,threadName,success,failureMessage,'
    + 'bytes,sentBytes,grpThreads,allThreads,Latency,SampleCount,ErrorCount,Connect,"responseFile"\n'
    + sample('answers 0, errors 0, open 3, records 0, opened 3, backoffs 0, tls handshakes 3 (resumed 1, mean 1000 us, max 2500 us)')
    + sample('answers 0, errors 0, open 3, records 9, opened 0, backoffs 0')
    + sample('answers 0, errors 0, open 4, records 9, opened 1, backoffs 0, tls handshakes 1 (resumed 1, mean 5000 us, max 5000 us), TLS: wrong host name: 2'));
  const { summary } = await analyzeAndWrite(dir);
  assert.deepEqual(summary.target.tls, { subscribe: true, publish: false, insecure: true, serverName: null, ca: null,
    handshakes: { count: 4, resumed: 2, meanUs: 2000, maxUs: 5000 } });
  assert.deepEqual(summary.flags.problems, [], 'the file as the run used it');
  const { writeReport } = require('../../charts/report');
  const html = fs.readFileSync(await writeReport(dir), 'utf8');
  assert.match(html, /<td>TLS<\/td><td class="num bad">subscribe; insecure: certificates and names not checked; 4 subscriber handshakes \(2 resumed\), mean 2 ms, max 5 ms<\/td>/);
});
