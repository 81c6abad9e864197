'use strict';
// run.sh's progress line (lib/progress.sh) on captured output: a real mux run's results.csv in which every
// answer failed (lib/test/fixtures/results-all-failed.csv: summary samples counting answers and errors, with
// the first failure in their message) gives its counts and the last error, read in pieces as run.sh reads
// a growing file; a plain sample's failure gives its response code; the engines' sampled trip-time p99 from
// real summaries (lib/test/fixtures/results-trip-*.csv) and from rows given the summary's trip text; a real
// push run's results.csv (lib/test/fixtures/results-push-missed.csv: 5 long polls that all timed out although
// an event was set, its answers counted by the push sampler's summary samples) as a mux run's.
const test = require('node:test');
const assert = require('node:assert/strict');
const fs = require('node:fs');
const os = require('node:os');
const path = require('node:path');
const { execFileSync } = require('node:child_process');

const ROOT = path.resolve(__dirname, '..', '..');
const FIXTURE = path.join(__dirname, 'fixtures', 'results-all-failed.csv');

// Sources lib/progress.sh, feeds it the file's growing prefixes (cut at the given byte counts), prints
// PROGRESS and progress_errors.
function progress(file, cuts) {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'pb-progress-'));
  try {
    const grow = path.join(dir, 'results.csv');
    const data = fs.readFileSync(file);
    const script = `source lib/progress.sh; progress_reset
      for n in ${cuts.join(' ')}; do head -c "$n" "$1" > "$2"; progress_update "$2"; done
      printf '%s\\n%s\\n%s\\n' "\${PROGRESS[samples]}" "\${PROGRESS[errors]}" "$(progress_errors)"`;
    const [samples, errors, line] = execFileSync('bash', ['-c', script, 'progress', file, grow], { cwd: ROOT, encoding: 'utf8' }).trim().split('\n');
    assert.ok(data.length > 0);
    return { samples: Number(samples), errors: Number(errors), line };
  } finally {
    fs.rmSync(dir, { recursive: true, force: true });
  }
}

// The file's own totals: non-summary rows count one each; summary rows their SampleCount and ErrorCount.
function totals(file) {
  const rows = fs.readFileSync(file, 'utf8').trim().split('\n').slice(1);
  let samples = 0;
  let errors = 0;
  for (const r of rows) {
    const m = /,(\d+),(\d+),\d+,[^,]*$/.exec(r);   // SampleCount, ErrorCount, Connect, responseFile
    samples += Number(m[1]);
    errors += Number(m[2]);
  }
  return { samples, errors };
}

test('a mux run in which every answer failed: its counts, and the last error in the progress line', () => {
  const size = fs.statSync(FIXTURE).size;
  const want = totals(FIXTURE);
  assert.ok(want.errors > 100000 && want.samples - want.errors < 20, JSON.stringify(want));   // all but Init and time-stamp samples
  for (const cuts of [[size], [1000, 5000, 5001, 9999, size]]) {
    const got = progress(FIXTURE, cuts);
    assert.deepEqual({ samples: got.samples, errors: got.errors }, want, `read in pieces ${cuts}`);
    assert.equal(got.line, `${want.errors} errors (last: Test failed: text expected not to contain /error/)`);
  }
});

test('a push run: its answers and errors from the push sampler\'s summaries, the last error, the requests open', () => {
  const file = path.join(__dirname, 'fixtures', 'results-push-missed.csv');
  const want = totals(file);
  assert.deepEqual(want, { samples: 4 + 19, errors: 19 });   // logging, setevent, timestamp, clear; 19 answers, all failed
  const size = fs.statSync(file).size;
  for (const cuts of [[size], [700, 1400, size]]) {
    const got = progress(file, cuts);
    assert.deepEqual(got, { ...want, line: '19 errors (last: response contains timeout although an event was set)' }, `read in pieces ${cuts}`);
  }
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'pb-progress-'));
  try {
    const open = execFileSync('bash', ['-c', 'source lib/progress.sh; progress_reset; head -n 6 "$1" > "$2"; progress_update "$2"; printf "%s\\n" "${PROGRESS[open]}"',
      'progress', file, path.join(dir, 'results.csv')], { cwd: ROOT, encoding: 'utf8' }).trim();
    assert.equal(open, '5', 'the requests open at the latest summary read');
  } finally {
    fs.rmSync(dir, { recursive: true, force: true });
  }
});

test('plain samples: a failure gives its response code; no error, no "last"', () => {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'pb-progress-'));
  try {
    const head = fs.readFileSync(FIXTURE, 'utf8').split('\n')[0];
    const file = path.join(dir, 'plain.csv');
    fs.writeFileSync(file, `${head}\n1,2,request,200,OK,t1,true,,10,10,1,1,1,1,0,0,\n`);
    assert.equal(progress(file, [fs.statSync(file).size]).line, '0 errors');
    fs.appendFileSync(file, '3,2,request,Non HTTP response code: java.net.ConnectException,Non HTTP response message: Connection refused,t1,false,,0,0,1,1,0,1,1,0,\n');
    const got = progress(file, [fs.statSync(file).size]);
    assert.deepEqual(got, { samples: 2, errors: 1, line: '1 errors (last: Non HTTP response code: java.net.ConnectException)' });
  } finally {
    fs.rmSync(dir, { recursive: true, force: true });
  }
});

test('the mux summaries give the connections the engine threads hold and the messages a second they receive', () => {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'pb-progress-'));
  try {
    // The fixture's first four summaries of thread 3-1 (open 101, 203, 303 ...) and a second thread's one.
    const lines = fs.readFileSync(FIXTURE, 'utf8').split('\n');
    const header = lines[0];
    const summaries = lines.filter((l) => l.includes('request-summary') && l.includes('Request (mux) 3-1')).slice(0, 3);
    const other = summaries[2].replace('Request (mux) 3-1', 'Request (mux) 1-1').replace('open 303', 'open 50');
    const file = path.join(dir, 'results.csv');
    fs.writeFileSync(file, `${[header, ...summaries, other].join('\n')}\n`);
    const records = summaries.concat(other).map((l) => Number(/records ([0-9]+)/.exec(l)[1])).reduce((a, b) => a + b, 0);
    const t = (l) => Number(l.split(',')[0]);
    const span = t(summaries[2]) + Number(summaries[2].split(',')[1]) - t(summaries[0]);
    const out = execFileSync('bash', ['-c', 'source lib/progress.sh; progress_reset; progress_update "$1"; printf "%s %s\\n" "${PROGRESS[open]}" "${PROGRESS[per_s]}"',
      'progress', file], { cwd: ROOT, encoding: 'utf8' }).trim().split(' ');
    assert.equal(Number(out[0]), 303 + 50, 'each thread\'s latest open count, summed');
    assert.equal(Number(out[1]), Math.round((records * 1000) / span), `${records} records over ${span} ms`);
  } finally {
    fs.rmSync(dir, { recursive: true, force: true });
  }
});

// Sources lib/progress.sh and, in one shell as run.sh does, appends each text in turn to a results.csv and
// reads it: per text "<PROGRESS[p99_us]>|<PROGRESS[p99_basis]>|<progress_trip>".
function trip(...texts) {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'pb-progress-'));
  try {
    const parts = texts.map((t, k) => { const f = path.join(dir, `part${k}`); fs.writeFileSync(f, t); return f; });
    const script = `source lib/progress.sh; progress_reset; csv=$1; shift
      for f in "$@"; do cat "$f" >> "$csv"; progress_update "$csv"; printf '%s|%s|%s\\n' "\${PROGRESS[p99_us]}" "\${PROGRESS[p99_basis]}" "$(progress_trip)"; done`;
    return execFileSync('bash', ['-c', script, 'progress', path.join(dir, 'results.csv'), ...parts], { cwd: ROOT, encoding: 'utf8' })
      .split('\n').slice(0, -1);
  } finally {
    fs.rmSync(dir, { recursive: true, force: true });
  }
}

test('the sampled trip-time p99 of the mux summaries: the largest of those read, its clock named; none without a timed sample', () => {
  const lines = fs.readFileSync(FIXTURE, 'utf8').split('\n');
  const header = `${lines[0]}\n`;
  const [a, b] = lines.filter((l) => l.includes('request-summary')).slice(0, 2);
  const timed = (l, us, n, basis) => l.replace(', first failure:', `, trip p99 ${us} us of ${n} timed (${basis}), first failure:`);
  const rows = `${[timed(a, 12345, 200, 'engine clock'), timed(b, 8100, 150, 'engine clock').replace('3-1', '1-1')].join('\n')}\n`;
  assert.deepEqual(trip(header + rows), ['12345|engine clock|, trip p99 ~12 ms (sampled, engine clock)']);
  assert.deepEqual(trip(`${header}${timed(a, 8150, 3, 'server clock')}\n`), ['8150|server clock|, trip p99 ~8.2 ms (sampled, server clock, offset not corrected)']);
  assert.deepEqual(trip(`${header}${timed(a, -900, 3, 'server clock')}\n`), ['-900|server clock|, trip p99 ~-0.9 ms (sampled, server clock, offset not corrected)'],
    'an uncorrected offset may make a trip negative');
  assert.deepEqual(trip(`${header}${timed(a, 0, 0, 'engine clock')}\n`), ['||'], 'a summary that timed nothing gives no p99');
  assert.deepEqual(trip(`${header}${a}\n`), ['||'], 'a summary without the field (a target without extract.sentUs): no p99');
  assert.deepEqual(trip(header + rows, `${b}\n`, `${timed(b, 3000, 9, 'engine clock')}\n`),
    ['12345|engine clock|, trip p99 ~12 ms (sampled, engine clock)', '12345|engine clock|, trip p99 ~12 ms (sampled, engine clock)',
      '3000|engine clock|, trip p99 ~3.0 ms (sampled, engine clock)'], 'a read without a timed summary keeps the last; the next one replaces it');
});

test('captured summaries of real runs (10,000 connections): the target\'s engine-clock p99 and the native run\'s server-clock one', () => {
  // lib/test/fixtures/results-trip-*.csv: results.csv rows of bench/target-cost.sh's runs at 10,000 connections
  // (nchan SSE and the Node.js server's comet): six target summaries then the one that ended the run, timing
  // none; three native summaries.
  const [header, ...rows] = fs.readFileSync(path.join(__dirname, 'fixtures', 'results-trip-target.csv'), 'utf8').trim().split('\n');
  const p99s = rows.map((r) => /trip p99 ([0-9]+) us/.exec(r)?.[1]).map(Number);
  assert.deepEqual(p99s.slice(0, 6), [23549, 27859, 24368, 45804, 27656, 31152]);
  assert.ok(Number.isNaN(p99s[6]), 'the last summary timed nothing');
  const text = (list) => `${list.join('\n')}\n`;
  assert.deepEqual(trip(text([header, ...rows.slice(0, 3)]), text(rows.slice(3, 6)), text(rows.slice(6))), [
    '27859|engine clock|, trip p99 ~28 ms (sampled, engine clock)',
    '45804|engine clock|, trip p99 ~46 ms (sampled, engine clock)',
    '45804|engine clock|, trip p99 ~46 ms (sampled, engine clock)',
  ], 'each read: the largest of its summaries; a read without one keeps the last');
  const native = fs.readFileSync(path.join(__dirname, 'fixtures', 'results-trip-native.csv'), 'utf8');
  assert.deepEqual(trip(native), ['131873|server clock|, trip p99 ~132 ms (sampled, server clock, offset not corrected)']);
});
