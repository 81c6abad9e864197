'use strict';
// testplan.jmx run for real in one JMeter JVM (load/controller.sh --local) against the real Node server:
// the thread-per-connection push sampler (request.sampler=push: request and timestamp samples in the
// engine's stream logs; each answer's one record is its B ... E pair there, the E line with the verdict of
// the plan's assertions, and results.csv holds no row of it), in one test request.sampler=http (a file and
// a results.csv row per sample), and the default mux engine (docs/engine.md: every answer in the stream
// logs, JMeter gets summaries). The push runs are analysed as run.sh would: the answers from the stream logs.
const test = require('node:test');
const assert = require('node:assert/strict');
const fs = require('node:fs');
const path = require('node:path');
const { execFileSync } = require('node:child_process');
const h = require('./helpers');

const EVENT = 'pbload1';
const LIMIT_MS = 150000; // a run of ~10 s must end by itself well within this

let stopServer = () => {};
test.before(() => {
  h.requireJMeter();
  stopServer = h.ensureNodeServer();
});
test.after(() => stopServer());

async function runLocal(name, props) {
  const runDir = h.newRunDir(name);
  const responses = path.join(runDir, 'responses', 'local');
  const file = h.writeProps(runDir, {
    'server.host': '127.0.0.1', 'server.port': h.NODE_PORT, 'logging.enabled': false,
    'log.dir.res': responses, 'request.sampler': 'push', ...props,
  });
  const run = await h.runController(['--local', '--run-dir', runDir, '--props', file], LIMIT_MS);
  assert.equal(run.code, 0, `JMeter exited with ${run.code}:\n${run.output}`);
  const { header, rows } = h.readResults(runDir);
  return { runDir, responses, run, header, rows, labels: h.byLabel(rows) };
}

// Every row but a summary names its own saved response: under the engine's directory, starting with its
// label; a file of its own, or for a push sample its place in the stream logs (<label>_<sample id>.push).
// (A summary sample's responseFile is the name the plan chose before it, never saved.)
function checkResponseFiles(all, responses) {
  const rows = all.filter((r) => r.label !== 'request-summary');
  for (const r of rows) {
    assert.ok(r.responseFile, `row without responseFile: ${JSON.stringify(r)}`);
    assert.equal(path.dirname(r.responseFile), responses);
    assert.ok(path.basename(r.responseFile).startsWith(`${r.label}_`), `${r.responseFile} for ${r.label}`);
    assert.ok(h.savedSample(r.responseFile), `${r.responseFile} missing`);
  }
  assert.equal(new Set(rows.map((r) => r.responseFile)).size, rows.length, 'response files are not unique');
}

// The answers in one engine's stream logs (the push sampler's and the mux engine's): the request samples
// (B/E pairs) with their E line's fields (failure, the 11th; headers µs, the 12th) and records.
function streamAnswers(responses) {
  return [...h.streamSamples(responses).values()].filter((x) => x.label === 'request');
}

// A push run's one record per answer: no request row in results.csv, an E line with the verdict for every
// answer, counted by the engine's summary samples (one thread, as the mux engine's); then the analysis (its
// archive as host/archive.sh makes it) counts the answers from the stream logs, as many and as many failed
// as the E lines, and finds the summaries agree. Returns the answers and the analysis's summary.
function checkOneRecordPerAnswer(r) {
  assert.equal(r.labels.request, undefined, 'results.csv holds no row per answer');
  const answers = streamAnswers(r.responses);
  for (const a of answers) assert.equal(typeof a.end?.failure, 'string', `an answer without its verdict: ${JSON.stringify(a.end)}`);
  const summaries = r.labels['request-summary'] ?? [];
  assert.equal(new Set(summaries.map((x) => x.threadName)).size, 1, 'one summary thread');
  assert.match(summaries[0].threadName, /^Request summary \(push\) \d+-1$/);
  assert.equal(summaries.reduce((n, x) => n + Number(x.SampleCount), 0), answers.length, 'the summaries count every answer');
  assert.equal(summaries.reduce((n, x) => n + Number(x.ErrorCount), 0), answers.filter((a) => !a.end.ok).length);
  execFileSync('tar', ['-czf', path.join(r.runDir, 'responses', 'local.tar.gz'), '-C', r.responses, '.']);
  execFileSync('node', [path.join(h.ROOT, 'analysis', 'analyze.js'), r.runDir], { encoding: 'utf8' });
  const summary = JSON.parse(fs.readFileSync(path.join(r.runDir, 'data', 'summary.json'), 'utf8'));
  assert.equal(summary.totals.answersFrom, 'stream logs');
  assert.equal(summary.totals.samplesByLabel.request.samples, answers.length, 'the analysis counts each E line once');
  assert.equal(summary.totals.samplesByLabel.request.failed, answers.filter((a) => !a.end.ok).length);
  assert.equal(summary.flags.unendedSamples, 0);
  assert.equal(summary.flags.lostAnswers, false);
  return { answers, summary };
}

// The record in an answer was made during that very answer (between its B and E lines).
function assertRecordWithinAnswer(answer, record) {
  const start = answer.beganMicros / 1000;
  const end = answer.end.micros / 1000;
  assert.ok(record.timings.created >= start - 50 && record.timings.sent <= end + 50,
    `record ${record.timings.created}..${record.timings.sent} outside answer ${start}..${end}`);
}

test('poll with an event: every answer succeeds, in the stream log only; other responses saved under their labels', async (t) => {
  const threads = 20;
  const r = await runLocal('poll-event', {
    'threads.num': threads, 'rampup.period': 2, 'test.duration': 8,
    'event.enabled': true, 'event.name': EVENT, 'event.frequency': 1000,
    'request.type': 'poll', 'request.events': EVENT, 'request.duration': 3000,
  });
  t.diagnostic(`run took ${r.run.ms} ms, ${r.rows.length} results.csv rows`);
  for (const c of h.REQUIRED_COLUMNS) assert.ok(r.header.includes(c), `results.csv lacks column ${c}`);
  for (const label of ['logging', 'setevent', 'clear']) {
    assert.equal(r.labels[label]?.length, 1, `expected one ${label} sample`);
  }
  // A time-stamp exchange every timestamp.interval (5 s) through the 8 s: at 0 and 5 s.
  assert.equal(r.labels.timestamp?.length, Math.ceil(8000 / 5000), 'one timestamp sample per interval');
  for (const row of r.labels.timestamp) assert.match(row.responseFile, /\.push$/);
  const failed = r.rows.filter((x) => x.success !== 'true');
  assert.deepEqual(failed.map((x) => `${x.label}: ${x.failureMessage}`), []);
  checkResponseFiles(r.rows, r.responses);
  const { answers, summary } = checkOneRecordPerAnswer(r);
  assert.ok(answers.length >= threads, `only ${answers.length} answers`);
  assert.equal(new Set(answers.map((x) => x.thread)).size, threads, 'not every request thread ran');
  assert.equal(summary.totals.samplesByLabel.request.failed, 0);
  for (const a of answers) {
    assert.deepEqual([a.end.ok, a.end.failure], [true, ''], JSON.stringify(a.end));
    assert.ok(a.end.headersMicros >= a.beganMicros && a.end.headersMicros <= a.end.micros, 'the head between B and E');
    const recs = a.records.map((x) => JSON.parse(x.record));
    assert.equal(recs.length, 1, 'a poll answers one record');
    // Answered by the event (or, for a poll open at the very end, by the clear), never by a timeout.
    assert.ok(recs[0].response.event || recs[0].response.clear, JSON.stringify(recs[0]));
    if (recs[0].response.event) assert.equal(recs[0].response.event.name, EVENT);
    assert.deepEqual(recs[0].request, { type: 'poll', events: [EVENT], duration: 3000 });
    assertRecordWithinAnswer(a, recs[0]);
  }
  assert.ok(answers.filter((a) => JSON.parse(a.records[0].record).response.event).length >= threads);
  const stamp = h.records(r.labels.timestamp[0].responseFile)[0].timestamp;
  const t0 = Number(r.labels.timestamp[0].timeStamp);
  assert.ok(stamp.client >= t0 - 1000 && stamp.client <= t0 + Number(r.labels.timestamp[0].elapsed) + 1000,
    `timestamp?client= carried ${stamp.client}, the sample started at ${t0}`);
  assert.ok(h.records(r.labels.clear[0].responseFile)[0].clear, 'clear answer');
});

test('poll without an event: timed-out polls are not failures (request.sampler=http: a file per sample)', async () => {
  const r = await runLocal('poll-noevent', {
    'threads.num': 20, 'rampup.period': 2, 'test.duration': 6, 'event.enabled': false,
    'request.type': 'poll', 'request.events': EVENT, 'request.duration': 1500, 'request.sampler': 'http',
  });
  assert.equal(r.labels.setevent, undefined, 'no event may be set');
  assert.equal(r.labels['request-summary'], undefined, 'no summaries: every answer is a row');
  // JMeter's HTTP sampler: one time-stamp exchange at the start, every response in a file of its own.
  assert.equal(r.labels.timestamp?.length, 1, 'one timestamp sample');
  for (const row of r.rows) assert.ok(fs.existsSync(row.responseFile), `${row.responseFile} is no file`);
  assert.deepEqual(fs.readdirSync(r.responses).filter((f) => f.startsWith('push-')), [], 'no stream log');
  const requests = r.labels.request;
  assert.ok(requests.length >= 20);
  assert.deepEqual(r.rows.filter((x) => x.success !== 'true').map((x) => x.failureMessage), []);
  checkResponseFiles(r.rows, r.responses);
  const timedOut = requests.filter((x) => h.records(x.responseFile)[0].response.timeout);
  // Polls still open at the clear end with a clear record; all others time out.
  assert.ok(timedOut.length >= requests.length - 20, `${timedOut.length} of ${requests.length} timed out`);
  for (const row of timedOut) {
    assert.equal(h.records(row.responseFile)[0].response.timeout.duration, 1500);
    assert.ok(Number(row.elapsed) >= 1400, `a timed-out poll took ${row.elapsed} ms`);
  }
});

test('poll whose event never comes although one was set: timeouts are failures', async () => {
  const r = await runLocal('poll-missed', {
    'threads.num': 5, 'rampup.period': 1, 'test.duration': 4,
    'event.enabled': true, 'event.name': EVENT, 'event.frequency': 1000,
    'request.type': 'poll', 'request.events': 'pbother', 'request.duration': 1000,
  });
  const { answers, summary } = checkOneRecordPerAnswer(r);
  const timedOut = answers.filter((a) => JSON.parse(a.records[0].record).response.timeout);
  assert.ok(timedOut.length >= 5, `only ${timedOut.length} polls timed out`);
  for (const a of timedOut) {
    // The plan's not-timeout assertion judged it (its message, as the mux engine's): a timeout, not an error.
    assert.deepEqual([a.end.ok, a.end.failure], [false, 'response contains timeout although an event was set']);
  }
  assert.equal(summary.totals.timeoutFailures, timedOut.length);
  for (const label of ['logging', 'setevent', 'timestamp', 'clear']) {
    assert.ok(r.labels[label].every((x) => x.success === 'true'), label);
  }
});

test('a request the server refuses: the not-error assertion fails it, in its E line', async () => {
  const r = await runLocal('poll-refused', {
    'threads.num': 2, 'rampup.period': 0, 'test.duration': 2, 'event.enabled': false,
    'request.type': 'poll', 'request.events': EVENT, 'request.duration': 999999999,
  });
  const { answers, summary } = checkOneRecordPerAnswer(r);
  assert.ok(answers.length >= 2, `${answers.length} answers`);
  for (const a of answers) {
    assert.deepEqual([a.end.code, a.end.ok, a.end.failure], ['400', false, 'Test failed: text expected not to contain /error/']);
  }
  assert.equal(summary.totals.errors, answers.length, 'each an error, not a timeout');
  assert.equal(summary.totals.timeoutFailures, 0);
});

test('comet with an event: one stream per thread, many records, ended by the clear', async (t) => {
  const threads = 20;
  const r = await runLocal('comet-event', {
    'threads.num': threads, 'rampup.period': 2, 'test.duration': 8,
    'event.enabled': true, 'event.name': EVENT, 'event.frequency': 1000,
    'request.type': 'comet', 'request.events': EVENT, 'request.duration': 0,
  });
  t.diagnostic(`run took ${r.run.ms} ms`);
  const { answers } = checkOneRecordPerAnswer(r);
  // A thread's stream lasts past the test's end, so no thread starts a second one.
  assert.equal(answers.length, threads);
  assert.deepEqual(r.rows.filter((x) => x.success !== 'true').map((x) => x.failureMessage), []);
  checkResponseFiles(r.rows, r.responses);
  for (const a of answers) {
    assert.deepEqual([a.end.ok, a.end.failure], [true, ''], JSON.stringify(a.end));
    const recs = a.records.map((x) => JSON.parse(x.record));
    assert.ok(recs.length >= 5, `only ${recs.length} records`);
    const events = recs.slice(0, -1);
    for (const rec of events) {
      assert.equal(rec.response.event.name, EVENT);
      assert.deepEqual(rec.request, { type: 'comet', events: [EVENT] });
    }
    const cycles = events.map((rec) => rec.response.event.cycle);
    assert.deepEqual(cycles, [...cycles].sort((a, b) => a - b), 'cycles out of order');
    assert.deepEqual(recs.at(-1).response, { clear: { reason: 'clear' } }, 'the stream ends with the clear');
    assertRecordWithinAnswer(a, recs[0]);
  }
  // The clear came after the test's duration plus one emit interval (from the first request's start).
  const first = Math.min(...answers.map((x) => x.beganMicros / 1000));
  const clear = r.labels.clear[0];
  assert.ok(Number(clear.timeStamp) + Number(clear.elapsed) >= first + 8000,
    `clear at ${clear.timeStamp}, first request at ${first}`);
});

test('mux: poll with an event, one engine thread for all connections, summaries count every answer', async () => {
  const threads = 40;
  const r = await runLocal('mux-poll-event', {
    'threads.num': threads, 'rampup.period': 2, 'test.duration': 8, 'request.sampler': 'mux',
    'event.enabled': true, 'event.name': EVENT, 'event.frequency': 1000,
    'request.type': 'poll', 'request.events': EVENT, 'request.duration': 3000,
  });
  assert.equal(r.labels.request, undefined, 'no sample per answer');
  const summaries = r.labels['request-summary'];
  assert.ok(summaries.length >= 8, `${summaries.length} summaries`);
  const names = [...new Set(summaries.map((x) => x.threadName))];
  assert.equal(names.length, 1, `one engine thread: ${names}`);
  assert.match(names[0], /^Request \(mux\) \d+-1$/);   // JMeter's "<group> <group number>-<thread>"
  const answers = streamAnswers(r.responses);
  assert.equal(summaries.reduce((n, x) => n + Number(x.SampleCount), 0), answers.length, 'the summaries count every answer');
  assert.equal(summaries.reduce((n, x) => n + Number(x.ErrorCount), 0), 0);
  assert.equal(new Set(answers.map((x) => x.thread)).size, threads, 'a connection per client, named like a JMeter thread');
  assert.ok(answers.length >= threads * 5, `${answers.length} answers`);
  for (const a of answers) {
    assert.ok(a.end && a.end.ok, JSON.stringify(a.end));
    assert.equal(a.records.length, 1);
    assert.equal(JSON.parse(a.records[0].record).response.event.name, EVENT);
  }
});

test('mux: polls that time out although an event was set fail the built-in not-timeout assertion', async () => {
  const r = await runLocal('mux-poll-missed', {
    'threads.num': 5, 'rampup.period': 1, 'test.duration': 4, 'request.sampler': 'mux',
    'event.enabled': true, 'event.name': EVENT, 'event.frequency': 1000,
    'request.type': 'poll', 'request.events': 'pbother', 'request.duration': 1000,
  });
  const answers = streamAnswers(r.responses);
  assert.ok(answers.length >= 10, `${answers.length} answers`);
  for (const a of answers) {
    assert.equal(a.end.ok, false);
    assert.equal(a.end.failure, 'response contains timeout although an event was set');
  }
  const errors = r.labels['request-summary'].reduce((n, x) => n + Number(x.ErrorCount), 0);
  assert.equal(errors, answers.length, 'each failed answer counted in the summaries');
});

test('mux: comet with an event, one stream per connection ended by the clear, every record stamped', async () => {
  const threads = 30;
  const r = await runLocal('mux-comet-event', {
    'threads.num': threads, 'rampup.period': 2, 'test.duration': 8, 'request.sampler': 'mux',
    'event.enabled': true, 'event.name': EVENT, 'event.frequency': 1000,
    'request.type': 'comet', 'request.events': EVENT, 'request.duration': 0,
  });
  const answers = streamAnswers(r.responses);
  assert.equal(answers.length, threads, 'a stream per connection lasts past the test\'s end');
  for (const a of answers) {
    assert.ok(a.end.ok, JSON.stringify(a.end));
    assert.ok(a.records.length >= 5, `only ${a.records.length} records`);
    assert.deepEqual(JSON.parse(a.records.at(-1).record).response, { clear: { reason: 'clear' } });
    const stamps = a.records.map((x) => x.micros);
    assert.deepEqual(stamps, [...stamps].sort((x, y) => x - y), 'records stamped in arrival order');
    assert.ok(a.end.headersMicros > 0 && a.end.headersMicros <= stamps[0], 'the head came before the first record');
  }
});
