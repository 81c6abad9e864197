'use strict';
// Run validity end to end (docs/validity.md), with the real servers, JMeter and analyzer on this machine:
// the README's light run comes out valid with every engine monitor collected, and a run made
// generator-bound on purpose — a thread-per-connection engine JVM pinned to one CPU (PB_ENGINE_CPUS=0)
// against a long poll it cannot offer — comes out generator-bound, with the engine's saturation among its
// reasons.
const { test, after } = require('node:test');
const assert = require('node:assert/strict');
const fs = require('node:fs');
const path = require('node:path');
const { scratch, hostsFile, LOCAL_HOSTS, runSh, runShUndisturbed } = require('./lib/runsh');

const s = scratch('validity');
after(() => s.cleanup());
const env = () => ({ PB_RESULTS: s.results, PB_HOSTS: hostsFile(s.dir, LOCAL_HOSTS) });
const summaryOf = (dir) => JSON.parse(fs.readFileSync(path.join(dir, 'data', 'summary.json'), 'utf8'));

test('the README run (500 comet streams, an event every 2 s) is valid; the engine was monitored and charted', async () => {
  const args = ['node', '5', '30', '500', 'comet', '-', 'event1', '2000'];
  const r = await runShUndisturbed(args, { env: env(), timeoutMs: 240000 });
  assert.equal(r.code, 0, `run.sh ${args.join(' ')} exited ${r.code}\n${r.stdout}\n${r.stderr}`);
  const summary = summaryOf(r.runDir);
  assert.equal(summary.validity.verdict, 'valid', JSON.stringify(summary.validity, null, 1));
  assert.equal(summary.validity.confidence, 'full', summary.validity.unknowns.join('; '));
  assert.match(r.stdout, /^validity: valid \(steady window \d+-\d+ s, 2\d s\)$/m);
  // The model's numbers: every stream held, every cycle of the window reached every stream.
  const w = summary.workload;
  assert.equal(w.connections.expected, 500);
  assert.ok(w.connections.mean >= 495, `connections held ${w.connections.mean}`);
  assert.ok(w.answers.share >= 0.9, `answers ${JSON.stringify(w.answers)}`);
  assert.equal(summary.steadyWindow.seconds, 25);
  for (const f of ['vmstat.log', 'pidstat.log', 'gc.log', 'started-at.txt', 'cpus-allowed.txt']) {
    assert.ok(fs.statSync(path.join(r.runDir, 'engines', 'local', f)).size > 0, `engines/local/${f} missing or empty`);
  }
  assert.ok(w.engines[0].jvmCpuMean > 0 && w.engines[0].gcPauseShare !== null, JSON.stringify(w.engines[0]));
  for (const chart of ['engine-cpu-local', 'engine-gc-pause']) {
    assert.ok(fs.existsSync(path.join(r.runDir, 'charts', `${chart}.json`)), `charts/${chart}.json missing`);
  }
  const html = fs.readFileSync(path.join(r.runDir, 'report', 'index.html'), 'utf8');
  assert.match(html, /<div class="verdict verdict-valid" id="verdict" data-verdict="valid">/);
  // Every comet record was stamped on arrival by the push sampler: trip-time percentiles and their
  // distribution (issue #22's acceptance on the same run).
  const comet = summary.tripTime?.comet;
  assert.ok(comet && comet.records >= summary.totals.events * 0.99, `comet trip times: ${JSON.stringify(comet)}`);
  assert.ok(comet.p50Ms <= comet.p99Ms && comet.p99Ms <= comet.maxMs && comet.p99Ms < 2000, JSON.stringify(comet));
  assert.ok(comet.spectrum.length >= 10 && comet.spectrum.at(-1).percentile === 100);
  const spectrum = JSON.parse(fs.readFileSync(path.join(r.runDir, 'charts', 'trip-time-spectrum.json'), 'utf8'));
  assert.deepEqual(spectrum.elements.map((e) => e.text), ['Comet records']);
  // An engine's results hold a handful of files whatever the sample count (no file per sample).
  const archive = path.join(r.runDir, 'responses', 'local.tar.gz');
  const names = require('node:child_process').execFileSync('tar', ['-tzf', archive], { encoding: 'utf8' }).split('\n').filter(Boolean);
  assert.ok(names.length <= 10, `${names.length} files in the archive: ${names.slice(0, 12)}`);
});

test('an engine pinned to one CPU against 8,000 answers/s asked is generator-bound, and says why', async () => {
  // The thread-per-connection engine (PB_REQUEST_SAMPLER=push): the mux engine offers these 8,000 answers/s
  // from one CPU (docs/engine.md), so it cannot be made generator-bound this way on one machine.
  // 2,000 long polls answered every 250 ms. Measured on this 2-core machine, quiet, 3 runs: one engine CPU
  // offered 3,322-3,531 answers/s of these 8,000 (its JVM at 95-96% of the CPU, the server at 20% of a
  // core), so a machine twice as fast per core still falls short. Half that (1,000 polls every 500 ms) is
  // no test: the engine offered 1,960-1,967 of 2,000/s at 46-48% of its CPU, and its verdict turned on the
  // re-poll gap's p99 (155-628 ms against the 250 ms bar) from run to run. A 5 s max-duration bounds how
  // long a poll the engine fell behind on can keep the run going.
  const args = ['node', '3', '20', '2000', 'poll', '5000', 'event1', '250'];
  const r = await runShUndisturbed(args, { env: { ...env(), PB_ENGINE_CPUS: '0', PB_REQUEST_SAMPLER: 'push' }, timeoutMs: 300000 });
  assert.equal(r.code, 0, `run.sh ${args.join(' ')} exited ${r.code}\n${r.stdout}\n${r.stderr}`);
  const summary = summaryOf(r.runDir);
  const v = summary.validity;
  assert.equal(v.verdict, 'generator-bound', JSON.stringify(v, null, 1));
  assert.equal(summary.workload.engines[0].cpus, 1);
  // A sign on the generator's side: its CPU or GC, or its own delays (late thread starts, long re-poll gaps,
  // cycles missed between polls); which one shows depends on how busy the machine is beside the engine.
  const rules = v.reasons.map((x) => x.rule);
  assert.ok(rules.some((x) => ['engine-cpu', 'engine-gc', 'gaps-long', 'rampup-late', 'missed-cycles'].includes(x)),
    `no generator sign among ${rules}`);
  assert.ok(rules.some((x) => ['answers-short', 'gaps-long', 'missed-cycles', 'rampup-late', 'connections-short'].includes(x)),
    `no shortfall among ${rules}`);
  assert.ok(!rules.includes('server-cpu'), `the server was saturated: ${rules}`);
  assert.match(r.stdout, /^validity: generator-bound/m);
  assert.match(r.stdout, /^ {2}- .*\d/m);   // each reason carries its numbers
  const html = fs.readFileSync(path.join(r.runDir, 'report', 'index.html'), 'utf8');
  assert.match(html, /data-verdict="generator-bound"/);
});
