'use strict';
// The WebSocket transport of issue #38 item 1 (docs/protocol.md "WebSocket"), on the `ws` package. An upgrade
// is checked here before `ws` sees it, so a malformed one gets the protocol's JSON error answer (400, 404, or
// 426 with Sec-WebSocket-Version: 13) and its connection closed. An accepted one waits for its subscription,
// the first message, within the body deadline; it is then a StreamRequest whose records go one per text frame.
//
// Close codes as RFC 6455 (section 7.4.1) means them: 1000 the stream completed by clear, 1001 the server
// shutting down, 1003 a binary message, 1008 a subscription refused, late, or a message after it (each after
// a text frame with the error body, as an HTTP refusal's); `ws` itself closes 1009 on a message over the
// 16 KiB request limit, 1007 on text that is not UTF-8 and 1002 on a broken frame. Pings are answered (ws).

const { WebSocketServer } = require('ws');
const { StreamRequest } = require('./stream-request');
const { MAX_BODY_BYTES, parseJson } = require('./body');
const { errorBody } = require('./records');
const { pathProblem } = require('./router');
const validate = require('./validate');

const CLOSE = { normal: 1000, goingAway: 1001, unsupported: 1003, policy: 1008 };
const CLOSE_WAIT_MS = 5000;   // a refused upgrade's socket, or a close handshake, ends after this at most
const KEY = /^[A-Za-z0-9+/]{21}[AQgw]==$/;   // Sec-WebSocket-Key: 16 bytes in base64 (RFC 6455 section 4.1)
const REASONS = { 400: 'Bad Request', 404: 'Not Found', 426: 'Upgrade Required' };

// Why an upgrade request is refused, { status, message, headers? }, or null to take it. paths: the server's
// known paths (one other than /request is 400; an unknown one 404, as for any request).
function upgradeProblem(req, paths) {
  const path = req.url.split('?')[0];
  const problem = pathProblem(path);
  if (problem) return { status: 400, message: problem };
  if (path !== '/request') {
    return paths.includes(path) ? { status: 400, message: 'a WebSocket is opened at /request only' }
      : { status: 404, message: 'unknown path' };
  }
  if (String(req.headers.upgrade).toLowerCase() !== 'websocket') {
    return { status: 400, message: 'unknown transport: /request is upgraded to websocket only' };
  }
  if (req.method !== 'GET') return { status: 400, message: 'a WebSocket upgrade is a GET request' };
  if (req.headers['sec-websocket-version'] !== '13') {
    return { status: 426, message: 'Sec-WebSocket-Version must be 13 (RFC 6455)', headers: { 'Sec-WebSocket-Version': '13' } };
  }
  if (!KEY.test(req.headers['sec-websocket-key'] || '')) {
    return { status: 400, message: 'Sec-WebSocket-Key must be 16 bytes in base64' };
  }
  return null;
}

function refuseUpgrade(socket, { status, message, headers = {} }) {
  const body = JSON.stringify(errorBody(status, message));
  const extra = Object.entries(headers).map(([name, value]) => `${name}: ${value}\r\n`).join('');
  socket.end(`HTTP/1.1 ${status} ${REASONS[status]}\r\nContent-Type: application/json\r\n` +
    `Content-Length: ${Buffer.byteLength(body)}\r\n${extra}Connection: close\r\n\r\n${body}`);
  socket.setTimeout(CLOSE_WAIT_MS, () => socket.destroy());
}

// An error frame (the error body), then the close: how every refusal after the handshake ends.
function refuse(ws, status, message, code, reason) {
  ws.send(JSON.stringify(errorBody(status, message)));
  ws.close(code, reason);
}

// How a StreamRequest reaches a WebSocket client: one text frame per record.
function wsChannel(ws) {
  return {
    ids: false,
    open() {},
    send(text) { ws.send(text); },
    end(text, id, reason) {
      ws.send(text);
      ws.close(reason === 'shutdown' ? CLOSE.goingAway : CLOSE.normal, reason);
    },
    backlog() { return ws.bufferedAmount; },
    cut() { ws.terminate(); },
  };
}

// streams: { pool, history, log, paths, replayCycles, backlogBytes, bodyDeadlineMs, onLate, onDropped }.
// Returns { upgrade(req, socket, head) } for the http server's 'upgrade' event.
function createWebSocketTransport(streams) {
  const { log, paths, bodyDeadlineMs, onLate } = streams;
  const server = new WebSocketServer({
    noServer: true, maxPayload: MAX_BODY_BYTES, perMessageDeflate: false, clientTracking: false,
    handleProtocols: () => false, closeTimeout: CLOSE_WAIT_MS,
  });

  // The subscription is the first message; it must come whole within the body deadline.
  function awaitSubscription(ws) {
    ws.on('error', (err) => log.debug(`websocket: ${err.message}`)); // ws closes with the code that fits
    const late = Number.isFinite(bodyDeadlineMs) ? setTimeout(() => {
      onLate();
      refuse(ws, 408, `subscription not received within ${bodyDeadlineMs} ms (PB_BODY_DEADLINE_MS)`, CLOSE.policy,
        'subscription late');
    }, bodyDeadlineMs) : null;
    ws.once('close', () => clearTimeout(late));
    ws.once('message', (data, isBinary) => {
      clearTimeout(late);
      subscribe(ws, data, isBinary, Date.now(), streams);
    });
  }

  function upgrade(req, socket, head) {
    socket.on('error', (err) => log.debug(`upgrade socket: ${err.message}`));
    const problem = upgradeProblem(req, paths);
    if (problem) {
      refuseUpgrade(socket, problem);
      return;
    }
    server.handleUpgrade(req, socket, head, awaitSubscription);
  }

  return { upgrade };
}

// The subscription message: a StreamRequest, or a refusal.
function subscribe(ws, data, isBinary, created, { pool, history, log, replayCycles, backlogBytes, onDropped }) {
  if (isBinary) {
    refuse(ws, 400, 'the subscription is a text message of JSON', CLOSE.unsupported, 'binary message');
    return;
  }
  const parsed = parseJson(data.toString('utf8'));
  const checked = parsed.problem ? { problem: 'the subscription is not valid JSON' } : validate.wsSubscription(parsed.value);
  if (checked.problem) {
    refuse(ws, 400, checked.problem, CLOSE.policy, 'subscription refused');
    return;
  }
  const stream = new StreamRequest({ echo: checked.value, channel: wsChannel(ws), pool, log, created, backlogBytes, onDropped });
  ws.on('message', () => {
    if (stream.done) return;
    stream.markDone();
    refuse(ws, 400, 'one subscription per connection: after it a client sends only ping, pong and close', CLOSE.policy,
      'one subscription per connection');
  });
  ws.on('close', () => stream.vanish());
  stream.open(history, replayCycles);
}

module.exports = { createWebSocketTransport, upgradeProblem, wsChannel, CLOSE };
