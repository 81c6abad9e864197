'use strict';
// testplan.jmx run for real in one JMeter JVM (load/controller.sh --local) against the real Node server:
// the thread-per-connection push sampler (request.sampler=push: request and timestamp samples in the
// engine's stream logs, a JMeter sample per answer), in one test request.sampler=http (a file per sample),
// and the default mux engine (docs/engine.md: every answer in the stream logs, JMeter gets summaries).
const test = require('node:test');
const assert = require('node:assert/strict');
const fs = require('node:fs');
const path = require('node:path');
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

// Every row names its own saved response: under the engine's directory, starting with its label; a file
// of its own, or for a push sample its place in the stream logs (<label>_<sample id>.push).
function checkResponseFiles(rows, responses) {
  for (const r of rows) {
    assert.ok(r.responseFile, `row without responseFile: ${JSON.stringify(r)}`);
    assert.equal(path.dirname(r.responseFile), responses);
    assert.ok(path.basename(r.responseFile).startsWith(`${r.label}_`), `${r.responseFile} for ${r.label}`);
    assert.ok(h.savedSample(r.responseFile), `${r.responseFile} missing`);
  }
  assert.equal(new Set(rows.map((r) => r.responseFile)).size, rows.length, 'response files are not unique');
}

// The record in a row's file was made during that very sample (so responseFile is not off by one).
function assertRecordWithinSample(row, record) {
  const start = Number(row.timeStamp);
  const end = start + Number(row.elapsed);
  assert.ok(record.timings.created >= start - 50 && record.timings.sent <= end + 50,
    `${row.responseFile}: record ${record.timings.created}..${record.timings.sent} outside sample ${start}..${end}`);
}

test('poll with an event: every sample succeeds, responses saved under their labels', async (t) => {
  const threads = 20;
  const r = await runLocal('poll-event', {
    'threads.num': threads, 'rampup.period': 2, 'test.duration': 8,
    'event.enabled': true, 'event.name': EVENT, 'event.frequency': 1000,
    'request.type': 'poll', 'request.events': EVENT, 'request.duration': 3000,
  });
  t.diagnostic(`run took ${r.run.ms} ms, ${r.rows.length} samples`);
  for (const c of h.REQUIRED_COLUMNS) assert.ok(r.header.includes(c), `results.csv lacks column ${c}`);
  for (const label of ['logging', 'setevent', 'clear']) {
    assert.equal(r.labels[label]?.length, 1, `expected one ${label} sample`);
  }
  // A time-stamp exchange every timestamp.interval (5 s) through the 8 s: at 0 and 5 s.
  assert.equal(r.labels.timestamp?.length, Math.ceil(8000 / 5000), 'one timestamp sample per interval');
  for (const row of [...r.labels.timestamp, ...r.labels.request]) assert.match(row.responseFile, /\.push$/);
  const requests = r.labels.request;
  assert.ok(requests.length >= threads, `only ${requests.length} request samples`);
  assert.equal(new Set(requests.map((x) => x.threadName)).size, threads, 'not every request thread ran');
  const failed = r.rows.filter((x) => x.success !== 'true');
  assert.deepEqual(failed.map((x) => `${x.label}: ${x.failureMessage}`), []);
  checkResponseFiles(r.rows, r.responses);
  for (const row of requests) {
    const recs = h.records(row.responseFile);
    assert.equal(recs.length, 1, `${row.responseFile}: a poll answers one record`);
    // Answered by the event (or, for a poll open at the very end, by the clear), never by a timeout.
    assert.ok(recs[0].response.event || recs[0].response.clear, JSON.stringify(recs[0]));
    if (recs[0].response.event) assert.equal(recs[0].response.event.name, EVENT);
    assert.deepEqual(recs[0].request, { type: 'poll', events: [EVENT], duration: 3000 });
    assertRecordWithinSample(row, recs[0]);
  }
  assert.ok(requests.filter((x) => h.records(x.responseFile)[0].response.event).length >= threads);
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
  const timedOut = r.labels.request.filter((x) => h.records(x.responseFile)[0].response.timeout);
  assert.ok(timedOut.length >= 5, `only ${timedOut.length} polls timed out`);
  for (const row of timedOut) {
    assert.equal(row.success, 'false');
    assert.match(row.failureMessage, /timeout/);
  }
  for (const label of ['logging', 'setevent', 'timestamp', 'clear']) {
    assert.ok(r.labels[label].every((x) => x.success === 'true'), label);
  }
});

test('comet with an event: one stream per thread, many records, ended by the clear', async (t) => {
  const threads = 20;
  const r = await runLocal('comet-event', {
    'threads.num': threads, 'rampup.period': 2, 'test.duration': 8,
    'event.enabled': true, 'event.name': EVENT, 'event.frequency': 1000,
    'request.type': 'comet', 'request.events': EVENT, 'request.duration': 0,
  });
  t.diagnostic(`run took ${r.run.ms} ms`);
  const requests = r.labels.request;
  // A thread's stream lasts past the test's end, so no thread starts a second one.
  assert.equal(requests.length, threads);
  assert.deepEqual(r.rows.filter((x) => x.success !== 'true').map((x) => x.failureMessage), []);
  checkResponseFiles(r.rows, r.responses);
  for (const row of requests) {
    assert.ok(row.responseFile.endsWith('.push'), row.responseFile);
    const recs = h.records(row.responseFile);
    assert.ok(recs.length >= 5, `${row.responseFile}: only ${recs.length} records`);
    const events = recs.slice(0, -1);
    for (const rec of events) {
      assert.equal(rec.response.event.name, EVENT);
      assert.deepEqual(rec.request, { type: 'comet', events: [EVENT] });
    }
    const cycles = events.map((rec) => rec.response.event.cycle);
    assert.deepEqual(cycles, [...cycles].sort((a, b) => a - b), 'cycles out of order');
    assert.deepEqual(recs.at(-1).response, { clear: { reason: 'clear' } }, 'the stream ends with the clear');
    assertRecordWithinSample(row, recs[0]);
  }
  // The clear came after the test's duration plus one emit interval (from the first request's start).
  const first = Math.min(...requests.map((x) => Number(x.timeStamp)));
  const clear = r.labels.clear[0];
  assert.ok(Number(clear.timeStamp) + Number(clear.elapsed) >= first + 8000,
    `clear at ${clear.timeStamp}, first request at ${first}`);
});

// The mux engine's answers in one engine's stream logs: the request samples (B/E pairs) with their E
// line's fields (failure, the 11th; headers µs, the 12th) and records.
function muxAnswers(responses) {
  return [...h.streamSamples(responses).values()].filter((x) => x.label === 'request');
}

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
  const answers = muxAnswers(r.responses);
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
  const answers = muxAnswers(r.responses);
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
  const answers = muxAnswers(r.responses);
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
