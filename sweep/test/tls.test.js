'use strict';
// sweep.sh --tls (issue #49; docs/engine.md "TLS for the built-in servers (run.sh --tls)"): the option kept in
// the selection (saved for resume), given to every run.sh command line after its arguments, kept through a
// budget's new duration and given back by state.tsv's rebuild from run.json; refused with --target (a target
// speaks TLS through its file). Unit tests of the options and permutations, and ./sweep.sh --list (runs nothing).
const { describe, test } = require('node:test');
const assert = require('node:assert/strict');
const path = require('node:path');
const { spawnSync } = require('node:child_process');
const { parse, withDefaults, UsageError } = require('../options');
const { permutations, withDuration } = require('../permutations');
const { commandOf } = require('../state-rebuild');

const ROOT = path.resolve(__dirname, '..', '..');
const SWEEP = path.join(ROOT, 'sweep.sh');

describe('sweep.sh --tls', () => {
  const args = ['--servers', 'node', '--types', 'comet,pull', '--levels', '20', '--emit-intervals', '1000'];

  test('kept in the selection; every command line ends with --tls; none without it', () => {
    const sel = withDefaults(parse([...args, '--tls']).selection);
    assert.equal(sel.tls, true);
    const perms = permutations(sel);
    assert.ok(perms.length >= 3);
    for (const p of perms) {
      assert.equal(p.args.at(-1), '--tls');
      assert.equal(p.args.filter((a) => a === '--tls').length, 1);
      assert.match(p.command, / --tls$/);
      assert.equal(p.tls, true);
    }
    const plain = permutations(withDefaults(parse(args).selection));
    assert.equal(plain.length, perms.length);
    for (const [i, p] of plain.entries()) {
      assert.equal(`${p.command} --tls`, perms[i].command);
      assert.equal(p.tls, undefined);
    }
    assert.equal(withDefaults(parse(args).selection).tls, undefined);
  });

  test('with thresholds, a budget\'s duration and state.tsv\'s rebuild from run.json', () => {
    const [p] = permutations(withDefaults(parse([...args, '--threshold', 'received>=100', '--tls']).selection));
    assert.deepEqual(p.args.slice(0, 2), ['--threshold', 'received>=100']);
    const shorter = withDuration(p, 7);
    assert.equal(shorter.durationS, 7);
    assert.equal(shorter.args.at(-1), '--tls');
    const runJson = { id: 'x', server: p.server, rampupS: p.rampupS, durationS: p.durationS, connections: p.connections, type: p.type,
      maxDurationMs: p.maxDurationMs, event: p.event, emitIntervalMs: p.emitIntervalMs, pullIntervalMs: p.pullIntervalMs,
      thresholds: ['received>=100'], tls: { front: 'nginx', port: 18443, ca: 'per run' }, status: 'complete' };
    assert.equal(commandOf(runJson), p.command);
    const { tls, ...plainRun } = runJson;
    assert.equal(`${commandOf(plainRun)} --tls`, p.command);
  });

  test('refused with --target: a usage error naming the target file\'s own TLS', () => {
    const file = path.join(ROOT, 'targets', 'nchan-sse.json');   // the project's example target
    assert.throws(() => parse(['--target', file, '--tls']), (e) => e instanceof UsageError && /--tls is for the built-in servers.*https:\/\/ and wss:\/\//.test(e.message));
    const r = spawnSync(SWEEP, ['--tls', '--target', file, '--list'], { encoding: 'utf8' });
    assert.equal(r.status, 2, r.stderr);
    assert.match(r.stderr, /--tls is for the built-in servers/);
    assert.equal(r.stdout, '');
  });

  test('./sweep.sh --list prints each run.sh command line with --tls', () => {
    const r = spawnSync(SWEEP, [...args, '--tls', '--list'], { encoding: 'utf8' });
    assert.equal(r.status, 0, r.stderr);
    const lines = r.stdout.trim().split('\n');
    assert.equal(lines.length, permutations(withDefaults(parse(args).selection)).length);
    for (const l of lines) assert.match(l, /^\.\/run\.sh node .* --tls$/);
  });
});
