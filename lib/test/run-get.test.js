'use strict';
// lib/run-get.sh, the one accessor through which the lib files read run.sh's run state: a value by its key,
// a list's entries NUL-ended (any character kept), a host's field by its index; '' or nothing for what is
// unset, exit 2 for a key that is not lower case; the hosts' indexes. Real bash, no run.
const test = require('node:test');
const assert = require('node:assert/strict');
const path = require('node:path');
const { spawnSync } = require('node:child_process');

const ROOT = path.join(__dirname, '..', '..');
const bash = (script) => spawnSync('bash', ['-c', `set -euo pipefail\nsource lib/run-get.sh\n${script}`], { cwd: ROOT, encoding: 'utf8' });

test('run_get: a value by its key; unset is empty', () => {
  const r = bash(`RUN_SERVER=node RUN_MAX_DURATION_MS=3000
    printf '[%s]' "$(run_get server)" "$(run_get max_duration_ms)" "$(run_get nothing_here)"`);
  assert.equal(r.status, 0, r.stderr);
  assert.equal(r.stdout, '[node][3000][]');
});

test('run_list: each entry NUL-ended, newlines and tabs kept; nothing for an empty or unset list', () => {
  const r = bash(`RUN_NOTES=($'two\\nlines' $'a\\ttab' '') RUN_STEPS=()
    run_list notes; printf '%s|' "$(run_list steps | wc -c)" "$(run_list unset_list | wc -c)"`);
  assert.equal(r.status, 0, r.stderr);
  assert.equal(r.stdout, 'two\nlines\0a\ttab\0\0' + '0|0|');
});

test('host_get: a host\'s field by its index; past the table is empty', () => {
  const r = bash(`H_NAME=(s1 e1) H_HEAP_MB=('' 600)
    printf '[%s]' "$(host_get name 1)" "$(host_get heap_mb 1)" "$(host_get heap_mb 0)" "$(host_get name 5)"`);
  assert.equal(r.status, 0, r.stderr);
  assert.equal(r.stdout, '[e1][600][][]');
});

test('host_indexes: every host\'s index in order; none without a hosts table', () => {
  const r = bash(`H_NAME=(s1 e1 e2)
    printf '[%s]' "$(host_indexes)"; unset H_NAME; printf '[%s]' "$(host_indexes)"`);
  assert.equal(r.status, 0, r.stderr);
  assert.equal(r.stdout, '[0 1 2][]');
});

test('a key that is not lower case letters and _ is refused (exit 2), never expanded', () => {
  for (const call of ['run_get SERVER', "run_get 'x[$(touch /tmp/pb-run-get-no)]'", 'run_list Notes', 'host_get name x', 'host_get NAME 1']) {
    const r = bash(call);
    assert.equal(r.status, 2, call);
    assert.match(r.stderr, /bad (key|field)/);
  }
});

// The direct reads of the run state in a bash file: $RUN_x, ${RUN_x...}, ${#H_x[@]}, ${!H_x[@]}, and a bare
// name in (( )); comments skipped. Every lib file reads through the accessor; lib/log.sh's own RUN_LOG (it
// sets it: log_open) is its own.
function directReads(text) {
  const found = [];
  text.split('\n').forEach((line, i) => {
    const code = line.replace(/^\s*#.*$/, '').replace(/\s#\s.*$/, '');
    const names = [...code.matchAll(/\$\{?[#!]?((?:RUN|H)_[A-Z_]+)/g)].map((m) => m[1]);
    for (const [arith] of code.matchAll(/\(\([^)]*\)\)/g)) names.push(...[...arith.matchAll(/(?<![$\w{#!])((?:RUN|H)_[A-Z_]+)/g)].map((m) => m[1]));
    for (const name of names) found.push({ line: i + 1, name });
  });
  return found;
}

test('no lib file reads RUN_* or H_* but through lib/run-get.sh', () => {
  const fs = require('node:fs');
  const lib = path.join(ROOT, 'lib');
  const own = { 'log.sh': ['RUN_LOG'] };
  const files = fs.readdirSync(lib).filter((f) => f.endsWith('.sh') && f !== 'run-get.sh');
  assert.ok(files.length > 10, 'the lib files are found');
  const reads = files.flatMap((f) => directReads(fs.readFileSync(path.join(lib, f), 'utf8'))
    .filter((r) => !(own[f] ?? []).includes(r.name)).map((r) => `lib/${f}:${r.line}: ${r.name}`));
  assert.deepEqual(reads, []);
});

test('the check finds each form of a direct read, and not a comment, an assignment or a key', () => {
  const planted = [
    'x=${RUN_DIR}/a', 'echo "$RUN_ID"', 'for i in "${!H_NAME[@]}"; do :; done', 'n=${#H_NAME[@]}', '((RUN_FINISHED == 0)) || :',
    '[[ -z ${H_LOST[e]:-} ]]',
  ].join('\n');
  assert.deepEqual(directReads(planted).map((r) => `${r.line}:${r.name}`),
    ['1:RUN_DIR', '2:RUN_ID', '3:H_NAME', '4:H_NAME', '5:RUN_FINISHED', '6:H_LOST']);
  assert.deepEqual(directReads('# ${RUN_DIR} in a comment\nRUN_STATUS=incomplete H_LOST[e]=1\nunset \'H_LOST[i]\'\nx=$(run_get dir)  # not $RUN_DIR'), []);
});
