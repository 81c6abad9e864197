'use strict';
// docs/transports (issue #38 item 5): the figures of charts/transport-metrics.js on runs whose numbers are
// known, the committed page rebuilt byte for byte from its committed data/runs.json, what the page says of
// runs that are not valid, and the page opened in headless Chromium (no console error, every chart drawn).
const test = require('node:test');
const assert = require('node:assert/strict');
const fs = require('node:fs');
const os = require('node:os');
const path = require('node:path');
const { spawnSync } = require('node:child_process');
const { transportValue, rssBeforeLoad } = require('../transport-metrics');
const { render } = require('../transports');
const { assertPageDrawn } = require('./browser');

const ROOT = path.join(__dirname, '..', '..');
const DOCS = path.join(ROOT, 'docs', 'transports');
const SCRIPT = path.join(__dirname, '..', 'transports.js');
const SHOTS = path.join(process.env.PB_BUILD || path.join(ROOT, 'build'), 'screenshots');

// A run of 40 s: load from second 5, steady window 10-40 (warm from 20), the server at 25% of a core from
// second 20, 2,000 messages/s; resident memory 60 MB before the load, 80 MB at most in the window.
function knownRun(type, over = {}) {
  const seconds = 45;
  const cpu = Array.from({ length: seconds }, (_, s) => (s < 20 ? 90 : 25));
  const rss = Array.from({ length: seconds }, (_, s) => (s < 5 ? 60 : s < 30 ? 70 : 80));
  rss[3] = null;   // a second pidstat missed
  const trip = { p50Ms: 3, p99Ms: 12, ratePerSecond: 2000 };
  return {
    params: { server: 'node', type, connections: 2000, ...over.params },
    series: { processCpu: cpu, processRssMB: rss },
    summary: {
      loadStartSecond: 5, steadyWindow: { fromSecond: 10, toSecond: 40, seconds: 30 },
      tripTime: type === 'poll' || type === 'pull' ? trip : { p50Ms: 99, comet: trip },
      messages: { [type]: { receivedPercent: 99.5, missed: 7 } },
      network: { perMessage: { segments: 2.5, bytes: 400 } },
    },
  };
}

test('the figures of one run: rate, trip, CPU per message and memory per connection from known numbers', () => {
  for (const type of ['comet', 'sse', 'ws', 'poll', 'pull']) {
    const run = knownRun(type);
    assert.equal(transportValue('messagesPerSecond', run), 2000, type);
    assert.equal(transportValue('tripP50Ms', run), 3, `${type}: a held stream's trip is its stamped records', a poll's its answers'`);
    assert.equal(transportValue('tripP99Ms', run), 12, type);
    assert.equal(transportValue('receivedPercent', run), 99.5, type);
    assert.equal(transportValue('serverCpu', run), 25, `${type}: the warm window only (the ramp's 90% left out)`);
    // 25% of a core = 250,000 µs of CPU per second, over 2,000 messages per second
    assert.equal(transportValue('cpuPerMessageUs', run), 125, type);
    // (80 - 60) MB over 2,000 connections
    assert.equal(transportValue('memoryPerConnectionKB', run), (20 * 1024) / 2000, type);
    assert.equal(transportValue('segmentsPerMessage', run), 2.5, type);
  }
});

test('figures without their inputs are none, never a number made up', () => {
  const run = knownRun('sse');
  run.summary.tripTime.comet.ratePerSecond = 0;
  assert.equal(transportValue('cpuPerMessageUs', run), null, 'no messages: no cost per message');
  delete run.summary.messages;
  assert.equal(transportValue('receivedPercent', run), null);
  const early = knownRun('comet');
  early.summary.loadStartSecond = 0;
  assert.equal(rssBeforeLoad(early), null, 'no second before the load');
  assert.equal(transportValue('memoryPerConnectionKB', early), null);
  assert.equal(rssBeforeLoad(knownRun('comet')), 60, 'the last second with a value before the load');
  assert.throws(() => transportValue('nope', run), /unknown transport metric nope/);
});

function record(over) {
  return { id: 'r', server: 'node', type: 'comet', connections: 1000, emitIntervalMs: 1000, maxDurationMs: null, pullIntervalMs: null,
    durationS: 40, verdict: 'valid', reasons: [], provenance: null,
    figures: { messagesPerSecond: 1000, tripP50Ms: 2, tripP99Ms: 9, receivedPercent: 100, missed: 0, serverCpu: 10, cpuPerMessageUs: 100,
      memoryPerConnectionKB: 3, segmentsPerMessage: 2, bytesPerMessage: 300 }, ...over };
}

test('the page: a cell averages the valid runs, a permutation without one shows its verdict and reason, the best valid rate per transport', () => {
  const out = fs.mkdtempSync(path.join(os.tmpdir(), 'pb-transports-'));
  const fig = (over) => ({ ...record().figures, ...over });
  const records = [
    record({ id: 'a', figures: fig({ tripP99Ms: 8 }) }),
    record({ id: 'b', figures: fig({ tripP99Ms: 10 }) }),
    record({ id: 'c', verdict: 'disturbed', reasons: ['host busy'], figures: fig({ tripP99Ms: 500 }) }),
    record({ id: 'd', type: 'pull', connections: 5000, verdict: 'server-limited', reasons: ['server CPU 100%'], figures: fig({ messagesPerSecond: 4000 }) }),
    record({ id: 'e', type: 'ws', connections: 5000, figures: fig({ messagesPerSecond: 5000 }) }),
  ];
  const html = fs.readFileSync(render(out, records), 'utf8');
  assert.match(html, /<td class="num">9 <span class="none">\(8\u201310\)<\/span><\/td>/, 'the disturbed run left out of the mean');
  assert.match(html, /<span class="bad" title="server CPU 100%">server-limited<\/span>/);
  assert.match(html, /<td>Pull<\/td><td class="num">\u2013<\/td><td class="none">no valid run<\/td>/);
  assert.match(html, /<td>WebSocket<\/td><td class="num">5,000<\/td><td>5,000 connections \(e\)<\/td>/);
  for (const key of ['cpuPerMessageUs', 'tripP99Ms', 'memoryPerConnectionKB', 'bytesPerMessage']) {
    assert.ok(fs.existsSync(path.join(out, 'charts', `node-${key}.json`)), key);
  }
});

test('the committed page rebuilds identically from its committed data (golden)', () => {
  const out = fs.mkdtempSync(path.join(os.tmpdir(), 'pb-transports-'));
  fs.mkdirSync(path.join(out, 'data'));
  fs.copyFileSync(path.join(DOCS, 'data', 'runs.json'), path.join(out, 'data', 'runs.json'));
  const r = spawnSync(process.execPath, [SCRIPT, '--rebuild', out], { encoding: 'utf8' });
  assert.equal(r.status, 0, r.stderr);
  for (const f of ['index.html', ...fs.readdirSync(path.join(DOCS, 'charts')).map((c) => `charts/${c}`)]) {
    assert.ok(fs.readFileSync(path.join(out, f)).equals(fs.readFileSync(path.join(DOCS, f))), `${f} differs: rebuild with node charts/transports.js --rebuild docs/transports`);
  }
  const { runs } = JSON.parse(fs.readFileSync(path.join(DOCS, 'data', 'runs.json'), 'utf8'));
  assert.deepEqual([...new Set(runs.map((x) => x.type))].sort(), ['comet', 'poll', 'pull', 'sse', 'ws'], 'all five transports have runs');
});

test('usage errors exit 2', () => {
  for (const args of [[], ['only-out'], ['--rebuild'], ['out', '--nope']]) {
    const r = spawnSync(process.execPath, [SCRIPT, ...args], { encoding: 'utf8' });
    assert.equal(r.status, 2, args.join(' '));
    assert.match(r.stderr, /^usage: node charts\/transports\.js/);
  }
});

test('the committed page opens from file:// with every chart drawn and no console error', async () => {
  const page = path.join(DOCS, 'index.html');
  const expected = [...fs.readFileSync(page, 'utf8').matchAll(/<canvas id="([^"]+)">/g)].map((m) => m[1]);
  assert.ok(expected.length >= 8, 'four charts per server, two servers at least');
  await assertPageDrawn(page, expected, path.join(SHOTS, 'transports.png'));
});
