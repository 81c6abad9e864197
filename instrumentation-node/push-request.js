'use strict';
// One held request (comet or poll) and the only code that writes records to its response.
// Every way a request ends (event to a poll, its timeout, clear, shutdown, client gone) goes through
// finish(), which marks it done first: a request that is done is never written to again.

const { eventRecord, eventLine, requestMiddle, timeoutRecord, clearRecord } = require('./records');

// A comet record is one HTTP chunk. res.write() frames it as four socket writes (size, CRLF, line, CRLF)
// gathered and sent on process.nextTick; over 15k connections per cycle that framing costs about as much CPU
// as the send itself (bench/emit-loop.js). When the response owns its socket, its headers are out and it
// frames chunks, the same bytes go out as one socket write. Otherwise res.write() frames it: a response still
// queued behind a pipelined one (no socket yet), an HTTP/1.0 client (no chunked framing), a closing socket.
function writeChunk(res, line) {
  const socket = res.socket;
  if (socket && socket.writable && res.headersSent && res.chunkedEncoding === true && !res.writableEnded) {
    socket.write(`${Buffer.byteLength(line).toString(16)}\r\n${line}\r\n`);
  } else {
    res.write(line);
  }
}

class PushRequest {
  // echo: the validated body ({type, events, duration?}); res: the HTTP response (writeHead/write/end).
  constructor({ echo, res, pool, log, created = Date.now() }) {
    this.echo = echo;
    this.type = echo.type;
    // The echo never changes, so a comet stream's records splice in this pre-serialised piece.
    this.middle = this.type === 'comet' ? requestMiddle(echo) : null;
    this.events = Array.from(new Set(echo.events)); // a name listed twice is one subscription
    this.res = res;
    this.pool = pool;
    this.log = log;
    this.created = created;
    this.start = 0;
    this.done = false;
    this.timer = null;
  }

  // Registers the request and starts its answer: comet headers go out at once; a poll arms its timeout.
  open() {
    this.start = this.pool.add(this);
    if (this.type === 'comet') {
      this.res.writeHead(200, { 'Content-Type': 'application/x-ndjson', 'Cache-Control': 'no-cache' });
      if (typeof this.res.flushHeaders === 'function') this.res.flushHeaders();
    } else {
      this.timer = setTimeout(() => this.timeout(), this.echo.duration);
    }
    this.log.debug(`request received ${this.type} events=${this.events.join(',')} open=${this.start}`);
  }

  // Called by an emit cycle (cycle.head = records.cycleHead(cycle)). Returns true if a record was written.
  deliver(cycle, place, total) {
    if (this.done) return false; // timed out, cleared or gone since the snapshot was taken
    const sent = Date.now();
    if (this.type === 'comet') {
      writeChunk(this.res, eventLine(cycle.head, this.middle, this, cycle, place, total, sent, this.pool.size));
      // Guarded so the message string is not built per record when logging is off (the usual case).
      if (this.log.enabled) this.log.debug(`record sent comet ${cycle.name}#${cycle.id} place=${place}/${total}`);
    } else {
      this.finish(eventRecord(this, cycle, place, total, sent, this.pool.size));
      if (this.log.enabled) this.log.debug(`record sent poll ${cycle.name}#${cycle.id} place=${place}/${total}`);
    }
    return true;
  }

  timeout() {
    if (this.done) return;
    this.finish(timeoutRecord(this, Date.now(), this.pool.size));
    this.log.debug(`poll timed out after ${this.echo.duration} ms`);
  }

  // Clear or shutdown: the final record; the stream (or poll) ends. Returns true if it was open.
  clear(reason) {
    if (this.done) return false;
    this.finish(clearRecord(this, reason, Date.now(), this.pool.size));
    return true;
  }

  // The client went away before we finished: drop it silently, write nothing.
  vanish() {
    if (this.done) return;
    this.markDone();
    this.log.debug(`client gone (${this.type})`);
  }

  finish(record) {
    this.markDone();
    const line = JSON.stringify(record);
    if (this.type === 'comet') {
      this.res.end(line + '\n');
    } else {
      this.res.writeHead(200, {
        'Content-Type': 'application/json',
        'Content-Length': Buffer.byteLength(line),
      });
      this.res.end(line);
    }
  }

  markDone() {
    this.done = true;
    if (this.timer) clearTimeout(this.timer);
    this.timer = null;
    this.pool.remove(this);
  }
}

module.exports = { PushRequest, writeChunk };
