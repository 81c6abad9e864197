'use strict';
// analysis/measure/extract.js: a target run's extract rules (docs/targets.md): JSON pointers (RFC 6901, its
// escapes), regular expressions of one group, and null for every message a rule cannot read.
const test = require('node:test');
const assert = require('node:assert/strict');
const { compileRule, extractor, extractOne, pointerTokens, RuleError } = require('../measure/extract');

test('a JSON pointer reads a number, RFC 6901 escapes included', () => {
  assert.equal(extractOne('/seq', '{"seq":17,"sentUs":1}'), 17);
  assert.equal(extractOne('/data/seq', '{"data":{"seq":3}}'), 3);
  assert.equal(extractOne('/a~1b', '{"a/b":5}'), 5, '~1 is /');
  assert.equal(extractOne('/m~0n', '{"m~n":6}'), 6, '~0 is ~');
  assert.equal(extractOne('/~01', '{"~1":7,"/":8}'), 7, '~01 is ~1, not /');
  assert.equal(extractOne('/list/1', '{"list":[10,11]}'), 11, 'an array index');
  assert.equal(extractOne('/', '{"":9}'), 9, 'the empty key');
  assert.equal(extractOne('/seq', '{"seq":"42"}'), 42, 'a string holding a whole number');
  assert.deepEqual(pointerTokens('/a~1b/~0c/'), ['a/b', '~c', '']);
});

test('a JSON pointer gives null for no match, no JSON and no finite number', () => {
  for (const [text, why] of [['{"other":1}', 'no such key'], ['hello', 'not JSON'], ['{"seq":"x"}', 'not a number'],
    ['{"seq":null}', 'null'], ['{"seq":{"a":1}}', 'an object'], ['{"seq":""}', 'empty'], ['{"seq":true}', 'a boolean'],
    ['', 'empty message'], ['{"seq":1e999}', 'not finite'], ['[1,2]', 'an array has no key seq']]) {
    assert.equal(extractOne('/seq', text), null, why);
  }
  assert.equal(extractOne('/list/01', '{"list":[10,11]}'), null, 'a leading zero is no index');
  assert.equal(extractOne('/list/2', '{"list":[10,11]}'), null, 'past the end');
  assert.equal(extractOne('/toString', '{}'), null, 'no inherited property');
});

test('a regular expression with one group reads its group as a number', () => {
  assert.equal(extractOne('seq=([0-9]+)', 'event seq=123 at 5'), 123);
  assert.equal(extractOne('"sentUs":(\\d+)', '{"seq":1,"sentUs":1764290000123456}'), 1764290000123456);
  assert.equal(extractOne('seq=([0-9]+)', 'no sequence here'), null, 'no match');
  assert.equal(extractOne('seq=([a-z]+)', 'seq=abc'), null, 'a match that is no number');
  assert.equal(extractOne('seq=([0-9]*)', 'seq=x'), null, 'an empty group');
  assert.equal(extractOne('(?:id|seq)=(\\d+)', 'id=4'), 4, 'a non-capturing group does not count');
});

test('a rule that is neither is refused with its reason', () => {
  assert.throws(() => compileRule('seq=[0-9]+'), (e) => e instanceof RuleError && /0 capture groups/.test(e.message));
  assert.throws(() => compileRule('(a)(b)'), /2 capture groups/);
  assert.throws(() => compileRule('(unclosed'), /not a regular expression/);
  assert.throws(() => compileRule('/a~2'), /"~" must be followed by 0 or 1/);
  assert.throws(() => compileRule(''), /non-empty string/);
  assert.throws(() => extractor({ seq: '/seq', sentUs: '(x' }), /not a regular expression/);
});

test('one extractor reads both rules, parsing the message once', () => {
  const x = extractor({ seq: '/seq', sentUs: '/sentUs' });
  const parse = JSON.parse;
  let parses = 0;
  JSON.parse = (...a) => { parses++; return parse(...a); };
  try {
    const r = x('{"seq":5,"sentUs":1700000000000001}');
    assert.deepEqual({ ...r }, { seq: 5, sentUs: 1700000000000001 });
    assert.equal(parses, 1, 'parsed once for both rules');
    x('seq only');
    assert.equal(parses, 2, 'a message that is no JSON is tried once');
  } finally { JSON.parse = parse; }
  const mixed = extractor({ seq: 'n=(\\d+)', sentUs: '/t' });
  assert.deepEqual({ ...mixed('{"t":12,"x":"n=3"}') }, { seq: 3, sentUs: 12 });
  const seqOnly = extractor({ seq: '/seq' });
  assert.deepEqual({ ...seqOnly('{"seq":2,"sentUs":9}') }, { seq: 2, sentUs: null }, 'without a sentUs rule: null');
});
