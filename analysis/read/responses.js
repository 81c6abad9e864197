// Reads one engine's response archive (responses/<engine>.tar.gz) straight from the tar stream: no
// extraction to disk, no whole-archive buffering. A worker thread (archive-reader.js) does the gunzip and
// tar parsing and hands over the bodies of saved responses in batches; this thread parses them. Each saved
// response is classified by its file-name prefix (the sampler label, run-layout.md) and its body parsed
// line by line: a poll or control answer is one JSON line, a comet stream one JSON record per line
// (protocol.md). The visitor gets every parsed item; this module only counts what it could not read.
// An engine's stream log (push-<n>.tsv.gz, the push sampler's; docs/run-layout.md) holds the samples of
// every thread interleaved, one line per fact: B (a sample began), R (one record of its answer, with the
// engine-clock µs of its arrival), E (it ended). Each sample becomes one saved response for the visitor,
// named <label>_<id>.push, its records carrying arrivalMs on the stream object; a time-stamp sample goes
// to the visitor at its E line, with the µs its request was sent (sentUs) and its answer arrived (arrivalUs).
const path = require('node:path');
const { Worker } = require('node:worker_threads');

const { KINDS, kindOf } = require('./response-kinds');
const { replay, recycled } = require('./archive-batches');

const READER = path.join(__dirname, 'archive-reader.js');
const SAMPLE_KINDS = KINDS.filter((k) => k !== 'stream');   // what a saved response (or a logged sample) can be
// The reader's young generation, capped so peak RSS stays bounded whatever the archive's size: 89 / 128 MB
// at 500k / 2M responses (bench/analyzer.js). What still grows over a run is gunzip's spent output chunks,
// which V8 frees in the reader's full collections (set off by its external-memory limit), not by scavenges.
// A 32 MB cap is faster on small archives and climbs to ~200 MB at 4M.
const READER_LIMITS = { maxYoungGenerationSizeMb: 12 };

// What a parsed request line is: an event record, a timeout record, a clear record, an error answer.
function recordType(obj) {
  if (obj === null || typeof obj !== 'object') return null;
  if (obj.error !== undefined) return 'error';
  const r = obj.response;
  if (!r || typeof r !== 'object') return null;
  if (r.event) return 'event';
  if (r.timeout) return 'timeout';
  if (r.clear) return 'clear';
  if (r.pull) return 'pull';
  return null;
}

// visitor: { record(obj, type, stream), endStream(stream), timestamp(obj, stream), control(kind, obj, stream),
// errorBody(text, stream) } (all optional). stream = { name, kind, engine, records, ... } lives for one saved response.
function readArchive(file, visitor = {}, { engine = path.basename(file).replace(/\.tar\.gz$|\.tgz$/, '') } = {}) {
  const stats = {
    file, engine, entries: 0, byKind: Object.fromEntries(SAMPLE_KINDS.map((k) => [k, 0])), skippedEntries: 0, streamLogs: 0,
    errorBodies: 0, badLines: 0, halfLines: 0, truncatedEntries: 0, truncated: false, unreadable: false, problem: null,
    damagedStreamLogs: 0, streamLogProblems: [], unendedSamples: 0,
  };
  const samples = new Map();   // stream logs: sample id -> its saved response, from its B line to its E line

  return new Promise((resolve) => {
    let current = null;   // the saved response being read; it may span batches
    let finished = false;
    const worker = new Worker(READER, { workerData: { file }, resourceLimits: READER_LIMITS });

    function finish(readerStats) {
      if (finished) return;
      finished = true;
      if (current) {        // only when the reader failed: it closes every entry it opened otherwise
        stats.truncatedEntries++;
        endEntry(current, { cut: true });
        current = null;
      }
      // Samples of the stream logs without an E line: the engine stopped, or the log was cut, before they ended.
      for (const st of samples.values()) {
        stats.unendedSamples++;
        st.cut = true;
        if (st.kind === 'request') visitor.endStream?.(st);
      }
      samples.clear();
      Object.assign(stats, readerStats);
      worker.terminate().then(() => resolve(stats), () => resolve(stats));
    }

    function handleLine(st, line, { last }) {
      if (st.kind === 'stream') { streamLine(line, last); return; }
      const text = line.trim();
      if (text === '') return;
      if (st.isErrorText) return;
      if (st.lines === 0 && text[0] !== '{') {  // JMeter's own exception text: the request never got an answer
        st.isErrorText = true;
        stats.errorBodies++;
        visitor.errorBody?.(text, st);
        return;
      }
      st.lines++;
      let obj;
      try { obj = JSON.parse(text); } catch {
        if (last) stats.halfLines++; else stats.badLines++;
        return;
      }
      if (st.kind !== 'request') {
        if (obj && obj.error !== undefined) { stats.errorBodies++; visitor.errorBody?.(text, st); return; }
        if (st.kind === 'timestamp') visitor.timestamp?.(obj, st);
        else visitor.control?.(st.kind, obj, st);
        return;
      }
      const type = recordType(obj);
      if (type === null) { stats.badLines++; return; }
      if (type === 'error') { stats.errorBodies++; visitor.errorBody?.(text, st); return; }
      st.records++;
      visitor.record?.(obj, type, st);
    }

    // One line of a stream log (B / R / E, tab-separated; docs/run-layout.md).
    function streamLine(line, last) {
      if (last) { stats.halfLines++; return; }   // a log cut inside a line
      const tag = line[0];
      const a = line.indexOf('\t', 2);
      const b = a === -1 ? -1 : line.indexOf('\t', a + 1);
      const micros = a === -1 ? NaN : Number(line.slice(2, a));
      if (line[1] !== '\t' || b === -1 || !Number.isFinite(micros)) {
        if (line.trim() !== '') stats.badLines++;
        return;
      }
      const id = line.slice(a + 1, b);
      if (tag === 'R') {
        const st = samples.get(id);
        if (!st) { stats.badLines++; return; }
        st.arrivalMs = micros / 1000;
        if (st.kind === 'timestamp') {
          st.arrivalUs = micros;
          try { st.stamp = JSON.parse(line.slice(b + 1)); } catch { stats.badLines++; }
          return;
        }
        handleLine(st, line.slice(b + 1), { last: false });
        return;
      }
      const f = line.split('\t');
      if (tag === 'B' && f.length >= 5) {
        const label = f[4];
        const kind = SAMPLE_KINDS.includes(label) ? label : null;
        if (!kind) { stats.badLines++; return; }
        stats.byKind[kind]++;
        samples.set(id, { name: `${label}_${id}.push`, kind, engine, records: 0, lines: 0, pending: null, isErrorText: false,
          thread: f[3], beganUs: micros });
      } else if (tag === 'E' && f.length >= 10) {
        const st = samples.get(id);
        if (!st) { stats.badLines++; return; }
        samples.delete(id);
        st.endUs = micros;
        st.sentUs = Number(f[8]);
        st.responseCode = f[3];
        st.cut = Number(f[7]) > 0;
        if (f[3].startsWith('Non HTTP')) {   // the request never got (all of) an answer: JMeter's words for why
          stats.errorBodies++;
          visitor.errorBody?.(f.slice(9).join('\t'), st);
        }
        if (st.kind === 'request') visitor.endStream?.(st);
        else if (st.kind === 'timestamp' && st.stamp) visitor.timestamp?.(st.stamp, st);
      } else stats.badLines++;
    }

    function endEntry(st, { cut = false } = {}) {
      if (st.pending !== null) {
        // A final line without "\n": a complete one-line answer, or a line the writer never finished.
        const rest = st.pending.toString('utf8');
        st.pending = null;
        if (rest.trim() !== '') handleLine(st, rest, { last: true });
      }
      st.cut = cut;
      if (st.kind === 'request') visitor.endStream?.(st);
    }

    // Lines are cut at "\n" bytes before decoding: in UTF-8 that byte never occurs inside a character, so
    // a chunk boundary cannot split one, and most bodies arrive in one chunk and are decoded once.
    function onData(st, chunk) {
      let buf = chunk;
      if (st.pending !== null) { buf = Buffer.concat([st.pending, chunk]); st.pending = null; }
      let start = 0;
      let nl;
      while ((nl = buf.indexOf(10, start)) !== -1) {
        if (nl > start) handleLine(st, buf.toString('utf8', start, nl), { last: false });
        start = nl + 1;
      }
      // (a view, not a copy, until the batch's buffer goes back to the reader: see the message handler)
      if (start < buf.length) st.pending = buf.subarray(start);
    }

    const entryHandlers = {
      open(name, kind) {
        if (kind === 'stream') stats.streamLogs++; else stats.byKind[kind]++;   // a log's samples count at their B lines
        current = { name, kind, engine, records: 0, lines: 0, pending: null, isErrorText: false };
      },
      data(chunk) { onData(current, chunk); },
      close(cut) {
        const st = current;
        current = null;
        endEntry(st, { cut });
      },
    };
    worker.on('message', (msg) => {
      if (msg.batch) {
        replay(msg.batch, entryHandlers);
        // The batch's buffers go back to the reader for its next batches: an unfinished line of the
        // entry still open must not stay a view of them.
        if (current?.pending) current.pending = Buffer.from(current.pending);
        worker.postMessage(...recycled(msg.batch));   // also tells the reader it may send another batch
      } else if (msg.done) finish(msg.done);
    });
    // The reader itself failing is a bug, not bad input; still, what was read so far counts.
    const failed = (problem) => {
      const readSome = Object.values(stats.byKind).some((n) => n > 0);
      finish({ problem, unreadable: !readSome, truncated: readSome });
    };
    worker.on('error', (err) => failed(`archive reader failed: ${err.message}`));
    worker.on('exit', (code) => failed(`archive reader stopped (exit code ${code})`));
  });
}

module.exports = { readArchive, kindOf, recordType, KINDS };
