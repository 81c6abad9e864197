'use strict';
// Minimal HTTP helpers for black-box protocol tests: one fresh connection per request (no keep-alive
// reuse, so one test's broken connection cannot leak into the next) unless a test passes its own keep-alive
// agent, a comet stream reader that records each line with its arrival time, raw TCP exchanges and a
// client that sends its body a byte at a time, and one that sends a body far over the limit as fast as it can.

const http = require('node:http');
const net = require('node:net');

// Resolves { status, headers, text, json (or undefined), elapsed, reused, localPort }: reused tells
// whether the request went out on a connection an earlier request of the same agent had used.
function request(base, method, path, { body, headers = {}, timeoutMs = 15000, chunked = false, agent = false } = {}) {
  const url = new URL(path, base);
  let payload = null;
  if (body !== undefined) payload = Buffer.isBuffer(body) || typeof body === 'string' ? Buffer.from(body) : Buffer.from(JSON.stringify(body));
  const sendHeaders = { ...headers };
  if (payload && !chunked) sendHeaders['Content-Length'] = payload.length;
  if (payload && !sendHeaders['Content-Type']) sendHeaders['Content-Type'] = 'application/json';
  const started = Date.now();
  return new Promise((resolve, reject) => {
    const req = http.request(url, { method, headers: sendHeaders, agent }, (res) => {
      const { localPort } = res.socket;
      const chunks = [];
      res.on('data', (chunk) => chunks.push(chunk));
      res.on('end', () => {
        const text = Buffer.concat(chunks).toString('utf8');
        let json;
        try { json = JSON.parse(text); } catch { json = undefined; }
        resolve({ status: res.statusCode, headers: res.headers, text, json, elapsed: Date.now() - started,
          reused: req.reusedSocket, localPort });
      });
      res.on('error', reject);
    });
    req.setTimeout(timeoutMs, () => req.destroy(new Error(`${method} ${path}: no answer in ${timeoutMs} ms`)));
    req.on('error', reject);
    if (payload && chunked) {
      // Several chunks, so the server cannot rely on a Content-Length.
      for (let offset = 0; offset < payload.length; offset += 4096) req.write(payload.subarray(offset, offset + 4096));
      req.end();
    } else {
      req.end(payload || undefined);
    }
  });
}

// Opens POST /request as a stream. Resolves once the response headers arrived:
// { status, headers, lines: [{ text, record, at }], ended, nextLine(timeoutMs), waitEnd(timeoutMs), destroy() }
function openStream(base, body, { path = '/request' } = {}) {
  const url = new URL(path, base);
  const payload = Buffer.from(JSON.stringify(body));
  return new Promise((resolve, reject) => {
    const req = http.request(url, {
      method: 'POST', agent: false,
      headers: { 'Content-Type': 'application/json', 'Content-Length': payload.length },
    }, (res) => {
      const stream = {
        status: res.statusCode, headers: res.headers, lines: [], ended: false, read: 0,
        socket: res.socket,
        destroy() { req.destroy(); res.destroy(); },
        nextLine(timeoutMs = 5000) { return waitUntil(() => stream.lines.length > stream.read || stream.ended, timeoutMs, 'a stream line')
          .then(() => {
            if (stream.lines.length > stream.read) return stream.lines[stream.read++];
            throw new Error('stream ended before the next line');
          }); },
        waitEnd(timeoutMs = 5000) { return waitUntil(() => stream.ended, timeoutMs, 'the end of the stream'); },
      };
      let buffered = '';
      res.setEncoding('utf8');
      res.on('data', (chunk) => {
        buffered += chunk;
        let newline;
        while ((newline = buffered.indexOf('\n')) >= 0) {
          const text = buffered.slice(0, newline);
          buffered = buffered.slice(newline + 1);
          let record;
          try { record = JSON.parse(text); } catch { record = undefined; }
          stream.lines.push({ text, record, at: Date.now() });
        }
      });
      const finish = () => {
        if (buffered !== '') stream.lines.push({ text: buffered, record: undefined, at: Date.now(), unterminated: true });
        buffered = '';
        stream.ended = true;
      };
      res.on('end', finish);
      res.on('close', finish);
      res.on('error', () => finish());
      resolve(stream);
    });
    req.on('error', reject);
    req.end(payload);
  });
}

// Sends POST /request and resolves once the body is sent, without waiting for an answer:
// { destroy() } lets a test vanish like a client that gives up.
function sendAndHold(base, body) {
  const payload = Buffer.from(JSON.stringify(body));
  return new Promise((resolve, reject) => {
    const req = http.request(new URL('/request', base), {
      method: 'POST', agent: false,
      headers: { 'Content-Type': 'application/json', 'Content-Length': payload.length },
    });
    req.on('error', () => {}); // destroying it on purpose is the point
    req.on('response', (res) => res.resume());
    req.on('finish', () => resolve({ destroy: () => req.destroy() }));
    req.on('socket', (socket) => socket.on('error', reject));
    req.end(payload);
  });
}

// Sends raw bytes on a new TCP connection (an array: its parts PART_GAP_MS apart, so the server reads
// them separately); resolves with everything the server sent until it closed (or until timeoutMs).
const PART_GAP_MS = 100;
function rawExchange(base, bytes, timeoutMs = 3000) {
  const url = new URL(base);
  const parts = Array.isArray(bytes) ? bytes : [bytes];
  return new Promise((resolve) => {
    const socket = net.connect(Number(url.port || 80), url.hostname);
    const chunks = [];
    const done = () => { clearTimeout(timer); socket.destroy(); resolve(Buffer.concat(chunks).toString('utf8')); };
    const timer = setTimeout(done, timeoutMs);
    const send = (i) => {
      if (i >= parts.length || socket.destroyed) return;
      socket.write(parts[i]);
      setTimeout(() => send(i + 1), PART_GAP_MS);
    };
    socket.on('connect', () => send(0));
    socket.on('data', (chunk) => chunks.push(chunk));
    socket.on('end', done);
    socket.on('close', done);
    socket.on('error', done);
  });
}

// A client that sends POST <path> with a body of totalBytes (declared with Content-Length, or chunked in
// 64 KiB chunks and never ended): its head and first 64 KiB, then, once the server answered, the rest as
// fast as the connection takes it (a write that fails ends the connection for a Node.js socket, and with it
// the reading of an answer not read yet). Resolves once the server closed the connection (its FIN or a
// reset), or after giveUpMs: { status (or null), text, answeredMs, closedMs (or null: still open),
// closedBy, sentBytes (the body bytes the connection took) }.
function oversizedBody(base, { path = '/request', totalBytes, chunked = false, giveUpMs = 15000 }) {
  const url = new URL(base);
  return new Promise((resolve) => {
    const socket = net.connect(Number(url.port || 80), url.hostname);
    const started = Date.now();
    const chunks = [];
    const block = Buffer.alloc(65536, 'x');
    const frame = chunked ? Buffer.concat([Buffer.from(`${block.length.toString(16)}\r\n`), block, Buffer.from('\r\n')]) : block;
    let answeredMs = null;
    let closedMs = null;
    let closedBy = 'still open';
    let sentBytes = 0;
    let over = false;
    const finish = () => {
      if (over) return;
      over = true;
      clearTimeout(timer);
      socket.destroy();
      const text = Buffer.concat(chunks).toString('utf8');
      const status = /^HTTP\/1\.[01] (\d{3}) /.exec(text);
      resolve({ status: status ? Number(status[1]) : null, text, answeredMs, closedMs, closedBy, sentBytes });
    };
    const closedWith = (how) => {
      if (closedMs === null) { closedMs = Date.now() - started; closedBy = `${how} at ${closedMs} ms`; }
      finish();
    };
    const timer = setTimeout(finish, giveUpMs);
    const pump = () => {
      while (sentBytes < totalBytes && !socket.destroyed) {
        sentBytes += block.length;
        if (!socket.write(frame)) { socket.once('drain', pump); return; }
      }
    };
    socket.on('connect', () => {
      socket.write(`POST ${path} HTTP/1.1\r\nHost: pb\r\nContent-Type: application/json\r\n` +
        (chunked ? 'Transfer-Encoding: chunked\r\n\r\n' : `Content-Length: ${totalBytes}\r\n\r\n`));
      sentBytes += block.length;
      socket.write(frame);
      socket.once('data', pump);
    });
    socket.on('data', (chunk) => { chunks.push(chunk); if (answeredMs === null) answeredMs = Date.now() - started; });
    socket.on('end', () => closedWith('FIN'));
    socket.on('error', (err) => closedWith(err.code || 'error'));
    socket.on('close', () => closedWith('close'));
  });
}

// A client that sends a request's head, then its body one byte every intervalMs (declared: its
// Content-Length), and never finishes it. Resolves once the server answered and closed, or after giveUpMs:
// { status (or null), text, answeredMs, closedMs (or null: still open), bytesSent }.
function trickle(base, { path = '/request', declared = 200, intervalMs = 500, giveUpMs = 30000 } = {}) {
  const url = new URL(base);
  return new Promise((resolve) => {
    const socket = net.connect(Number(url.port || 80), url.hostname);
    const started = Date.now();
    const chunks = [];
    let answeredMs = null;
    let bytesSent = 0;
    let ticker = null;
    const finish = (closed) => {
      clearInterval(ticker);
      clearTimeout(timer);
      socket.destroy();
      const text = Buffer.concat(chunks).toString('utf8');
      const status = /^HTTP\/1\.[01] (\d{3})/.exec(text);
      resolve({ status: status ? Number(status[1]) : null, text, answeredMs, closedMs: closed ? Date.now() - started : null, bytesSent });
    };
    const timer = setTimeout(() => finish(false), giveUpMs);
    socket.on('connect', () => {
      socket.write(`POST ${path} HTTP/1.1\r\nHost: pb\r\nContent-Type: application/json\r\nContent-Length: ${declared}\r\n\r\n`);
      ticker = setInterval(() => {
        if (bytesSent < declared - 1 && socket.writable) {
          socket.write(' ');
          bytesSent++;
        }
      }, intervalMs);
    });
    socket.on('data', (chunk) => {
      if (answeredMs === null) answeredMs = Date.now() - started;
      chunks.push(chunk);
    });
    socket.on('close', () => finish(true));
    socket.on('error', () => {});
  });
}

function waitUntil(condition, timeoutMs, what) {
  const deadline = Date.now() + timeoutMs;
  return new Promise((resolve, reject) => {
    const check = async () => {
      try {
        if (await condition()) { resolve(); return; }
      } catch (err) { reject(err); return; }
      if (Date.now() > deadline) { reject(new Error(`timed out after ${timeoutMs} ms waiting for ${what}`)); return; }
      setTimeout(check, 20);
    };
    check();
  });
}

const sleep = (ms) => new Promise((resolve) => setTimeout(resolve, ms));

module.exports = { request, openStream, sendAndHold, rawExchange, trickle, oversizedBody, waitUntil, sleep };
