'use strict';
// Server-Sent Events in the sweep (issue #38, docs/sweep.md): ./sweep.sh --types adds sse permutations,
// comet's grid (each emit interval x each level, then each level without events) after each server's
// other types, while the study's 195 stay the default; WebSocket (ws) the same grid after sse, on every
// server but tc6 and tc6-bio (no WebSocket API). --list only: it asks no plan and starts nothing.
const { test, describe } = require('node:test');
const assert = require('node:assert/strict');
const path = require('node:path');
const { spawnSync } = require('node:child_process');
const { SWEEP } = require('./lib/sweep-run');

const ROOT = path.resolve(__dirname, '..');

function list(...args) {
  const r = spawnSync(SWEEP, ['--list', ...args], { cwd: ROOT, encoding: 'utf8' });
  assert.equal(r.status, 0, r.stderr);
  return r.stdout.split('\n').filter(Boolean);
}

describe('--types with sse: the permutation list', () => {
  test('sse takes comet\'s grid per server, after its other types; the default has none', () => {
    const study = list();
    assert.ok(study.every((l) => !/ sse/.test(l)));
    const all = list('--types', 'comet,poll,sse', '--servers', 'node,tc7');
    const sse = all.filter((l) => / sse/.test(l));
    const comet = all.filter((l) => / comet/.test(l));
    assert.equal(sse.length, 2 * (4 + 1) * 5, 'node, tc7 x (4 emit intervals + none) x 5 levels');
    assert.deepEqual(sse, comet.map((l) => l.replace(' comet', ' sse')), 'the same arguments as comet');
    assert.equal(all[all.indexOf('./run.sh tc7 30 600 1000 comet - event1 1000') - 1], './run.sh node 30 600 20000 sse',
      'a server\'s sse runs come last among its lines');
    assert.deepEqual(list('--types', 'sse', '--servers', 'node', '--levels', '500', '--filter', 'event1 1000$|sse$'), [
      './run.sh node 30 600 500 sse - event1 1000', './run.sh node 30 600 500 sse',
    ]);
  });

  test('ws takes the same grid after sse, on the servers that speak WebSocket only', () => {
    const all = list('--types', 'comet,sse,ws', '--servers', 'node,tc6,tc7');
    const ws = all.filter((l) => / ws/.test(l));
    assert.equal(ws.length, 2 * (4 + 1) * 5, 'node, tc7 (not tc6) x (4 emit intervals + none) x 5 levels');
    assert.ok(ws.every((l) => !/^\.\/run\.sh tc6 /.test(l)));
    const sse = all.filter((l) => / sse/.test(l) && !/^\.\/run\.sh tc6 /.test(l));
    assert.deepEqual(ws, sse.map((l) => l.replace(' sse', ' ws')), 'the same arguments as sse');
    assert.equal(all[all.indexOf('./run.sh tc6 30 600 1000 comet - event1 1000') - 1], './run.sh node 30 600 20000 ws',
      'a server\'s ws runs come last among its lines');
    assert.deepEqual(list('--types', 'ws', '--servers', 'tc6,tc6-bio'), [], 'Tomcat 6 has none');
  });

  test('an unknown type is refused, naming the types', () => {
    const r = spawnSync(SWEEP, ['--list', '--types', 'comet,wss'], { cwd: ROOT, encoding: 'utf8' });
    assert.equal(r.status, 2, r.stderr);
    assert.match(r.stderr, /comet, poll, pull, sse, ws|comet,poll,pull,sse,ws/);
  });
});
