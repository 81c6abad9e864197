'use strict';
// docs/study/index.html (issue #25) opened from disk in headless Chromium: no console error, no request off
// the disk, every chart canvas drawn (not blank), one canvas per chart of every figure that has runs.
// A screenshot goes to build/screenshots/study.png for a human to look at.
const test = require('node:test');
const assert = require('node:assert/strict');
const fs = require('node:fs');
const path = require('node:path');
const { assertPageDrawn } = require('./browser');

const ROOT = path.join(__dirname, '..', '..');
const PAGE = path.join(ROOT, 'docs', 'study', 'index.html');
const SHOTS = path.join(process.env.PB_BUILD || path.join(ROOT, 'build'), 'screenshots');

test('the study page opens from file:// with every figure drawn and no console error', async () => {
  const html = fs.readFileSync(PAGE, 'utf8');
  const expected = [...html.matchAll(/<canvas id="([^"]+)">/g)].map((m) => m[1]);
  const charts = JSON.parse(/window\.PB_STUDY_CHARTS = (.*);<\/script>/.exec(html)[1]);
  assert.deepEqual(expected, charts.map((c) => c.canvas), 'a chart for every canvas');
  assert.ok(expected.length > 0);
  await assertPageDrawn(PAGE, expected, path.join(SHOTS, 'study.png'));
});
