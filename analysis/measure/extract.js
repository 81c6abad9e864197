'use strict';
// A target run's extract rules (docs/targets.md "Keys": extract.seq, extract.sentUs): where a delivered
// message carries its sequence number and its send stamp. A rule is either
//   a JSON pointer (RFC 6901): it starts with "/", its tokens split at "/", "~1" read as "/" and "~0" as
//   "~" (in that order), applied to JSON.parse of the message; an array is indexed by a token of digits
//   only ("0" or no leading zero), or
//   a regular expression with exactly one capture group, matched against the message's text; the group's
//   text is the value.
// A rule gives a number or null: no match, a message that is not JSON (pointer rules), or a value that is
// not a finite number (a JSON number, or a string that reads whole as one: "17", "1.7e6"). The analysis
// extracts (the engine only frames and logs), once per arrival: extractor() parses a message's JSON at most
// once for both rules.

class RuleError extends Error {
  constructor(message) { super(message); this.name = 'RuleError'; }
}

// A pointer's reference tokens, unescaped ("/a~1b/~0c" -> ["a/b", "~c"]); "" (the whole document) -> [].
function pointerTokens(rule) {
  if (rule === '') return [];
  if (rule[0] !== '/') throw new RuleError(`not a JSON pointer: ${JSON.stringify(rule)}`);
  return rule.slice(1).split('/').map((t) => {
    if (/~(?![01])/.test(t)) throw new RuleError(`JSON pointer ${JSON.stringify(rule)}: "~" must be followed by 0 or 1`);
    return t.replace(/~1/g, '/').replace(/~0/g, '~');
  });
}

// The value the tokens point at in doc, or undefined.
function resolvePointer(doc, tokens) {
  let v = doc;
  for (const t of tokens) {
    if (Array.isArray(v)) {
      if (!/^(0|[1-9][0-9]*)$/.test(t)) return undefined;
      v = v[Number(t)];
    } else if (v !== null && typeof v === 'object' && Object.prototype.hasOwnProperty.call(v, t)) {
      v = v[t];
    } else {
      return undefined;
    }
  }
  return v;
}

// A JSON value or a regular expression's group as a number, or null.
function numberOf(v) {
  if (typeof v === 'number') return Number.isFinite(v) ? v : null;
  if (typeof v !== 'string' || v.trim() === '') return null;
  const n = Number(v);
  return Number.isFinite(n) ? n : null;
}

// How many capture groups a regular expression has (a match of the empty string has them all).
const groupCount = (re) => new RegExp(`${re.source}|`, re.flags.replace(/[gy]/g, '')).exec('').length - 1;

// A rule string compiled: { kind: 'pointer', tokens } or { kind: 'regex', re }. Throws a RuleError for a
// rule that is neither (a bad pointer escape, a regular expression that does not compile or has not
// exactly one capture group).
function compileRule(rule) {
  if (typeof rule !== 'string' || rule === '') throw new RuleError(`an extract rule is a non-empty string, got ${JSON.stringify(rule)}`);
  if (rule[0] === '/') return { kind: 'pointer', tokens: pointerTokens(rule) };
  let re;
  try { re = new RegExp(rule); } catch (err) { throw new RuleError(`not a regular expression: ${JSON.stringify(rule)} (${err.message})`); }
  const groups = groupCount(re);
  if (groups !== 1) throw new RuleError(`regular expression ${JSON.stringify(rule)} has ${groups} capture groups, not exactly one`);
  return { kind: 'regex', re };
}

// The extractor of a target's rules ({ seq, sentUs }: rule strings; sentUs may be absent or null):
// (text) -> { seq, sentUs }, each a number or null. The message's JSON is parsed at most once, and only when
// a pointer rule asks for it; one result object is refilled for every call (read it, do not keep it).
function extractor({ seq, sentUs = null }) {
  const rules = [compileRule(seq), sentUs === null || sentUs === undefined ? null : compileRule(sentUs)];
  const out = { seq: null, sentUs: null };
  const NOT_PARSED = Symbol('not parsed');
  return (text) => {
    let doc = NOT_PARSED;
    const apply = (r) => {
      if (r === null) return null;
      if (r.kind === 'regex') {
        const m = r.re.exec(text);
        return m && m[1] !== undefined ? numberOf(m[1]) : null;
      }
      if (doc === NOT_PARSED) {
        try { doc = JSON.parse(text); } catch { doc = undefined; }
      }
      return doc === undefined ? null : numberOf(resolvePointer(doc, r.tokens));
    };
    out.seq = apply(rules[0]);
    out.sentUs = apply(rules[1]);
    return out;
  };
}

// One rule applied to one message (tests, one-off use): a number or null.
const extractOne = (rule, text) => extractor({ seq: rule })(text).seq;

module.exports = { compileRule, extractor, extractOne, pointerTokens, resolvePointer, RuleError };
