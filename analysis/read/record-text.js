'use strict';
// Reads one line of a saved response (a record or answer of docs/protocol.md, study 3.4.1.2) into the same
// object JSON.parse gives, faster for the line that makes up nearly every byte of a run: an event record in
// the servers' own compact layout (keys in the protocol's order, whole numbers, names without escapes),
//   {"response":{"event":{"name":S,"cycle":I,"timings":{"duration":I,"sent":I,"created":I},
//    "connections":{"total":I,"place":I}}},"request":R,"timings":{"duration":I,"sent":I,"created":I},
//    "connections":{"start":I,"finish":I}}
// (S a string, I a whole number of at most 15 digits, R any JSON object: the POST body the server echoes).
// The fast reader accepts only text of exactly that form, so its object equals JSON.parse's: same keys in
// the same order, same values, fresh objects. Any other line (other servers' spacing, a fraction, an escape,
// a timeout or clear record, a damaged line) goes to JSON.parse, which throws on text that is no JSON.
// CPU per ~330-byte record of bench/analyzer.js's run, here: JSON.parse 1.3-1.6 µs, the fast reader 0.9-1.0 µs.

const MAX_DIGITS = 15;   // below 2^53: the digits' value is exact, as JSON.parse's is

// A position in one line and the reads the layout needs; each read returns false (or undefined) when the
// text there is not what the layout says.
class Cursor {
  constructor(text) {
    this.text = text;
    this.at = 0;
  }

  // (a charCodeAt loop: V8 inlines it, where startsWith(s, at) is a call that costs more than the JSON.parse it saves)
  literal(s) {
    const t = this.text;
    const at = this.at;
    if (at + s.length > t.length) return false;
    for (let i = 0; i < s.length; i++) if (t.charCodeAt(at + i) !== s.charCodeAt(i)) return false;
    this.at = at + s.length;
    return true;
  }

  // A JSON integer: -?(0|[1-9][0-9]*), at most MAX_DIGITS digits; undefined when there is none. The read
  // after it checks what follows (a fraction or exponent fails there).
  integer() {
    const t = this.text;
    let i = this.at;
    const negative = t.charCodeAt(i) === 45;   // '-'
    if (negative) i++;
    const first = i;
    let value = 0;
    for (let c = t.charCodeAt(i); c >= 48 && c <= 57; c = t.charCodeAt(++i)) value = value * 10 + (c - 48);
    const digits = i - first;
    if (digits === 0 || digits > MAX_DIGITS || (digits > 1 && t.charCodeAt(first) === 48)) return undefined;
    this.at = i;
    return negative ? -value : value;
  }

  // A JSON string without escapes or control characters (the cursor just past its opening quote, which the
  // literal before it holds); its text, and the cursor past the closing quote.
  plainString() {
    const t = this.text;
    for (let i = this.at; i < t.length; i++) {
      const c = t.charCodeAt(i);
      if (c === 34) {   // '"'
        const s = t.slice(this.at, i);
        this.at = i + 1;
        return s;
      }
      if (c === 92 || c < 32) return undefined;   // '\' or a control character: JSON.parse's business
    }
    return undefined;
  }

  // "key":<integer> after the literal that precedes it.
  field(before) {
    return this.literal(before) ? this.integer() : undefined;
  }
}

const TIMINGS = ['{"duration":', ',"sent":', ',"created":'];

// {"duration":I,"sent":I,"created":I} (the layout's two timings objects), or null.
function timings(cur) {
  const duration = cur.field(TIMINGS[0]);
  if (duration === undefined) return null;
  const sent = cur.field(TIMINGS[1]);
  if (sent === undefined) return null;
  const created = cur.field(TIMINGS[2]);
  if (created === undefined || !cur.literal('}')) return null;
  return { duration, sent, created };
}

const TAIL = '},"timings":';   // where the echoed request ends: its last occurrence (the tail holds no other)

// The echoed request and the "timings" key after it, the cursor then on the record's timings. The
// servers' own {"type":S,"events":[S,...]} (with ,"duration":I or not) is read here; any other JSON object
// up to the tail goes to JSON.parse. Null when neither reads it.
function echoedRequest(cur) {
  const from = cur.at;
  const request = plainRequest(cur);
  if (request !== null && cur.literal(TAIL)) return request;
  const text = cur.text;
  const end = text.lastIndexOf(TAIL);
  if (end < from) return null;
  let parsed;
  try { parsed = JSON.parse(text.slice(from, end + 1)); } catch { return null; }
  if (parsed === null || typeof parsed !== 'object' || Array.isArray(parsed)) return null;
  cur.at = end + TAIL.length;
  return parsed;
}

// {"type":S,"events":[S,...]} or {"type":S,"events":[S,...],"duration":I} without its closing brace, or null.
function plainRequest(cur) {
  if (!cur.literal('{"type":"')) return null;
  const type = cur.plainString();
  if (type === undefined || !cur.literal(',"events":[')) return null;
  const events = [];
  if (!cur.literal(']')) {
    do {
      if (!cur.literal('"')) return null;
      const name = cur.plainString();
      if (name === undefined) return null;
      events.push(name);
    } while (cur.literal(','));
    if (!cur.literal(']')) return null;
  }
  if (!cur.literal(',"duration":')) return { type, events };
  const duration = cur.integer();
  return duration === undefined ? null : { type, events, duration };
}

// The event record of the header's layout, or null when the text is not of exactly that form.
function eventRecord(text) {
  const cur = new Cursor(text);
  if (!cur.literal('{"response":{"event":{"name":"')) return null;
  const name = cur.plainString();
  if (name === undefined) return null;
  const cycle = cur.field(',"cycle":');
  if (cycle === undefined || !cur.literal(',"timings":')) return null;
  const eventTimings = timings(cur);
  if (eventTimings === null) return null;
  const total = cur.field(',"connections":{"total":');
  if (total === undefined) return null;
  const place = cur.field(',"place":');
  if (place === undefined || !cur.literal('}}},"request":')) return null;
  const request = echoedRequest(cur);
  if (request === null) return null;
  const recordTimings = timings(cur);
  if (recordTimings === null) return null;
  const start = cur.field(',"connections":{"start":');
  if (start === undefined) return null;
  const finish = cur.field(',"finish":');
  if (finish === undefined || !cur.literal('}}') || cur.at !== text.length) return null;
  return {
    response: { event: { name, cycle, timings: eventTimings, connections: { total, place } } },
    request,
    timings: recordTimings,
    connections: { start, finish },
  };
}

// The line as JSON.parse reads it (the same object; throws where JSON.parse throws).
function parseRecord(text) {
  return eventRecord(text) ?? JSON.parse(text);
}

module.exports = { parseRecord, eventRecord };
