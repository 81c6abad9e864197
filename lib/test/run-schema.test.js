'use strict';
// lib/run-schema.js: a run.json written before the schema (old names) and one written after read to the
// same parameters; a missing, unknown, doubled or mistyped field is refused with its name.
const test = require('node:test');
const assert = require('node:assert/strict');
const fs = require('node:fs');
const path = require('node:path');
const { runParameters, runRecord, PARAMETERS, RunSchemaError } = require('../run-schema');

const ROOT = path.join(__dirname, '..', '..');
const OLD = JSON.parse(fs.readFileSync(path.join(ROOT, 'analysis/test/fixtures/real-node-comet-100-15/run.json'), 'utf8'));

// The same run in the new names, as lib/runjson.sh writes it now.
function renamed(old) {
  const { rampup, duration, threads, maxDuration, interval, pullInterval, hosts, ...rest } = old;
  return { ...rest, rampupS: rampup, durationS: duration, connections: threads, maxDurationMs: maxDuration,
    emitIntervalMs: interval, pullIntervalMs: pullInterval,
    hosts: { ...hosts, engines: hosts.engines.map(({ threads: t, ...e }) => ({ ...e, connections: t })) } };
}

test('an old run.json and a new one read to the same parameters, in the new names', () => {
  const fromOld = runParameters(OLD);
  assert.deepEqual(fromOld, runParameters(renamed(OLD)));
  assert.deepEqual(Object.keys(fromOld), PARAMETERS.map((p) => p.name));
  assert.equal(fromOld.connections, OLD.threads);
  assert.equal(fromOld.rampupS, OLD.rampup);
  assert.equal(fromOld.durationS, OLD.duration);
  assert.equal(fromOld.emitIntervalMs, OLD.interval);
  assert.deepEqual(fromOld.hosts.engines.map((e) => e.connections), OLD.hosts.engines.map((e) => e.threads));
  assert.ok(fromOld.hosts.engines.every((e) => !('threads' in e)));
  const record = runRecord(OLD);
  assert.equal(record.id, OLD.id);
  assert.equal(record.status, OLD.status);
  assert.deepEqual(record.steps, OLD.steps);
  assert.ok(!('threads' in record) && !('interval' in record));
});

test('every committed run.json of the study reads (old names, never rewritten)', () => {
  const dir = path.join(ROOT, 'docs/study/data');
  const files = [];
  const walk = (d) => { for (const e of fs.readdirSync(d, { withFileTypes: true })) {
    if (e.isDirectory()) walk(path.join(d, e.name)); else if (e.name === 'run.json') files.push(path.join(d, e.name));
  } };
  if (fs.existsSync(dir)) walk(dir);
  for (const f of files) {
    const p = runParameters(JSON.parse(fs.readFileSync(f, 'utf8')), f);
    assert.ok(p.connections > 0 && p.durationS > 0 && typeof p.server === 'string', f);
  }
});

test('a summary\'s parameters, old or new, read through the same function', () => {
  const old = { server: 'node', type: 'pull', threads: 500, rampup: 5, duration: 30, event: 'event1', interval: 2000,
    maxDuration: null, pullInterval: 1000, hosts: null };
  const p = runParameters(old, 'summary.parameters');
  assert.deepEqual(runParameters(p, 'summary.parameters'), p);
  assert.equal(p.pullIntervalMs, 1000);
  assert.equal(p.port, null, 'a field the old file lacks and the schema allows to be null');
});

test('a missing required field, an unknown one, one given twice or of the wrong kind is refused by name', () => {
  const base = renamed(OLD);
  const refuses = (json, re) => assert.throws(() => runParameters(json), (e) => e instanceof RunSchemaError && re.test(e.message));
  const { connections, ...noConnections } = base;
  refuses(noConnections, /required field "connections" \(old name "threads"\) is missing/);
  const { durationS, ...noDuration } = base;
  refuses(noDuration, /"durationS"/);
  refuses({ ...base, threadz: 3 }, /unknown field "threadz"/);
  refuses({ ...base, threads: 3 }, /"connections" is given twice \(also as its old name "threads"\)/);
  refuses({ ...base, rampupS: '5' }, /"rampupS" must be a number/);
  refuses({ ...base, hosts: { ...base.hosts, engines: [{ name: 'e', threads: 1, connections: 1 }] } }, /engines\[0\] has both/);
  refuses({ ...base, hosts: { ...base.hosts, engines: [{ name: 'e', connections: 1, cores: 2 }] } }, /unknown field "cores"/);
  refuses([], /expected a JSON object/);
});
