'use strict';
// The extended study (issue #23 item 4): ./sweep.sh --study extended runs the study's 195 permutations
// and the same grid for node-cluster, tc6-bio and tc7-bio; the default study stays the 195. The
// comparison report of a fixture sweep over all six servers draws each research question's figures
// (RQ2: NIO against blocking Tomcats, RQ4: Node.js against node-cluster) and reference 003's criterion.
const test = require('node:test');
const assert = require('node:assert/strict');
const fs = require('node:fs');
const path = require('node:path');
const { spawnSync } = require('node:child_process');
const { scratchDir } = require('../../analysis/test/helpers');
const { makeSweep } = require('../../charts/test/sweep-fixture');

const ROOT = path.resolve(__dirname, '..', '..');
const SWEEP = path.join(ROOT, 'sweep.sh');

function sweep(...args) {
  return spawnSync(SWEEP, args, { cwd: ROOT, encoding: 'utf8' });
}

function list(...args) {
  const r = sweep('--list', ...args);
  assert.equal(r.status, 0, r.stderr);
  return r.stdout.split('\n').filter(Boolean);
}

const serverOf = (line) => line.split(' ')[1];
const gridOf = (line) => line.split(' ').slice(2).join(' ');

test('the default study stays the 195; the extended one adds the same grid for the three new servers', () => {
  const study = list();
  assert.equal(study.length, 195);
  assert.deepEqual(list('--study', 'default'), study);
  const extended = list('--study', 'extended');
  assert.equal(extended.length, 390);
  assert.deepEqual(extended.slice(0, 195), study);   // the study's runs first, in Appendix A's order
  const node = study.filter((l) => serverOf(l) === 'node').map(gridOf);
  for (const server of ['node-cluster', 'tc6-bio', 'tc7-bio']) {
    assert.deepEqual(extended.filter((l) => serverOf(l) === server).map(gridOf), node, server);
  }
});

test('--servers narrows either study and takes the new servers; a study that does not exist is refused', () => {
  assert.equal(list('--study', 'extended', '--servers', 'node,node-cluster').length, 130);
  assert.deepEqual([...new Set(list('--servers', 'tc7-bio').map(serverOf))], ['tc7-bio']);
  const bad = sweep('--study', 'everything', '--list');
  assert.equal(bad.status, 2);
  assert.match(bad.stderr, /--study: unknown 'everything' \(expected default, extended\)/);
  const badServer = sweep('--servers', 'tc8', '--list');
  assert.equal(badServer.status, 2);
  assert.match(badServer.stderr, /unknown 'tc8'/);
});

test('--emit-intervals replaces the study\'s emit intervals in every type with events; below 10 ms is refused', () => {
  assert.deepEqual(list('--servers', 'node,node-cluster', '--types', 'poll', '--levels', '10000,15000', '--emit-intervals', '500', '--filter', 'event1'), [
    './run.sh node 30 600 10000 poll 180000 event1 500', './run.sh node 30 600 15000 poll 180000 event1 500',
    './run.sh node-cluster 30 600 10000 poll 180000 event1 500', './run.sh node-cluster 30 600 15000 poll 180000 event1 500',
  ]);
  assert.deepEqual(list('--servers', 'tc7', '--types', 'comet,pull,sse', '--levels', '1000', '--emit-intervals', '250,2000', '--filter', 'event1'), [
    './run.sh tc7 30 600 1000 comet - event1 250', './run.sh tc7 30 600 1000 comet - event1 2000',
    './run.sh tc7 30 600 1000 pull 250 event1 250', './run.sh tc7 30 600 1000 pull 2000 event1 2000',
    './run.sh tc7 30 600 1000 sse - event1 250', './run.sh tc7 30 600 1000 sse - event1 2000',
  ], 'a pull at each emit interval (the default --pull-intervals emit)');
  assert.equal(list().length, 195, 'the default stays the study\'s grid');
  const r = sweep('--emit-intervals', '5', '--list');
  assert.equal(r.status, 2);
  assert.match(r.stderr, /--emit-intervals must be a whole number >= 10, got '5'/);
});

test('a fixture sweep over all six servers draws the RQ2, RQ4 and criterion figures with their servers', () => {
  const dir = scratchDir('pb-extended-');
  const servers = ['node', 'node-cluster', 'tc6', 'tc6-bio', 'tc7', 'tc7-bio'];
  makeSweep(dir, servers.map((server) => ({ server, type: 'comet', threads: 3, interval: 1000 })));
  const out = path.join(dir, 'report');
  const r = spawnSync(process.execPath, [path.join(ROOT, 'charts', 'compare.js'), out, dir], { cwd: ROOT, encoding: 'utf8' });
  assert.equal(r.status, 0, r.stderr);
  const names = (id) => JSON.parse(fs.readFileSync(path.join(out, 'charts', `${id}-1.json`), 'utf8')).elements.map((e) => e.text);
  assert.deepEqual(names('rq4-01'), ['Node.js', 'Node.js Cluster']);
  assert.deepEqual(names('rq2-02').sort(), ['Tomcat 6', 'Tomcat 6 Blocking', 'Tomcat 7', 'Tomcat 7 Blocking']);
  assert.equal(names('cap03').length, 6);   // every server's comet streams against reference 003's criterion
  const index = fs.readFileSync(path.join(out, 'index.html'), 'utf8');
  for (const id of ['rq4-01', 'rq2-02', 'cap03']) assert.match(index, new RegExp(`href="${id}\\.html"`));
});
