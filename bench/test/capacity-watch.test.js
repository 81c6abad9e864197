'use strict';
// bench/capacity.js's live watch of the answers: a real push run's stream log (bench/test/fixtures/
// push-poll-missed.tsv.gz: 5 long polls that all timed out although an event was set, 19 answers, each E
// line with the plan's verdict; one time-stamp exchange), read while it grows as the engine writes it,
// under the run's engine directory ($PB_STATE/runs/<run id>/<engine>/responses), gives each answer once, as
// the analysis reads it; results.csv's request rows (JMeter's HTTP sampler) count beside them.
const test = require('node:test');
const assert = require('node:assert/strict');
const fs = require('node:fs');
const os = require('node:os');
const path = require('node:path');
const zlib = require('node:zlib');
const { SampleWatch } = require('../capacity');

const FIXTURE = path.join(__dirname, 'fixtures', 'push-poll-missed.tsv.gz');
const settle = () => new Promise((resolve) => { setTimeout(resolve, 50); });   // the gunzip's output comes in the event loop

test('the stream log read as it grows: every answer once, with its verdict and elapsed; the csv rows beside', async () => {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'pb-capacity-watch-'));
  try {
    const runs = path.join(dir, 'runs', 'run-1');
    const responses = path.join(runs, 'local', 'responses');
    fs.mkdirSync(responses, { recursive: true });
    fs.writeFileSync(path.join(runs, 'tc7.pid'), '1');   // the run's PID files live there too
    const csv = path.join(dir, 'results.csv');
    const run = { type: 'poll', event: 'capacity', emitIntervalMs: 1000, maxDurationMs: 1000 };
    const watch = new SampleWatch(csv, runs, run, 6);
    const bytes = fs.readFileSync(FIXTURE);
    const log = path.join(responses, 'push-1.tsv.gz');
    const answers = zlib.gunzipSync(bytes).toString('utf8').split('\n').filter((l) => /^E\t/.test(l) && l.split('\t').length === 12);
    for (const cut of [0, 100, 700, bytes.length]) {   // the engine's file as it grows
      fs.writeFileSync(log, bytes.subarray(0, cut));
      watch.read();
      await settle();
    }
    watch.read();
    assert.equal(answers.length, 20, 'the fixture: 19 answers and a time stamp, each E line with its verdict');
    assert.equal(watch.samples, 19, 'each answer once; the time stamp is none');
    assert.equal(watch.recent.length, 19, 'all within the window');
    for (const { sample } of watch.recent) {
      assert.equal(sample.label, 'request');
      assert.equal(sample.success, false);
      assert.equal(sample.failureMessage, 'response contains timeout although an event was set');
      assert.ok(sample.elapsed >= 900 && sample.elapsed < 2000, `elapsed ${sample.elapsed} ms`);
      assert.match(sample.threadName, /^local Request \d+-\d+$/);
    }
    assert.equal(watch.refused, 0);
    assert.equal(watch.criterion(), null, 'fewer answers than the criterion needs');

    // JMeter's HTTP sampler: its answers are results.csv rows, read beside the stream logs'.
    const last = Math.max(...watch.recent.map((r) => r.end));
    fs.writeFileSync(csv, 'timeStamp,elapsed,label,responseCode,responseMessage,threadName,success,failureMessage\n'
      + `${last - 5},5,request,Non HTTP response code: java.net.ConnectException,Connection refused,Request 2-9,false,java.net.ConnectException: Connection refused\n`);
    watch.read();
    assert.equal(watch.samples, 20);
    assert.equal(watch.refused, 1);
    // A timeout judged by the not-timeout assertion is late, not an error (at most 1,000 ms past the emit
    // interval here): 19 on time, the refusal the one error.
    const c = watch.criterion();
    assert.deepEqual([c.answers, c.onTime, c.errors, c.met], [20, 19, 1, true]);
    watch.close();
  } finally {
    fs.rmSync(dir, { recursive: true, force: true });
  }
});
