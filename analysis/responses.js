'use strict';
// Reads one engine's response archive (responses/<engine>.tar.gz) straight from the tar stream: no
// extraction to disk, no whole-archive buffering. Each saved response is classified by its file-name prefix
// (the sampler label, run-layout.md) and its body parsed line by line: a poll or control answer is one JSON
// line, a comet stream one JSON record per line (protocol.md). The visitor gets every parsed item; this
// module only counts what it could not read.
const fs = require('node:fs');
const path = require('node:path');
const zlib = require('node:zlib');
const tar = require('tar');

const { KINDS, kindOf } = require('./response-kinds');

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

// The ISIZE field of a (single-member) gzip file: uncompressed size mod 2^32, or null if unreadable.
function gzipTrailerSize(file) {
  let fd;
  try {
    fd = fs.openSync(file, 'r');
    const { size } = fs.fstatSync(fd);
    if (size < 18) return null;
    const buf = Buffer.alloc(4);
    fs.readSync(fd, buf, 0, 4, size - 4);
    return buf.readUInt32LE(0);
  } catch { return null; } finally { if (fd !== undefined) fs.closeSync(fd); }
}

// visitor: { record(obj, type, stream), endStream(stream), timestamp(obj, stream), control(kind, obj, stream),
// errorBody(text, stream) } (all optional). stream = { name, kind, engine, records, ... } lives for one saved response.
function readArchive(file, visitor = {}, { engine = path.basename(file).replace(/\.tar\.gz$|\.tgz$/, '') } = {}) {
  const stats = {
    file, engine, entries: 0, byKind: Object.fromEntries(KINDS.map((k) => [k, 0])), skippedEntries: 0,
    errorBodies: 0, badLines: 0, halfLines: 0, truncatedEntries: 0, truncated: false, unreadable: false, problem: null,
  };

  return new Promise((resolve) => {
    let current = null;   // the entry being read: a half-read one when the archive breaks off
    let done = false;
    let inputProblem = null;   // gunzip failed or the gzip stream was cut: the parser got what came before

    function finish(problem, { unreadable = false } = {}) {
      if (done) return;
      done = true;
      // The parser may still hand out the part of an entry it had before the break: let it, then report.
      setImmediate(() => {
        if (current) {      // the archive ended inside this entry and the parser never closed it
          stats.truncatedEntries++;
          endEntry(current, { cut: true });
          current = null;
        }
        if (problem) {
          stats.problem = problem;
          if (unreadable || stats.entries === 0) stats.unreadable = true;
          else stats.truncated = true;
        }
        resolve(stats);
      });
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
      if (start < buf.length) st.pending = start === 0 ? Buffer.from(buf) : buf.subarray(start);
    }

    const parser = new tar.Parser({ strict: false });
    parser.on('entry', (entry) => {
      if (entry.type !== 'File' && entry.type !== 'OldFile') { entry.resume(); return; }
      stats.entries++;
      const kind = kindOf(entry.path);
      if (!kind) { stats.skippedEntries++; entry.resume(); return; }
      stats.byKind[kind]++;
      const st = { name: entry.path, kind, engine, records: 0, lines: 0, pending: null, isErrorText: false };
      current = st;
      entry.on('data', (chunk) => onData(st, chunk));
      entry.on('end', () => {
        if (current === st) current = null;
        const cut = done;   // closed by the parser after the archive broke off
        if (cut) stats.truncatedEntries++;
        endEntry(st, { cut });
      });
    });
    parser.on('warn', (code, message) => {
      // Bad headers inside an otherwise readable archive are warnings; an unrecognised format or a
      // truncated stream means nothing usable follows.
      if (code === 'TAR_BAD_ARCHIVE' || code === 'TAR_ABORT') finish(`${code}: ${message}`);
      else if (!inputProblem) inputProblem = `${code}: ${message}`;
    });
    parser.on('abort', (err) => finish(err && err.message ? err.message : 'archive aborted'));
    parser.on('error', (err) => finish(err.message));
    parser.on('end', () => finish(inputProblem ?? (current ? 'archive ends inside an entry' : null)));

    const input = fs.createReadStream(file, { highWaterMark: 1 << 20 });
    input.on('error', (err) => finish(err.message, { unreadable: true }));
    input.once('readable', () => {
      const first = input.read(2);
      if (first) input.unshift(first);
      if (!first || first[0] !== 0x1f || first[1] !== 0x8b) { input.pipe(parser); return; }   // a plain tar
      // Z_SYNC_FLUSH at the end: a cut-off gzip still yields everything before the cut instead of an
      // error. Whether it was cut is told by the gzip trailer: its last 4 bytes hold the uncompressed size.
      // (node:zlib streams also run the inflating on the thread pool, beside this thread's parsing.)
      const gunzip = zlib.createGunzip({ chunkSize: 1 << 16, finishFlush: zlib.constants.Z_SYNC_FLUSH });
      const expectedSize = gzipTrailerSize(file);
      let size = 0;
      gunzip.on('data', (chunk) => { size += chunk.length; parser.write(chunk); });
      gunzip.on('end', () => {
        if (expectedSize !== null && (size % 2 ** 32) !== expectedSize) inputProblem = 'gzip stream cut off (shorter than its trailer says)';
        parser.end();
      });
      gunzip.on('error', (err) => {
        inputProblem = `zlib: ${err.message}`;
        parser.end();
      });
      input.pipe(gunzip);
    });
  });
}

module.exports = { readArchive, kindOf, recordType, KINDS };
