'use strict';
// bench/peers/table.js: the peers bench's table, median (min-max) per group and ratios to the engine's
// figure taken pair by pair within a repeat.
const test = require('node:test');
const assert = require('node:assert/strict');
const { spread, rows, render } = require('../peers/table');

const run = (repeat, generator, usPerMessage, extra = {}) => ({
  repeat, generator, transport: 'ws', connections: 1000, usPerMessage, heapKbPerConnection: 2,
  rssKbPerConnection: 4, openedPerSecond: 5000, tripP50Ms: 1, tripP99Ms: 3, cpuPercent: 2,
  serverUsPerMessage: 15, messagesPerSecond: 1000, ...extra,
});

test('spread: median (min-max), one value alone, "-" for none; non-numbers left out', () => {
  assert.equal(spread([3, 1, 2]), '2.00 (1.00-3.00)');
  assert.equal(spread([10, 20, 30, 40]), '25.0 (10.0-40.0)');
  assert.equal(spread([150, 250]), '200 (150-250)');
  assert.equal(spread([7]), '7.00');
  assert.equal(spread([null, undefined, NaN]), '-');
  assert.equal(spread([null, 4]), '4.00');
});

test('rows: ratios to the engine pair by pair within a repeat, not of the medians', () => {
  // engine 10, 20, 40 µs; gatling 30, 40, 40: ratios 3, 2, 1 (the medians' ratio would be 40/20 = 2 too,
  // so the spread tells them apart: 2.00 (1.00-3.00)).
  const runs = [
    run(1, 'engine', 10), run(1, 'gatling', 30),
    run(2, 'engine', 20), run(2, 'gatling', 40),
    run(3, 'engine', 40), run(3, 'gatling', 40),
  ];
  const [engine, gatling] = rows(runs);
  assert.equal(engine.generator, 'engine');
  assert.equal(engine.cells.usPerMessage, '20.0 (10.0-40.0)');
  assert.equal(engine.cells.usPerMessageRatio, undefined, 'no ratio of the engine to itself');
  assert.equal(gatling.runs, 3);
  assert.equal(gatling.cells.usPerMessageRatio, '2.00 (1.00-3.00)');
  assert.equal(gatling.cells.heapKbPerConnectionRatio, '1.00 (1.00-1.00)');
});

test('rows: a figure a generator does not report has no ratio; a repeat without the engine pairs with nothing', () => {
  const runs = [
    run(1, 'engine', 10), run(1, 'gatling-bare', 20, { tripP50Ms: null, tripP99Ms: null }),
    run(2, 'gatling-bare', 30, { tripP50Ms: null, tripP99Ms: null }),
  ];
  const bare = rows(runs).find((g) => g.generator === 'gatling-bare');
  assert.equal(bare.cells.tripP50Ms, '-');
  assert.equal(bare.cells.tripP50MsRatio, '-');
  assert.equal(bare.cells.usPerMessageRatio, '2.00', 'only repeat 1 has the engine');
  assert.equal(bare.cells.usPerMessage, '25.0 (20.0-30.0)');
});

test('render: one line per level, transport, pinning and generator, each ratio beside its figure', () => {
  const runs = [run(1, 'engine', 10), run(1, 'gatling', 25), run(1, 'engine', 12, { transport: 'sse' })];
  const lines = render(runs).split('\n');
  assert.equal(lines.length, 4);
  assert.match(lines[0], /^level +transport +pinned +generator +runs +net CPU µs\/msg +×engine +CPU µs\/msg +×engine +idle CPU % +heap KB\/conn/);
  // runs written before the idle baseline: no net CPU, no idle; before the pinning: "no"
  assert.match(lines[1], /^1000 +ws +no +engine +1 +- +1 +10\.0 +1 +- /);
  assert.match(lines[2], /^1000 +ws +no +gatling +1 +- +- +25\.0 +2\.50 +- /);
  assert.match(lines[3], /^1000 +sse +no +engine/);
});

test('rows: pinned and unpinned runs are separate groups, each paired with the engine of its own pinning', () => {
  const runs = [
    run(1, 'engine', 10, { pinned: true, netUsPerMessage: 8 }), run(1, 'jmeter', 30, { pinned: true, netUsPerMessage: 20 }),
    run(1, 'engine', 20, { netUsPerMessage: 16 }), run(1, 'jmeter', 30, { netUsPerMessage: 24 }),
  ];
  const groups = rows(runs);
  assert.equal(groups.length, 4);
  const pinnedJmeter = groups.find((g) => g.generator === 'jmeter' && g.pinned === 'yes');
  const freeJmeter = groups.find((g) => g.generator === 'jmeter' && g.pinned === 'no');
  assert.equal(pinnedJmeter.cells.usPerMessageRatio, '3.00');
  assert.equal(pinnedJmeter.cells.netUsPerMessageRatio, '2.50');
  assert.equal(freeJmeter.cells.usPerMessageRatio, '1.50');
  assert.equal(freeJmeter.cells.netUsPerMessageRatio, '1.50');
});

// bench/peers/gatling-stats.js: Gatling's figures of one request from its report's page.
const { figures } = require('../peers/gatling-stats');

const row = (title, total, ok, ko) => `<tr>
  <td class="title">${title}</td>
  <td class="total">${total}</td>
  <td class="ok">${ok}</td>
  <td class="ko">${ko}</td>
</tr>`;

test('gatling-stats: total count OK/KO and the 50th/99th percentiles of all requests; "-" and missing rows are null', () => {
  const page = [row('Total count', '2,010', '2,000', '10'), row('Mean count/s</abbr>', '40', '40', '0'),
    row('Min', '1', '1', '3'), row('50th percentile', '997', '997', '-'), row('99th percentile', '1034', '1033', '-')].join('\n');
  assert.deepEqual(figures(page), { ok: 2000, ko: 10, p50: 997, p99: 1034 });
  assert.deepEqual(figures(row('Total count', '5', '5', '0')), { ok: 5, ko: 0, p50: null, p99: null });
  assert.deepEqual(figures('<html></html>'), { ok: 0, ko: 0, p50: null, p99: null });
});

test('render --markdown: a header, its rule and one row per group, the same cells', () => {
  const md = render([run(1, 'engine', 10), run(1, 'gatling', 25)], { markdown: true }).split('\n');
  assert.equal(md.length, 4);
  assert.match(md[0], /^\| level \| transport \| pinned \| generator \| runs \| net CPU µs\/msg \| ×engine \| CPU µs\/msg \| ×engine \|/);
  assert.match(md[1], /^\| --- \| --- \|/);
  assert.match(md[3], /^\| 1000 \| ws \| no \| gatling \| 1 \| - \| - \| 25\.0 \| 2\.50 \|/);
});

// bench/peers/run-line.js: one run's line from what the bench measured.
const { line, windowMessages } = require('../peers/run-line');
const fixture = JSON.parse(require('node:fs').readFileSync(require('node:path').join(__dirname, 'fixtures', 'peers-measured.json'), 'utf8'));

test('run-line: messages are the emit cycles in the window x the last cycle\'s records', () => {
  assert.equal(windowMessages(fixture.statusBefore, fixture.statusAfter), 15 * 5000);
});

test('run-line: raw CPU over the window, idle CPU over its own window, net = raw less idle scaled to the window', () => {
  const l = line(fixture);
  // 300 ticks of 100 Hz over 15 s: 3 s CPU = 20% of a core, 40 µs per message of 75,000
  assert.equal(l.cpuPercent, 20);
  assert.equal(l.usPerMessage, 40);
  // idle: 15 ticks over 15 s = 1% of a core; net: 3 s - 0.15 s = 2.85 s, 38 µs/msg, 19% of a core
  assert.equal(l.idleCpuPercent, 1);
  assert.equal(l.netUsPerMessage, 38);
  assert.equal(l.netCpuPercent, 19);
  // the server: 450 ticks = 4.5 s, 60 µs/msg, 30% of a core
  assert.equal(l.serverUsPerMessage, 60);
  assert.equal(l.serverCpuPercent, 30);
  assert.equal(l.heapKbPerConnection, 2);
  assert.equal(l.rssKbPerConnection, 4);
  assert.equal(l.pinned, true);
  assert.equal(l.generatorCpus, '0');
  assert.equal(l.processes, 2);
  assert.equal(l.tripMeasures, 'arrival - created');
  assert.equal(l.received, 120000);
});

test('run-line: an idle window of another length is scaled to the window; no JVM, no heap; Gatling\'s p50 is a check wait', () => {
  const l = line({ ...fixture, generator: 'locust', idleNs: 7.5e9, idleTicks: 15, heap0: null, heap1: null });
  // 15 ticks over 7.5 s = 2% of a core; over the 15 s window 0.3 s: net 2.7 s = 36 µs/msg
  assert.equal(l.idleCpuPercent, 2);
  assert.equal(l.netUsPerMessage, 36);
  assert.equal(l.heapKbPerConnection, null);
  assert.equal(l.rssKbPerConnection, 4);
  assert.equal(line({ ...fixture, generator: 'gatling' }).tripMeasures, 'check wait');
  assert.equal(line({ ...fixture, generator: 'gatling-bare', report: {} }).tripMeasures, null);
  assert.equal(line({ ...fixture, generator: 'gatling-bare', report: {} }).received, null);
});
