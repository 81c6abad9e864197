'use strict';
// docs/faults.md's table of faults (issue #36 item 7) checked against the tests: every fault names the test
// that shows it, every test it names exists (a file that is there, a test title found in it), and the count
// the page states is the table's. A fault whose test was renamed or removed fails here, so the page never
// promises what no test shows.
const test = require('node:test');
const assert = require('node:assert/strict');
const fs = require('node:fs');
const path = require('node:path');

const ROOT = path.resolve(__dirname, '..');
const DOC = path.join(ROOT, 'docs', 'faults.md');
// Where a test named without its file is: the faults suite; "conformance suite" names the protocol suite.
const DEFAULT_FILES = ['tests/faults.test.js'];
const CONFORMANCE_FILES = ['conformance/suite.js', 'conformance/streams.js', 'conformance/broken-clients.js', 'conformance/slow-bodies.js',
  'conformance/stream-clients.js', 'conformance/pull.js', 'conformance/crosstalk.js', 'conformance/test/conformance.test.js'];

// The rows of the faults table (the first table of the page): [{ fault, does, test }].
function faultRows(text) {
  const table = text.split('\n## ')[0];
  return table.split('\n').filter((l) => l.startsWith('| ') && !l.startsWith('| fault |'))
    .map((l) => l.slice(2, -2).split(' | '))
    .map((cells) => ({ fault: cells[0], does: cells.slice(1, -1).join(' | '), test: cells.at(-1) }));
}

// The backticked parts of a test cell: files (ending .js or .java), and test titles; commands (./…, node …) and
// settings (PB_…) are no test names.
function references(cell) {
  const quoted = [...cell.matchAll(/`([^`]+)`/g)].map((m) => m[1].replace(/\\\|/g, '|'));
  return {
    files: quoted.filter((q) => /^[\w./-]+\.(js|java)$/.test(q)),
    titles: quoted.filter((q) => !/^[\w./-]+\.(js|java)$/.test(q) && !/^(\.\/|node |PB_)/.test(q)),
  };
}

// Whether a title (with … or ... standing for any text) is in one of the sources: each of its fragments
// between the ellipses, as written in the source (a title may be built from a template).
function titleFound(title, sources) {
  const fragments = title.split(/…|\.\.\./).map((f) => f.trim()).filter((f) => f.length >= 4);
  return fragments.length > 0 && sources.some((src) => fragments.every((f) => src.includes(f)));
}

const text = fs.readFileSync(DOC, 'utf8');
const rows = faultRows(text);

test('every fault in docs/faults.md names a test, and the count on the page is the table\'s', () => {
  assert.ok(rows.length >= 30, `only ${rows.length} rows read: the table's format changed?`);
  for (const r of rows) assert.ok(/`[^`]+`/.test(r.test), `"${r.fault.slice(0, 80)}" names no test`);
  const stated = /^The table holds (\d+) faults/m.exec(text);
  assert.ok(stated, 'docs/faults.md does not say how many faults its table holds ("The table holds <n> faults")');
  assert.equal(Number(stated[1]), rows.length, 'the count on the page');
});

test('every test the table names exists: its file is there, its title in it', () => {
  const missing = [];
  for (const r of rows) {
    const { files, titles } = references(r.test);
    for (const f of files) if (!fs.existsSync(path.join(ROOT, f))) missing.push(`${f} (for "${r.fault.slice(0, 60)}")`);
    const candidates = [...(files.length ? files : DEFAULT_FILES), ...(/conformance suite/.test(r.test) ? CONFORMANCE_FILES : []),
      ...(files.length ? [] : ['tests/run-lock.test.js', 'tests/faults-netns.test.js'])];
    const sources = candidates.filter((f) => fs.existsSync(path.join(ROOT, f)))
      .map((f) => fs.readFileSync(path.join(ROOT, f), 'utf8').replace(/\\(['"`])/g, '$1'));   // a title as it reads
    for (const t of titles) if (!titleFound(t, sources)) missing.push(`"${t}" in ${candidates.join(', ')} (for "${r.fault.slice(0, 60)}")`);
  }
  assert.deepEqual(missing, [], `docs/faults.md names tests that are not there:\n${missing.join('\n')}`);
});

test('the checker itself: titles with ellipses, commands and settings are told apart', () => {
  const { files, titles } = references('`tests/a.test.js` `one …`, `./run.sh x \\| head`, `PB_X=1`, `node y.js`');
  assert.deepEqual(files, ['tests/a.test.js']);
  assert.deepEqual(titles, ['one …']);
  assert.equal(titleFound('a state write … stops the sweep', ["test('a state write that fails stops the sweep')"]), true);
  assert.equal(titleFound('a state write … stops the run', ["test('a state write that fails stops the sweep')"]), false);
});
