'use strict';
// docs/study's statistics and verdict rules (charts/study-stats.js, study-verdict.js; issue #25): the 95%
// intervals against hand-computed values, each outcome of a comparison, and the verdicts checks and
// findings get from runs (valid runs only when there are enough, scale, load kept up, crashes).
const test = require('node:test');
const assert = require('node:assert/strict');
const { t975, describe, welch, band } = require('../study-stats');
const { judge, judgeThreshold, checkVerdict, findingVerdict, evaluateCheck, evaluateFinding, usableRuns } = require('../study-verdict');
const { FINDINGS } = require('../study-findings');
const { STUDY_METRICS } = require('../study-metrics');

const close = (a, b, eps = 1e-3) => assert.ok(Math.abs(a - b) < eps, `${a} != ${b}`);

test('statistics: mean, 95% interval (t, n-1), coefficient of variation, Welch interval of a difference', () => {
  assert.equal(t975(2), 4.303);
  assert.equal(t975(4.9), 2.776);        // a fractional df rounds down: the wider interval
  assert.equal(t975(45), 2.021);
  assert.equal(t975(0), null);
  const d = describe([1, 2, 3, null]);
  assert.equal(d.n, 3);
  assert.equal(d.mean, 2);
  assert.equal(d.sd, 1);
  close(d.low, 2 - 4.303 / Math.sqrt(3));   // 2 - 2.484
  close(d.high, 2 + 4.303 / Math.sqrt(3));
  assert.equal(d.cv, 0.5);
  assert.deepEqual(describe([7]), { n: 1, mean: 7, sd: null, low: null, high: null, cv: null });
  // equal variances 1 and n 3: df 4, se sqrt(2/3), t 2.776
  const w = welch([1, 2, 3], [4, 5, 6]);
  assert.equal(w.diff, -3);
  close(w.df, 4);
  close(w.low, -3 - 2.776 * Math.sqrt(2 / 3));
  close(w.high, -3 + 2.776 * Math.sqrt(2 / 3));
  assert.equal(welch([1], [2, 3]), null);
  assert.deepEqual(welch([5, 5], [3, 3]), { diff: 2, low: 2, high: 2, df: 2 });
  const b = band([[1, 3, 5], [3, 5], [2]]);
  assert.equal(b.low.length, 3);
  close(b.low[0], 2 - 4.303 / Math.sqrt(3));
  close(b.high[1], 4 + 12.706 * Math.sqrt(2) / Math.sqrt(2));
  assert.equal(b.low[2], null, 'one run: no band');
});

test('judge: holds beyond noise, reversed beyond noise, within noise, too few', () => {
  assert.equal(judge([10, 11, 12], [1, 2, 3], 'greater').outcome, 'holds');
  assert.equal(judge([10, 11, 12], [1, 2, 3], 'less').outcome, 'reversed');
  assert.equal(judge([1, 5, 9], [2, 4, 6], 'greater').outcome, 'within noise');
  assert.equal(judge([10], [1, 2, 3], 'greater').outcome, 'too few');
  close(judge([10, 11, 12], [1, 2, 3], 'greater').ratio, 5.5);
  // similar: the interval of the difference within +-10% of b's mean
  assert.equal(judge([100, 101, 102], [100, 101, 102], 'similar').outcome, 'holds');
  assert.equal(judge([150, 151, 152], [100, 101, 102], 'similar').outcome, 'reversed');
  assert.equal(judge([90, 110, 130], [100, 101, 102], 'similar').outcome, 'within noise');
  assert.equal(judgeThreshold([1, 2, 3], 10, 'below').outcome, 'holds');
  assert.equal(judgeThreshold([1, 2, 3], 10, 'above').outcome, 'reversed');
  assert.equal(judgeThreshold([1, 10, 19], 10, 'below').outcome, 'within noise');
});

test('check verdicts: confirmed, not confirmed (reversed / within noise), not comparable (why), not run yet', () => {
  assert.equal(checkVerdict({ outcomes: ['holds', 'holds'] }).verdict, 'confirmed');
  assert.equal(checkVerdict({ outcomes: ['holds', 'reversed'] }).verdict, 'not confirmed');
  const noise = checkVerdict({ outcomes: ['holds', 'within noise'] });
  assert.equal(noise.verdict, 'not confirmed');
  assert.equal(noise.withinNoise, true);
  assert.equal(checkVerdict({ outcomes: [] }).verdict, 'not run yet');
  const scale = checkVerdict({ outcomes: ['holds'], scale: 'too small' });
  assert.equal(scale.verdict, 'not comparable');
  assert.equal(scale.indicative, 'holds');
  assert.deepEqual(scale.why, ['scale: too small']);
  assert.match(checkVerdict({ outcomes: ['holds'], keepsUp: true }).why[0], /^scale: every server answered/);
  assert.match(checkVerdict({ outcomes: ['holds'], machine: 'quad core' }).why[0], /^machine: quad core/);
  assert.match(checkVerdict({ outcomes: ['too few'] }).why[0], /^too few runs/);
  const provisional = checkVerdict({ outcomes: ['holds'], provisional: 'disturbed 3' });
  assert.equal(provisional.verdict, 'confirmed');
  assert.match(provisional.why.at(-1), /provisional: rests on runs not valid \(disturbed 3\)/);
  // a finding: not confirmed beats not comparable beats confirmed; checks not run yet are left out
  const f = (...vs) => findingVerdict(vs.map((verdict) => ({ verdict, withinNoise: false, provisional: null }))).verdict;
  assert.equal(f('confirmed', 'not run yet'), 'confirmed');
  assert.equal(f('confirmed', 'not comparable'), 'not comparable');
  assert.equal(f('not comparable', 'not confirmed', 'confirmed'), 'not confirmed');
  assert.equal(f('not run yet', 'not run yet'), 'not run yet');
});

// Runs as charts/collect-runs.js loads them, with what study-metrics.js reads.
function run(params, { cpu = 10, rss = 100, rate = 50, share = 1, verdict = 'valid', crashed = false } = {}) {
  const p = { server: 'node', type: 'comet', threads: 100, events: true, interval: 1000, maxDuration: null, duration: 20, ...params };
  return {
    dir: `/r/${JSON.stringify(p)}-${cpu}-${rss}`, params: p,
    summary: { steadyWindow: { fromSecond: 0, toSecond: 3, seconds: 3 }, loadStartSecond: 0, peakProcessRssMB: rss, responsesPerSecond: rate,
      serverCrashed: crashed, workload: { answers: { share } }, validity: { verdict, reasons: [] } },
    series: { processCpu: [cpu, cpu, cpu] },
  };
}
const repeats = (params, values, opts = {}) => values.map((cpu) => run(params, { ...opts, cpu }));

test('a compare check pairs runs per condition and uses valid runs only when each side keeps two', () => {
  const check = { id: 'x', kind: 'compare', a: { type: 'poll' }, b: { type: 'comet' }, expect: 'greater', metric: 'serverCpu', select: { server: 'node' } };
  const runs = [
    ...repeats({ type: 'poll', maxDuration: 180000 }, [30, 31, 32]), ...repeats({ type: 'comet' }, [10, 11, 12]),
    ...repeats({ type: 'poll', maxDuration: 180000, threads: 400 }, [50, 52, 54]), ...repeats({ type: 'comet', threads: 400 }, [20, 22, 24]),
    ...repeats({ type: 'poll', server: 'tc6' }, [1, 1, 1]),   // another server: not selected
  ];
  const e = evaluateCheck(check, runs);
  assert.deepEqual(e.rows.map((r) => r.label), ['Node.js, 1 s events, 100 connections', 'Node.js, 1 s events, 400 connections']);
  assert.deepEqual(e.rows.map((r) => r.outcome), ['holds', 'holds']);
  assert.equal(e.verdict, 'confirmed');
  assert.equal(e.provisional, null);
  assert.deepEqual(e.agree, { k: 2, n: 2 });
  // one comet run disturbed and far off: left out, two valid remain on that side
  const disturbed = [...runs, run({ type: 'comet' }, { cpu: 500, verdict: 'disturbed' })];
  assert.equal(evaluateCheck(check, disturbed).rows[0].a.n, 3);
  assert.equal(evaluateCheck(check, disturbed).rows[0].b.n, 3);
  assert.equal(evaluateCheck(check, disturbed).verdict, 'confirmed');
  // all disturbed: every run used, the verdict marked provisional
  const allBad = runs.map((r) => ({ ...r, summary: { ...r.summary, validity: { verdict: 'disturbed' } } }));
  const p = evaluateCheck(check, allBad);
  assert.equal(p.verdict, 'confirmed');
  assert.equal(p.provisional, 'disturbed 12');
  // a reversed condition makes it not confirmed
  const reversed = [...runs.slice(0, 6), ...repeats({ type: 'poll', maxDuration: 180000, threads: 400 }, [1, 2, 3]), ...runs.slice(9, 12)];
  assert.equal(evaluateCheck(check, reversed).verdict, 'not confirmed');
  assert.equal(evaluateCheck(check, []).verdict, 'not run yet');
});

test('a permutation\'s line rests on its valid runs when two or more are valid, else on all of them', () => {
  const valid = repeats({}, [10, 11]);
  const disturbed = repeats({}, [90, 95, 99], { verdict: 'disturbed' });
  assert.deepEqual(usableRuns([...disturbed, ...valid]), valid);
  const oneValid = [...disturbed, valid[0]];
  assert.deepEqual(usableRuns(oneValid), oneValid);
  assert.deepEqual(usableRuns([]), []);
});

test('trend, scale, load kept up, threshold and crash checks', () => {
  const rssRuns = [...[100, 101, 102].map((rss) => run({ server: 'tc6' }, { rss })), ...[150, 152, 154].map((rss) => run({ server: 'tc6', threads: 400 }, { rss }))];
  const up = { id: 'up', kind: 'trend', by: 'threads', expect: 'up', metric: 'serverRss', select: { server: 'tc6' } };
  const e = evaluateCheck(up, rssRuns);
  assert.equal(e.rows[0].label, 'Tomcat 6, Comet, 1 s events: 400 against 100');
  assert.equal(e.verdict, 'confirmed');
  assert.equal(evaluateCheck({ ...up, expect: 'flat' }, rssRuns).verdict, 'not confirmed');
  const scaled = evaluateCheck({ ...up, minThreads: 20000 }, rssRuns);
  assert.equal(scaled.verdict, 'not comparable');
  assert.match(scaled.why[0], /20,000 connections or more; these runs reach 400/);
  // a throughput claim where every run got the load it asked for cannot show a difference
  const rate = { id: 'r', kind: 'compare', a: { server: 'node' }, b: { server: 'tc6' }, expect: 'greater', keepsUp: true, metric: 'responsesPerSecond', select: {} };
  const kept = [...[50, 51, 52].map((r) => run({}, { rate: r })), ...[40, 41, 42].map((r) => run({ server: 'tc6' }, { rate: r }))];
  assert.equal(evaluateCheck(rate, kept).verdict, 'not comparable');
  assert.equal(evaluateCheck(rate, kept).indicative, 'holds');
  const behind = kept.map((r, i) => (i >= 3 ? run({ server: 'tc6' }, { rate: r.summary.responsesPerSecond, share: 0.8 }) : r));
  assert.equal(evaluateCheck(rate, behind).verdict, 'confirmed');
  const idle = { id: 'i', kind: 'below', threshold: 5, metric: 'serverCpu', select: {} };
  assert.equal(evaluateCheck(idle, repeats({}, [1, 2, 1])).verdict, 'confirmed');
  assert.equal(evaluateCheck(idle, repeats({}, [9, 10, 11])).verdict, 'not confirmed');
  const noCrash = { id: 'n', kind: 'none', metric: 'crashed', select: { server: 'node' } };
  assert.equal(evaluateCheck(noCrash, [run({}), run({})]).verdict, 'confirmed');
  assert.equal(evaluateCheck(noCrash, [run({}), run({}, { crashed: true })]).verdict, 'not confirmed');
  assert.equal(evaluateCheck({ ...noCrash, kind: 'some' }, [run({}, { crashed: true })]).verdict, 'confirmed');
});

test('the study\'s findings: every figure 5-28, both tables, four conclusions, RQ1-RQ4; every check well formed', () => {
  const sources = FINDINGS.map((f) => f.source);
  for (let n = 5; n <= 28; n++) assert.ok(sources.includes(`Figure ${n}`), `figure ${n}`);
  for (const s of ['Table 5.1.3', 'Table 5.1.4', 'Section 6.1 (1)', 'Section 6.1 (4)', 'RQ1', 'RQ2', 'RQ3', 'RQ4']) assert.ok(sources.includes(s), s);
  assert.equal(new Set(FINDINGS.map((f) => f.id)).size, FINDINGS.length);
  for (const f of FINDINGS) {
    assert.ok(f.study.length > 60 && f.checks.length, f.id);
    for (const c of f.checks) {
      assert.ok(STUDY_METRICS[c.metric], `${f.id}/${c.id}: metric ${c.metric}`);
      assert.ok(['compare', 'trend', 'below', 'above', 'none', 'some'].includes(c.kind), `${f.id}/${c.id}: kind`);
      // on no runs every check is simply not run yet (and nothing throws)
      assert.equal(evaluateCheck(c, []).verdict, 'not run yet');
    }
    assert.equal(evaluateFinding(f, []).verdict, 'not run yet');
  }
});
