'use strict';
// The fault suite's inputs that are damaged rather than faults of a running part (docs/faults.md): an engine's
// response archive that arrived empty, and a hosts.conf whose line holds invisible characters. Each with the
// real programs (the analysis and its verdict on a captured run, run.sh on a hosts file); a few seconds.
const { test, after } = require('node:test');
const assert = require('node:assert/strict');
const fs = require('node:fs');
const path = require('node:path');
const { spawnSync } = require('node:child_process');
const { ROOT, scratch, runSh } = require('./lib/runsh');

const s = scratch('faults-inputs');
after(() => s.cleanup());

// A captured single-engine run (Node.js, 100 comet streams), copied so it can be damaged.
const CAPTURED = path.join(ROOT, 'analysis', 'test', 'fixtures', 'real-node-comet-100-15');

function damagedCopy(name, damage) {
  const dir = path.join(s.dir, name);
  fs.cpSync(CAPTURED, dir, { recursive: true });
  damage(dir);
  return dir;
}

const node = (...args) => spawnSync(process.execPath, args, { cwd: ROOT, encoding: 'utf8', timeout: 120000 });

test('a 0-byte response archive: the run failed for the lost archive (named, with why), never "no load" or "no answer"', () => {
  const cases = [
    ['empty-archive', (dir) => fs.truncateSync(path.join(dir, 'responses', 'local.tar.gz'), 0)],
    // without results.csv as well, nothing at all of the client side is left
    ['empty-archive-no-csv', (dir) => {
      fs.truncateSync(path.join(dir, 'responses', 'local.tar.gz'), 0);
      fs.rmSync(path.join(dir, 'jmeter', 'results.csv'));
    }],
  ];
  for (const [name, damage] of cases) {
    const dir = damagedCopy(name, damage);
    const analysed = node('analysis/analyze.js', dir);
    assert.equal(analysed.status, 0, analysed.stderr);
    assert.match(analysed.stdout, /archives unreadable: local\.tar\.gz/, name);
    const v = node('analysis/verdict.js', dir);
    assert.equal(v.status, 0, v.stderr);
    const lines = v.stdout.split('\n');
    assert.match(lines[0], /^validity: failed /, `${name}: ${v.stdout}`);
    assert.equal(lines[1], '  - records lost: local.tar.gz unreadable (empty file: no archive)', `${name}: ${v.stdout}`);
    assert.doesNotMatch(v.stdout, /neither JMeter nor the server recorded a request|the server answered none|the server held no connection/, name);
    const { validity } = JSON.parse(fs.readFileSync(path.join(dir, 'data', 'summary.json'), 'utf8'));
    assert.equal(validity.reasons[0].rule, 'records-lost', name);
  }
});

test('a hosts.conf line with a carriage return (CRLF line ends) or a byte order mark: exit 2, shown as escapes, with what they are', async () => {
  const cases = [
    ['crlf', 'sut local 127.0.0.1 local\r\nengine local 127.0.0.1 local\r\n',
      ":1: bad access 'local\\r' (expected local or ssh:<user>@<host>) (\\r is a carriage return: the file has Windows (CRLF) line ends; convert them with dos2unix)"],
    ['bom', '\ufeffsut local 127.0.0.1 local\nengine local 127.0.0.1 local\n',
      ":1: unknown role '\\u{feff}sut' (expected sut or engine) (\\u{feff} is a byte order mark: save the file as UTF-8 without one)"],
  ];
  for (const [name, text, message] of cases) {
    const hosts = path.join(s.dir, `${name}.conf`);
    fs.writeFileSync(hosts, text);
    const r = await runSh(['node', '2', '8', '40', 'comet', '-', 'event1', '1000'],
      { env: { PB_HOSTS: hosts, PB_STATE: s.state, PB_RESULTS: s.results }, timeoutMs: 60000 });
    assert.equal(r.code, 2, r.stdout + r.stderr);
    assert.equal(r.stderr, `run.sh: ${hosts}${message}\n`);
    assert.doesNotMatch(r.stderr, /[\r\ufeff]/, 'a raw character in the message');
    assert.equal(r.runDir, null, 'a run directory was made');
  }
});
