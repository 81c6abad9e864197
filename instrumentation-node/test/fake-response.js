'use strict';
// A stand-in for http.ServerResponse that records what the server wrote, so pool and emitter logic can be
// tested without sockets. It fails loudly if anything is written after end(), which is the bug class
// ("a poll that timed out is written again") these tests guard against.

class FakeResponse {
  constructor() {
    this.status = null;
    this.headers = null;
    this.chunks = [];
    this.ended = false;
    this.writesAfterEnd = 0;
    this.writableLength = 0; // bytes waiting to be sent: a test sets it to stand for a client that does not read
    this.destroyed = false;
  }

  destroy() { this.destroyed = true; }

  writeHead(status, headers) {
    if (this.ended || this.status !== null) this.writesAfterEnd++;
    this.status = status;
    this.headers = headers;
  }

  flushHeaders() {}

  write(chunk) {
    if (this.ended) this.writesAfterEnd++;
    this.chunks.push(String(chunk));
    return true;
  }

  end(chunk) {
    if (this.ended) this.writesAfterEnd++;
    if (chunk !== undefined) this.chunks.push(String(chunk));
    this.ended = true;
  }

  on() { return this; }

  // Every record written, parsed (comet: one per line; poll: the single body).
  records() {
    return this.chunks.join('').split('\n').filter((line) => line !== '').map((line) => JSON.parse(line));
  }
}

module.exports = { FakeResponse };
