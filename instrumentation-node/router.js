'use strict';
// Dispatch by path and method, with the protocol's generic answers: 400 a request target that is no URL
// path (`//`) or has a dot segment, 404 unknown path, 405 (with Allow) wrong method, 413 oversized body,
// 408 a body not whole within the body deadline, 400 malformed JSON. POST bodies are read (bounded) and
// parsed here, so handlers only see parsed JSON.
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

// A path segment that is "." or "..", each dot also as %2e: the client must name the path itself, not one
// a server would reach by resolving it (servers differ in whether they resolve).
const DOT_SEGMENT = /(?:^|\/)(?:\.|%2e)(?:\.|%2e)?(?=\/|$)/i;

function createRouter(routes, { bodyDeadlineMs = Infinity, onLate = () => {} } = {}) {
  return async function dispatch(req, res) {
    if (DOT_SEGMENT.test(req.url.split('?')[0])) {
      req.resume();
      sendError(res, 400, 'path has a dot segment (. or .., also as %2e)');
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
        // The rest of the body is read and discarded (never kept), so the client surely gets this answer.
        req.resume();
        sendError(res, 413, 'body larger than 16384 bytes');
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

module.exports = { createRouter, sendJson, sendError, DOT_SEGMENT };
