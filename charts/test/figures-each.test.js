'use strict';
// Every comparison figure of the study (5-28) and T1, T2 (charts/figures.js), drawn from one fixture sweep
// and checked for what it shows: which runs, which metric, which panels and lines, which values (issue #25
// item 3). The fixture sweep is generated here from a small table of permutations; every run's per-second
// series is a formula of the run's number and the metric (below), so a line's expected values follow from
// the runs the study's caption asks for, written out per figure, not from the code under test.
const test = require('node:test');
const assert = require('node:assert/strict');
const fs = require('node:fs');
const os = require('node:os');
const path = require('node:path');
const { FIGURES } = require('../figures');
const { buildFigure } = require('../figure-data');
const { loadRuns } = require('../collect-runs');

// The sweep: three servers; comet and long poll; no events, or 1, 10 and 30 s events; three connection levels
// (10, 20, 30 stand for the study's 1,000 ... 20,000: level 2 is 20, the largest 30); long polls without
// events time out after 5 or 10 s. Two repeats: node comet 1 s at 20 (the second disturbed) and tc6 poll 1 s
// at 10. One node-cluster run that no study figure may draw.
const SERVERS = ['node', 'tc6', 'tc7'];
const ROWS = [];
for (const server of SERVERS) {
  for (const threads of [10, 20]) ROWS.push({ server, type: 'comet', threads, interval: null, maxDuration: null });
  for (const threads of [10, 20]) for (const maxDuration of [5000, 10000]) ROWS.push({ server, type: 'poll', threads, interval: null, maxDuration });
  for (const type of ['comet', 'poll']) {
    for (const interval of [1000, 10000, 30000]) {
      for (const threads of [10, 20, 30]) ROWS.push({ server, type, threads, interval, maxDuration: type === 'poll' ? 180000 : null });
    }
  }
}
ROWS.push({ server: 'node', type: 'comet', threads: 20, interval: 1000, maxDuration: null, repeat: 2, verdict: 'disturbed' });
ROWS.push({ server: 'tc6', type: 'poll', threads: 10, interval: 1000, maxDuration: 180000, repeat: 2 });
ROWS.push({ server: 'node-cluster', type: 'comet', threads: 10, interval: 1000, maxDuration: null });
ROWS.forEach((r, i) => { r.k = i + 1; r.id = `r${String(r.k).padStart(3, '0')}-${r.server}-${r.type}-${r.threads}-${r.interval ?? r.maxDuration ?? 'none'}${r.repeat ? `-r${r.repeat}` : ''}`; });

// Per-second series: before the load start -1 (must be cut off), then 1000 x the metric's code + 10 x the
// run's number + the second since the load start, for 6 seconds. The load starts at second k mod 3.
const CODES = { cpu: 1, memory: 2, processCpu: 3, processRssMB: 4, connections: 5, responses: 6, responsesCumulative: 7,
  errors: 8, timeouts: 9, emitDuration: 10, requestsPerCycle: 11, tripMean: 12 };
const LENGTH = 6;
const loadStartOf = (row) => row.k % 3;
const valueAt = (row, data, t) => 1000 * CODES[data] + 10 * row.k + t;
// T2's point: messages per second and mean trip time, from the permutation alone (repeats agree)
const tripOf = (row) => ({ ratePerSecond: row.threads * (1000 / row.interval), meanMs: row.interval / 100 + row.threads });

function writeRun(dir, row) {
  const runDir = path.join(dir, 'runs', row.id);
  fs.mkdirSync(path.join(runDir, 'data'), { recursive: true });
  const start = loadStartOf(row);
  const series = Object.fromEntries(Object.keys(CODES).map((data) => [data,
    Array.from({ length: start + LENGTH }, (_, i) => (i < start ? -1 : valueAt(row, data, i - start)))]));
  const event = row.interval ? 'event1' : null;
  const verdict = row.verdict ?? 'valid';
  const summary = {
    id: row.id,
    parameters: { server: row.server, type: row.type, threads: row.threads, rampup: 1, duration: 5, event, interval: row.interval, maxDuration: row.maxDuration },
    loadStartSecond: start,
    steadyWindow: { fromSecond: start + 1, toSecond: start + LENGTH, seconds: LENGTH - 1 },
    tripTime: row.type === 'poll' && row.interval ? tripOf(row) : null,
    validity: { verdict, reasons: verdict === 'valid' ? [] : [{ rule: 'fixture', verdict, text: `fixture: ${verdict}` }], unknowns: [] },
  };
  fs.writeFileSync(path.join(runDir, 'data', 'summary.json'), JSON.stringify(summary));
  fs.writeFileSync(path.join(runDir, 'data', 'series.json'), JSON.stringify({ id: row.id, series }));
  fs.writeFileSync(path.join(runDir, 'run.json'), JSON.stringify({ id: row.id, server: row.server, type: row.type, threads: row.threads }));
}

// What each figure must show, from its caption (study section 5) and charts/README.md: the rows it draws,
// the per-second data set, what makes a panel and a line, and the panels and lines in order.
const NAME = { node: 'Node.js', tc6: 'Tomcat 6', tc7: 'Tomcat 7', comet: 'Comet', poll: 'Long Poll' };
const LEVELS = ['10 Requests', '20 Requests', '30 Requests'];
const INTERVALS = ['1 Second Emit Interval', '10 Second Emit Interval', '30 Second Emit Interval'];
const BY_SERVER = ['Node.js', 'Tomcat 6', 'Tomcat 7'];
const events = (r) => r.interval !== null;
const EXPECT = {
  5: { data: 'memory', pick: (r) => r.type === 'comet' && !events(r), panel: 'threads', line: ['server'], panels: LEVELS.slice(0, 2), lines: BY_SERVER },
  6: { data: 'cpu', pick: (r) => r.type === 'comet' && !events(r), panel: 'threads', line: ['server'], panels: LEVELS.slice(0, 2), lines: BY_SERVER },
  // 7, 8: "5,000 requests", the second level
  7: { data: 'cpu', pick: (r) => r.type === 'comet' && events(r) && r.threads === 20, panel: 'interval', line: ['server'], panels: INTERVALS, lines: BY_SERVER },
  8: { data: 'emitDuration', pick: (r) => r.type === 'comet' && events(r) && r.threads === 20, panel: 'interval', line: ['server'], panels: INTERVALS, lines: BY_SERVER },
  9: { data: 'emitDuration', pick: (r) => r.type === 'comet' && r.interval === 10000, panel: 'threads', line: ['server'], panels: LEVELS, lines: BY_SERVER },
  10: { data: 'cpu', pick: (r) => r.type === 'poll' && !events(r) && r.maxDuration === 10000, panel: 'threads', line: ['server'], panels: LEVELS.slice(0, 2), lines: BY_SERVER },
  11: { data: 'memory', pick: (r) => r.type === 'poll' && !events(r) && r.maxDuration === 10000, panel: 'threads', line: ['server'], panels: LEVELS.slice(0, 2), lines: BY_SERVER },
  12: { data: 'responsesCumulative', pick: (r) => r.type === 'poll' && !events(r) && r.maxDuration === 10000, panel: 'threads', line: ['server'], panels: LEVELS.slice(0, 2), lines: BY_SERVER },
  13: { data: 'cpu', pick: (r) => r.type === 'poll' && r.interval === 30000, panel: 'threads', line: ['server'], panels: LEVELS, lines: BY_SERVER },
  14: { data: 'memory', pick: (r) => r.type === 'poll' && r.interval === 30000, panel: 'threads', line: ['server'], panels: LEVELS, lines: BY_SERVER },
  15: { data: 'emitDuration', pick: (r) => r.type === 'poll' && r.interval === 30000, panel: 'threads', line: ['server'], panels: LEVELS, lines: BY_SERVER },
  16: { data: 'responsesCumulative', pick: (r) => r.type === 'poll' && r.interval === 10000, panel: 'threads', line: ['server'], panels: LEVELS, lines: BY_SERVER },
  17: { data: 'cpu', pick: (r) => r.server === 'node' && r.interval === 1000, panel: 'threads', line: ['type'], panels: LEVELS, lines: ['Comet', 'Long Poll'] },
  // 18: "@ 20,000 connections", the largest level, one chart
  18: { data: 'cpu', pick: (r) => r.server === 'node' && r.interval === 30000 && r.threads === 30, panel: null, line: ['type'], panels: [null], lines: ['Comet', 'Long Poll'] },
  19: { data: 'responsesCumulative', pick: (r) => r.server === 'node' && r.type === 'poll' && events(r), panel: 'interval', line: ['threads'], panels: INTERVALS, lines: LEVELS },
  20: { data: 'requestsPerCycle', pick: (r) => r.server === 'node' && r.type === 'poll' && [1000, 30000].includes(r.interval), panel: 'interval', line: ['threads'],
    panels: [INTERVALS[0], INTERVALS[2]], lines: LEVELS },
  21: { data: 'cpu', pick: (r) => r.server === 'tc6' && r.interval === 1000, panel: 'threads', line: ['type'], panels: LEVELS, lines: ['Comet', 'Long Poll'] },
  22: { data: 'emitDuration', pick: (r) => r.server === 'tc6' && r.interval === 1000, panel: 'threads', line: ['type'], panels: LEVELS, lines: ['Comet', 'Long Poll'] },
  23: { data: 'responsesCumulative', pick: (r) => r.server === 'tc6' && r.type === 'poll' && events(r), panel: 'interval', line: ['threads'], panels: INTERVALS, lines: LEVELS },
  24: { data: 'requestsPerCycle', pick: (r) => r.server === 'tc6' && r.type === 'poll' && [1000, 30000].includes(r.interval), panel: 'interval', line: ['threads'],
    panels: [INTERVALS[0], INTERVALS[2]], lines: LEVELS },
  25: { data: 'cpu', pick: (r) => r.server === 'tc7' && r.interval === 1000, panel: 'threads', line: ['type'], panels: LEVELS, lines: ['Comet', 'Long Poll'] },
  26: { data: 'emitDuration', pick: (r) => r.server === 'tc7' && r.interval === 1000, panel: 'threads', line: ['type'], panels: LEVELS, lines: ['Comet', 'Long Poll'] },
  27: { data: 'responsesCumulative', pick: (r) => r.server === 'tc7' && r.type === 'poll' && events(r), panel: 'interval', line: ['threads'], panels: INTERVALS, lines: LEVELS },
  28: { data: 'memory', pick: (r) => ['tc6', 'tc7'].includes(r.server) && r.interval === 30000, panel: 'threads', line: ['server', 'type'], panels: LEVELS,
    lines: ['Tomcat 6 Comet', 'Tomcat 6 Long Poll', 'Tomcat 7 Comet', 'Tomcat 7 Long Poll'] },
  T1: { data: 'tripMean', pick: (r) => r.type === 'poll' && r.interval === 1000, panel: 'threads', line: ['server'], panels: LEVELS, lines: BY_SERVER },
};

const label = (key, v) => (key === 'threads' ? `${v} Requests` : key === 'interval' ? `${v / 1000} Second Emit Interval` : NAME[v]);
const lineOf = (row, keys) => keys.map((k) => label(k, row[k])).join(' ');

// The expected lines of one panel: per line its rows, and the mean of their values second by second.
function expectedPanel(spec, panelLabel) {
  const rows = ROWS.filter((r) => spec.pick(r) && (spec.panel === null || label(spec.panel, r[spec.panel]) === panelLabel));
  const lines = spec.lines.map((name) => {
    const mine = rows.filter((r) => lineOf(r, spec.line) === name);
    const values = Array.from({ length: LENGTH }, (_, t) => mine.reduce((s, r) => s + valueAt(r, spec.data, t), 0) / mine.length);
    return { name: mine.length > 1 ? `${name} (mean of ${mine.length})` : name, ids: mine.map((r) => r.id).sort(), values,
      valid: mine.every((r) => !r.verdict) };
  });
  if (spec.data === 'memory') {
    // the study removed differences in initial memory: every line starts where the lowest starts
    const base = Math.min(...lines.map((l) => l.values[0]));
    for (const l of lines) { const shift = base - l.values[0]; l.values = l.values.map((v) => v + shift); }
  }
  return lines;
}

const idOf = (dir) => path.basename(dir);

let runs;
test.before(async () => {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'pb-figures-each-'));
  for (const row of ROWS) writeRun(dir, row);
  const loaded = await loadRuns([dir]);
  assert.deepEqual(loaded.problems, []);
  runs = loaded.runs;
  assert.equal(runs.length, ROWS.length);
});

const STUDY = FIGURES.filter((f) => (typeof f.number === 'number' && f.number >= 5 && f.number <= 28) || f.number === 'T1' || f.number === 'T2');

test('every study figure 5-28 and T1, T2 is defined, and each has its expectation here', () => {
  const numbers = STUDY.map((f) => f.number);
  assert.deepEqual(numbers, [...Array.from({ length: 24 }, (_, i) => i + 5), 'T1', 'T2']);
  for (const n of numbers) assert.ok(n === 'T2' || EXPECT[n], `figure ${n} has no expectation`);
});

for (const figure of STUDY.filter((f) => f.kind !== 'xy')) {
  test(`figure ${figure.number} (${figure.title}): its runs, metric, panels and lines`, () => {
    const spec = EXPECT[figure.number];
    const result = buildFigure(figure, runs);
    assert.deepEqual(result.panels.map((p) => p.label), spec.panels, 'panels');
    for (const p of result.panels) {
      const expected = expectedPanel(spec, p.label);
      assert.deepEqual(p.lines.map((l) => l.name), expected.map((l) => l.name), `lines of ${p.label}`);
      p.lines.forEach((line, i) => {
        const want = expected[i];
        assert.deepEqual(line.runs.map(idOf).sort(), want.ids, `${p.label} / ${line.name}: runs`);
        // the metric: 1000 x its code shows in every value; the load start cut; repeats averaged
        assert.deepEqual(line.values, want.values, `${p.label} / ${line.name}: values of ${spec.data}`);
        assert.equal(line.valid, want.valid, `${p.label} / ${line.name}: validity`);
        const element = p.chart.elements[i];
        assert.equal(element.text, want.name);
        assert.deepEqual(element.values, want.values.map((v) => Math.round(v * 100) / 100));
        assert.equal(element['line-style']?.style ?? 'solid', want.valid ? 'solid' : 'dash');
      });
    }
    const drawn = new Set(result.panels.flatMap((p) => p.lines.flatMap((l) => l.runs.map(idOf))));
    const wanted = new Set(ROWS.filter(spec.pick).map((r) => r.id));
    assert.deepEqual([...drawn].sort(), [...wanted].sort(), 'every run the caption asks for, and no other');
  });
}

test('figure T2 (throughput vs latency): one point per long-poll permutation with events, x its message rate, y its mean trip time', () => {
  const figure = STUDY.find((f) => f.number === 'T2');
  const result = buildFigure(figure, runs);
  assert.deepEqual(result.panels.map((p) => p.label), BY_SERVER);
  for (const p of result.panels) {
    const server = SERVERS[BY_SERVER.indexOf(p.label)];
    assert.deepEqual(p.lines.map((l) => l.name), LEVELS);
    for (const line of p.lines) {
      const threads = Number(line.name.split(' ')[0]);
      const rows = ROWS.filter((r) => r.server === server && r.type === 'poll' && r.interval && r.threads === threads);
      const points = [1000, 10000, 30000].map((interval) => ({ x: threads * (1000 / interval), y: interval / 100 + threads }))
        .sort((a, b) => a.x - b.x);
      assert.deepEqual(line.points.map(({ x, y }) => ({ x, y })), points, `${p.label} / ${line.name}`);
      assert.deepEqual(line.runs.map(idOf).sort(), rows.map((r) => r.id).sort());
      assert.deepEqual(p.chart.elements[p.lines.indexOf(line)].type, 'scatter_line');
    }
  }
  assert.equal(result.runs.length, ROWS.filter((r) => r.type === 'poll' && r.interval && SERVERS.includes(r.server)).length);
});
