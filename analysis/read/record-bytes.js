'use strict';
// Reads the line that makes up nearly every byte of a run, an event record (docs/protocol.md "Records",
// study 3.4.1.2), straight from the bytes it arrived in into flat numbers: no string per line, no object
// per record. The servers write it in one compact layout (keys in the protocol's order, whole numbers, an
// ASCII event name without escapes):
//   {"response":{"event":{"name":S,"cycle":I,"timings":{"duration":I,"sent":I,"created":I},
//    "connections":{"total":I,"place":I}}},"request":R,"timings":{"duration":I,"sent":I,"created":I},
//    "connections":{"start":I,"finish":I}}
// (S a string, I a whole number of at most 15 digits, R any JSON object: the POST body the server echoes).
// The reader takes only bytes of exactly that form, and then fills an EventFields with what eventFields()
// takes from JSON.parse of the same text; any other line (other spacing, a fraction, an escape, a non-ASCII
// name, a timeout or clear record, a damaged line) is left to JSON.parse (read/responses.js).
// The echoed request is the same bytes in every record of a stream (and of a run, mostly): its object is
// parsed once and shared by every record whose request bytes are the same, so it is read-only.
// CPU per 329-byte record here (bench/record-reader.js): decoding the line and JSON.parse 1.46 µs, this
// reader 0.39 µs, a loop that only adds up the line's bytes 0.22 µs.

const MAX_DIGITS = 15;   // below 2^53: the digits' value is exact, as JSON.parse's is

// The numbers and names of one event record: every field of the layout above, flat. `undefined` where a
// record read by JSON.parse lacks a field (eventFields).
class EventFields {
  constructor() {
    this.name = undefined;            // response.event.name
    this.cycle = undefined;           // response.event.cycle
    this.eventDuration = undefined;   // response.event.timings.duration
    this.eventSent = undefined;       // response.event.timings.sent
    this.eventCreated = undefined;    // response.event.timings.created: the emit cycle's start (server ms)
    this.total = undefined;           // response.event.connections.total
    this.place = undefined;           // response.event.connections.place
    this.request = undefined;         // request: the echoed POST body (an object)
    this.duration = undefined;        // timings.duration
    this.sent = undefined;            // timings.sent
    this.created = undefined;         // timings.created: when the server received the request
    this.start = undefined;           // connections.start
    this.finish = undefined;          // connections.finish
  }
}

// The fields of an event record as JSON.parse gives it (an object whose response.event is set), into out.
function eventFields(obj, out = new EventFields()) {
  const ev = obj.response.event;
  out.name = ev.name;
  out.cycle = ev.cycle;
  out.eventDuration = ev.timings?.duration;
  out.eventSent = ev.timings?.sent;
  out.eventCreated = ev.timings?.created;
  out.total = ev.connections?.total;
  out.place = ev.connections?.place;
  out.request = obj.request;
  out.duration = obj.timings?.duration;
  out.sent = obj.timings?.sent;
  out.created = obj.timings?.created;
  out.start = obj.connections?.start;
  out.finish = obj.connections?.finish;
  return out;
}

const bytes = (s) => Buffer.from(s, 'latin1');
const HEAD = bytes('{"response":{"event":{"name":"');
const CYCLE = bytes(',"cycle":');
const TIMINGS = bytes(',"timings":{"duration":');
const SENT = bytes(',"sent":');
const CREATED = bytes(',"created":');
const TOTAL = bytes('},"connections":{"total":');
const PLACE = bytes(',"place":');
const REQUEST = bytes('}}},"request":');
const START = bytes('},"connections":{"start":');
const FINISH = bytes(',"finish":');
const TYPE = bytes('{"type":"');
const EVENTS = bytes(',"events":[');
const DURATION = bytes(',"duration":');
const [QUOTE, COMMA, CLOSE_LIST] = ['"', ',', ']'].map(bytes);
const TAIL = bytes('},"timings":');   // where the echoed request ends: its last occurrence (the tail holds no other)

// Reads event records from bytes (read()). One per archive being read: it keeps the last event name and
// echoed request it read, to give them again without decoding them again.
class EventRecordReader {
  constructor() {
    this.buf = null;
    this.at = 0;
    this.end = 0;
    this.value = 0;           // the last integer read
    this.name = '';           // the last event name read
    this.requestBytes = null; // the last echoed request's bytes (a copy), and its object
    this.request = null;
  }

  // The bytes buf[start, end) as an event record of the layout into out (true), or false when they are not
  // of exactly that form (out is then partly written).
  read(buf, start, end, out) {
    this.buf = buf;
    this.at = start;
    this.end = end;
    if (!this.literal(HEAD)) return false;
    const name = this.plainName();
    if (name === undefined || !this.literal(CYCLE) || !this.integer()) return false;
    out.name = name;
    out.cycle = this.value;
    if (!this.literal(TIMINGS) || !this.integer()) return false;
    out.eventDuration = this.value;
    if (!this.literal(SENT) || !this.integer()) return false;
    out.eventSent = this.value;
    if (!this.literal(CREATED) || !this.integer()) return false;
    out.eventCreated = this.value;
    if (!this.literal(TOTAL) || !this.integer()) return false;
    out.total = this.value;
    if (!this.literal(PLACE) || !this.integer()) return false;
    out.place = this.value;
    if (!this.literal(REQUEST)) return false;
    const request = this.echoedRequest();
    if (request === null) return false;
    out.request = request;
    if (!this.integer()) return false;
    out.duration = this.value;
    if (!this.literal(SENT) || !this.integer()) return false;
    out.sent = this.value;
    if (!this.literal(CREATED) || !this.integer()) return false;
    out.created = this.value;
    if (!this.literal(START) || !this.integer()) return false;
    out.start = this.value;
    if (!this.literal(FINISH) || !this.integer()) return false;
    out.finish = this.value;
    return this.at + 2 === end && buf[this.at] === 125 && buf[this.at + 1] === 125;   // '}}' and nothing after
  }

  // The bytes of lit here: the cursor past them (true), or false. (A plain byte loop: V8 inlines it, where
  // a native compare of a few dozen bytes costs more than the loop.)
  literal(lit) {
    const buf = this.buf;
    const at = this.at;
    if (at + lit.length > this.end) return false;
    for (let i = 0; i < lit.length; i++) if (buf[at + i] !== lit[i]) return false;
    this.at = at + lit.length;
    return true;
  }

  // A JSON integer, -?(0|[1-9][0-9]*) of at most MAX_DIGITS digits, into this.value (true), or false. What
  // follows it is checked by the next read (a fraction or exponent fails there).
  integer() {
    const buf = this.buf;
    const end = this.end;
    let i = this.at;
    const negative = i < end && buf[i] === 45;   // '-'
    if (negative) i++;
    const first = i;
    let value = 0;
    for (let c = buf[i]; i < end && c >= 48 && c <= 57; c = buf[++i]) value = value * 10 + (c - 48);
    const digits = i - first;
    if (digits === 0 || digits > MAX_DIGITS || (digits > 1 && buf[first] === 48)) return false;
    this.at = i;
    this.value = negative ? -value : value;
    return true;
  }

  // An ASCII JSON string without escapes or control characters, the cursor just past its opening quote;
  // its text (the last name's own string when the bytes are the same), the cursor past the closing quote;
  // undefined when it is not of that form.
  plainName() {
    const buf = this.buf;
    const from = this.at;
    for (let i = from; i < this.end; i++) {
      const c = buf[i];
      if (c === 34) {   // '"'
        this.at = i + 1;
        if (!sameText(buf, from, i, this.name)) this.name = buf.latin1Slice(from, i);
        return this.name;
      }
      if (c === 92 || c < 32 || c > 126) return undefined;   // '\', a control character or non-ASCII: JSON.parse's
    }
    return undefined;
  }

  // The echoed request, a JSON object, and the tail after it up to the record's first timing: the cursor
  // then on that timing. The last request's object when its bytes are the same; else the servers' own
  // {"type":S,"events":[S,...]} (with ,"duration":I or not) read here, or any other JSON object up to the
  // tail by JSON.parse. Null when it is none of these.
  echoedRequest() {
    const from = this.at;
    const last = this.requestBytes;
    if (last !== null && this.literal(last) && this.literal(TIMINGS)) return this.request;
    this.at = from;
    let request = this.plainRequest();
    if (request === null || !this.literal(TAIL)) {
      const end = from + this.buf.subarray(from, this.end).lastIndexOf(TAIL);
      if (end < from) return null;
      try { request = JSON.parse(this.buf.toString('utf8', from, end + 1)); } catch { return null; }
      if (request === null || typeof request !== 'object' || Array.isArray(request)) return null;
      this.at = end + TAIL.length;
    }
    this.requestBytes = Buffer.from(this.buf.subarray(from, this.at - TAIL.length + 1));   // up to its closing '}'
    this.request = request;
    this.at = from + this.requestBytes.length;
    return this.literal(TIMINGS) ? request : null;
  }

  // {"type":S,"events":[S,...]} or {"type":S,"events":[S,...],"duration":I} without its closing brace, or null.
  plainRequest() {
    if (!this.literal(TYPE)) return null;
    const type = this.plainString();
    if (type === undefined || !this.literal(EVENTS)) return null;
    const events = [];
    if (!this.literal(CLOSE_LIST)) {
      do {
        if (!this.literal(QUOTE)) return null;
        const name = this.plainString();
        if (name === undefined) return null;
        events.push(name);
      } while (this.literal(COMMA));
      if (!this.literal(CLOSE_LIST)) return null;
    }
    if (!this.literal(DURATION)) return { type, events };
    return this.integer() ? { type, events, duration: this.value } : null;
  }

  // plainName's string, not kept (the request is parsed once per distinct request).
  plainString() {
    const buf = this.buf;
    const from = this.at;
    for (let i = from; i < this.end; i++) {
      const c = buf[i];
      if (c === 34) { this.at = i + 1; return buf.latin1Slice(from, i); }
      if (c === 92 || c < 32 || c > 126) return undefined;
    }
    return undefined;
  }
}

// buf[from, to) holds exactly the characters of the (ASCII) string s.
function sameText(buf, from, to, s) {
  if (to - from !== s.length) return false;
  for (let i = 0; i < s.length; i++) if (buf[from + i] !== s.charCodeAt(i)) return false;
  return true;
}

module.exports = { EventFields, EventRecordReader, eventFields };
