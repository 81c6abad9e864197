'use strict';
// The floor plan, tested (issue #51 item 4; docs/architecture.md "Code points one way"): which folder's
// JavaScript may require which. The analysis is a pipeline, read -> measure -> stage (chart/ is a library
// of chart builders the stages call); the entry points of analysis/ run the stages; charts/, sweep/,
// capacity/ and bench/ stand on the analysis; lib/ is the bottom, required by all and requiring none of
// them; host/ (what runs on each host) stands on lib/ only; the servers under test and the conformance
// suite stand apart. A require against the plan fails with the file, the line and the arrow; the plan's
// own test plants one in a scratch tree and sees it fail.
const test = require('node:test');
const assert = require('node:assert/strict');
const fs = require('node:fs');
const os = require('node:os');
const path = require('node:path');
const { execFileSync } = require('node:child_process');

const ROOT = path.resolve(__dirname, '..');

// folder -> the folders its product files may require (besides their own). Tests and fixtures are free.
const ANALYSIS_BELOW_ROOT = ['analysis/stage', 'analysis/measure', 'analysis/read', 'analysis/chart'];
const PLAN = {
  lib: [],
  host: ['lib'],
  'analysis/chart': [],
  'analysis/read': ['lib'],
  'analysis/measure': ['analysis/read', 'lib'],
  'analysis/stage': ['analysis/measure', 'analysis/read', 'analysis/chart', 'lib'],
  analysis: [...ANALYSIS_BELOW_ROOT, 'lib'],
  'analysis/tools': ['analysis', ...ANALYSIS_BELOW_ROOT, 'lib'],
  charts: ['analysis', ...ANALYSIS_BELOW_ROOT, 'lib'],
  sweep: ['charts', 'analysis', ...ANALYSIS_BELOW_ROOT, 'host', 'lib'],
  capacity: ['analysis', ...ANALYSIS_BELOW_ROOT, 'lib'],
  bench: ['bench/peers', 'analysis/tools', 'analysis', ...ANALYSIS_BELOW_ROOT, 'charts', 'lib'],
  'bench/peers': ['bench', 'lib'],
  conformance: [],
  'instrumentation-node': [],
  // generated copies of charts/ofc-render.js for the committed pages (charts/study.js, charts/transports.js)
  'docs/study/assets': [],
  'docs/transports/assets': [],
};

const isProduct = (f) => !/(^|\/)(test|tests|fixtures|golden)\//.test(f) && !f.endsWith('.test.js');

// Every relative require of the product files under root: [{ file, line, from, to }] (folders).
function arrows(root, files) {
  const out = [];
  for (const file of files.filter(isProduct)) {
    const lines = fs.readFileSync(path.join(root, file), 'utf8').split('\n');
    lines.forEach((text, i) => {
      for (const m of text.matchAll(/require\(\s*['"](\.{1,2}\/[^'"]+)['"]\s*\)/g)) {
        const target = path.normalize(path.join(path.dirname(file), m[1]));
        out.push({ file, line: i + 1, from: path.dirname(file), to: path.dirname(target.endsWith('.js') || target.endsWith('.json') ? target : `${target}.js`) });
      }
    });
  }
  return out;
}

// The arrows against the plan, as "file:line: from -> to" lines; and the folders the plan does not name.
function check(root, files) {
  const bad = [];
  const unplanned = new Set();
  for (const a of arrows(root, files)) {
    if (a.from === a.to) continue;
    if (!PLAN[a.from]) { unplanned.add(a.from); continue; }
    if (!PLAN[a.from].includes(a.to)) bad.push(`${a.file}:${a.line}: ${a.from} -> ${a.to}`);
  }
  for (const f of files.filter(isProduct)) if (!PLAN[path.dirname(f)]) unplanned.add(path.dirname(f));
  return { bad, unplanned: [...unplanned] };
}

const productJs = () => execFileSync('git', ['ls-files', '--cached', '--others', '--exclude-standard', '*.js'], { cwd: ROOT, encoding: 'utf8' })
  .split('\n').filter((f) => f && !f.startsWith('node_modules/') && fs.existsSync(path.join(ROOT, f)));

test('every require of the product code follows the floor plan', () => {
  const { bad, unplanned } = check(ROOT, productJs());
  assert.deepEqual(bad, [], `requires against the plan (tests/architecture.test.js PLAN):\n${bad.join('\n')}`);
  assert.deepEqual(unplanned, [], `folders the plan does not name: ${unplanned.join(', ')}`);
});

test('the check fails on a planted wrong arrow (lib requiring the analysis, read requiring measure)', () => {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'pb-arch-'));
  try {
    const put = (f, text) => { fs.mkdirSync(path.dirname(path.join(dir, f)), { recursive: true }); fs.writeFileSync(path.join(dir, f), text); };
    put('lib/a.js', "const x = require('../analysis/measure/b');\n");
    put('analysis/measure/b.js', "const y = require('../read/c');\n");
    put('analysis/read/c.js', "\nconst z = require('../measure/b');\n");
    put('analysis/stage/d.js', "require('../measure/b'); require('../chart/e');\n");
    put('analysis/chart/e.js', '');
    put('analysis/test/t.test.js', "require('../../lib/a');\n");
    const files = ['lib/a.js', 'analysis/measure/b.js', 'analysis/read/c.js', 'analysis/stage/d.js', 'analysis/chart/e.js', 'analysis/test/t.test.js'];
    const { bad } = check(dir, files);
    assert.deepEqual(bad, ['lib/a.js:1: lib -> analysis/measure', 'analysis/read/c.js:2: analysis/read -> analysis/measure']);
    put('newfolder/x.js', "require('../lib/a');\n");
    assert.deepEqual(check(dir, [...files, 'newfolder/x.js']).unplanned, ['newfolder']);
  } finally {
    fs.rmSync(dir, { recursive: true, force: true });
  }
});
