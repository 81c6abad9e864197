'use strict';
// Reads one response archive (responses/<engine>.tar.gz; docs/run-layout.md) as a stream: gunzip, then
// tar-stream's parser, and hands the bodies of saved responses to a sink as they come: sink.open(name, kind),
// sink.data(chunk) (each piece of its body), sink.close(cut). No extraction to disk, no whole-archive
// buffering: the sink handles each piece before the next is read. Study 3.4.1 (the runs' response archives).
// A stream log entry (push-<n>.tsv.gz, response-kinds.js) is gunzipped here as well, so the sink gets its
// lines; a damaged or cut one is passed on up to the damage and closed as cut, counted in damagedStreamLogs
// with what was wrong. read() resolves to what this side counts: entries, skipped and cut entries, and
// whether the archive was truncated or unreadable (never rejects).
// It runs on whatever thread calls it: the analysis runs it in a worker per archive (stage/archive-worker.js).
const fs = require('node:fs');
const zlib = require('node:zlib');
const tarStream = require('tar-stream');
const { kindOf } = require('./response-kinds');

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

class ArchiveReader {
  // sink: { open, data, close } (above); spent(bytes): told of every chunk of the tar's bytes handed to the
  // parser (stage/archive-worker.js collects garbage by them and reports them as its progress)
  constructor(file, sink, { spent = () => {} } = {}) {
    this.file = file;
    this.sink = sink;
    this.spent = spent;
    this.stats = { entries: 0, skippedEntries: 0, truncatedEntries: 0, truncated: false, unreadable: false, problem: null,
      damagedStreamLogs: 0, streamLogProblems: [] };
    this.source = null;        // the stream feeding the parser: paused while the parser's buffer is full
    this.current = false;      // an entry is open: a half-read one when the archive breaks off
    this.done = false;
    this.inputProblem = null;  // gunzip failed or the gzip stream was cut: the parser got what came before
    this.resolve = null;
    this.cutStreamLog = null;  // the stream log being read: ends its gunzip, then calls back (finish)
    // The listeners are the same functions for every entry (none made per entry: there are hundreds of
    // thousands of them).
    this.nextEntry = null;
    this.goOn = () => { const n = this.nextEntry; this.nextEntry = null; n(); };
    this.onBody = (chunk) => this.sink.data(chunk);
    this.onEnd = () => {
      this.current = false;
      this.sink.close(false);
      this.goOn();
    };
    this.parser = this.createParser();
  }

  // Reads the archive; resolves to the stats above.
  read() {
    return new Promise((resolve) => {
      this.resolve = resolve;
      this.start();
    });
  }

  feed(chunk) {
    this.spent(chunk.length);
    if (this.parser.write(chunk)) return;
    this.source.pause();
  }

  finish(problem, { unreadable = false } = {}) {
    if (this.done) return;
    this.done = true;
    const report = () => {
      if (problem) {
        this.stats.problem = problem;
        if (unreadable || this.stats.entries === 0) this.stats.unreadable = true;
        else this.stats.truncated = true;
      }
      this.resolve(this.stats);
    };
    // The parser may still hand out the part of an entry it had before the break: let it, then report.
    setImmediate(() => {
      if (!this.current) { report(); return; }
      // The archive ended inside this entry and the parser never closed it: it is closed as cut, a stream
      // log once its own gunzip has given out all it was handed.
      const cut = () => {
        this.stats.truncatedEntries++;
        this.current = false;
        this.sink.close(true);
        report();
      };
      if (this.cutStreamLog) this.cutStreamLog(cut); else cut();
    });
  }

  // The parser (tar-stream's extract) hands out one entry at a time, and the next only after next().
  // A header that is no tar header, or an archive ending inside an entry, ends the parsing: what came
  // before stays counted, an entry cut by the end is closed as cut (finish).
  createParser() {
    const parser = tarStream.extract();
    parser.on('entry', (header, entry, next) => this.entry(header, entry, next));
    parser.on('drain', () => { if (this.source?.isPaused()) this.source.resume(); });
    parser.on('error', (err) => this.finish(this.inputProblem ?? err.message));
    parser.on('finish', () => this.finish(this.inputProblem ?? (this.current ? 'archive ends inside an entry' : null)));
    return parser;
  }

  entry(header, entry, next) {
    this.nextEntry = next;
    entry.on('error', ignore);
    const isFile = header.type === 'file' || header.type === 'contiguous-file';
    const kind = isFile ? kindOf(header.name) : null;
    if (isFile) this.stats.entries++;
    if (isFile && !kind) this.stats.skippedEntries++;
    if (!kind) {          // a directory, a link, or a file that is no saved response
      entry.on('end', this.goOn);
      entry.resume();
      return;
    }
    this.sink.open(header.name, kind);
    this.current = true;
    if (kind === 'stream') { this.streamLog(header.name, entry); return; }
    entry.on('data', this.onBody);
    entry.on('end', this.onEnd);
  }

  // A stream log inside the tar: gunzip it on its own. Its gzip trailer (last 4 bytes: size mod 2^32)
  // tells a log cut short (an engine killed mid-run leaves no trailer) from a whole one.
  streamLog(name, entry) {
    const inner = zlib.createGunzip({ chunkSize: 1 << 18, finishFlush: zlib.constants.Z_SYNC_FLUSH });
    let tail = Buffer.alloc(0);
    let size = 0;
    let entryEnded = false;
    let innerDone = false;
    let damage = null;
    let onCut = null;   // the archive ended inside this log: what to do once its gunzip is done
    let settled = false;
    const settle = () => {
      if (!entryEnded || !innerDone || settled) return;
      settled = true;
      this.cutStreamLog = null;
      if (onCut) { onCut(); return; }
      if (damage === null && tail.length === 4 && (size % 2 ** 32) !== tail.readUInt32LE(0)) damage = 'cut short (no gzip trailer)';
      if (damage !== null) {
        this.stats.damagedStreamLogs++;
        if (this.stats.streamLogProblems.length < 10) this.stats.streamLogProblems.push(`${name}: ${damage}`);
      }
      this.current = false;
      this.sink.close(damage !== null);
      this.goOn();
    };
    this.cutStreamLog = (then) => {
      onCut = then;
      if (entryEnded) { settle(); return; }
      entryEnded = true;
      if (innerDone) settle(); else inner.end();
    };
    inner.on('data', (chunk) => { size += chunk.length; this.sink.data(chunk); });
    inner.on('end', () => { innerDone = true; settle(); });
    inner.on('error', (err) => {
      damage = `zlib: ${err.message}`;
      innerDone = true;
      entry.resume();   // the rest of the entry is skipped
      settle();
    });
    inner.on('drain', () => entry.resume());
    entry.on('data', (chunk) => {
      if (onCut) return;   // (the parser's last piece, after the cut)
      tail = Buffer.concat([tail, chunk.subarray(Math.max(0, chunk.length - 4))]).subarray(-4);
      if (!innerDone && !inner.write(chunk)) entry.pause();
    });
    entry.on('end', () => {
      if (onCut) return;
      entryEnded = true;
      if (innerDone) settle(); else inner.end();
    });
  }

  // Opens the archive: a plain tar goes to the parser as it is, a gzipped one through gunzip. Large reads:
  // fewer, bigger chunks through gunzip and the parser.
  start() {
    const input = fs.createReadStream(this.file, { highWaterMark: 1 << 20 });
    input.on('error', (err) => this.finish(err.message, { unreadable: true }));
    input.once('readable', () => {
      const first = input.read(2);
      if (!first) { this.finish('empty file: no archive', { unreadable: true }); return; }
      input.unshift(first);
      if (first[0] !== 0x1f || first[1] !== 0x8b) this.readPlain(input); else this.readGzip(input);
    });
  }

  readPlain(input) {
    this.source = input;
    input.on('data', (chunk) => this.feed(chunk));
    input.on('end', () => this.parser.end());
  }

  // node:zlib's gunzip inflates on the thread pool, beside this thread's parsing. Z_SYNC_FLUSH at the
  // end: a cut-off gzip still yields everything before the cut instead of an error. Whether it was cut
  // is told by the gzip trailer: its last 4 bytes hold the uncompressed size.
  readGzip(input) {
    const gunzip = zlib.createGunzip({ chunkSize: 1 << 18, finishFlush: zlib.constants.Z_SYNC_FLUSH });
    const expectedSize = gzipTrailerSize(this.file);
    let size = 0;
    this.source = gunzip;
    gunzip.on('data', (chunk) => { size += chunk.length; this.feed(chunk); });
    gunzip.on('end', () => {
      if (expectedSize !== null && (size % 2 ** 32) !== expectedSize) this.inputProblem = 'gzip stream cut off (shorter than its trailer says)';
      this.parser.end();
    });
    gunzip.on('error', (err) => {
      this.inputProblem = `zlib: ${err.message}`;
      this.parser.end();
    });
    input.pipe(gunzip);
  }
}

const ignore = () => {};

module.exports = { ArchiveReader };
