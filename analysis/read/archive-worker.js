'use strict';
// Worker thread of responses.js: reads one response archive (gunzip, then tar-stream's parser) and
// passes the bodies of saved responses to the main thread in batches (archive-batches.js), where they are
// parsed as JSON. Tar parsing costs more than the JSON, so the two halves run side by side on two cores.
// No extraction to disk and no whole-archive buffering: at most MAX_IN_FLIGHT batches wait for the main
// thread; beyond that the reading pauses until one is acknowledged.
// The last message is { done: stats } with what this side counts (entries, skipped and cut entries, and
// whether the archive was truncated or unreadable). A stream log entry (push-<n>.tsv.gz, response-kinds.js)
// is gunzipped here as well, so the main thread gets its lines; a damaged or cut one is passed on up to
// the damage and closed as cut, counted in damagedStreamLogs with what was wrong.
const fs = require('node:fs');
const zlib = require('node:zlib');
const v8 = require('node:v8');
const vm = require('node:vm');
const { parentPort, workerData } = require('node:worker_threads');
const tarStream = require('tar-stream');
const { kindOf } = require('./response-kinds');
const { BatchWriter } = require('./archive-batches');

const MAX_IN_FLIGHT = 6;

// Each chunk a gunzip hands out is copied into a batch at once and is garbage after: hundreds of MB over a
// large run, held outside the V8 heap, where V8 does not see it fill anything: by itself it collects those
// chunks only when some 64 MB of them have piled up. So this thread collects by the inflated bytes: a
// young-generation collection every MINOR_GC_BYTES (it frees the chunks of the last few MB), a full one
// every FULL_GC_BYTES (it frees those that were still in use at a young collection and outlived it). The pile
// then stays small whatever the archive's size, at no CPU cost that bench/analyzer.js can see (docs/trip-time.md,
// "Analyzer speed and memory"). gc() is V8's own, exposed by the flag to the contexts made after it (the
// flag is per process; the main thread's context, made before, does not get it).
const MINOR_GC_BYTES = 4e6;
const FULL_GC_BYTES = 32e6;
// A Node.js without it (the flag is V8's, not a documented API) collects as V8 decides: slower to give back,
// never wrong.
v8.setFlagsFromString('--expose-gc');
const collectGarbage = (() => { try { return vm.runInNewContext('gc'); } catch { return () => {}; } })();
const inflated = { sinceMinor: 0, sinceFull: 0 };
function spent(bytes) {
  inflated.sinceMinor += bytes;
  if (inflated.sinceMinor < MINOR_GC_BYTES) return;
  inflated.sinceFull += inflated.sinceMinor;
  inflated.sinceMinor = 0;
  if (inflated.sinceFull < FULL_GC_BYTES) { collectGarbage({ type: 'minor' }); return; }
  inflated.sinceFull = 0;
  collectGarbage();
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

// Reads the archive and sends its saved responses' bodies to the main thread; the last message is
// { done: stats }.
class ArchiveSender {
  constructor(file) {
    this.file = file;
    this.stats = { entries: 0, skippedEntries: 0, truncatedEntries: 0, truncated: false, unreadable: false, problem: null,
      damagedStreamLogs: 0, streamLogProblems: [] };
    this.source = null;        // the stream feeding the parser: paused while the main thread is behind
    this.inner = null;         // the gunzip of the stream log being read: paused (instead) while the main thread is behind
    this.inFlight = 0;
    this.parserFull = false;   // the parser's write buffer is full: wait for its drain
    this.current = false;      // an entry is open: a half-read one when the archive breaks off
    this.done = false;
    this.inputProblem = null;  // gunzip failed or the gzip stream was cut: the parser got what came before
    this.batches = new BatchWriter((batch, transfer) => {
      parentPort.postMessage({ batch }, transfer);
      // A stream log's own gunzip makes its batches: pausing the tar's source would not stop it.
      if (++this.inFlight >= MAX_IN_FLIGHT) (this.inner ?? this.source)?.pause();
    });
    parentPort.on('message', (back) => {   // the main thread has replayed one batch: its buffers come back
      this.batches.recycle(back);
      this.inFlight--;
      this.resume();
    });
    // The listeners are the same functions for every entry (none made per entry: there are hundreds of
    // thousands of them).
    this.nextEntry = null;
    this.goOn = () => { const n = this.nextEntry; this.nextEntry = null; n(); };
    this.onBody = (chunk) => this.batches.write(chunk);
    this.onEnd = () => {
      this.current = false;
      this.batches.close(false);
      this.goOn();
    };
    this.parser = this.createParser();
  }

  resume() {
    if (this.inFlight >= MAX_IN_FLIGHT) return;
    if (this.inner?.isPaused()) this.inner.resume();
    if (!this.parserFull && this.source?.isPaused()) this.source.resume();
  }

  feed(chunk) {
    if (this.parser.write(chunk)) return;
    this.parserFull = true;
    this.source.pause();
  }

  finish(problem, { unreadable = false } = {}) {
    if (this.done) return;
    this.done = true;
    // The parser may still hand out the part of an entry it had before the break: let it, then report.
    setImmediate(() => {
      if (this.current) {      // the archive ended inside this entry and the parser never closed it
        this.stats.truncatedEntries++;
        this.batches.close(true);
        this.current = false;
      }
      if (problem) {
        this.stats.problem = problem;
        if (unreadable || this.stats.entries === 0) this.stats.unreadable = true;
        else this.stats.truncated = true;
      }
      this.batches.flush();
      parentPort.postMessage({ done: this.stats });
    });
  }

  // The parser (tar-stream's extract) hands out one entry at a time, and the next only after next().
  // A header that is no tar header, or an archive ending inside an entry, ends the parsing: what came
  // before stays counted, an entry cut by the end is closed as cut (finish).
  createParser() {
    const parser = tarStream.extract();
    parser.on('entry', (header, entry, next) => this.entry(header, entry, next));
    parser.on('drain', () => { this.parserFull = false; this.resume(); });
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
    this.batches.open(header.name, kind);
    this.current = true;
    if (kind === 'stream') { this.streamLog(header.name, entry); return; }
    entry.on('data', this.onBody);
    entry.on('end', this.onEnd);
  }

  // A stream log inside the tar: gunzip it on its own. Its gzip trailer (last 4 bytes: size mod 2^32)
  // tells a log cut short (an engine killed mid-run leaves no trailer) from a whole one.
  streamLog(name, entry) {
    const inner = zlib.createGunzip({ chunkSize: 1 << 18, finishFlush: zlib.constants.Z_SYNC_FLUSH });
    this.inner = inner;
    let tail = Buffer.alloc(0);
    let size = 0;
    let entryEnded = false;
    let innerDone = false;
    let damage = null;
    const settle = () => {
      if (!entryEnded || !innerDone) return;
      if (damage === null && tail.length === 4 && (size % 2 ** 32) !== tail.readUInt32LE(0)) damage = 'cut short (no gzip trailer)';
      if (damage !== null) {
        this.stats.damagedStreamLogs++;
        if (this.stats.streamLogProblems.length < 10) this.stats.streamLogProblems.push(`${name}: ${damage}`);
      }
      this.current = false;
      this.inner = null;
      this.batches.close(damage !== null);
      this.goOn();
    };
    inner.on('data', (chunk) => { size += chunk.length; this.batches.write(chunk); spent(chunk.length); });
    inner.on('end', () => { innerDone = true; settle(); });
    inner.on('error', (err) => {
      damage = `zlib: ${err.message}`;
      innerDone = true;
      entry.resume();   // the rest of the entry is skipped
      settle();
    });
    inner.on('drain', () => entry.resume());
    entry.on('data', (chunk) => {
      tail = Buffer.concat([tail, chunk.subarray(Math.max(0, chunk.length - 4))]).subarray(-4);
      if (!innerDone && !inner.write(chunk)) entry.pause();
    });
    entry.on('end', () => {
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
    gunzip.on('data', (chunk) => { size += chunk.length; this.feed(chunk); spent(chunk.length); });
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

new ArchiveSender(workerData.file).start();
