'use strict';
// charts/report.js: one run's page (its charts embedded, offline), what it flags, and runs whose analysis' outputs are not whole.
const test = require('node:test');
const { describe } = test;
const assert = require('node:assert/strict');
const fs = require('node:fs');
const path = require('node:path');
const { spawnSync } = require('node:child_process');
const { copyRun, scratchDir } = require('../../analysis/test/helpers');

const REPORT = path.join(__dirname, '..', 'report.js');
const ANALYZE = path.join(__dirname, '..', '..', 'analysis', 'analyze.js');

function embeddedCharts(html) {
  const m = /<script>window\.PB_CHARTS = (.*);<\/script>/.exec(html);
  assert.ok(m, 'chart JSON embedded in the page');
  return JSON.parse(m[1]);
}

test('report.js prints the path of index.html, embeds every chart and works offline', () => {
  const run = copyRun();
  assert.equal(spawnSync(process.execPath, [ANALYZE, run]).status, 0);
  const r = spawnSync(process.execPath, [REPORT, run], { encoding: 'utf8' });
  assert.equal(r.status, 0, r.stderr);
  const index = path.join(run, 'report', 'index.html');
  assert.equal(r.stdout.trim(), index);
  const html = fs.readFileSync(index, 'utf8');
  const chartFiles = fs.readdirSync(path.join(run, 'charts')).filter((f) => f.endsWith('.json'));
  const charts = embeddedCharts(html);
  assert.equal(charts.length, chartFiles.length);
  for (const c of charts) {
    const id = c.canvas.replace(/^chart-/, '');
    assert.deepEqual(c.ofc, JSON.parse(fs.readFileSync(path.join(run, 'charts', `${id}.json`), 'utf8')));
    assert.match(html, new RegExp(`<canvas id="${c.canvas}"`));
  }
  for (const f of ['chart.umd.js', 'ofc-render.js']) assert.ok(fs.statSync(path.join(run, 'report', f)).size > 1000, f);
  assert.doesNotMatch(html, /(src|href)="(https?:)?\/\//);
  assert.doesNotMatch(fs.readFileSync(path.join(run, 'report', 'ofc-render.js'), 'utf8'), /https?:\/\//);
  // the fixture's damage is named on top
  assert.match(html, /class="flags"/);
  assert.match(html, /Truncated response archives[^<]*gen2\.tar\.gz/);
  assert.match(html, /Node\.js \u2013 Comet \u2013 With Events/);
  // the fixture's polls answered by an event: their trip times, as the summary has them
  const trip = JSON.parse(fs.readFileSync(path.join(run, 'data', 'summary.json'), 'utf8')).tripTime;
  const fmt = (v) => v.toLocaleString('en-GB', { maximumFractionDigits: 2 });
  assert.match(html, new RegExp(`Poll trip time: answers timed</td><td class="num">${trip.polls}<`));
  assert.ok(html.includes(`${fmt(trip.p50Ms)} / ${fmt(trip.p90Ms)} / ${fmt(trip.p99Ms)}`));
  assert.ok(trip.ratePerSecond > 0);
  const window = JSON.parse(fs.readFileSync(path.join(run, 'data', 'summary.json'), 'utf8')).steadyWindow;
  assert.ok(html.includes(`Event answers timed per second (steady window, ${window.seconds} s)</td><td class="num">${fmt(trip.ratePerSecond)}<`));
  assert.ok(charts.some((c) => c.canvas === 'chart-trip-time'));
});

test('a crashed, incomplete run with missing inputs says so in red; an unanalysed run is analysed first', () => {
  const dir = path.join(scratchDir(), 'crashed');
  fs.mkdirSync(dir);
  fs.writeFileSync(path.join(dir, 'run.json'), JSON.stringify({ id: 'crashed', server: 'tc7', type: 'poll', threads: 10, rampup: 0, duration: 2,
    status: 'incomplete', serverCrashed: true, notes: ['server died at 12 s'], startedAt: 1000, finishedAt: 3000 }));
  const r = spawnSync(process.execPath, [REPORT, dir], { encoding: 'utf8' });
  assert.equal(r.status, 0, r.stderr);
  const html = fs.readFileSync(path.join(dir, 'report', 'index.html'), 'utf8');
  assert.match(html, /The server under test crashed during the run/);
  assert.match(html, /The run is incomplete: server died at 12 s/);
  assert.match(html, /Missing inputs: sut\/vmstat\.log, sut\/pidstat\.log, sut\/memory\.log, sut\/meminfo\.txt, jmeter\/results\.csv, responses\/\*\.tar\.gz/);
  assert.match(html, /No charts: the run has no data/);
  assert.deepEqual(embeddedCharts(html), []);
});

test('a title with markup cannot break out of the page', () => {
  const { scriptJson, escapeHtml } = require('../page');
  assert.doesNotMatch(scriptJson({ t: '</script><script>alert(1)</script>' }), /<\/script>/);
  assert.equal(escapeHtml('<a href="x">'), '&lt;a href=&quot;x&quot;&gt;');
});

// Outputs that are not whole (issue #36 item 5, analysis/outputs.js): the report analyses the run again
// instead of crashing on them, and keeps what is whole where the run cannot be analysed again.
describe('a run whose analysis\' outputs are not whole', () => {
  const analysedRun = () => {
    const run = copyRun();
    assert.equal(spawnSync(process.execPath, [ANALYZE, run]).status, 0);
    return run;
  };
  const report = (run) => spawnSync(process.execPath, [REPORT, run], { encoding: 'utf8' });
  const chartsOf = (run) => JSON.parse(fs.readFileSync(path.join(run, 'data', 'summary.json'), 'utf8')).charts.written;

  test('a whole summary.json beside a 0-byte chart (a full disk under a writer without rename): analysed again, every chart drawn', () => {
    const run = analysedRun();
    fs.writeFileSync(path.join(run, 'charts', 'cpu.json'), '');
    const r = report(run);
    assert.equal(r.status, 0, r.stderr);
    assert.ok(fs.statSync(path.join(run, 'charts', 'cpu.json')).size > 100, 'cpu.json not written again');
    const html = fs.readFileSync(path.join(run, 'report', 'index.html'), 'utf8');
    assert.deepEqual(embeddedCharts(html).map((c) => c.canvas.replace(/^chart-/, '')).sort(), chartsOf(run).sort());
    assert.doesNotMatch(html, /outputs are not whole/);
  });

  test('an unparsable summary.json, a cut chart: analysed again', () => {
    for (const [file, bytes] of [['data/summary.json', '{"id": "cut'], ['charts/trip-time.json', '{"elements": [{"type": "li']]) {
      const run = analysedRun();
      fs.writeFileSync(path.join(run, file), bytes);
      const r = report(run);
      assert.equal(r.status, 0, `${file}: ${r.stderr}`);
      assert.doesNotThrow(() => JSON.parse(fs.readFileSync(path.join(run, file), 'utf8')), `${file} not written again`);
    }
  });

  test('raw archives deleted (--cleanup-raw): the summary kept, the 0-byte chart left out and named on the page', () => {
    const run = analysedRun();
    fs.writeFileSync(path.join(run, 'responses', 'REMOVED.txt'), 'deleted\n');
    fs.writeFileSync(path.join(run, 'charts', 'cpu.json'), '');
    const summary = fs.readFileSync(path.join(run, 'data', 'summary.json'));
    const r = report(run);
    assert.equal(r.status, 0, r.stderr);
    assert.deepEqual(fs.readFileSync(path.join(run, 'data', 'summary.json')), summary);
    const html = fs.readFileSync(path.join(run, 'report', 'index.html'), 'utf8');
    assert.match(html, /The analysis&#39; outputs are not whole: charts\/cpu\.json is empty \(0 bytes\); not analysed again: its raw response archives were deleted/);
    const drawn = embeddedCharts(html).map((c) => c.canvas);
    assert.equal(drawn.includes('chart-cpu'), false);
    assert.equal(drawn.length, chartsOf(run).length - 1);
  });

  test('an unreadable summary.json and nothing to analyse: one line, exit 1, no stack, not its bytes', () => {
    const dir = path.join(scratchDir(), 'summary-only');
    fs.mkdirSync(path.join(dir, 'data'), { recursive: true });
    fs.writeFileSync(path.join(dir, 'data', 'summary.json'), 'secret\u0000bytes');
    const r = report(dir);
    assert.equal(r.status, 1);
    assert.equal(r.stderr, `report: ${dir}: data/summary.json is not whole JSON (12 bytes, cut or damaged); not analysed again: `
      + 'nothing to analyse (no run.json, sut/, jmeter/ or responses/ files)\n');
    assert.equal(fs.existsSync(path.join(dir, 'report', 'index.html')), false);
  });
});

test('a run with thresholds: the banner names each with its value, a failed one as failed; junit.xml beside it', () => {
  const run = copyRun();
  const runJson = path.join(run, 'run.json');
  fs.writeFileSync(runJson, JSON.stringify({ ...JSON.parse(fs.readFileSync(runJson, 'utf8')), thresholds: ['trip.p99<=100000', 'trip.p50<0'] }));
  assert.equal(spawnSync(process.execPath, [ANALYZE, run]).status, 0);
  assert.equal(spawnSync(process.execPath, [REPORT, run]).status, 0);
  const html = fs.readFileSync(path.join(run, 'report', 'index.html'), 'utf8');
  assert.match(html, /<div class="verdict verdict-failed" id="thresholds" data-failed="1"><strong>Thresholds: 1 of 2 failed<\/strong>/);
  assert.match(html, /<strong>pass<\/strong> <code>trip\.p99&lt;=100000<\/code>: [0-9.]+ ms &lt;= 100000/);
  assert.match(html, /<strong>FAIL<\/strong> <code>trip\.p50&lt;0<\/code>: [0-9.]+ ms, wanted &lt; 0/);
  assert.match(fs.readFileSync(path.join(run, 'junit.xml'), 'utf8'), /<testsuites tests="2" failures="1">/);
});
