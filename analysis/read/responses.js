// Reads one engine's response archive (responses/<engine>.tar.gz) straight from the tar stream: no
// extraction to disk, no whole-archive buffering. archive-reader.js does the gunzip and tar parsing and hands
// over the bodies of saved responses; this module parses them (ArchiveVisit), on the same thread. Each saved
// response is classified by its file-name prefix (the sampler label, run-layout.md) and its body parsed
// line by line: a poll or control answer is one JSON line, a comet stream one JSON record per line
// (protocol.md). An event record in the servers' own layout is read from its bytes into flat fields
// (record-bytes.js); every other line is decoded and given to JSON.parse, and an event record read so is
// turned into the same fields (eventFields). The visitor gets every event record as fields, every other
// record, answer and body as it was parsed; this module only counts what it could not read.
// An engine's stream log (push-<n>.tsv.gz, the push sampler's; docs/run-layout.md) holds the samples of
// every thread interleaved, one line per fact: B (a sample began), C (its connection's first connect
// completed: st.connectedUs), R (one record of its answer, with the
// engine-clock µs of its arrival), E (it ended, with the answer's verdict: st.ok, st.failure, taken by
// measure/stream-answers.js; an older push run's E line has none). Each sample becomes one saved response for the visitor,
// named <label>_<id>.push, its records carrying arrivalMs on the stream object; a time-stamp sample goes
// to the visitor at its E line, with the µs its request was sent (sentUs) and its answer arrived (arrivalUs).
// An R line of the usual form (whole-number µs and sample id) is split on its bytes; any other line is
// decoded first, and reads the same.
// The analysis reads each archive in a worker thread of its own (stage/archive-worker.js, stage/archives.js).
const path = require('node:path');

const { KINDS, kindOf } = require('./response-kinds');
const { ArchiveReader } = require('./archive-reader');
const { EventFields, EventRecordReader, eventFields } = require('./record-bytes');
const { lineHead, recordHeadBytes, beginOf, connectOf, endOf } = require('./stream-log');

const SAMPLE_KINDS = KINDS.filter((k) => k !== 'stream');   // what a saved response (or a logged sample) can be

// What a parsed request line is: an event record, a timeout, clear, pull, replay or gap record (the last
// two only on a resumed SSE or WebSocket stream: docs/protocol.md "Replay and gaps"), an error answer.
function recordType(obj) {
  if (obj === null || typeof obj !== 'object') return null;
  if (obj.error !== undefined) return 'error';
  const r = obj.response;
  if (!r || typeof r !== 'object') return null;
  if (r.event) return 'event';
  if (r.timeout) return 'timeout';
  if (r.clear) return 'clear';
  if (r.pull) return 'pull';
  if (r.replay) return 'replay';
  if (r.gap) return 'gap';
  return null;
}

// One archive's saved responses as archive-reader.js hands them over: open / data / close per entry;
// lines go to the visitor, and what could not be read is counted in `stats`.
// visitor: { event(fields, stream), record(obj, type, stream), endStream(stream), timestamp(obj, stream),
// control(kind, obj, stream), errorBody(text, stream) } (all optional). event: an event record's fields
// (record-bytes.js EventFields, one object refilled for every record: read it, do not keep it); record: a
// record of another type (timeout, clear, pull, replay, gap; recordType). stream = { name, kind, engine, records, ... }
// lives for one saved response.
class ArchiveVisit {
  constructor(file, engine, visitor) {
    this.engine = engine;
    this.visitor = visitor;
    this.stats = {
      file, engine, entries: 0, byKind: Object.fromEntries(SAMPLE_KINDS.map((k) => [k, 0])), skippedEntries: 0, streamLogs: 0,
      errorBodies: 0, badLines: 0, halfLines: 0, truncatedEntries: 0, truncated: false, unreadable: false, problem: null,
      damagedStreamLogs: 0, streamLogProblems: [], unendedSamples: 0,
    };
    this.current = null;         // the saved response being read; it may span chunks
    this.samples = new Map();    // stream logs: sample key (sampleKey) -> its saved response, from its B line to its E line
    this.reader = new EventRecordReader();
    this.fields = new EventFields();
  }

  open(name, kind) {
    if (kind === 'stream') this.stats.streamLogs++; else this.stats.byKind[kind]++;   // a log's samples count at their B lines
    this.current = { name, kind, engine: this.engine, records: 0, lines: 0, pending: null, isErrorText: false };
  }

  // Lines are cut at "\n" bytes and read from the bytes where they can be (lineBytes): in UTF-8 that byte
  // never occurs inside a character, so a chunk boundary cannot split one. A line split across chunks is
  // joined alone (not the whole chunk), and its start is kept as a copy, so that no chunk outlives its own
  // parsing (stage/archive-worker.js: the collections).
  data(chunk) {
    const st = this.current;
    let start = 0;
    if (st.pending !== null) {
      const nl = chunk.indexOf(10);
      if (nl === -1) { st.pending = Buffer.concat([st.pending, chunk]); return; }
      const head = Buffer.concat([st.pending, chunk.subarray(0, nl)]);
      st.pending = null;
      this.lineBytes(st, head, 0, head.length);
      start = nl + 1;
    }
    let nl;
    while ((nl = chunk.indexOf(10, start)) !== -1) {
      if (nl > start) this.lineBytes(st, chunk, start, nl);
      start = nl + 1;
    }
    if (start < chunk.length) st.pending = Buffer.from(chunk.subarray(start));
  }

  // One whole line of a saved response, buf[from, to): an event record of a request's answer read from its
  // bytes, a stream log's line split on its bytes (streamLineBytes), any other decoded and read by line().
  lineBytes(st, buf, from, to) {
    if (st.kind === 'stream') this.streamLineBytes(buf, from, to);
    else if (st.kind !== 'request' || st.isErrorText || !this.reader.read(buf, from, to, this.fields)) this.line(st, buf.toString('utf8', from, to), false);
    else {
      st.lines++;
      this.event(st, this.fields);
    }
  }

  // An event record of st, read into fields.
  event(st, fields) {
    st.records++;
    this.visitor.event?.(fields, st);
  }

  close(cut) {
    const st = this.current;
    this.current = null;
    this.endEntry(st, cut);
  }

  endEntry(st, cut) {
    if (st.pending !== null) {
      // A final line without "\n": a complete one-line answer, or a line the writer never finished.
      const rest = st.pending.toString('utf8');
      st.pending = null;
      if (rest.trim() !== '') this.line(st, rest, true);
    }
    st.cut = cut;
    if (st.kind === 'request') this.visitor.endStream?.(st);
  }

  // One line of a saved response; last: the body's final line, which had no line end.
  line(st, line, last) {
    if (st.kind === 'stream') { this.streamLine(line, last); return; }
    const text = line.trim();
    if (text === '' || st.isErrorText) return;
    if (st.lines === 0 && text[0] !== '{') {  // JMeter's own exception text: the request never got an answer
      st.isErrorText = true;
      this.errorBody(text, st);
      return;
    }
    st.lines++;
    let obj;
    try { obj = JSON.parse(text); } catch {
      if (last) this.stats.halfLines++; else this.stats.badLines++;
      return;
    }
    if (st.kind !== 'request') { this.controlAnswer(obj, text, st); return; }
    const type = recordType(obj);
    if (type === 'event') { this.event(st, eventFields(obj, this.fields)); return; }
    if (type === null) { this.stats.badLines++; return; }
    if (type === 'error') { this.errorBody(text, st); return; }
    st.records++;
    this.visitor.record?.(obj, type, st);
  }

  // The answer of a time-stamp or control request (setevent, logging, clear).
  controlAnswer(obj, text, st) {
    if (obj && obj.error !== undefined) this.errorBody(text, st);
    else if (st.kind === 'timestamp') this.visitor.timestamp?.(obj, st);
    else this.visitor.control?.(st.kind, obj, st);
  }

  errorBody(text, st) {
    this.stats.errorBodies++;
    this.visitor.errorBody?.(text, st);
  }

  // One whole line of a stream log, buf[from, to): an R line whose µs and sample id are whole numbers is
  // split here on its bytes and its record read by lineBytes; any other line is decoded (streamLine).
  streamLineBytes(buf, from, to) {
    const h = recordHeadBytes(buf, from, to);
    if (h === null) { this.streamLine(buf.toString('utf8', from, to), false); return; }
    const st = this.samples.get(h.id);
    if (!st) { this.stats.badLines++; return; }
    st.arrivalMs = h.us / 1000;
    if (st.kind === 'timestamp') this.stamp(st, h.us, buf.toString('utf8', h.restAt, to));
    else this.lineBytes(st, buf, h.restAt, to);
  }

  // One line of a stream log (B / R / E: read/stream-log.js).
  streamLine(line, last) {
    if (last) { this.stats.halfLines++; return; }   // a log cut inside a line
    const h = lineHead(line);
    if (h === null) {
      if (line.trim() !== '') this.stats.badLines++;
      return;
    }
    const id = sampleKey(h.id);
    if (h.tag === 'R') this.streamRecord(id, h.us, line.slice(h.restAt));
    else if (h.tag === 'B') this.sampleBegan(id, h.us, beginOf(line));
    else if (h.tag === 'C') this.sampleConnected(id, h.us, connectOf(line));
    else this.sampleEnded(id, h.us, endOf(line));
  }

  // C: the sample's connection completed its first TCP connect at `micros` (the mux engine; once per
  // connection): st.connectedUs, what connections opened per second is counted from.
  sampleConnected(id, micros, c) {
    const st = c !== null ? this.samples.get(id) : null;
    if (!st) { this.stats.badLines++; return; }
    st.connectedUs = micros;
  }

  // R: one record of a sample's answer, stamped with its arrival (engine clock, µs).
  streamRecord(id, micros, record) {
    const st = this.samples.get(id);
    if (!st) { this.stats.badLines++; return; }
    st.arrivalMs = micros / 1000;
    if (st.kind === 'timestamp') this.stamp(st, micros, record);
    else this.line(st, record, false);
  }

  // The answer of a time-stamp sample, arrived at `micros` (engine clock): given to the visitor at its E line.
  stamp(st, micros, record) {
    st.arrivalUs = micros;
    try { st.stamp = JSON.parse(record); } catch { this.stats.badLines++; }
  }

  // B: a sample began; it becomes one saved response named <label>_<id>.push.
  sampleBegan(id, micros, b) {
    const kind = b !== null && SAMPLE_KINDS.includes(b.label) ? b.label : null;
    if (!kind) { this.stats.badLines++; return; }
    this.stats.byKind[kind]++;
    this.samples.set(id, { name: `${kind}_${id}.push`, kind, engine: this.engine, records: 0, lines: 0, pending: null,
      isErrorText: false, thread: b.thread, beganUs: micros });
  }

  // E: the sample ended, with the µs its request was sent and whether its answer was cut; the mux engine
  // and the push sampler add an 11th field, the answer's failure against the plan's assertions ('' when it
  // passed): then ok is its verdict (st.ok, st.failure; st.failure stays undefined on a 10-field line, an
  // older push run's, whose verdict is in its results.csv); and a 12th, the µs its head was read
  // (st.headersUs, JMeter's latency).
  sampleEnded(id, micros, e) {
    const st = e !== null ? this.samples.get(id) : null;
    if (!st) { this.stats.badLines++; return; }
    this.samples.delete(id);
    st.endUs = micros;
    st.sentUs = e.sentUs;
    st.responseCode = e.code;
    st.cut = e.cutBytes > 0;
    if (e.failure !== undefined) {
      st.ok = e.ok;
      st.failure = e.failure;
      if (e.headersUs !== null) st.headersUs = e.headersUs;   // the 12th: µs the answer's head was read
    }
    if (e.code.startsWith('Non HTTP')) this.errorBody(e.message, st);   // JMeter's words for why no (whole) answer came
    if (st.kind === 'request') this.visitor.endStream?.(st);
    else if (st.kind === 'timestamp' && st.stamp) this.visitor.timestamp?.(st.stamp, st);
  }

  // The end of the archive: what is still open was cut. Returns the stats with the reader's own counts.
  finish(readerStats) {
    if (this.current) {        // only when the reader failed: it closes every entry it opened otherwise
      this.stats.truncatedEntries++;
      this.endEntry(this.current, true);
      this.current = null;
    }
    // Samples of the stream logs without an E line: the engine stopped, or the log was cut, before they ended.
    for (const st of this.samples.values()) {
      this.stats.unendedSamples++;
      st.cut = true;
      if (st.kind === 'request') this.visitor.endStream?.(st);
    }
    this.samples.clear();
    return Object.assign(this.stats, readerStats);
  }
}

// A sample id of a stream log as the key of its sample: a whole number as that number (what
// streamLineBytes reads from the bytes), any other text as it is.
function sampleKey(id) {
  return /^(0|[1-9][0-9]{0,14})$/.test(id) ? Number(id) : id;
}

// The engine an archive belongs to: its file name without .tar.gz or .tgz.
const engineOf = (file) => path.basename(file).replace(/\.tar\.gz$|\.tgz$/, '');

// Reads one archive on this thread; resolves to its stats (never rejects: an unreadable or cut archive
// is counted as a problem with what was read before it).
async function readArchive(file, visitor = {}, { engine = engineOf(file), spent } = {}) {
  const visit = new ArchiveVisit(file, engine, visitor);
  return visit.finish(await new ArchiveReader(file, visit, { spent }).read());
}

module.exports = { readArchive, ArchiveVisit, engineOf, kindOf, recordType, KINDS };
