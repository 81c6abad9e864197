'use strict';
// Clients for the SSE and WebSocket conformance cases (issue #38; docs/protocol.md "Server-Sent Events and
// WebSocket"): an SSE reader that keeps each event's fields and its record, a WebSocket client (the `ws`
// package) that keeps each frame and how the connection closed, and raw clients that subscribe and then
// never read. Both readers have the same shape, so one case can run over either: { records: [{ record,
// text, id?, at }], next(timeoutMs), ended, waitEnd(timeoutMs), destroy() }.

const http = require('node:http');
const net = require('node:net');
const crypto = require('node:crypto');
const WebSocket = require('ws');
const { waitUntil } = require('./http-client');

// Shared by both readers: records in order of arrival, read one at a time with next().
function recordQueue() {
  const queue = {
    records: [], read: 0, ended: false,
    next(timeoutMs = 5000) {
      return waitUntil(() => queue.records.length > queue.read || queue.ended, timeoutMs, 'the next record')
        .then(() => {
          if (queue.records.length > queue.read) return queue.records[queue.read++];
          throw new Error('the stream ended before the next record');
        });
    },
    waitEnd(timeoutMs = 5000) { return waitUntil(() => queue.ended, timeoutMs, 'the end of the stream'); },
  };
  return queue;
}

const parsed = (text) => { try { return JSON.parse(text); } catch { return undefined; } };

// One SSE event's text (without its blank line) as { fields: [[name, value]], id, data }.
function sseFields(block) {
  const fields = block.split('\n').map((line) => {
    const colon = line.indexOf(':');
    return colon < 0 ? [line, ''] : [line.slice(0, colon), line.slice(colon + 1).replace(/^ /, '')];
  });
  const value = (name) => { const f = fields.find(([n]) => n === name); return f ? f[1] : undefined; };
  return { fields, id: value('id'), data: value('data') };
}

// GET /request?<query> as an SSE stream (query: a string or an object of parameters). Resolves once the head
// arrived: { status, headers, body (when not 200), records: [{ record, text (data), id, fields, raw, at }] }.
function openSse(base, query, { lastEventId, headers = {} } = {}) {
  const search = typeof query === 'string' ? query : new URLSearchParams(query).toString();
  const sendHeaders = { Accept: 'text/event-stream', ...headers };
  if (lastEventId !== undefined) sendHeaders['Last-Event-ID'] = lastEventId;
  return new Promise((resolve, reject) => {
    const req = http.request(new URL(`/request?${search}`, base), { agent: false, headers: sendHeaders }, (res) => {
      const stream = Object.assign(recordQueue(), {
        status: res.statusCode, headers: res.headers, body: '', tail: '',
        destroy() { req.destroy(); res.destroy(); },
      });
      res.setEncoding('utf8');
      res.on('data', (chunk) => {
        if (res.statusCode !== 200) { stream.body += chunk; return; }
        stream.tail += chunk;
        let end;
        while ((end = stream.tail.indexOf('\n\n')) >= 0) {
          const raw = stream.tail.slice(0, end + 2);
          stream.tail = stream.tail.slice(end + 2);
          const event = sseFields(raw.slice(0, -2));
          stream.records.push({ ...event, raw, text: event.data, record: parsed(event.data), at: Date.now() });
        }
      });
      const finish = () => { stream.ended = true; };
      res.on('end', finish);
      res.on('close', finish);
      res.on('error', finish);
      if (res.statusCode === 200) resolve(stream);
      else res.on('end', () => resolve(stream));
    });
    req.on('error', reject);
    req.end();
  });
}

// A WebSocket to <base>/request. Resolves once open: { ws, records: [{ record, text, binary, at }], pongs,
// closed ({ code, reason }, once closed), closing (a promise of it), send(message) }. An upgrade the server
// refuses rejects with { status, body }.
function openWs(base, { path = '/request' } = {}) {
  const url = new URL(path, base);
  url.protocol = 'ws:';
  const ws = new WebSocket(url, { perMessageDeflate: false });
  const client = Object.assign(recordQueue(), {
    ws, pongs: [], closed: null,
    send(message, options) { ws.send(message, options); },
    destroy() { ws.terminate(); },
  });
  ws.on('message', (data, binary) => {
    const text = data.toString('utf8');
    client.records.push({ text, binary, record: parsed(text), at: Date.now() });
  });
  ws.on('pong', (data) => client.pongs.push(data.toString('utf8')));
  ws.on('error', () => {});
  client.closing = new Promise((resolve) => ws.on('close', (code, reason) => {
    client.closed = { code, reason: reason.toString('utf8') };
    client.ended = true;
    resolve(client.closed);
  }));
  return new Promise((resolve, reject) => {
    ws.on('open', () => resolve(client));
    ws.on('unexpected-response', (req, res) => {
      let body = '';
      res.on('data', (chunk) => { body += chunk; });
      res.on('end', () => reject(Object.assign(new Error(`upgrade refused: ${res.statusCode}`), { status: res.statusCode, body })));
    });
    ws.on('error', reject);
  });
}

// A client's text frame (masked, as RFC 6455 requires of a client), for the raw clients.
function clientFrame(text) {
  const payload = Buffer.from(text, 'utf8');
  const mask = crypto.randomBytes(4);
  const length = payload.length < 126 ? Buffer.from([0x80 | payload.length])
    : payload.length < 65536 ? Buffer.from([0x80 | 126, payload.length >> 8, payload.length & 255]) : null;
  if (length === null) throw new Error('clientFrame: payload too long for this helper');
  const masked = Buffer.from(payload.map((byte, i) => byte ^ mask[i % 4]));
  return Buffer.concat([Buffer.from([0x81]), length, mask, masked]);
}

// The head of a WebSocket upgrade of <target>, with header lines replaced or left out (value null).
function upgradeHead(target, { method = 'GET', headers = {} } = {}) {
  const all = {
    Host: 'pb', Upgrade: 'websocket', Connection: 'Upgrade', 'Sec-WebSocket-Version': '13',
    'Sec-WebSocket-Key': crypto.randomBytes(16).toString('base64'), ...headers,
  };
  const lines = Object.entries(all).filter(([, v]) => v !== null).map(([k, v]) => `${k}: ${v}\r\n`).join('');
  return `${method} ${target} HTTP/1.1\r\n${lines}\r\n`;
}

// A client that subscribes and then never reads: transport "sse" (events: names) or "ws". Resolves once
// its subscription is sent: { destroy() }.
function neverReads(base, transport, events) {
  const url = new URL(base);
  const socket = net.connect(Number(url.port || 80), url.hostname);
  socket.on('error', () => {});
  return new Promise((resolve, reject) => {
    socket.once('connect', () => {
      if (transport === 'sse') {
        socket.write(`GET /request?type=sse&events=${events.join(',')} HTTP/1.1\r\nHost: pb\r\n\r\n`);
        socket.pause();
        resolve({ destroy: () => socket.destroy() });
        return;
      }
      socket.write(upgradeHead('/request'));
      let head = '';
      const onData = (chunk) => {
        head += chunk.toString('latin1');
        if (!head.includes('\r\n\r\n')) return;
        socket.removeListener('data', onData);
        socket.pause();
        if (!/^HTTP\/1\.1 101 /.test(head)) { reject(new Error(`upgrade refused: ${head.split('\r\n')[0]}`)); return; }
        socket.write(clientFrame(JSON.stringify({ type: 'ws', events })));
        resolve({ destroy: () => socket.destroy() });
      };
      socket.on('data', onData);
    });
  });
}

module.exports = { openSse, openWs, neverReads, upgradeHead, clientFrame, sseFields };
