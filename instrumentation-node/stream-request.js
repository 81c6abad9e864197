'use strict';
// One held Server-Sent Events or WebSocket stream (issue #38 item 1; docs/protocol.md "Server-Sent Events",
// "WebSocket", "Replay and gaps", "Clients that do not read"): the records of a comet stream, each framed
// by the stream's channel (sse.js, websocket.js) instead of as an NDJSON line. Every way a stream ends
// (clear, shutdown, client gone, cut for not reading) marks it done first: a stream that is done is never
// written to again.
//
// Resuming: a stream that comes with a cursor (SSE: Last-Event-ID; WebSocket: the subscription's `cursor`)
// gets, per subscribed name the cursor names, a gap record for the cycles after it no longer kept and a
// replay record for each kept one, then the emit cycles; all in one turn of the event loop, so no cycle
// falls between the replay and the first live record.
//
// A client that does not read: when what waits to be sent to it passes backlogBytes after a write, the
// stream is cut (no last record: it would not be read) and counted (onDropped). Writes never wait, so the
// emit cycle goes on for every other stream, and a stream's unsent records hold at most about that much.

const { eventLine, requestMiddle, replayRecord, gapRecord, clearRecord } = require('./records');

const DEFAULT_REPLAY_CYCLES = 100;          // N of the replay bound: env PB_REPLAY_CYCLES (0-1024)
const DEFAULT_BACKLOG_BYTES = 1024 * 1024;  // env PB_STREAM_BACKLOG_BYTES

class StreamRequest {
  // echo: the validated subscription ({ type: "sse"|"ws", events, cursor? }); channel: how records reach the
  // client ({ ids, open(), send(text, id), end(text, id, reason), backlog(), cut() }); backlogBytes: the
  // bound on unsent bytes; onDropped(): counts a stream cut for not reading.
  constructor({ echo, channel, pool, log, created = Date.now(), backlogBytes = DEFAULT_BACKLOG_BYTES, onDropped = () => {} }) {
    this.echo = echo;
    this.type = echo.type;
    this.events = Array.from(new Set(echo.events)); // a name listed twice is one subscription
    this.middle = requestMiddle(echo);              // the records splice in the pre-serialised echo
    this.channel = channel;
    this.pool = pool;
    this.log = log;
    this.created = created;
    this.backlogBytes = backlogBytes;
    this.onDropped = onDropped;
    this.cursor = new Map(); // name -> the last cycle this stream got (or started after), subscription order
    this.start = 0;
    this.done = false;
  }

  // Joins the pool, opens the channel and sends what a resumed stream missed. history: pull.js's
  // PullHistory; replayCycles: N, the cycles per name a resumed stream may get again.
  open(history, replayCycles) {
    this.start = this.pool.add(this);
    this.channel.open();
    const given = this.echo.cursor || null;
    const resumes = (name) => given !== null && Object.prototype.hasOwnProperty.call(given, name);
    // A name the cursor does not give starts now: after the latest cycle started, as a pull's window does.
    for (const name of this.events) this.cursor.set(name, resumes(name) ? given[name] : history.latest(name));
    for (const name of this.events) {
      if (!resumes(name)) continue;
      const { cycles, gap } = history.replay(name, given[name], replayCycles);
      if (gap) this.sendMissed(name, gap.to, (sent) => gapRecord(this, name, gap.from, gap.to, sent, this.pool.size));
      for (const kept of cycles) this.sendMissed(name, kept.id, (sent) => replayRecord(this, name, kept, sent, this.pool.size));
    }
    this.log.debug(`request received ${this.type} events=${this.events.join(',')} open=${this.start}` +
      (given ? ` resumed at ${this.idText()}` : ''));
  }

  sendMissed(name, id, build) {
    if (this.done) return;
    this.cursor.set(name, id);
    this.channel.send(JSON.stringify(build(Date.now())), this.idText());
    this.checkBacklog();
  }

  // Called by an emit cycle (cycle.head = records.cycleHead(cycle)). Returns true if a record was written.
  deliver(cycle, place, total) {
    if (this.done) return false;
    const sent = Date.now();
    this.cursor.set(cycle.name, cycle.id);
    const text = eventLine(cycle.head, this.middle, this, cycle, place, total, sent, this.pool.size, '');
    this.channel.send(text, this.channel.ids ? this.idText() : '');
    // Guarded so the message string is not built per record when logging is off (the usual case).
    if (this.log.enabled) this.log.debug(`record sent ${this.type} ${cycle.name}#${cycle.id} place=${place}/${total}`);
    this.checkBacklog();
    return true;
  }

  // Clear or shutdown: the last record, then the stream ends. Returns true if it was open.
  clear(reason) {
    if (this.done) return false;
    const text = JSON.stringify(clearRecord(this, reason, Date.now(), this.pool.size));
    this.markDone();
    this.channel.end(text, this.idText(), reason);
    return true;
  }

  // The client went away: drop it silently, write nothing.
  vanish() {
    if (this.done) return;
    this.markDone();
    this.log.debug(`client gone (${this.type})`);
  }

  // The stream's cursor as its SSE id: "name:cycle" per subscribed name, joined by ",".
  idText() {
    let text = '';
    for (const [name, id] of this.cursor) text += (text === '' ? '' : ',') + name + ':' + id;
    return text;
  }

  checkBacklog() {
    const waiting = this.channel.backlog();
    if (this.done || !(waiting > this.backlogBytes)) return;
    this.markDone();
    this.channel.cut();
    this.onDropped();
    this.log.debug(`${this.type} stream cut: ${waiting} bytes unsent (PB_STREAM_BACKLOG_BYTES ${this.backlogBytes})`);
  }

  markDone() {
    this.done = true;
    this.pool.remove(this);
  }
}

// A whole-number setting from the environment within [min, max]; anything else is the fallback.
function wholeSetting(raw, min, max, fallback) {
  const text = String(raw ?? '').trim();
  if (!/^\d{1,15}$/.test(text)) return fallback;
  const value = Number(text);
  return value >= min && value <= max ? value : fallback;
}

module.exports = { StreamRequest, DEFAULT_REPLAY_CYCLES, DEFAULT_BACKLOG_BYTES, wholeSetting };
