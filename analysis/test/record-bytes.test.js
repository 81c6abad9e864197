'use strict';
// read/record-bytes.js: EventRecordReader takes a line's bytes only when they are an event record in the
// servers' layout, and then gives the fields eventFields() takes from JSON.parse of the same text (-0, the
// echoed request and all); what it leaves goes to JSON.parse (read/responses.js), so every line reads as
// JSON.parse reads it. One reader serves every line of a test, as one serves every line of an archive: its
// kept name and request never leak into a line whose bytes differ.
const test = require('node:test');
const assert = require('node:assert/strict');
const { EventFields, EventRecordReader, eventFields } = require('../read/record-bytes');

// An event record as the Node.js server writes it (docs/protocol.md "Records").
const RECORD = '{"response":{"event":{"name":"event1","cycle":17,"timings":{"duration":3,"sent":1700000000123,"created":1700000000120},' +
  '"connections":{"total":5000,"place":12}}},"request":{"type":"comet","events":["event1"]},' +
  '"timings":{"duration":4211,"sent":1700000000123,"created":1699999995912},"connections":{"start":4890,"finish":5003}}';

// The line's bytes placed inside a larger buffer, as a chunk of an archive holds them.
function inChunk(text) {
  const line = Buffer.from(text, 'utf8');
  const chunk = Buffer.concat([Buffer.from('R\t1\t2\t'), line, Buffer.from('\n{"more":1}\n')]);
  return { chunk, from: 6, to: 6 + line.length };
}

// What the analysis gets from a line: the reader's fields, or JSON.parse's object (its fields when it is
// an event record); `fast` tells which.
function read(reader, text) {
  const { chunk, from, to } = inChunk(text);
  const out = new EventFields();
  if (reader.read(chunk, from, to, out)) return { fast: true, got: out };
  return { fast: false };
}

// The reader takes the line and gives JSON.parse's fields, or leaves it; returns whether it took it.
function sameAsJsonParse(reader, text) {
  const { fast, got } = read(reader, text);
  if (!fast) return false;
  const parsed = JSON.parse(text);   // the reader took it: JSON.parse must read it, as an event record
  assert.ok(parsed?.response?.event, text);
  const expected = eventFields(parsed);
  assert.deepStrictEqual(got, expected, text);
  for (const k of Object.keys(expected)) assert.ok(Object.is(got[k], expected[k]) || typeof got[k] === 'object', `${k} of ${text}`);
  return true;
}

test('the servers\' event record is read from its bytes, as JSON.parse reads it; the echoed request in its other forms', () => {
  const reader = new EventRecordReader();
  assert.equal(sameAsJsonParse(reader, RECORD), true);
  // a duration, several events, none, and any other object (JSON.parse's share of the reader)
  const requests = ['{"type":"poll","events":["event1"],"duration":3000}', '{"type":"comet","events":["a","b","c"]}',
    '{"type":"comet","events":[]}', '{"events":["event1"],"type":"comet"}', '{"type":"comet","events":["e\\u0031"]}', '{}',
    '{"type":"comet","events":["event1"],"duration":1.5}', '{"type":"x","nested":{"a":[1,{"b":null}]}}',
    '{"x":{},"timings":{"duration":1}}', '{"type":"comet","events":["é"]}'];
  // each twice in a row (the kept request given again), then back to the first: none leaks into another
  for (const request of [...requests, ...requests.toReversed()]) {
    const text = RECORD.replace('{"type":"comet","events":["event1"]}', request);
    for (let i = 0; i < 2; i++) assert.equal(sameAsJsonParse(reader, text), true, text);
  }
  const a = read(reader, RECORD).got.request;
  assert.equal(read(reader, RECORD.replace('"cycle":17', '"cycle":18')).got.request, a, 'the same request bytes: the same (read-only) object');
});

test('a record JSON.parse read gives the same fields; a field it lacks is undefined', () => {
  const fields = eventFields(JSON.parse(RECORD));
  assert.deepEqual({ ...fields }, { name: 'event1', cycle: 17, eventDuration: 3, eventSent: 1700000000123, eventCreated: 1700000000120,
    total: 5000, place: 12, request: { type: 'comet', events: ['event1'] }, duration: 4211, sent: 1700000000123, created: 1699999995912,
    start: 4890, finish: 5003 });
  const bare = eventFields({ response: { event: { name: 'e', cycle: 1 } } });
  assert.equal(bare.eventCreated, undefined);
  assert.equal(bare.sent, undefined);
  assert.equal(bare.request, undefined);
});

test('numbers: negative, zero, -0, the 15-digit limit; fractions, exponents and longer ones go to JSON.parse', () => {
  const reader = new EventRecordReader();
  for (const n of ['0', '-0', '-5', '999999999999999', '-999999999999999', '1234567890123456', '99999999999999999999', '1.5', '1e3',
    '1E+3', '-0.0', '01', '-', '+1', '1.', '.5', '0x10', 'NaN', 'true', 'null', '"7"', ' 7']) {
    for (const field of ['"cycle":17', '"sent":1700000000123', '"place":12', '"finish":5003']) {
      const taken = sameAsJsonParse(reader, RECORD.replace(field, field.replace(/:.*/, `:${n}`)));
      assert.equal(taken, /^-?(0|[1-9]\d{0,14})$/.test(n), `${field} = ${n}`);
    }
  }
  assert.ok(Object.is(read(reader, RECORD.replace('"cycle":17', '"cycle":-0')).got.cycle, -0));
});

test('names: escapes, quotes, control characters and non-ASCII go to JSON.parse; a new name is never the last one', () => {
  const reader = new EventRecordReader();
  for (const name of ['event1', '', 'é✓', 'a\\"b', 'a\\\\b', 'a\\u0041', 'a\\nb', 'a\tb', 'a"b', 'a\\', '}},"request":', 'event2', 'event1', 'event']) {
    const text = RECORD.replace('"name":"event1"', `"name":"${name}"`);
    const taken = sameAsJsonParse(reader, text);
    assert.equal(taken, /^[\x20-\x7e]*$/.test(name) && !/["\\]/.test(name), name);
  }
});

test('any other line is left to JSON.parse: other spacing, key order, record kinds, extra keys, damage', () => {
  const reader = new EventRecordReader();
  const lines = [
    JSON.stringify(JSON.parse(RECORD), null, 1), ` ${RECORD}`, `${RECORD} `, RECORD.replace('"response":{', '"response": {'),
    RECORD.replace(',"connections":{"start":4890,"finish":5003}', ''), RECORD.replace('}}', ',"x":1}}'),
    RECORD.replace('"place":12}', '"place":12,"extra":true}'), `${RECORD.slice(0, -1)},"more":1}`, RECORD.slice(0, -1),
    RECORD + RECORD, RECORD.replace('{"response":{"event":', '{"response":{"timeout":'),
    '{"response":{"timeout":{"duration":3000}},"request":{"type":"poll","events":["event1"],"duration":3000},' +
      '"timings":{"duration":3000,"sent":2,"created":1},"connections":{"start":1,"finish":1}}',
    '{"response":{"clear":{"reason":"clear"}},"request":{},"timings":{},"connections":{}}',
    '{"error":{"status":400,"message":"bad"}}', '{"timestamp":{"client":null,"server":5}}', '', '{', 'null', '[]', '17',
    RECORD.replace('"request":{"type":"comet","events":["event1"]}', '"request":[1,2]'),
    RECORD.replace('"request":{"type":"comet","events":["event1"]}', '"request":"x"'),
    RECORD.replace('"request":{"type":"comet","events":["event1"]}', '"request":{"type":"comet","events":["event1"],}'),
    RECORD.replace('"events":["event1"]', '"events":["event1",]'), RECORD.replace('"events":["event1"]', '"events":[event1]'),
  ];
  for (const text of lines) assert.equal(sameAsJsonParse(reader, text), false, text);
  // a request holding the tail's text in a string is JSON.parse's share of the reader, and read right
  assert.equal(sameAsJsonParse(reader, RECORD.replace('"request":{"type":"comet","events":["event1"]}', '"request":{"a":"},\\"timings\\":"}')), true);
  // every cut of the record, after the whole record was read (its request kept): none is taken
  sameAsJsonParse(reader, RECORD);
  for (let i = 0; i < RECORD.length; i++) assert.equal(sameAsJsonParse(reader, RECORD.slice(0, i)), false, `cut at ${i}`);
});

test('every one-character change of the record reads as JSON.parse reads it', () => {
  const reader = new EventRecordReader();
  let taken = 0;
  for (let i = 0; i < RECORD.length; i++) {
    for (const c of ['0', '9', '-', '"', ',', '}', ']', ' ', '.', 'e', '\\', 'é']) {
      if (sameAsJsonParse(reader, RECORD.slice(0, i) + c + RECORD.slice(i + 1))) taken++;
      sameAsJsonParse(reader, RECORD);   // and the record itself between them, its request kept or not
    }
  }
  assert.ok(taken > 100, `the reader took ${taken} changed records (digits for digits, names)`);
});
