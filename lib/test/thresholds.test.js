'use strict';
// lib/thresholds.js: the grammar (every bad threshold refused with why), evaluation over a built-in and a
// target summary (a figure not measured fails), and the JUnit XML a CI reads (checked by a parser).
const test = require('node:test');
const assert = require('node:assert/strict');
const { spawnSync } = require('node:child_process');
const path = require('node:path');
const { parseThreshold, evaluate, junitXml, ThresholdError } = require('../thresholds');

test('the grammar: metric, op, limit; bad ones refused with what is wrong', () => {
  assert.deepEqual(parseThreshold(' trip.p99 <= 250 '), { text: 'trip.p99 <= 250', metric: 'trip.p99', op: '<=', limit: 250 });
  assert.deepEqual(parseThreshold('received>=99.9'), { text: 'received>=99.9', metric: 'received', op: '>=', limit: 99.9 });
  assert.deepEqual(parseThreshold('verdict==valid'), { text: 'verdict==valid', metric: 'verdict', op: '==', limit: 'valid' });
  const bad = [['trip.p99', /expected <metric><op><limit>/], ['latency<10', /unknown metric 'latency'/],
    ['trip.p99<=fast', /must be a number \(ms\)/], ['verdict<=valid', /== or != only/], ['verdict==great', /one of valid/],
    ['trip.p99=<3', /expected/]];
  for (const [text, why] of bad) assert.throws(() => parseThreshold(text), (e) => e instanceof ThresholdError && why.test(e.message), text);
});

test('evaluation over a built-in summary and a target summary; not measured fails', () => {
  const builtin = { parameters: { type: 'sse' }, tripTime: { comet: { p50Ms: 4, p99Ms: 15.7, maxMs: 16 } },
    messages: { sse: { receivedPercent: 100, missed: 0 } }, totals: { errors: 2 }, peakConnections: 300, validity: { verdict: 'valid' } };
  const r = evaluate(['trip.p99<=20', 'trip.p99<15', 'received>=99.9', 'missed==0', 'errors==0', 'verdict==valid', 'publish.failed==0']
    .map(parseThreshold), builtin);
  assert.deepEqual(r.map((x) => x.pass), [true, false, true, true, false, true, false]);
  assert.equal(r[1].why, '15.7 ms, wanted < 15');
  assert.equal(r[6].why, 'not measured in this run');
  assert.equal(r[6].value, null);
  const poll = evaluate([parseThreshold('trip.p50<=5')], { parameters: { type: 'poll' }, tripTime: { p50Ms: 3 } });
  assert.equal(poll[0].value, 3, 'a poll run reads the polls\' trip time');
  const target = { target: { tripTime: { p99Ms: 120 }, messages: { deliveredPercent: 99.5, missed: 5 }, publish: { failed: 0 },
    subscriptions: { failed: 0, subscribersAcknowledged: 1000 } }, validity: { verdict: 'server-limited' } };
  const t = evaluate(['trip.p99<=250', 'received>=99.9', 'publish.failed==0', 'connections>=1000', 'verdict!=failed'].map(parseThreshold), target);
  assert.deepEqual(t.map((x) => x.pass), [true, false, true, true, true]);
});

test('junit.xml: one test case per threshold, failures counted, text escaped', () => {
  const results = evaluate(['trip.p99<=1', 'verdict==valid'].map(parseThreshold), { tripTime: { comet: { p99Ms: 2 } }, validity: { verdict: 'valid' } });
  const x = junitXml('run<1>&', results);
  assert.match(x, /^<\?xml version="1\.0" encoding="UTF-8"\?>\n<testsuites tests="2" failures="1">/);
  assert.match(x, /<testsuite name="pushbench run&lt;1&gt;&amp;" tests="2" failures="1"/);
  assert.match(x, /<testcase classname="pushbench\.thresholds" name="trip\.p99&lt;=1" time="0">\n {6}<failure message="2 ms, wanted &lt;= 1"/);
  assert.equal((x.match(/<testcase /g) ?? []).length, 2);
  // well-formed: every element closed in order (a small stack parser; no XML library is a dependency)
  const stack = [];
  for (const m of x.matchAll(/<(\/?)([a-z]+)[^>]*?(\/?)>/g)) {
    if (m[3]) continue;
    if (m[1]) assert.equal(stack.pop(), m[2]); else stack.push(m[2]);
  }
  assert.deepEqual(stack, []);
});

test('the CLI checks expressions: exit 2 naming the bad one', () => {
  const cli = path.join(__dirname, '..', 'thresholds.js');
  assert.equal(spawnSync(process.execPath, [cli, 'check', 'trip.p99<=250', 'verdict==valid']).status, 0);
  const r = spawnSync(process.execPath, [cli, 'check', 'trip.p99<=250', 'speed>1'], { encoding: 'utf8' });
  assert.equal(r.status, 2);
  assert.match(r.stderr, /unknown metric 'speed'/);
});

test('docs/thresholds.md lists every metric with its unit', () => {
  const { METRICS } = require('../thresholds');
  const doc = require('node:fs').readFileSync(path.join(__dirname, '..', '..', 'docs', 'thresholds.md'), 'utf8');
  for (const [name, m] of Object.entries(METRICS)) {
    assert.match(doc, new RegExp(`^\\| \`${name.replace('.', '\\.')}\` \\| ${m.unit ?? 'a word'} \\|`, 'm'), name);
  }
});
