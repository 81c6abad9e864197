'use strict';
// read/record-text.js: parseRecord gives JSON.parse's object (same keys in the same order, same values,
// -0 included) for every line, whether its fast reader takes the line or hands it to JSON.parse, and throws
// where JSON.parse throws.
const test = require('node:test');
const assert = require('node:assert/strict');
const { parseRecord, eventRecord } = require('../read/record-text');

// An event record as the Node.js server writes it (docs/protocol.md "Records").
const RECORD = '{"response":{"event":{"name":"event1","cycle":17,"timings":{"duration":3,"sent":1700000000123,"created":1700000000120},' +
  '"connections":{"total":5000,"place":12}}},"request":{"type":"comet","events":["event1"]},' +
  '"timings":{"duration":4211,"sent":1700000000123,"created":1699999995912},"connections":{"start":4890,"finish":5003}}';

// The same object and the same key order as JSON.parse, or the same error.
function sameAsJsonParse(text) {
  let expected;
  let error = null;
  try { expected = JSON.parse(text); } catch (err) { error = err; }
  if (error) {
    assert.throws(() => parseRecord(text), SyntaxError, text);
    return;
  }
  const got = parseRecord(text);
  assert.deepStrictEqual(got, expected, text);
  assert.equal(JSON.stringify(got), JSON.stringify(expected), text);
}

test('the servers\' event record is read by the fast reader, as JSON.parse reads it', () => {
  const fast = eventRecord(RECORD);
  assert.notEqual(fast, null);
  assert.deepStrictEqual(fast, JSON.parse(RECORD));
  sameAsJsonParse(RECORD);
  // the request echo in its other forms: a duration, several events, none, and any other object
  for (const request of ['{"type":"poll","events":["event1"],"duration":3000}', '{"type":"comet","events":["a","b","c"]}',
    '{"type":"comet","events":[]}', '{"events":["event1"],"type":"comet"}', '{"type":"comet","events":["e\\u0031"]}', '{}',
    '{"type":"comet","events":["event1"],"duration":1.5}', '{"type":"x","nested":{"a":[1,{"b":null}]}}']) {
    const text = RECORD.replace('{"type":"comet","events":["event1"]}', request);
    assert.notEqual(eventRecord(text), null, text);
    sameAsJsonParse(text);
  }
});

test('numbers: negative, zero, -0, the 15-digit limit; fractions, exponents and longer ones go to JSON.parse', () => {
  for (const n of ['0', '-0', '-5', '999999999999999', '-999999999999999', '1234567890123456', '99999999999999999999', '1.5', '1e3',
    '1E+3', '-0.0', '01', '-', '+1', '1.', '.5', '0x10', 'NaN', 'true', 'null', '"7"', ' 7']) {
    for (const field of ['"cycle":17', '"sent":1700000000123', '"place":12', '"finish":5003']) {
      sameAsJsonParse(RECORD.replace(field, field.replace(/:.*/, `:${n}`)));
    }
  }
  assert.ok(Object.is(parseRecord(RECORD.replace('"cycle":17', '"cycle":-0')).response.event.cycle, -0));
});

test('strings: escapes, quotes and control characters go to JSON.parse; non-ASCII stays as it is', () => {
  for (const name of ['event1', '', 'é✓', 'a\\"b', 'a\\\\b', 'a\\u0041', 'a\\nb', 'a\tb', 'a"b', 'a\\', '}},"request":']) {
    sameAsJsonParse(RECORD.replace('"name":"event1"', `"name":"${name}"`));
  }
});

test('any other line: other spacing, key order, record kinds, extra keys, damage', () => {
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
    RECORD.replace('"request":{"type":"comet","events":["event1"]}', '"request":{"a":"},\\"timings\\":"}'),
    RECORD.replace('"request":{"type":"comet","events":["event1"]}', '"request":{"type":"comet","events":["event1"],}'),
    RECORD.replace('"events":["event1"]', '"events":["event1",]'), RECORD.replace('"events":["event1"]', '"events":[event1]'),
  ];
  for (const text of lines) sameAsJsonParse(text);
  // every cut of the record: JSON.parse throws on each but the whole, and so does parseRecord
  for (let i = 0; i < RECORD.length; i++) sameAsJsonParse(RECORD.slice(0, i));
});

test('every one-character change of the record reads as JSON.parse reads it', () => {
  for (let i = 0; i < RECORD.length; i++) {
    for (const c of ['0', '9', '-', '"', ',', '}', ']', ' ', '.', 'e', '\\']) sameAsJsonParse(RECORD.slice(0, i) + c + RECORD.slice(i + 1));
  }
});
