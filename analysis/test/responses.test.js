'use strict';
const test = require('node:test');
const assert = require('node:assert/strict');
const fs = require('node:fs');
const path = require('node:path');
const tar = require('tar');
const { readArchive, kindOf } = require('../read/responses');
const { RUN, CAPTURED, scratchDir } = require('./helpers');

function collect() {
  const got = { records: [], streams: [], timestamps: [], controls: [], errors: [] };
  return {
    got,
    visitor: {
      event: (f, st) => got.records.push({ type: 'event', name: st.name }),
      record: (o, type, st) => got.records.push({ type, name: st.name }),
      endStream: (st) => got.streams.push({ name: st.name, records: st.records }),
      timestamp: (o) => got.timestamps.push(o),
      control: (kind, o) => got.controls.push({ kind, o }),
      errorBody: (text) => got.errors.push(text),
    },
  };
}

async function makeArchive(files, { cutTo } = {}) {
  const dir = scratchDir();
  const src = path.join(dir, 'src', 'responses');
  fs.mkdirSync(src, { recursive: true });
  for (const [name, body] of Object.entries(files)) fs.writeFileSync(path.join(src, name), body);
  const file = path.join(dir, 'engine.tar.gz');
  await tar.c({ gzip: true, file, cwd: path.join(dir, 'src') }, ['responses']);
  if (cutTo) fs.writeFileSync(file, fs.readFileSync(file).subarray(0, Math.floor(fs.statSync(file).size * cutTo)));
  return file;
}

test('file names are classified by the sampler label prefix', () => {
  assert.equal(kindOf('x/request_12.json'), 'request');
  assert.equal(kindOf('timestamp_1.json'), 'timestamp');
  assert.equal(kindOf('responses/setevent_3.json'), 'setevent');
  assert.equal(kindOf('clear_9.json'), 'clear');
  assert.equal(kindOf('logging_2.json'), 'logging');
  assert.equal(kindOf('requests.txt'), null);
});

test('the real archive: every record, comet stream lines, error bodies and the half-written line', async () => {
  const { got, visitor } = collect();
  const s = await readArchive(path.join(RUN, 'responses', 'gen1.tar.gz'), visitor);
  const bodies = fs.readdirSync(path.join(CAPTURED, 'bodies'));
  assert.equal(s.entries, bodies.length);
  assert.equal(s.byKind.request, bodies.filter((b) => b.startsWith('request_')).length);
  assert.equal(s.byKind.timestamp, 1);
  assert.equal(s.truncated, false);
  assert.equal(s.unreadable, false);
  // independent count: every complete JSON line with a "response" in the captured bodies
  let expected = 0;
  for (const b of bodies.filter((n) => n.startsWith('request_'))) {
    for (const line of fs.readFileSync(path.join(CAPTURED, 'bodies', b), 'utf8').split('\n')) if (line.startsWith('{"response"')) expected++;
  }
  assert.equal(got.records.length, expected);
  assert.equal(got.records.filter((r) => r.type === 'timeout').length, 1);
  assert.equal(s.errorBodies, 2);           // a 400 answer and JMeter's "connection refused" text
  assert.ok(got.errors.some((e) => e.startsWith('java.net.ConnectException')));
  assert.equal(s.halfLines, 1);             // the stream whose last line was cut while writing
  assert.equal(got.timestamps.length, 1);
  assert.deepEqual(got.controls.map((c) => c.kind).sort(), ['clear', 'logging', 'setevent']);
  const comet = got.streams.filter((st) => st.name.endsWith('.x-ndjson'));
  assert.equal(comet.length, 3);
  assert.ok(comet.every((st) => st.records >= 2));
});

test('a truncated archive is read up to the break and flagged, never thrown', async () => {
  const { got, visitor } = collect();
  const s = await readArchive(path.join(RUN, 'responses', 'gen2.tar.gz'), visitor);
  assert.equal(s.truncated || s.unreadable, true);
  assert.ok(s.problem);
  assert.ok(got.records.length <= 3);
});

test('a cut archive with complete entries before the cut keeps them', async () => {
  const files = {};
  const line = fs.readFileSync(path.join(CAPTURED, 'bodies', 'request_5.json'), 'utf8');
  for (let i = 0; i < 400; i++) files[`request_${i}.json`] = line.replace('"place":4', `"place":${i + 1}`) + ' '.repeat(i % 50);
  const file = await makeArchive(files, { cutTo: 0.5 });
  const { got, visitor } = collect();
  const s = await readArchive(file, visitor);
  assert.equal(s.truncated, true);
  assert.ok(got.records.length > 10 && got.records.length < 400, `got ${got.records.length}`);
});

test('an archive larger than many batches: every record, a comet stream spanning batches, UTF-8 intact', async () => {
  const files = {};
  const poll = (i) => JSON.stringify({ response: { event: { name: 'évent', cycle: i, timings: { duration: 1, sent: 2, created: 1 },
    connections: { total: 9, place: 1 } } }, request: { type: 'poll', events: ['évent'] }, timings: { duration: 1, sent: 2, created: 1 } });
  for (let i = 0; i < 1200; i++) files[`request_${i}.json`] = poll(i) + (i % 3 === 0 ? '\n' : '');
  const stream = [];
  for (let i = 0; i < 6000; i++) stream.push(poll(i).replace('"poll"', '"comet"'));
  files['request_comet.x-ndjson'] = stream.join('\n') + '\n';   // about 1.5 MB: several batches
  const file = await makeArchive(files);
  const names = new Set();
  let comet = null;
  let foreign = 0;
  const s = await readArchive(file, {
    event: (f, st) => {
      names.add(st.name);
      if (f.name !== 'évent') foreign++;
    },
    endStream: (st) => { if (st.name.endsWith('.x-ndjson')) comet = st.records; },
  });
  assert.equal(s.byKind.request, 1201);
  assert.equal(s.badLines + s.halfLines + s.errorBodies, 0);
  assert.equal(s.truncated || s.unreadable, false);
  assert.equal(names.size, 1201);
  assert.equal(comet, 6000);
  assert.equal(foreign, 0);
});

test('garbage, a missing file, unknown names and half JSON bodies are counted', async () => {
  const dir = scratchDir();
  fs.writeFileSync(path.join(dir, 'junk.tar.gz'), 'this is not gzip');
  const junk = await readArchive(path.join(dir, 'junk.tar.gz'), {});
  assert.equal(junk.unreadable, true);
  const missing = await readArchive(path.join(dir, 'nope.tar.gz'), {});
  assert.equal(missing.unreadable, true);
  fs.writeFileSync(path.join(dir, 'empty.tar.gz'), '');
  assert.equal((await readArchive(path.join(dir, 'empty.tar.gz'), {})).unreadable, true);
  const file = await makeArchive({
    'request_1.json': '{"response":{"timeout":{"duration":10}},"request":{"type":"poll"',
    'notes.txt': 'hello',
    'request_2.json': '{"response":{"clear":{"reason":"clear"}},"request":{"type":"comet","events":[]},"timings":{"duration":1,"sent":2,"created":1},"connections":{"start":1,"finish":1}}\nnot json at all\n',
    'request_3.json': '{"error":{"status":400,"message":"bad"}}',
  });
  const { got, visitor } = collect();
  const s = await readArchive(file, visitor);
  assert.equal(s.skippedEntries, 1);
  assert.equal(s.halfLines, 1);
  assert.equal(s.badLines, 1);
  assert.equal(s.errorBodies, 1);
  assert.deepEqual(got.records.map((r) => r.type), ['clear']);
});
