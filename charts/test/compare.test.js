'use strict';
// charts/compare.js and what it draws from: figure data, repeats averaged, validity styles, runs whose outputs are not whole.
const test = require('node:test');
const assert = require('node:assert/strict');
const fs = require('node:fs');
const path = require('node:path');
const { spawnSync } = require('node:child_process');
const { scratchDir } = require('../../analysis/test/helpers');
const { makeSweep, makeVerdictSweep, validityOf } = require('./sweep-fixture');
const { FIGURES, METRICS } = require('../figures');
const { averageSeries, alignStarts, resolveLevel, selectRuns, buildFigure } = require('../figure-data');

const COMPARE = path.join(__dirname, '..', 'compare.js');

test('figure definitions: the study\'s figures, each with a known metric and a caption', () => {
  const numbers = FIGURES.map((f) => f.number);
  for (const n of [5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 16, 17, 19, 20]) assert.ok(numbers.includes(n), `figure ${n}`);
  for (const f of FIGURES) {
    assert.ok(METRICS[f.metric], `${f.id} metric`);
    assert.match(f.title, / \u2013 /);
    assert.equal(new Set(FIGURES.map((x) => x.id)).size, FIGURES.length);
  }
});

test('repeats are averaged second by second; memory lines start together', () => {
  assert.deepEqual(averageSeries([[1, 2, null], [3, null, 5, 7]]), [2, 2, 5, 7]);
  const lines = alignStarts([{ values: [12, 14] }, { values: [null, 10, 11] }]);
  assert.deepEqual(lines.map((l) => l.values), [[10, 12], [null, 10, 11]]);
});

test('relative thread levels pick the n-th smallest thread count', () => {
  const runs = [1000, 5000, 20000, 5000].map((threads) => ({ params: { connections: threads, type: 'comet', events: true } }));
  assert.equal(resolveLevel('level:2', runs), 5000);
  assert.equal(resolveLevel('max', runs), 20000);
  assert.equal(resolveLevel('level:9', runs), null);
  assert.equal(selectRuns({ filter: { type: 'comet', connections: 'level:2' } }, runs).length, 2);
});

test('an xy figure (T2, throughput vs latency): one point per permutation, repeats averaged, in the order of x', () => {
  const run = (server, threads, interval, tripTime, type = 'poll') => ({ dir: `/r/${server}-${threads}-${interval}-${tripTime?.meanMs}`,
    params: { server, type, connections: threads, emitIntervalMs: interval, maxDurationMs: 180000, events: true, durationS: 600 },
    summary: { tripTime, validity: validityOf('valid') }, series: {} });
  const runs = [
    run('node', 1000, 1000, { meanMs: 20, ratePerSecond: 990 }),
    run('node', 1000, 1000, { meanMs: 30, ratePerSecond: 1010 }),   // a repeat
    run('node', 1000, 5000, { meanMs: 10, ratePerSecond: 200 }),
    run('node', 1000, 10000, null),                                  // no answer timed: left out
    run('node', 5000, 1000, { meanMs: 80, ratePerSecond: 4000 }),
    run('tc6', 1000, 1000, { meanMs: 50, ratePerSecond: 900 }),
    run('node', 1000, 1000, { meanMs: 1, ratePerSecond: 1 }, 'comet'),
  ];
  const t2 = FIGURES.find((f) => f.number === 'T2');
  const result = buildFigure(t2, runs);
  assert.deepEqual(result.panels.map((p) => p.label), ['Node.js', 'Tomcat 6']);
  const node = result.panels[0];
  assert.deepEqual(node.lines.map((l) => l.name), ['1,000 Requests', '5,000 Requests']);
  assert.deepEqual(node.lines[0].points.map(({ x, y }) => ({ x, y })), [{ x: 200, y: 10 }, { x: 1000, y: 25 }]);
  assert.equal(node.lines[0].runs.length, 3);
  assert.equal(result.runs.length, 5);   // the runs drawn: not the one without a trip time, nor the comet run
  const elements = node.chart.elements;
  assert.deepEqual(elements.map((e) => e.type), ['scatter_line', 'scatter_line']);
  assert.deepEqual(elements[0].values, [{ x: 200, y: 10 }, { x: 1000, y: 25 }]);
  assert.ok(node.chart.x_axis.max >= 4000 && node.chart.y_axis.max >= 80);
  // no run with a trip time: nothing drawn
  assert.deepEqual(buildFigure(t2, [runs[3]]).panels, []);
  assert.deepEqual(buildFigure(t2, [runs[3]]).runs, []);
});

// Runs of one figure with the given verdicts (null: no validity in the summary).
function verdictRuns(specs) {
  return specs.map(({ server = 'node', type = 'poll', threads, interval = 1000, verdict, rate = threads, repeat = 1 }) => ({
    dir: `/r/${server}-${type}-${threads}-${interval}-${repeat}`,
    params: { server, type, connections: threads, emitIntervalMs: interval, maxDurationMs: 180000, events: true, durationS: 600 },
    summary: { tripTime: { meanMs: interval / 100, ratePerSecond: rate * (1000 / interval) }, ...(verdict ? { validity: validityOf(verdict) } : {}) },
    series: { cpu: [1, 2, 3] },
  }));
}

test('a line built from a run that is not valid is dashed with hollow dots; repeats: any one not valid makes it so', () => {
  const fig17 = FIGURES.find((f) => f.number === 17);
  const runs = verdictRuns([
    { type: 'comet', threads: 10, verdict: 'valid' },
    { type: 'poll', threads: 10, verdict: 'generator-bound' },
    { type: 'comet', threads: 20, verdict: 'valid' },
    { type: 'comet', threads: 20, verdict: 'disturbed', repeat: 2 },
    { type: 'poll', threads: 20, verdict: null },          // analysed before verdicts: unknown
  ]);
  const result = buildFigure(fig17, runs);
  const [small, large] = result.panels.map((p) => p.chart.elements);
  assert.deepEqual(small.map((e) => [e.text, e['line-style'] ?? null, e['dot-style'].type]), [
    ['Comet', null, 'dot'],
    ['Long Poll', { style: 'dash', on: 6, off: 4 }, 'hollow-dot'],
  ]);
  assert.deepEqual(large.map((e) => [e.text, e['line-style']?.style ?? null, e['dot-style'].type]), [
    ['Comet (mean of 2)', 'dash', 'hollow-dot'],
    ['Long Poll', 'dash', 'hollow-dot'],
  ]);
  assert.equal(result.notValid, 3);
  assert.equal(result.validityNote, '3 of 5 runs not valid: 1 generator-bound, 1 disturbed, 1 unknown');
  assert.equal(buildFigure(fig17, [runs[0], runs[2]]).validityNote, 'all 2 runs valid');
});

test('an xy figure: a point built from a run that is not valid is hollow; a line of only such points dashed', () => {
  const t2 = FIGURES.find((f) => f.number === 'T2');
  const runs = verdictRuns([
    { threads: 10, interval: 1000, verdict: 'valid' },
    { threads: 10, interval: 5000, verdict: 'server-limited' },
    { threads: 10, interval: 10000, verdict: 'valid' },
    { threads: 10, interval: 10000, verdict: 'generator-bound', repeat: 2 },   // a repeat not valid: the point is not
    { threads: 20, interval: 1000, verdict: 'disturbed' },
  ]);
  const result = buildFigure(t2, runs);
  const [ten, twenty] = result.panels[0].chart.elements;
  // in the order of x: 10,000 ms (1/s), 5,000 ms (2/s), 1,000 ms (10/s)
  assert.deepEqual(ten.values, [{ x: 1, y: 100, type: 'hollow-dot' }, { x: 2, y: 50, type: 'hollow-dot' }, { x: 10, y: 10 }]);
  assert.equal(ten['line-style'], undefined);
  assert.equal(ten['dot-style'].type, 'dot');
  assert.deepEqual(twenty.values, [{ x: 20, y: 10, type: 'hollow-dot' }]);
  assert.deepEqual(twenty['line-style'], { style: 'dash', on: 6, off: 4 });
  assert.equal(result.validityNote, '3 of 5 runs not valid: 1 generator-bound, 1 disturbed, 1 server-limited');
});

test('compare.js over a sweep with every verdict: OFC2 styles per run, each figure counts its runs not valid', async () => {
  const base = scratchDir();
  const runDirs = await makeVerdictSweep(path.join(base, 'sweep'));
  const out = path.join(base, 'compare');
  const r = spawnSync(process.execPath, [COMPARE, out, path.join(base, 'sweep')], { encoding: 'utf8' });
  assert.equal(r.status, 0, r.stderr);
  const chart = (name) => JSON.parse(fs.readFileSync(path.join(out, 'charts', name), 'utf8'));
  const styles = (c) => c.elements.map((e) => [e.text, e['line-style']?.style ?? 'solid', e['dot-style'].type]);
  // figure 17, Node.js comet vs long poll at 1 s: 3 threads (comet valid, poll generator-bound), 6 threads
  // (comet valid + disturbed repeat, poll server-limited)
  assert.deepEqual(styles(chart('fig17-1.json')), [['Comet', 'solid', 'dot'], ['Long Poll', 'dash', 'hollow-dot']]);
  assert.deepEqual(styles(chart('fig17-2.json')), [['Comet (mean of 2)', 'dash', 'hollow-dot'], ['Long Poll', 'dash', 'hollow-dot']]);
  const note17 = '3 of 5 runs not valid: 1 generator-bound, 1 disturbed, 1 server-limited';
  const fig17 = fs.readFileSync(path.join(out, 'fig17.html'), 'utf8');
  assert.ok(fig17.includes(`<header><h1>Figure 17: `) && fig17.includes(`one chart per connection level; ${note17}</p></header>`), 'in the subtitle');
  assert.match(fig17, new RegExp(`<p class="validity-note bad">${note17}`));
  assert.match(fig17, /<span class="bad" title="fixture: marked generator-bound">generator-bound<\/span>/);
  // T2, throughput vs latency (long polls with events): 3 requests one generator-bound point (hollow, its
  // line dashed); 6 requests the valid 5 s point solid, the server-limited 1 s point hollow
  const t2 = chart('trip02-1.json');
  assert.deepEqual(t2.elements.map((e) => [e.text, e['line-style']?.style ?? 'solid', e.values.map((v) => v.type ?? 'dot')]),
    [['3 Requests', 'dash', ['hollow-dot']], ['6 Requests', 'solid', ['dot', 'hollow-dot']]]);
  // figure 21 (Tomcat 6 at 1 s): the one run without a verdict counts as unknown
  assert.deepEqual(styles(chart('fig21-1.json')), [['Comet', 'dash', 'hollow-dot']]);
  assert.match(fs.readFileSync(path.join(out, 'fig21.html'), 'utf8'), /1 of 1 run not valid: 1 unknown/);
  // the index: the note beside each figure, and each run's verdict in the permutation table
  const index = fs.readFileSync(path.join(out, 'index.html'), 'utf8');
  assert.ok(index.includes(`<span class="bad">${note17}</span>`));
  assert.match(index, /<td class="num">T2<\/td><td><a href="trip02.html">[^<]*<\/a><\/td><td class="num">3<\/td><td><span class="bad">2 of 3 runs not valid: 1 generator-bound, 1 server-limited<\/span>/);
  for (const v of ['valid', 'generator-bound', 'disturbed', 'server-limited', 'unknown']) assert.ok(index.includes(`>${v}</span>`), v);
  assert.equal(runDirs.length, 7);
});

test('compare.js over a sweep dir: figures, averaged repeats, "no runs", links to every report', () => {
  const base = scratchDir();
  const runDirs = makeSweep(path.join(base, 'sweep'));
  const out = path.join(base, 'compare');
  const r = spawnSync(process.execPath, [COMPARE, out, path.join(base, 'sweep')], { encoding: 'utf8' });
  assert.equal(r.status, 0, r.stderr);
  assert.match(r.stdout, /^7 runs, \d+ of \d+ figures drawn/);
  const index = fs.readFileSync(path.join(out, 'index.html'), 'utf8');
  for (const dir of runDirs) {
    const href = path.relative(out, path.join(dir, 'report', 'index.html'));
    assert.ok(index.includes(`href="${href}"`), `link to ${href}`);
    assert.ok(fs.existsSync(path.join(dir, 'report', 'index.html')));
  }
  assert.match(index, /Long Poll \u2013 No Events \u2013 10 Second Request Duration \u2013 CPU Usage<\/td><td class="num"><span class="none">no runs/);
  assert.match(index, /href="fig17.html"/);
  // figure 17: Node.js comet vs poll at 1 s, one chart per thread level; the 6-thread comet line averages two runs
  const fig17 = fs.readFileSync(path.join(out, 'fig17.html'), 'utf8');
  assert.match(fig17, /Comet \(mean of 2\)/);
  const panels = fs.readdirSync(path.join(out, 'charts')).filter((f) => f.startsWith('fig17-'));
  assert.equal(panels.length, 2);
  const p1 = JSON.parse(fs.readFileSync(path.join(out, 'charts', 'fig17-1.json'), 'utf8'));
  assert.deepEqual(p1.elements.map((e) => e.text), ['Comet', 'Long Poll']);
  const cpu = JSON.parse(fs.readFileSync(path.join(runDirs[0], 'data', 'series.json'), 'utf8')).series.cpu;
  const loadStart = JSON.parse(fs.readFileSync(path.join(runDirs[0], 'data', 'summary.json'), 'utf8')).loadStartSecond;
  assert.deepEqual(p1.elements[0].values, cpu.slice(loadStart));
  // figure 5 (comet, no events): only the run without an event
  const fig5 = fs.readFileSync(path.join(out, 'fig05.html'), 'utf8');
  assert.match(fig5, /run7-tc6-comet-3/);
  assert.doesNotMatch(fig5, /run1-node-comet-3/);
  // figure T1 (beyond the study: CHIRON's trip time): the one long-poll run with an event, its mean trip time
  const t1 = JSON.parse(fs.readFileSync(path.join(out, 'charts', 'trip01-1.json'), 'utf8'));
  assert.deepEqual(t1.elements.map((e) => e.text), ['Node.js']);
  const pollRun = runDirs[3];
  const trip = JSON.parse(fs.readFileSync(path.join(pollRun, 'data', 'series.json'), 'utf8')).series.tripMean;
  const pollStart = JSON.parse(fs.readFileSync(path.join(pollRun, 'data', 'summary.json'), 'utf8')).loadStartSecond;
  assert.ok(trip.some((v) => v !== null));
  assert.deepEqual(t1.elements[0].values, trip.slice(pollStart));
  assert.match(index, /<td class="num">T1<\/td><td><a href="trip01.html">/);
  // figure T2 (beyond the study: CometD's throughput vs latency): that run's message rate and mean trip time
  const t2 = JSON.parse(fs.readFileSync(path.join(out, 'charts', 'trip02-1.json'), 'utf8'));
  const pollSummary = JSON.parse(fs.readFileSync(path.join(pollRun, 'data', 'summary.json'), 'utf8'));
  assert.ok(pollSummary.tripTime.ratePerSecond > 0);
  assert.deepEqual(t2.elements.map((e) => [e.type, e.text]), [['scatter_line', '3 Requests']]);
  // (hollow: these fixture runs carry no validity verdict, so they count as unknown, i.e. not valid)
  assert.deepEqual(t2.elements[0].values, [{ x: pollSummary.tripTime.ratePerSecond, y: pollSummary.tripTime.meanMs, type: 'hollow-dot' }]);
  assert.match(index, /<td class="num">T2<\/td><td><a href="trip02.html">/);
  // the index table shows the two repeats as one permutation
  assert.match(index, /<td class="num">2<\/td>/);
});

test('compare.js with no runs exits 1; bad usage 2', () => {
  const base = scratchDir();
  assert.equal(spawnSync(process.execPath, [COMPARE, path.join(base, 'o'), base]).status, 1);
  assert.equal(spawnSync(process.execPath, [COMPARE]).status, 2);
});

test('every server type the sweep knows has a colour of its own in every figure', () => {
  const { SERVER_COLOURS } = require('../figure-data');
  const { SERVERS, EXTENDED_SERVERS } = require('../../sweep/permutations');
  const all = [...SERVERS, ...EXTENDED_SERVERS];
  for (const s of all) assert.ok(SERVER_COLOURS[s], `${s} has no colour`);
  assert.equal(new Set(all.map((s) => SERVER_COLOURS[s])).size, all.length);
});

// issue #36 item 5: a run with a summary.json is not taken as analysed when its other outputs are not whole.
test('the comparison analyses again a run whose series.json is cut, writes its report again; one it cannot is left out with the reason', async () => {
  const { writeComparison } = require('../compare');
  const { analyzeAndWrite } = require('../../analysis/run-analysis');
  const { copyRun } = require('../../analysis/test/helpers');
  const base = scratchDir();
  const [cut, removed] = ['cut', 'removed'].map((n) => copyRun(path.join(base, 'runs', n)));
  for (const run of [cut, removed]) {
    await analyzeAndWrite(run);
    fs.truncateSync(path.join(run, 'data', 'series.json'), 20);
    fs.mkdirSync(path.join(run, 'report'));
    fs.writeFileSync(path.join(run, 'report', 'index.html'), 'the report of the outputs before');
  }
  fs.writeFileSync(path.join(removed, 'responses', 'REMOVED.txt'), 'deleted\n');
  const { runs, problems } = await writeComparison(path.join(base, 'out'), [path.join(base, 'runs')], []);
  assert.deepEqual(runs.map((r) => [path.basename(r.dir), r.reanalysed]), [['cut', true]]);
  assert.ok(JSON.parse(fs.readFileSync(path.join(cut, 'data', 'series.json'), 'utf8')).series.cpu.length > 0);
  assert.match(fs.readFileSync(path.join(cut, 'report', 'index.html'), 'utf8'), /<!doctype html>/);
  assert.deepEqual(problems, [{ dir: removed, problem: 'data/series.json is not whole JSON (20 bytes, cut or damaged); '
    + 'not analysed again: its raw response archives were deleted (responses/REMOVED.txt)' }]);
  assert.match(fs.readFileSync(path.join(base, 'out', 'index.html'), 'utf8'), /Runs left out/);
});
