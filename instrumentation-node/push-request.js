'use strict';
// One held request (comet or poll) and the only code that writes records to its response.
// Every way a request ends (event to a poll, its timeout, clear, shutdown, client gone) goes through
// finish(), which marks it done first: a request that is done is never written to again.

const { eventRecord, timeoutRecord, clearRecord } = require('./records');

class PushRequest {
  // echo: the validated body ({type, events, duration?}); res: the HTTP response (writeHead/write/end).
  constructor({ echo, res, pool, log, created = Date.now() }) {
    this.echo = echo;
    this.type = echo.type;
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

  // Called by an emit cycle. Returns true if a record was written.
  deliver(cycle, place, total) {
    if (this.done) return false; // timed out, cleared or gone since the snapshot was taken
    const sent = Date.now();
    const record = eventRecord(this, cycle, place, total, sent, this.pool.size);
    if (this.type === 'comet') {
      this.res.write(JSON.stringify(record) + '\n');
      this.log.debug(`record sent comet ${cycle.name}#${cycle.id} place=${place}/${total}`);
    } else {
      this.finish(record);
      this.log.debug(`record sent poll ${cycle.name}#${cycle.id} place=${place}/${total}`);
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

module.exports = { PushRequest };
