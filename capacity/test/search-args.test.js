'use strict';
// The capacity search's command line (capacity/search.js parseArgs, withLevel): the level's place among a
// run's arguments, the search's own options taken out, and --tls (issue #49; docs/engine.md "TLS for the
// built-in servers") taken from anywhere and given to each run after its arguments; refused for a target,
// as run.sh refuses it, before anything runs (./run.sh --capacity exits 2 with the usage).
const test = require('node:test');
const assert = require('node:assert/strict');
const path = require('node:path');
const { spawnSync } = require('node:child_process');
const { parseArgs, withLevel } = require('../search');

const ROOT = path.resolve(__dirname, '..', '..');

test('a built-in search: the level at its 4th argument, the search\'s options out of each run\'s', () => {
  const o = parseArgs(['--max', '800', '--threshold', 'trip.p99<=250', 'node', '5', '10', '100', 'sse', '-', 'event1', '2000']);
  assert.equal(o.max, 800);
  assert.equal(o.tls, false);
  assert.equal(o.start, 100);
  assert.deepEqual(withLevel(o, 200), ['--threshold', 'trip.p99<=250', 'node', '5', '10', '200', 'sse', '-', 'event1', '2000']);
});

test('--tls, wherever it stands, goes to each run once, after its arguments', () => {
  const plain = ['node', '5', '10', '100', 'sse', '-', 'event1', '2000'];
  for (const at of [0, 1, 4, plain.length]) {
    const argv = [...plain.slice(0, at), '--tls', ...plain.slice(at)];
    const o = parseArgs(['--resolution', '20', ...argv]);
    assert.equal(o.error, undefined, `--tls at ${at}: ${o.error}`);
    assert.equal(o.tls, true);
    assert.equal(o.start, 100);
    assert.deepEqual(withLevel(o, 400), ['node', '5', '10', '400', 'sse', '-', 'event1', '2000', '--tls']);
  }
});

test('--tls with --target is refused, naming the target file\'s own TLS; the other errors stay', () => {
  assert.match(parseArgs(['--tls', '--target', 'f.json', '5', '10', '100']).error, /--tls is for the built-in servers.*https:\/\/ and wss:\/\//);
  assert.match(parseArgs(['--target', 'f.json', '5', '10', '100', '--tls']).error, /--tls is for the built-in servers/);
  assert.match(parseArgs(['--tls', 'node', '5', '10']).error, /a built-in search takes/);
  assert.match(parseArgs(['--tls', 'node', '5', '10', 'many', 'sse']).error, /<start> must be a whole number/);
});

test('./run.sh --capacity --tls --target: exit 2 with the usage, nothing run', () => {
  const r = spawnSync(path.join(ROOT, 'run.sh'), ['--capacity', '--tls', '--target', path.join(ROOT, 'targets', 'nchan-sse.json'), '5', '10', '100'],
    { cwd: ROOT, encoding: 'utf8', timeout: 30000 });
  assert.equal(r.status, 2, r.stderr);
  assert.match(r.stderr, /run\.sh --capacity: --tls is for the built-in servers/);
  assert.match(r.stderr, /\.\/run\.sh --capacity .*<test-type> \[\.\.\.\] \[--tls\]/);
});
