'use strict';
// Dispatch by path and method, with the protocol's generic answers: 400 a request target that is no URL
// path (`//`) or has a dot segment or a backslash, 404 unknown path, 405 (with Allow) wrong method, 413
// oversized body (the connection closed), 408 a body not whole within the body deadline, 400 malformed
// JSON. POST bodies are read (bounded) and parsed here, so handlers only see parsed JSON.
//
// routes: { "/path": { GET: handler, POST: handler } }. A handler gets { req, res, url, body } and returns
// { status, body } to send as JSON (or a promise of it), or null when it answers itself (a held request).
// options: bodyDeadlineMs (a POST body must arrive whole within it), onLate() (counts each such 408).

const { readBody, parseJson } = require('./body');
const { errorBody } = require('./records');

function sendJson(res, status, body, extraHeaders = {}) {
  if (res.headersSent || res.writableEnded) return;
  const text = JSON.stringify(body);
  res.writeHead(status, {
    'Content-Type': 'application/json',
    'Content-Length': Buffer.byteLength(text),
    ...extraHeaders,
  });
  res.end(text);
}

function sendError(res, status, message, extraHeaders) {
  sendJson(res, status, errorBody(status, message), extraHeaders);
}

// The client must name the path itself, not one a server would reach by resolving it (servers differ in
// whether they resolve): a path with a segment "." or "..", each dot also as %2e, or with a backslash, also
// as %5c (URL parsers read it as "/" in an http URL, so "/..\x" resolves as "/../x"), is refused.
const DOT_SEGMENT = /(?:^|\/)(?:\.|%2e)(?:\.|%2e)?(?=\/|$)/i;
const BACKSLASH = /\\|%5c/i;

// Why a request's path (without its query) is refused with 400, or null.
function pathProblem(path) {
  if (BACKSLASH.test(path)) return 'path has a backslash (\\ or %5c)';
  if (DOT_SEGMENT.test(path)) return 'path has a dot segment (. or .., also as %2e)';
  return null;
}

// How long the server's end of a connection whose request body is left unread stays after its answer.
const UNREAD_LINGER_MS = 1000;

// The connection of a request whose body is left unread ends with its answer (marked Connection: close):
// the answer, then a FIN, and nothing more read; the socket is dropped UNREAD_LINGER_MS later (or when the
// client drops it). Node's server drops such a connection as soon as the answer is written
// (socket.destroySoon), and with unread bytes on it the kernel resets it at once: a client still sending
// its body then gets a write error and may lose the answer it was sent.
function lingerUnread(socket) {
  socket.destroySoon = function lingerThenDestroy() {
    this.pause();
    if (this.writable) this.end();
    const timer = setTimeout(() => this.destroy(), UNREAD_LINGER_MS);
    this.once('close', () => clearTimeout(timer));
  };
}

function createRouter(routes, { bodyDeadlineMs = Infinity, onLate = () => {} } = {}) {
  return async function dispatch(req, res) {
    const problem = pathProblem(req.url.split('?')[0]);
    if (problem) {
      req.resume();
      sendError(res, 400, problem);
      return;
    }
    let url;
    try {
      url = new URL(req.url, 'http://localhost');
    } catch {
      req.resume();
      sendError(res, 400, 'request target cannot be parsed');
      return;
    }
    const route = Object.prototype.hasOwnProperty.call(routes, url.pathname) ? routes[url.pathname] : null;
    if (!route) {
      sendError(res, 404, 'unknown path');
      return;
    }
    // HEAD is answered like GET (Node leaves the body out).
    const method = req.method === 'HEAD' && route.GET ? 'GET' : req.method;
    const handler = Object.prototype.hasOwnProperty.call(route, method) ? route[method] : null;
    if (!handler) {
      req.resume(); // discard any body; closing with unread data could reset the connection before the answer is read
      sendError(res, 405, `method ${req.method} not allowed`, { Allow: Object.keys(route).join(', ') });
      return;
    }
    let body;
    if (method === 'POST') {
      let read;
      try {
        read = await readBody(req, { deadlineMs: bodyDeadlineMs });
      } catch {
        res.destroy(); // the client went away while sending its body: nobody to answer
        return;
      }
      if (read.late) {
        // The connection ends with this answer: a slow client keeps no socket past the deadline.
        onLate();
        sendError(res, 408, `request body not received whole within ${bodyDeadlineMs} ms (PB_BODY_DEADLINE_MS)`,
          { Connection: 'close' });
        return;
      }
      if (read.tooLarge) {
        // The rest of the body is not read: the connection ends with this answer.
        lingerUnread(req.socket);
        sendError(res, 413, 'body larger than 16384 bytes', { Connection: 'close' });
        return;
      }
      const parsed = parseJson(read.text);
      if (parsed.problem) {
        sendError(res, 400, parsed.problem);
        return;
      }
      body = parsed.value;
    }
    const answer = await handler({ req, res, url, body });
    if (answer) sendJson(res, answer.status, answer.body, answer.headers);
  };
}

module.exports = { createRouter, sendJson, sendError, pathProblem };
