'use strict';
// Opens the generated report and comparison pages in headless Chromium from file:// and checks every
// chart canvas was drawn (non-blank), no console error, no request leaves the disk. Screenshots go to
// build/screenshots/ for a human to look at.
const test = require('node:test');
const assert = require('node:assert/strict');
const fs = require('node:fs');
const path = require('node:path');
const { spawnSync } = require('node:child_process');
const { copyRun, scratchDir, REAL_RUN } = require('../../analysis/test/helpers');
const { makeSweep } = require('./sweep-fixture');
const { launch, inspectPage } = require('./browser');

const ROOT = path.join(__dirname, '..', '..');
const SHOTS = path.join(process.env.PB_BUILD || path.join(ROOT, 'build'), 'screenshots');
let browser;

test.before(async () => { browser = await launch(); });
test.after(async () => { if (browser) await browser.close(); });

function assertRendered(result, expectedCanvases) {
  assert.deepEqual(result.consoleErrors, []);
  assert.deepEqual(result.failedRequests, []);
  assert.deepEqual(result.externalRequests, []);
  assert.equal(result.canvases.length, expectedCanvases);
  for (const c of result.canvases) {
    assert.equal(c.rendered, 'yes', c.id);
    assert.ok(c.width > 200 && c.height > 200, `${c.id} size`);
    assert.ok(c.inked > 1500, `${c.id} looks blank (${c.inked} inked pixels)`);
  }
}

test('run report renders every chart from file:// without errors', async () => {
  const run = copyRun();
  const r = spawnSync(process.execPath, [path.join(ROOT, 'charts', 'report.js'), run], { encoding: 'utf8' });
  assert.equal(r.status, 0, r.stderr);
  const charts = fs.readdirSync(path.join(run, 'charts')).length;
  const result = await inspectPage(browser.context, r.stdout.trim(), path.join(SHOTS, 'report.png'));
  assertRendered(result, charts);
});

test('report of a real run.sh run renders every chart', async () => {
  const run = copyRun(undefined, REAL_RUN);
  const r = spawnSync(process.execPath, [path.join(ROOT, 'charts', 'report.js'), run], { encoding: 'utf8' });
  assert.equal(r.status, 0, r.stderr);
  const charts = fs.readdirSync(path.join(run, 'charts')).length;
  assert.ok(charts >= 9);
  const result = await inspectPage(browser.context, r.stdout.trim(), path.join(SHOTS, 'report-real.png'));
  assertRendered(result, charts);
  // The validity banner comes first, visible, with the summary's verdict and its steady window.
  const summary = JSON.parse(fs.readFileSync(path.join(run, 'data', 'summary.json'), 'utf8'));
  assert.equal(result.verdict.verdict, summary.validity.verdict);
  assert.ok(result.verdict.visible && result.verdict.top < 200, JSON.stringify(result.verdict));
  assert.match(result.verdict.text, /^Valid: the load asked was the load offered/);
  assert.match(result.verdict.text, new RegExp(`Steady window: ${summary.steadyWindow.fromSecond}\u2013${summary.steadyWindow.toSecond} s`));
});

test('comparison index and a figure page render from file://', async () => {
  const base = scratchDir();
  makeSweep(path.join(base, 'sweep'));
  const out = path.join(base, 'compare');
  const r = spawnSync(process.execPath, [path.join(ROOT, 'charts', 'compare.js'), out, path.join(base, 'sweep')], { encoding: 'utf8' });
  assert.equal(r.status, 0, r.stderr);
  assertRendered(await inspectPage(browser.context, path.join(out, 'index.html'), path.join(SHOTS, 'compare-index.png')), 0);
  const panels = fs.readdirSync(path.join(out, 'charts')).filter((f) => f.startsWith('fig17-')).length;
  assertRendered(await inspectPage(browser.context, path.join(out, 'fig17.html'), path.join(SHOTS, 'compare-fig17.png')), panels);
  const fig05 = fs.readdirSync(path.join(out, 'charts')).filter((f) => f.startsWith('fig05-')).length;
  assertRendered(await inspectPage(browser.context, path.join(out, 'fig05.html'), path.join(SHOTS, 'compare-fig05.png')), fig05);
  // T2 draws points at their own x (OFC2 scatter_line), not at their index
  assertRendered(await inspectPage(browser.context, path.join(out, 'trip02.html'), path.join(SHOTS, 'compare-t2.png')), 1);
});
