'use strict';
// bench/run-figures.js: the poll headline's rate per connection and the steal figure beside it; a mux run's
// polls read from its stream logs (fixtures/mux-poll-run: a real `./run.sh node 2 25 60 poll 10000`, its
// run.json, results.csv and response archive).
const test = require('node:test');
const assert = require('node:assert/strict');
const fs = require('node:fs');
const os = require('node:os');
const path = require('node:path');
const { pollRate, pollSamples, steal, generator } = require('../run-figures');

const HEADER = 'timeStamp,elapsed,label,responseCode,responseMessage,threadName,success,failureMessage,bytes,sentBytes,grpThreads,allThreads,Latency,Connect,"responseFile"';
const row = (start, elapsed, label, thread, success = true) =>
  `${start},${elapsed},${label},200,OK,${thread},${success},,100,100,2,2,${elapsed},0,/r/${label}_1.json`;

function runDir(rows, vmstat) {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'pb-figures-'));
  fs.mkdirSync(path.join(dir, 'jmeter'));
  fs.writeFileSync(path.join(dir, 'run.json'), JSON.stringify({ id: 'r1', server: 'node', type: 'poll', threads: 2, rampup: 0, duration: 30,
    maxDuration: 10000, status: 'complete', serverCrashed: false }));
  fs.writeFileSync(path.join(dir, 'jmeter', 'results.csv'), [HEADER, ...rows].join('\n') + '\n');
  if (vmstat) {
    fs.mkdirSync(path.join(dir, 'sut'));
    fs.writeFileSync(path.join(dir, 'sut', 'vmstat.log'), vmstat);
  }
  return dir;
}

test('poll rate: each connection\'s polls over its own span, summed, against threads / max duration', (t) => {
  const dir = runDir([
    row(1000, 10000, 'request', 'A'), row(11000, 10000, 'request', 'A'),   // 2 polls in 20 s: 0.1/s
    row(6000, 10000, 'request', 'B'),                                        // 1 poll in 10 s: 0.1/s
    row(16000, 5000, 'request', 'B', false),                                 // failed: counted, no rate
    row(21000, 9500, 'request', 'A'),                                        // ended by the clear: left out
    row(30000, 5, 'clear', 'C'),
  ]);
  t.after(() => fs.rmSync(dir, { recursive: true, force: true }));
  const r = pollRate(JSON.parse(fs.readFileSync(path.join(dir, 'run.json'), 'utf8')), dir);
  assert.equal(r.connectionsSeen, 2);
  assert.equal(r.responses, 3);
  assert.equal(r.failed, 1);
  assert.ok(Math.abs(r.responsesPerSecond - 0.2) < 1e-9, String(r.responsesPerSecond));
  assert.equal(r.limitPerSecond, 0.2);
  assert.ok(Math.abs(r.fraction - 1) < 1e-9);
  assert.deepEqual([r.stealPercent, r.stealSeconds], [null, null], 'no vmstat log: no steal figure');
});

test('generator: when the last thread started, and the 90th percentile of answer-to-next-poll gaps, overall and worst 10 s', () => {
  // 200 threads start over 19.9 s, each polls 10 s at a time; in the window 20-30 s (by the answer's
  // time) every fifth thread waits 3 s before its next poll, elsewhere 1 ms.
  const threads = new Map();
  for (let i = 0; i < 200; i++) {
    const samples = [];
    let start = i * 100;
    for (let k = 0; k < 4; k++) {
      const end = start + 10000;
      samples.push([start, end]);
      start = end + (end >= 20000 && end < 30000 && i % 5 === 0 ? 3000 : 1);
    }
    threads.set(`t${i}`, { first: samples[0][0], samples: samples.reverse() });   // any order
  }
  const g = generator(threads);
  assert.equal(g.lastStartSecond, 19.9);
  assert.equal(g.gapP90Ms, 1);             // 40 slow gaps of 600: under the 90th percentile overall
  assert.equal(g.worstGapSecond, 20);
  assert.equal(g.worstGapP90Ms, 3000);     // 40 of the 200 answers in 20-30 s: more than the top 10%
  assert.deepEqual(generator(new Map([['a', { first: 0, samples: [[0, 10000]] }]])),
    { lastStartSecond: 0, gapP90Ms: null, worstGapSecond: null, worstGapP90Ms: null });
});

test('steal: mean vmstat st over the run (since-boot line dropped) and the seconds above 10%', (t) => {
  const dir = runDir([], [
    'procs -----------memory---------- ---swap-- -----io---- -system-- ------cpu-----',
    ' r  b   swpd   free  inact active   si   so    bi    bo   in   cs us sy id wa st',
    ' 5  0      0  16079   4479   1727    0    0    58   502 4238 11429 51 10 38  0 99',
    ' 3  0      0  16079   4479   1727    0    0     0     4  715  973 64  5  3  0 28',
    ' 3  0      0  16079   4479   1727    0    0     0     4  715  973 90  6  4  0  0',
    ' 3  0      0  16079   4479   1727    0    0     0     4  715  973 80  5  3  0 12',
    ' 3  0      0  16079   4479',
  ].join('\n') + '\n');
  t.after(() => fs.rmSync(dir, { recursive: true, force: true }));
  assert.deepEqual(steal(dir), { stealPercent: (28 + 0 + 12) / 3, stealSeconds: 2 });
});

test('poll-headline: a bad --engines or option is a usage error before anything starts', () => {
  const { spawnSync } = require('node:child_process');
  const script = path.join(__dirname, '..', 'poll-headline.sh');
  for (const [args, message] of [[['--engines', '0'], /--engines wants 1 to 9/], [['--engines', 'two'], /--engines wants 1 to 9/],
    [['--bogus'], /usage: bench\/poll-headline.sh/], [['--connections', '-5'], /--connections wants a positive number/],
    [['--settle', 'later'], /--settle wants seconds/], [['--settle', '-1'], /--settle wants seconds/],
    [['--rampup', '0'], /--rampup wants a positive number/]]) {
    const r = spawnSync('bash', [script, ...args], { encoding: 'utf8', env: { ...process.env, PB_HOSTS: '/nonexistent' } });
    assert.equal(r.status, 2, `${args.join(' ')}: ${r.stdout}${r.stderr}`);
    assert.match(r.stderr, message);
    assert.doesNotMatch(r.stdout, /===/, 'no run started');
  }
});

test('jmeter-sample-cost: a window too short for its warm-up, or a bad option, is a usage error before anything starts', () => {
  const { spawnSync } = require('node:child_process');
  const script = path.join(__dirname, '..', 'jmeter-sample-cost.sh');
  for (const [args, message] of [[['--duration', '60', '--warmup', '50'], /at least --warmup \+ 20 s/],
    [['--warmup', 'soon'], /usage: bench\/jmeter-sample-cost.sh/], [['--threads', '0'], /usage: bench\/jmeter-sample-cost.sh/],
    [['--plan', '/nonexistent.jmx'], /cannot read plan '\/nonexistent.jmx'/], [['--bogus'], /usage: bench\/jmeter-sample-cost.sh/]]) {
    const r = spawnSync('bash', [script, ...args], { encoding: 'utf8' });
    assert.equal(r.status, 2, `${args.join(' ')}: ${r.stdout}${r.stderr}`);
    assert.match(r.stderr, message);
    assert.doesNotMatch(r.stdout, /samples/, 'no run started');
  }
});

test('inode-churn: creates, deletes and creates again in a scratch dir, prints both times, leaves nothing behind', () => {
  const { spawnSync } = require('node:child_process');
  const script = path.join(__dirname, '..', 'inode-churn.js');
  for (const args of [['--files', '0'], ['--files', 'many'], ['--bogus', '1'], ['--dir']]) {
    const r = spawnSync(process.execPath, [script, ...args], { encoding: 'utf8' });
    assert.equal(r.status, 2, args.join(' '));
    assert.match(r.stderr, /usage: node bench\/inode-churn.js/);
  }
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'pb-churn-'));
  try {
    const r = spawnSync(process.execPath, [script, '--files', '300', '--dir', dir], { encoding: 'utf8' });
    assert.equal(r.status, 0, r.stderr);
    const figures = JSON.parse(r.stdout.trim().split('\n').pop());
    assert.equal(figures.files, 300);
    assert.ok(figures.freshMs >= 0 && figures.afterDeleteMs >= 0 && figures.ratio > 0);
    const { mountOf } = require('../inode-churn');
    assert.equal(figures.fsType, mountOf(dir).type);
    assert.match(r.stdout, /after deleting \/ fresh: [0-9.]+x the time/);
    assert.deepEqual(fs.readdirSync(dir), [], 'its working directory is gone');
  } finally {
    fs.rmSync(dir, { recursive: true, force: true });
  }
});

test('poll rate of a mux run: its polls come from the stream logs (results.csv holds none), one connection each', async () => {
  const dir = path.join(__dirname, 'fixtures', 'mux-poll-run');
  const run = JSON.parse(fs.readFileSync(path.join(dir, 'run.json'), 'utf8'));
  const samples = await pollSamples(dir);
  assert.equal(samples.length, 180, 'every request sample of the stream log (185 B ... E pairs, 5 of them the timestamp group\'s)');
  assert.equal(new Set(samples.map((x) => x.thread)).size, 60, 'one thread per mux connection');
  assert.ok(samples.every((x) => x.success && x.end >= x.start));
  const r = pollRate(run, dir, samples);
  assert.equal(r.connectionsSeen, 60);
  assert.equal(r.responses, 120, 'the polls ended before the clear: two 10 s cycles per connection in 25 s');
  assert.equal(r.limitPerSecond, 6);
  assert.ok(r.fraction > 0.99 && r.fraction <= 1.001, String(r.fraction));
  assert.throws(() => pollRate(run, dir), /no successful request samples/, 'results.csv alone has none');
});

