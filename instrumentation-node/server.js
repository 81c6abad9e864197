#!/usr/bin/env node
'use strict';
// Entry point of the Node.js server under test: `node server.js [port]` (default: env PB_PORT_NODE, 8080).
// Env PB_EMIT_BATCH: requests written per emit batch before yielding (default 1000).
// Env PB_NODE_LOGGING=1 starts with per-request logging on (the protocol starts with it off).
// Env PB_BODY_DEADLINE_MS: a request body must arrive whole within this many ms of its head, else 408
// (docs/protocol.md, "Request bodies"; default 10000).
// Env PB_REPLAY_CYCLES: N, the cycles per event a resumed SSE or WebSocket stream may get again (0-1024,
// default 100); PB_STREAM_BACKLOG_BYTES: the unsent bytes at which such a stream whose client does not read
// is cut (default 1048576). docs/protocol.md, issue #38's sections.
// Run by cluster.js as a node:cluster worker, it shares the emitters, logging and /status through the
// primary (cluster-worker.js); on its own it is the single-process `node` server.

const cluster = require('node:cluster');
require('./test-clock').applyTestClockOffset();
const http = require('node:http');
const { createApp } = require('./app');
const { createLog } = require('./log');
const { sendError } = require('./router');
const { DEFAULT_REPLAY_CYCLES, DEFAULT_BACKLOG_BYTES, wholeSetting } = require('./stream-request');
const { HISTORY } = require('./pull');

const port = Number(process.argv[2] || process.env.PB_PORT_NODE || 8080);
if (!Number.isInteger(port) || port < 1 || port > 65535) {
  process.stderr.write(`usage: node server.js [port]  (bad port: ${process.argv[2] || process.env.PB_PORT_NODE})\n`);
  process.exit(2);
}
const batchSize = Number(process.env.PB_EMIT_BATCH) > 0 ? Number(process.env.PB_EMIT_BATCH) : undefined;

const log = createLog();
if (process.env.PB_NODE_LOGGING === '1') log.setEnabled(true);
const bridge = cluster.isWorker ? require('./cluster-worker').createWorkerBridge({ log, batchSize }) : null;
const bodyDeadlineMs = /^[1-9]\d{0,8}$/.test(process.env.PB_BODY_DEADLINE_MS || '')
  ? Number(process.env.PB_BODY_DEADLINE_MS) : 10000;
const replayCycles = wholeSetting(process.env.PB_REPLAY_CYCLES, 0, HISTORY, DEFAULT_REPLAY_CYCLES);
const backlogBytes = wholeSetting(process.env.PB_STREAM_BACKLOG_BYTES, 1, Number.MAX_SAFE_INTEGER, DEFAULT_BACKLOG_BYTES);
const app = createApp({ log, batchSize, cluster: bridge, bodyDeadlineMs, replayCycles, backlogBytes });

const requestTimeoutMs = /^[1-9]\d{0,8}$/.test(process.env.PB_NODE_REQUEST_TIMEOUT_MS || '')
  ? Number(process.env.PB_NODE_REQUEST_TIMEOUT_MS) : 60000;
const server = http.createServer({ connectionsCheckingInterval: 1000 }, (req, res) => {
  // A failing socket must not take the process down: errors on one connection stay on that connection.
  req.on('error', (err) => log.debug(`request stream: ${err.message}`));
  res.on('error', (err) => log.debug(`response stream: ${err.message}`));
  Promise.resolve()
    .then(() => app.dispatch(req, res))
    .catch((err) => {
      log.problem(`handling ${req.method} ${req.url} failed`, err);
      if (!res.headersSent) sendError(res, 500, 'internal server problem');
      else res.destroy();
    });
});

// Held requests can last as long as a test run: no socket limit may end them. A request must arrive
// whole (headers and body) within requestTimeout, though: Node counts it only until the request is read,
// so a held answer is never cut, while a client sending its body slowly gets a 408 instead of a socket
// held forever. Env PB_NODE_REQUEST_TIMEOUT_MS (default 60000, as the header wait); checked every second.
server.requestTimeout = requestTimeoutMs;
server.timeout = 0;
server.headersTimeout = Math.min(60000, requestTimeoutMs); // Node ignores requestTimeout below it
server.keepAliveTimeout = 30000;
server.maxConnections = Infinity;
server.maxHeadersCount = 200;

// A WebSocket upgrade of GET /request (websocket.js); any other upgrade is refused there.
server.on('upgrade', (req, socket, head) => {
  try {
    app.upgrade(req, socket, head);
  } catch (err) {
    log.problem(`upgrade of ${req.url} failed`, err);
    socket.destroy();
  }
});

server.on('connection', (socket) => {
  socket.setNoDelay(true); // one record per write, sent at once
  socket.on('error', (err) => log.debug(`socket: ${err.message}`));
});

// Malformed HTTP (bad request line, oversized headers...): answer 400 (431, or 408 for a request not read
// whole in time) when the socket can still take it.
server.on('clientError', (err, socket) => {
  if (err.code === 'ECONNRESET' || !socket.writable) {
    socket.destroy();
    return;
  }
  const kinds = {
    HPE_HEADER_OVERFLOW: [431, 'Request Header Fields Too Large', 'malformed HTTP request'],
    ERR_HTTP_REQUEST_TIMEOUT: [408, 'Request Timeout', `request not received whole within ${requestTimeoutMs} ms`],
  };
  const [status, reason, message] = kinds[err.code] || [400, 'Bad Request', 'malformed HTTP request'];
  const body = JSON.stringify({ error: { status, message } });
  socket.end(`HTTP/1.1 ${status} ${reason}\r\nContent-Type: application/json\r\n` +
    `Content-Length: ${Buffer.byteLength(body)}\r\nConnection: close\r\n\r\n${body}`);
});

let acceptProblems = 0;
let lastAcceptReport = 0;
// Before listening (port taken, no permission) an error is fatal; after it (e.g. EMFILE on accept when the
// open-file cap is reached) the server logs it and keeps serving the connections it has.
server.on('error', (err) => {
  if (!server.listening) {
    log.problem(`server on port ${port} could not start`, err);
    process.exit(1);
  }
  // At the open-file cap this fires per refused connection: one line a second is enough.
  const now = Date.now();
  acceptProblems++;
  if (now - lastAcceptReport >= 1000) {
    log.problem(`server: ${err.code || err.message} (${acceptProblems} since the last report)`);
    lastAcceptReport = now;
    acceptProblems = 0;
  }
});

// The last line of defence: a bug reached from one request is logged, not fatal to every other client.
process.on('uncaughtException', (err) => log.problem('uncaught exception', err));
process.on('unhandledRejection', (err) => log.problem('unhandled rejection', err));

let stopping = false;
function shutdown(signal) {
  if (stopping) return;
  stopping = true;
  const stopped = app.events.clear();
  const completed = app.completeAll('shutdown');
  log.info(`${signal}: ${stopped} events stopped, ${completed} requests completed; exiting`);
  server.close(() => process.exit(0));
  // Idle kept-alive connections would hold close() open; give written records a moment to leave first.
  setTimeout(() => server.closeAllConnections(), 500).unref();
  setTimeout(() => process.exit(0), 5000).unref();
}
if (bridge) {
  bridge.attach(app, shutdown);
  server.on('listening', () => bridge.ready());
}
process.on('SIGTERM', () => shutdown('SIGTERM'));
process.on('SIGINT', () => shutdown('SIGINT'));

// Env PB_SERVER_ADDRESS: the one address to listen on (lib/config.sh; 0.0.0.0: every interface).
const address = process.env.PB_SERVER_ADDRESS || '127.0.0.1';
server.listen(port, address, () => log.info(`pushbench node server listening on ${address}:${port} (pid ${process.pid})`));
