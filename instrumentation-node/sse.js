'use strict';
// The Server-Sent Events transport of issue #38 item 1 (docs/protocol.md "Server-Sent Events"), on Node's
// own http: GET /request?type=sse&events=<names> answers 200 text/event-stream at once and then one event per
// record, `id: <the stream's cursor>` and `data: <the record, exactly a comet line without its "\n">`. A
// Last-Event-ID header resumes the stream after that cursor (stream-request.js). HEAD gets the head alone.

const { StreamRequest } = require('./stream-request');
const { writeChunk } = require('./push-request');
const { errorBody } = require('./records');
const validate = require('./validate');

const HEADERS = { 'Content-Type': 'text/event-stream', 'Cache-Control': 'no-cache' };

// One record as one event. text: the record's JSON, one line; id: the stream's cursor after it.
const sseEvent = (text, id) => `id: ${id}\ndata: ${text}\n\n`;

// How a StreamRequest reaches an SSE client: the response's chunks (one socket write per event when the
// response owns its socket, as for comet: push-request.js writeChunk).
function sseChannel(res) {
  return {
    ids: true,
    open() {
      res.writeHead(200, HEADERS);
      if (typeof res.flushHeaders === 'function') res.flushHeaders();
    },
    send(text, id) { writeChunk(res, sseEvent(text, id)); },
    end(text, id) { res.end(sseEvent(text, id)); },
    backlog() { return (res.writableLength || 0) + (res.socket ? res.socket.writableLength : 0); },
    cut() { res.destroy(); },
  };
}

// The GET /request handler (router.js). streams: { pool, history, log, replayCycles, backlogBytes, onDropped }.
function createSseHandler({ pool, history, log, replayCycles, backlogBytes, onDropped }) {
  return function sse({ req, res, url }) {
    const created = Date.now();
    // An Upgrade without Connection: Upgrade reaches here, not websocket.js (RFC 7230 section 6.7).
    if (req.headers.upgrade !== undefined) {
      return { status: 400, body: errorBody(400, 'an upgrade needs the header Connection: Upgrade') };
    }
    const checked = validate.sseQuery(url.searchParams);
    const resumed = checked.problem ? checked : validate.lastEventId(req.headers['last-event-id']);
    if (resumed.problem) return { status: 400, body: errorBody(400, resumed.problem) };
    if (req.method === 'HEAD') {
      res.writeHead(200, HEADERS);
      res.end();
      return null;
    }
    if (req.socket.destroyed) return null; // the client already left: it must not join the pool
    const echo = resumed.value ? { ...checked.value, cursor: resumed.value } : checked.value;
    const stream = new StreamRequest({ echo, channel: sseChannel(res), pool, log, created, backlogBytes, onDropped });
    // 'close' fires when the response is done or the connection is gone; only the latter finds it open.
    res.on('close', () => stream.vanish());
    stream.open(history, replayCycles);
    return null;
  };
}

module.exports = { createSseHandler, sseChannel, sseEvent };
