'use strict';
// Messages missed in the verdict (issue #48 item 3; docs/validity.md): a built-in run of held streams that
// missed messages says so with their count and share, and a loss beyond MESSAGES_LOST_SHARE is a server sign
// that decides only where server signs do. And a target run's own rules (assessTargetValidity).
const test = require('node:test');
const assert = require('node:assert/strict');
const { assessValidity, assessTargetValidity, DEFAULTS: T } = require('../measure/validity');
const { steadyWindow, measureWorkload, heldMessages } = require('../measure/workload');

const fill = (n, v) => new Array(n).fill(v);

// An SSE run of 100 clients with 1 s events on one shared host; messages: the summary's messages.sse.
function sseRun({ expected = 10000, missed = 0, jvmCpu = 40, hostCpu = 40, requestsPerCycle = 100 } = {}) {
  const seconds = 65;
  const run = { server: 'node', type: 'sse', connections: 100, rampupS: 10, durationS: 60, event: 'event1', emitIntervalMs: 1000, maxDurationMs: null,
    hosts: { sut: { name: 'sut', address: '127.0.0.1' }, engines: [{ name: 'gen1', address: '127.0.0.1' }] } };
  const window = steadyWindow(run, 0, seconds);
  const cycles = [];
  for (let s = 0; s < 60; s++) cycles.push({ createdSecond: s + 0.3, requests: requestsPerCycle, duration: 5 });
  const series = { cpu: fill(seconds, hostCpu), steal: fill(seconds, 0), processCpu: fill(seconds, 10), connections: fill(seconds, 100),
    timeouts: fill(seconds, 0) };
  const engines = [{ name: 'gen1', address: '127.0.0.1', cores: 2, hostCpu: fill(seconds, hostCpu), steal: fill(seconds, 0),
    jvmCpu: fill(seconds, jvmCpu), gcPauseMs: fill(seconds, 0), unknown: [] }];
  const messages = { comet: { streams: 0, expected: 0, missed: 0 }, sse: { clients: 100, expected, missed, unique: expected - missed } };
  return measureWorkload({ run, window, series, cycles, client: { threads: 100, lastStartSecond: 10, gaps: { count: 0 }, missedCycles: 0 },
    engines, sutCores: 2, errors: { failed: 0, samples: 10000 }, thresholds: T, messages: heldMessages('sse', messages) });
}

test('heldMessages: the held streams\' messages of the run\'s type, none for polls or without any expected', () => {
  const m = { comet: { expected: 50, missed: 1 }, sse: { expected: 200, missed: 4 }, poll: { received: 3 } };
  assert.deepEqual(heldMessages('comet', m), { kind: 'the Comet streams', expected: 50, missed: 1, share: 0.02 });
  assert.deepEqual(heldMessages('sse', m), { kind: 'the SSE clients', expected: 200, missed: 4, share: 0.02 });
  assert.equal(heldMessages('ws', m), null);
  assert.equal(heldMessages('poll', m), null);
  assert.equal(heldMessages('comet', { comet: { expected: 0, missed: 0 } }), null);
});

test('no message missed: valid, no reason', () => {
  const v = assessValidity(sseRun(), { thresholds: T });
  assert.equal(v.verdict, 'valid');
  assert.deepEqual(v.reasons, []);
});

test('a loss under the bound stays valid, and is named with its count and share', () => {
  const v = assessValidity(sseRun({ missed: 5 }), { thresholds: T });
  assert.equal(v.verdict, 'valid');
  assert.deepEqual(v.reasons, [{ rule: 'messages-missed', verdict: 'valid',
    text: '5 of the 10,000 messages the SSE clients expected were missed (0.05%; the bound is 0.1%)' }]);
});

test('a loss beyond the bound is server-limited', () => {
  const v = assessValidity(sseRun({ missed: 11 }), { thresholds: T });
  assert.equal(v.verdict, 'server-limited');
  assert.deepEqual(v.reasons.map((r) => [r.rule, r.verdict]), [['messages-missed', 'server-limited']]);
  assert.match(v.reasons[0].text, /^11 of the 10,000 messages the SSE clients expected were missed \(0\.11%/);
});

test('a generator-bound run stays generator-bound; its loss is listed beside it as server-limited', () => {
  const v = assessValidity(sseRun({ missed: 500, requestsPerCycle: 50, hostCpu: 99, jvmCpu: 150 }), { thresholds: T });
  assert.equal(v.verdict, 'generator-bound');
  const loss = v.reasons.find((r) => r.rule === 'messages-missed');
  assert.equal(loss.verdict, 'server-limited');
  assert.match(loss.text, /^500 of the 10,000 messages/);
});

// The target figures (measure/target.js targetFigures' `target`) of a run, and the engines' workload.
function targetRun({ subscriptions = 100, acknowledged = 100, failed = 0, expected = 10000, received = expected, count = 1000, ok = count,
  share = 1, failures = [] } = {}) {
  return { subscriptions: { count: subscriptions, acknowledged, failed, reconnections: 0 },
    messages: { expected, received, missed: expected - received },
    publish: { count, ok, failed: count - ok, failures, askedPerSecond: 10, achievedPerSecond: 10 * share, share, windowSeconds: 100 } };
}
const engines = ({ hostCpu = 30, jvmCpu = 20 } = {}) => {
  const seconds = 40;
  const run = { server: 'target', type: 'sse', connections: 100, rampupS: 5, durationS: 30, hosts: { engines: [{ name: 'gen1', address: '127.0.0.1' }] } };
  const window = steadyWindow(run, 0, seconds);
  const m = measureWorkload({ run: { ...run, event: null }, window, series: {}, cycles: [], client: null, sutCores: null, errors: null, thresholds: T,
    engines: [{ name: 'gen1', address: '127.0.0.1', cores: 2, hostCpu: fill(seconds, hostCpu), steal: fill(seconds, 0), jvmCpu: fill(seconds, jvmCpu),
      gcPauseMs: fill(seconds, 0), unknown: [] }] });
  return { window: m.window, engines: m.engines, hosts: m.hosts.filter((h) => !h.roles.includes('sut')) };
};

test('target: a clean run is valid with full confidence; the server is said to be not monitored', () => {
  const v = assessTargetValidity(targetRun(), engines(), { thresholds: T });
  assert.equal(v.verdict, 'valid');
  assert.deepEqual(v.reasons, []);
  assert.equal(v.confidence, 'full');
  assert.deepEqual(v.unknowns, ['the server: not monitored (a target run)']);
});

test('target: failed when nothing was acknowledged, nothing received, or most subscriptions failed', () => {
  assert.equal(assessTargetValidity(targetRun({ acknowledged: 0, received: 0 }), engines()).reasons[0].rule, 'no-subscription');
  const none = assessTargetValidity(targetRun({ received: 0 }), engines());
  assert.equal(none.verdict, 'failed');
  assert.deepEqual(none.reasons.map((r) => r.rule), ['nothing-received', 'messages-missed']);
  assert.match(none.reasons[0].text, /while 1,000 publishes were answered 2xx/);
  const most = assessTargetValidity(targetRun({ subscriptions: 300, failed: 200 }), engines());
  assert.equal(most.verdict, 'failed');
  assert.match(most.reasons[0].text, /^200 of 300 subscriptions failed \(66\.7%\)/);
  assert.equal(assessTargetValidity(targetRun({ count: 0, ok: 0, expected: 0 }), engines()).reasons[0].rule, 'no-publish');
  const refused = assessTargetValidity(targetRun({ ok: 0, expected: 0, failures: [{ kind: 'HTTP 404', count: 1000 }] }), engines());
  assert.equal(refused.verdict, 'failed');
  assert.equal(refused.reasons[0].text, 'none of the 1,000 publishes was answered 2xx (HTTP 404 1,000): no message could be expected or timed');
});

test('target: generator-bound when the engines published short of the rate or their CPU saturated', () => {
  const short = assessTargetValidity(targetRun({ share: 0.8, expected: 8000, received: 7900 }), engines());
  assert.equal(short.verdict, 'generator-bound');
  assert.deepEqual(short.reasons.map((r) => [r.rule, r.verdict]), [['publish-short', 'generator-bound'], ['messages-missed', 'server-limited']]);
  assert.match(short.reasons[0].text, /published 8 of 10 messages\/s asked \(80%\)/);
  const cpu = assessTargetValidity(targetRun(), engines({ hostCpu: 99, jvmCpu: 150 }));
  assert.equal(cpu.verdict, 'generator-bound');
  assert.equal(cpu.reasons[0].rule, 'engine-cpu');
  // the host saturated by other processes (a target server beside the engine), the JVM at 20%: not the
  // generator's doing, and named
  const others = assessTargetValidity(targetRun(), engines({ hostCpu: 99, jvmCpu: 20 }));
  assert.equal(others.verdict, 'valid');
  assert.ok(others.unknowns.some((u) => /host CPU >= 95% in 25 of 25 steady seconds, mostly other processes' \(89% of the host against the JMeter JVM's 10%/.test(u)), JSON.stringify(others.unknowns));
});

test('target: server-limited beyond the loss bound or on failed publishes; a smaller loss is named, valid', () => {
  const lost = assessTargetValidity(targetRun({ received: 9980 }), engines());
  assert.equal(lost.verdict, 'server-limited');
  assert.equal(lost.reasons[0].text, '20 of the 10,000 messages the subscribers expected were missed (0.2%; the bound is 0.1%)');
  const failedPublishes = assessTargetValidity(targetRun({ ok: 990, failures: [{ kind: 'HTTP 503', count: 10 }] }), engines());
  assert.equal(failedPublishes.verdict, 'server-limited');
  assert.equal(failedPublishes.reasons[0].text, '10 of 1,000 publishes failed: HTTP 503 10');
  const small = assessTargetValidity(targetRun({ received: 9995 }), engines());
  assert.equal(small.verdict, 'valid');
  assert.deepEqual(small.reasons, [{ rule: 'messages-missed', verdict: 'valid',
    text: '5 of the 10,000 messages the subscribers expected were missed (0.05%; the bound is 0.1%)' }]);
});
