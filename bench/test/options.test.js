// bench/lib/options.sh, the benches' command line: options set the bench's variables, an unknown option
// or a missing value is a usage error (exit 2), --help prints the bench's opening comment.
'use strict';
const test = require('node:test');
const assert = require('node:assert');
const fs = require('node:fs');
const os = require('node:os');
const path = require('node:path');
const { spawnSync } = require('node:child_process');

const lib = path.join(__dirname, '..', 'lib', 'options.sh');
const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'pb-bench-options-'));
const script = path.join(dir, 'fake-bench.sh');
fs.writeFileSync(script, [
  '#!/usr/bin/env bash',
  '# What a fake bench measures, first line.',
  '#   fake-bench.sh [--levels <l>] [--warm-up <s>]',
  'set -euo pipefail',
  `source ${JSON.stringify(lib)}`,
  'usage="usage: fake-bench.sh [--levels <l>] [--warm-up <s>]"',
  'levels=1000 warm_up=5',
  'bench_options "$usage" levels warm_up -- "$@"',
  'echo "levels=$levels warm_up=$warm_up"',
  '',
].join('\n'));
test.after(() => fs.rmSync(dir, { recursive: true, force: true }));

const run = (...args) => spawnSync('bash', [script, ...args], { encoding: 'utf8' });

test('defaults stand when no option is given', () => {
  const r = run();
  assert.strictEqual(r.status, 0, r.stderr);
  assert.strictEqual(r.stdout, 'levels=1000 warm_up=5\n');
});

test('each option sets its variable; an underscore in a name is a dash in its option', () => {
  const r = run('--warm-up', '12', '--levels', '1000,10000');
  assert.strictEqual(r.status, 0, r.stderr);
  assert.strictEqual(r.stdout, 'levels=1000,10000 warm_up=12\n');
});

test('an unknown option, a missing value or a stray word prints the usage line and exits 2', () => {
  for (const args of [['--bogus', '1'], ['--levels'], ['stray'], ['--warm_up', '3']]) {
    const r = run(...args);
    assert.strictEqual(r.status, 2, args.join(' '));
    assert.strictEqual(r.stdout, '', args.join(' '));
    assert.strictEqual(r.stderr, 'usage: fake-bench.sh [--levels <l>] [--warm-up <s>]\n', args.join(' '));
  }
});

test('--help prints the opening comment without its marks and stops', () => {
  for (const flag of ['-h', '--help']) {
    const r = run('--levels', '5', flag);
    assert.strictEqual(r.status, 0);
    assert.strictEqual(r.stdout, 'What a fake bench measures, first line.\n  fake-bench.sh [--levels <l>] [--warm-up <s>]\n');
  }
});

test('every bench that sources it answers --help with its own opening comment and refuses an unknown option', () => {
  const bench = path.join(__dirname, '..');
  const users = fs.readdirSync(bench).filter((f) => f.endsWith('.sh') &&
    fs.readFileSync(path.join(bench, f), 'utf8').includes('bench/lib/options.sh'));
  assert.ok(users.length >= 5, users.join(' '));
  for (const f of users) {
    const help = spawnSync('bash', [path.join(bench, f), '--help'], { encoding: 'utf8' });
    assert.strictEqual(help.status, 0, f);
    const second = fs.readFileSync(path.join(bench, f), 'utf8').split('\n')[1].replace(/^# ?/, '');
    assert.strictEqual(help.stdout.split('\n')[0], second, f);
    const bad = spawnSync('bash', [path.join(bench, f), '--no-such-option', 'x'], { encoding: 'utf8' });
    assert.strictEqual(bad.status, 2, f);
    assert.match(bad.stderr, new RegExp(`^usage: bench/${f}`), f);
  }
});
