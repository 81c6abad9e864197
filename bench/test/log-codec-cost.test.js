// bench/log-codec-cost.sh on a real stream log (the mux poll fixture run's push-1.tsv.gz): each codec's
// measured runs as JSON lines, the summary per codec and lz4's ns per byte over gzip's; usage errors.
'use strict';
const test = require('node:test');
const assert = require('node:assert');
const fs = require('node:fs');
const os = require('node:os');
const path = require('node:path');
const { spawnSync } = require('node:child_process');

const ROOT = path.join(__dirname, '..', '..');
const BENCH = path.join(ROOT, 'bench', 'log-codec-cost.sh');
const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'pb-log-codec-test-'));
test.after(() => fs.rmSync(dir, { recursive: true, force: true }));

const bench = (...args) => spawnSync(BENCH, args, { encoding: 'utf8', timeout: 120_000 });

test('both codecs over a real log: a line per measured run, then the summary', () => {
  const tar = spawnSync('tar', ['-xzf', path.join(__dirname, 'fixtures', 'mux-poll-run', 'responses', 'local.tar.gz'), '-C', dir, 'push-1.tsv.gz']);
  assert.equal(tar.status, 0, String(tar.stderr));
  const out = path.join(dir, 'runs.jsonl');
  const r = bench('--log', path.join(dir, 'push-1.tsv.gz'), '--bytes', '100000', '--repeats', '2', '--out', out);
  assert.equal(r.status, 0, r.stderr);
  const runs = fs.readFileSync(out, 'utf8').trim().split('\n').map((l) => JSON.parse(l));
  assert.deepEqual(runs.map((x) => `${x.codec}/${x.repeat}`), ['gzip/1', 'lz4/1', 'gzip/2', 'lz4/2']);
  for (const x of runs) {
    assert.ok(x.bytesIn > 50_000 && x.bytesIn <= 100_000, `whole lines of the first 100,000 bytes: ${x.bytesIn}`);
    assert.ok(x.bytesOut > 0 && x.bytesOut < x.bytesIn, `compressed: ${x.bytesOut}`);
    assert.equal(x.ratio, Math.round((x.bytesIn / x.bytesOut) * 100) / 100);
    assert.ok(x.nsPerByte > 0);
  }
  assert.match(r.stdout, /^gzip: [\d.]+ \([\d.]+-[\d.]+\) ns\/byte, ratio [\d.]+ \([\d.]+-[\d.]+\), 2 runs of 0 MB$/m);
  assert.match(r.stdout, /^lz4: [\d.]+ \([\d.]+-[\d.]+\) ns\/byte, ratio /m);
  assert.match(r.stdout, /^lz4\/gzip ns per byte: [\d.]+$/m);
});

test('usage errors: no log, an unreadable one, a bad number', () => {
  assert.equal(bench().status, 2);
  const missing = bench('--log', path.join(dir, 'no-such.tsv.gz'));
  assert.equal(missing.status, 2);
  assert.match(missing.stderr, /cannot read .*no-such\.tsv\.gz/);
  assert.equal(bench('--log', BENCH, '--repeats', '0').status, 2);
});
