'use strict';
// docs/study (issues #25, #35, #50): the committed page and verdicts.json rebuild byte for byte from the
// committed data (docs/study/data, by `node charts/study.js`), and the page answers figure by figure: every
// finding of the study's section 5, 6.1 and RQ1-RQ4 with a conclusion, every comparison figure with runs
// drawn (one chart per panel, its OFC2 JSON beside the page), every figure without runs saying "not run
// yet". verdicts.json and the page agree check by check, and no verdict but indicative, not comparable or
// not run yet rests on runs below its study level or on fewer than 3 usable runs a side; each names one CPU.
const test = require('node:test');
const assert = require('node:assert/strict');
const fs = require('node:fs');
const os = require('node:os');
const path = require('node:path');
const { spawnSync } = require('node:child_process');
const { buildStudy, STUDY_FIGURES } = require('../study');
const { FINDINGS } = require('../study-findings');

const DOCS = path.join(__dirname, '..', '..', 'docs', 'study');
const STUDY = path.join(__dirname, '..', 'study.js');

const files = (dir) => fs.readdirSync(dir, { recursive: true }).filter((f) => fs.statSync(path.join(dir, f)).isFile()).sort();

test('the committed page rebuilds identically from the committed data (golden)', async () => {
  const out = fs.mkdtempSync(path.join(os.tmpdir(), 'pb-study-'));
  const r = spawnSync(process.execPath, [STUDY, '--data', path.join(DOCS, 'data'), '--out', out], { encoding: 'utf8' });
  assert.equal(r.status, 0, r.stderr);
  assert.match(r.stdout, /^\d+ runs, \d+ charts; conclusions: confirmed \d+, not confirmed \d+, not comparable \d+, indicative \d+, answered \d+, not run yet \d+\n/);
  const built = files(out);
  assert.deepEqual(built, files(DOCS).filter((f) => f === 'index.html' || f === 'verdicts.json' || /^(assets|figures)\//.test(f)), 'the same files');
  for (const f of built) assert.ok(fs.readFileSync(path.join(out, f)).equals(fs.readFileSync(path.join(DOCS, f))), `${f} differs: rebuild with node charts/study.js`);
});

test('the page answers every finding with a conclusion and draws every figure that has runs', async () => {
  const out = fs.mkdtempSync(path.join(os.tmpdir(), 'pb-study-'));
  const { runs, evaluated, results, charts } = await buildStudy({ data: path.join(DOCS, 'data'), out });
  assert.ok(runs.length >= 3, 'the committed pilot has runs');
  const html = fs.readFileSync(path.join(out, 'index.html'), 'utf8');
  for (const f of FINDINGS) {
    const e = evaluated.find((x) => x.finding.id === f.id);
    assert.match(html, new RegExp(`<section class="finding" id="${f.id}" data-conclusion="${e.conclusion}">`), f.id);
  }
  assert.ok(evaluated.some((e) => e.conclusion !== 'not run yet'), 'the sitting at scale decides some finding');
  // no conclusion other than indicative rests on runs below the study's smallest level (issue #35)
  for (const e of evaluated) {
    for (const c of e.checks.filter((x) => x.conclusion !== 'indicative')) {
      for (const r of c.rows.flatMap((row) => row.runs)) assert.ok(r.params.connections >= 1000, `${e.finding.id}/${c.check.id}: ${r.summary.id}`);
    }
  }
  // the 100/400 sitting keeps its own section, its conclusions indicative
  assert.match(html, /<h2 class="group" id="small-sitting">/);
  assert.match(html, /<p id="small-conclusion-counts">The 100\/400 sitting \(indicative only\): /);
  assert.match(html, /<h2>Threats to the comparison<\/h2>/);
  for (const figure of STUDY_FIGURES) {
    const drawn = results.get(figure.id).runs.length > 0;
    assert.match(html, new RegExp(`data-figure="${figure.id}" data-drawn="${drawn ? 'yes' : 'no'}"`), figure.id);
    if (!drawn) assert.match(html, new RegExp(`Figure ${figure.number} \\([^)]*\\): not run yet`));
    const panels = results.get(figure.id).panels.length;
    assert.equal(charts.filter((c) => c.canvas.startsWith(`${figure.id}-`)).length, drawn ? panels : 0, `${figure.id} charts`);
  }
  // an averaged line carries its 95% band: two elements, low then high
  const banded = charts.find((c) => c.ofc.elements.some((e) => e['pb-band']));
  assert.ok(banded, 'some chart has a band');
  const kinds = banded.ofc.elements.map((e) => e['pb-band'] ?? 'line');
  assert.equal(kinds.filter((k) => k === 'low').length, kinds.filter((k) => k === 'high').length);
  // the repeats: coefficient of variation of each headline metric
  assert.match(html, /<th class="num">Median CV<\/th>/);
  for (const id of ['Server CPU', 'Server memory', 'Responses per second', 'Emit duration', 'Trip time']) assert.ok(html.includes(`<td>${id}</td>`), id);
});

test('study.js: bad usage exits 2, a data directory without runs 1', () => {
  assert.equal(spawnSync(process.execPath, [STUDY, '--bogus']).status, 2);
  const empty = fs.mkdtempSync(path.join(os.tmpdir(), 'pb-study-'));
  const r = spawnSync(process.execPath, [STUDY, '--data', empty, '--out', path.join(empty, 'out')], { encoding: 'utf8' });
  assert.equal(r.status, 1);
  assert.match(r.stderr, /collect runs first/);
});

test('verdicts.json: one entry per check, agreeing with the page; a verdict rests on its study level and 3 usable runs a side on one CPU', async () => {
  const out = fs.mkdtempSync(path.join(os.tmpdir(), 'pb-study-'));
  const { evaluated } = await buildStudy({ data: path.join(DOCS, 'data'), out });
  const verdicts = JSON.parse(fs.readFileSync(path.join(out, 'verdicts.json'), 'utf8'));
  const html = fs.readFileSync(path.join(out, 'index.html'), 'utf8');
  assert.equal(verdicts.length, FINDINGS.reduce((n, f) => n + f.checks.length, 0), 'one entry per check');
  const onPage = new Map([...html.matchAll(/<span data-check="([^"]+)" data-conclusion="([^"]+)" data-cpu="([^"]*)">/g)].map((m) => [m[1], { verdict: m[2], cpu: m[3] }]));
  assert.equal(onPage.size, verdicts.length, 'the page tags every check once');
  const bounded = ['indicative', 'not comparable', 'not run yet'];
  for (const v of verdicts) {
    const id = `${v.finding}/${v.check}`;
    for (const k of ['finding', 'check', 'verdict', 'reason', 'studyLevel', 'levels', 'cpu', 'n', 'conditions']) assert.ok(k in v, `${id}: ${k}`);
    assert.deepEqual(onPage.get(id), { verdict: v.verdict, cpu: v.cpu ?? '' }, `${id}: the page and verdicts.json agree`);
    const e = evaluated.find((x) => x.finding.id === v.finding).checks.find((c) => c.check.id === v.check);
    assert.equal(v.verdict, e.conclusion, id);
    if (v.verdict !== 'not run yet') {
      assert.equal(typeof v.cpu, 'string', `${id} names its CPU`);
      assert.ok(e.judged.every((r) => r.cpu === v.cpu), `${id}: every condition on ${v.cpu}`);
    }
    if (bounded.includes(v.verdict)) continue;
    assert.ok(v.levels.length && v.levels.every((l) => l >= v.studyLevel), `${id}: levels ${v.levels} at or above ${v.studyLevel}`);
    assert.ok(v.n.length && v.n.flat().every((n) => n >= 3), `${id}: n ${JSON.stringify(v.n)}`);
    assert.equal(v.n.length, v.conditions.length, id);
  }
  // a figure that draws one level says which in its title
  assert.match(html, /<h3>Figure 18: [^<]*@ 15,000 connections<\/h3>/);
  assert.doesNotMatch(html, /20,000 connections<\/h3>/);
});
