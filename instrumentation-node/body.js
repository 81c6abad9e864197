'use strict';
// Bounded request-body reading (docs/protocol.md, "Request bodies"): at most 16 KiB, else the caller
// answers 413, and whole within the body deadline, else 408. A declared Content-Length over the limit is
// refused before reading a byte; a chunked body stops being kept as soon as it passes the limit, so an
// oversized body never costs more than the limit in memory. The event loop never waits for a body: the
// deadline only bounds how long a slow client keeps its socket and its bytes.

const MAX_BODY_BYTES = 16384;

// Resolves { text }, { tooLarge: true } or { late: true } (not whole within deadlineMs of this call);
// rejects only if the request stream itself fails.
function readBody(req, { limit = MAX_BODY_BYTES, deadlineMs = Infinity } = {}) {
  return new Promise((resolve, reject) => {
    const declared = Number(req.headers['content-length']);
    if (Number.isFinite(declared) && declared > limit) {
      resolve({ tooLarge: true });
      return;
    }
    const chunks = [];
    let size = 0;
    let settled = false;
    let timer = null;
    const settle = (fn, value) => {
      if (settled) return;
      settled = true;
      clearTimeout(timer);
      req.removeListener('data', onData);
      fn(value);
    };
    if (Number.isFinite(deadlineMs)) timer = setTimeout(() => settle(resolve, { late: true }), deadlineMs);
    const onData = (chunk) => {
      size += chunk.length;
      if (size > limit) {
        // From here the rest is drained and discarded (the caller resumes the stream).
        settle(resolve, { tooLarge: true });
        return;
      }
      chunks.push(chunk);
    };
    req.on('data', onData);
    req.on('end', () => settle(resolve, { text: Buffer.concat(chunks).toString('utf8') }));
    req.on('error', (err) => settle(reject, err));
    req.on('aborted', () => settle(reject, new Error('request aborted')));
  });
}

// Empty body -> undefined; malformed JSON -> { problem }.
function parseJson(text) {
  if (text.trim() === '') return { value: undefined };
  try {
    return { value: JSON.parse(text) };
  } catch {
    return { problem: 'body is not valid JSON' };
  }
}

module.exports = { readBody, parseJson, MAX_BODY_BYTES };
