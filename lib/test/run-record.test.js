'use strict';
// run.json written by lib/run-record.js from the run state lib/runjson.sh gathers (no JSON put together in
// bash): the object in the run schema's names, checked against the schema before it is written, any
// character of a note kept, and a file that cannot be written left as it was.
const { test, after } = require('node:test');
const assert = require('node:assert/strict');
const fs = require('node:fs');
const os = require('node:os');
const path = require('node:path');
const { spawnSync } = require('node:child_process');
const { record } = require('../run-record');
const { runRecord } = require('../run-schema');

const ROOT = path.join(__dirname, '..', '..');
const tmp = fs.mkdtempSync(path.join(os.tmpdir(), 'pb-run-record-'));
after(() => fs.rmSync(tmp, { recursive: true, force: true }));

// A run state as run.sh keeps it, then runjson_write; resolves run.json parsed and what the shell printed.
function write(dir, extra = '') {
  fs.mkdirSync(dir, { recursive: true });
  const script = `
    source lib/runjson.sh
    RUN_DIR=$DIR RUN_ID=r1 RUN_SERVER=node RUN_RAMPUP_S=2 RUN_DURATION_S=8 RUN_CONNECTIONS=40 RUN_TYPE=poll RUN_MAX_DURATION_MS=3000
    RUN_EVENT='' RUN_EMIT_INTERVAL_MS='' RUN_PULL_INTERVAL_MS='' RUN_PORT=8080 RUN_STARTED_AT=1700000000000 RUN_FINISHED_AT='' RUN_STATUS=running
    RUN_CRASHED=0 RUN_FAILED=0 RUN_PROVENANCE='{"pushbench": {"commit": "abc", "dirty": false}}'
    SUT_IDX=0 ENGINE_IDX=(1 2)
    H_NAME=(s1 e1 e2) H_ADDR=(127.0.0.1 127.0.0.2 127.0.0.3) H_ACCESS=(local local ssh) H_BIND=(0.0.0.0 '' '')
    H_RMI=('' 1099 1199) H_CONNECTIONS=('' 20 20) H_HEAP_MB=('' 600 601)
    RUN_STEPS=('validate_arguments 12' 'read_hosts 3') RUN_NOTES=('a "quoted" note' $'two\\nlines\\tand a tab, a \\\\ and = sign' $'\\x01control')
    ${extra}
    runjson_write; echo "failed=\${RUN_FAILED}"`;
  const r = spawnSync('bash', ['-c', script], { cwd: ROOT, encoding: 'utf8', env: { ...process.env, DIR: dir } });
  assert.equal(r.status, 0, r.stderr);
  const file = path.join(dir, 'run.json');
  return { out: r.stdout.trim(), err: r.stderr, json: fs.existsSync(file) ? JSON.parse(fs.readFileSync(file, 'utf8')) : null };
}

test('runjson_write: the run state as run.json, in the run schema\'s names, every note as it was', () => {
  const { out, json } = write(path.join(tmp, 'a'));
  assert.equal(out, 'failed=0');
  assert.deepEqual(json, {
    id: 'r1', server: 'node', type: 'poll', rampupS: 2, durationS: 8, connections: 40, maxDurationMs: 3000, event: null,
    emitIntervalMs: null, pullIntervalMs: null, port: 8080,
    hosts: { sut: { name: 's1', address: '127.0.0.1', bind: '0.0.0.0', access: 'local' },
      engines: [{ name: 'e1', address: '127.0.0.2', access: 'local', rmi: 1099, connections: 20, heapMb: 600 },
        { name: 'e2', address: '127.0.0.3', access: 'ssh', rmi: 1199, connections: 20, heapMb: 601 }] },
    provenance: { pushbench: { commit: 'abc', dirty: false } }, startedAt: 1700000000000, finishedAt: null, status: 'running',
    serverCrashed: false, steps: { validate_arguments: 12, read_hosts: 3 },
    notes: ['a "quoted" note', 'two\nlines\tand a tab, a \\ and = sign', '\x01control'],
  });
  assert.doesNotThrow(() => runRecord(json));
});

test('a record the run schema refuses is not written: the field named, the run marked incomplete', () => {
  const dir = path.join(tmp, 'b');
  const { out, err, json } = write(dir, 'RUN_CONNECTIONS=many');
  assert.equal(json, null);
  assert.equal(out, 'failed=1');
  assert.match(err, /run\.json not written: .*"connections" must be a whole number, got 'many'/);
  const missing = write(path.join(tmp, 'b2'), 'RUN_SERVER=""');
  assert.equal(missing.json, null);
  assert.match(missing.err, /run\.json not written: .*the required field "server"/);
});

test('a run directory that cannot be written: the previous run.json kept, the failure reported', () => {
  const dir = path.join(tmp, 'c');
  fs.mkdirSync(dir);
  fs.writeFileSync(path.join(dir, 'run.json'), '{"id": "r1"}\n');
  // run.json is replaced by a rename in its directory: a file of the same name as the temporary one's
  // directory stops it, whoever runs the test (root ignores permissions).
  const r = spawnSync('node', ['lib/run-record.js', path.join(dir, 'missing', 'run.json')], { cwd: ROOT, input: 'id=r1\0server=node\0type=comet\0rampupS=1\0durationS=2\0connections=3\0', encoding: 'utf8' });
  assert.equal(r.status, 1);
  assert.match(r.stderr, /cannot write .*run\.json \(ENOENT\); the previous version is kept/);
  assert.equal(fs.readFileSync(path.join(dir, 'run.json'), 'utf8'), '{"id": "r1"}\n');
});

test('record(): a field it does not know, or one without a value sign, is refused', () => {
  assert.throws(() => record(['id=r1', 'colour=blue']), /unknown field 'colour'/);
  assert.throws(() => record(['id']), /bad field 'id'/);
  assert.throws(() => record(['id=r1', 'server=node', 'type=comet', 'rampupS=1', 'durationS=2']), /the required field "connections"/);
});
