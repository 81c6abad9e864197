// Reads one engine's response archive (responses/<engine>.tar.gz) straight from the tar stream: no
// extraction to disk, no whole-archive buffering. A worker thread (archive-reader.js) does the gunzip and
// tar parsing and hands over the bodies of saved responses in batches; this thread parses them. Each saved
// response is classified by its file-name prefix (the sampler label, run-layout.md) and its body parsed
// line by line: a poll or control answer is one JSON line, a comet stream one JSON record per line
// (protocol.md). The visitor gets every parsed item; this module only counts what it could not read.
const path = require('node:path');
const { Worker } = require('node:worker_threads');

const { KINDS, kindOf } = require('./response-kinds');
const { replay, recycled } = require('./archive-batches');

const READER = path.join(__dirname, 'archive-reader.js');
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
  return null;
}

// visitor: { record(obj, type, stream), endStream(stream), timestamp(obj, stream), control(kind, obj, stream),
// errorBody(text, stream) } (all optional). stream = { name, kind, engine, records, ... } lives for one saved response.
function readArchive(file, visitor = {}, { engine = path.basename(file).replace(/\.tar\.gz$|\.tgz$/, '') } = {}) {
  const stats = {
    file, engine, entries: 0, byKind: Object.fromEntries(KINDS.map((k) => [k, 0])), skippedEntries: 0,
    errorBodies: 0, badLines: 0, halfLines: 0, truncatedEntries: 0, truncated: false, unreadable: false, problem: null,
  };

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
      Object.assign(stats, readerStats);
      worker.terminate().then(() => resolve(stats), () => resolve(stats));
    }

    function handleLine(st, line, { last }) {
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
        stats.byKind[kind]++;
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
