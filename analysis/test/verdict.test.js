'use strict';
// analysis/verdict.js: the verdict's words are the ones analysis/measure/validity.js decides, its readers
// count and word them as the sweep and the figures print them, and its command prints run.sh's closing
// lines from a real summary (analysis/test/golden) with the exit codes its header gives.
const { test } = require('node:test');
const assert = require('node:assert/strict');
const fs = require('node:fs');
const os = require('node:os');
const path = require('node:path');
const { spawnSync } = require('node:child_process');
const { VERDICTS, verdictOf, reasonTexts, isValid, countVerdicts, formatCounts, notValidNote } = require('../verdict');

const VERDICT_JS = path.join(__dirname, '..', 'verdict.js');
const GOLDEN_RUN = path.join(__dirname, 'golden', 'real-node-comet-100-15');

test('every verdict measure/validity.js decides is one of the words, and every word but unknown is decided', () => {
  const source = fs.readFileSync(path.join(__dirname, '..', 'measure', 'validity.js'), 'utf8');
  const decided = new Set([...source.matchAll(/verdict = '([a-z-]+)'/g)].map((m) => m[1]));
  assert.deepEqual([...decided].filter((v) => !VERDICTS.includes(v)), []);
  assert.deepEqual(VERDICTS.filter((v) => !decided.has(v)), ['unknown']);
});

test('a summary without a verdict is unknown, and only valid is valid', () => {
  assert.equal(verdictOf(null), 'unknown');
  assert.equal(verdictOf({ validity: {} }), 'unknown');
  assert.equal(verdictOf({ validity: { verdict: 'disturbed' } }), 'disturbed');
  assert.deepEqual(VERDICTS.filter(isValid), ['valid']);
  assert.match(reasonTexts({})[0], /analysed before validity existed/);
  assert.deepEqual(reasonTexts({ validity: { reasons: [{ text: 'a' }, 'b'], unknowns: ['c'] } }), ['a', 'b', 'c']);
});

test('counts follow the words\' order, a later word last; the note counts what is not valid', () => {
  const verdicts = ['valid', 'novel', 'failed', 'valid', 'generator-bound', 'unknown'];
  assert.deepEqual(countVerdicts(verdicts), [['valid', 2], ['generator-bound', 1], ['failed', 1], ['unknown', 1], ['novel', 1]]);
  assert.equal(formatCounts(verdicts), 'valid 2, generator-bound 1, failed 1, unknown 1, novel 1');
  assert.equal(notValidNote(verdicts), '4 of 6 runs not valid: 1 generator-bound, 1 failed, 1 unknown, 1 novel');
  assert.equal(notValidNote(['valid']), 'the 1 run valid');
  assert.equal(notValidNote(['valid', 'valid']), 'all 2 runs valid');
});

test('node analysis/verdict.js prints the closing lines; 1 without a verdict, 2 on a usage error', () => {
  const summary = JSON.parse(fs.readFileSync(path.join(GOLDEN_RUN, 'data', 'summary.json'), 'utf8'));
  const ok = spawnSync(process.execPath, [VERDICT_JS, GOLDEN_RUN], { encoding: 'utf8' });
  assert.equal(ok.status, 0, ok.stderr);
  const lines = ok.stdout.trim().split('\n');
  assert.match(lines[0], new RegExp(`^validity: ${summary.validity.verdict}\\b.*\\(steady window \\d+-\\d+ s, \\d+ s\\)$`));
  assert.equal(lines.length, 1 + summary.validity.reasons.length + summary.validity.unknowns.length);

  const bare = fs.mkdtempSync(path.join(os.tmpdir(), 'pb-verdict-'));
  try {
    fs.mkdirSync(path.join(bare, 'data'));
    fs.writeFileSync(path.join(bare, 'data', 'summary.json'), JSON.stringify({ totals: {} }));
    const none = spawnSync(process.execPath, [VERDICT_JS, bare], { encoding: 'utf8' });
    assert.equal(none.status, 1);
    assert.match(none.stderr, /analysed before runs were judged/);
    const missing = spawnSync(process.execPath, [VERDICT_JS, path.join(bare, 'nowhere')], { encoding: 'utf8' });
    assert.equal(missing.status, 1);
    assert.match(missing.stderr, /no readable data\/summary\.json/);
  } finally {
    fs.rmSync(bare, { recursive: true, force: true });
  }
  assert.equal(spawnSync(process.execPath, [VERDICT_JS], { encoding: 'utf8' }).status, 2);
  assert.equal(spawnSync(process.execPath, [VERDICT_JS, '--help'], { encoding: 'utf8' }).status, 2);
});
