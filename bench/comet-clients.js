'use strict';
// Child process of bench/emit-loop.js: holds `count` TCP connections to one port and counts the record
// lines that arrive on them. Run with IPC (fork); messages from the parent:
//   { type: 'start', host, port, count, mode: 'comet'|'raw', event, localAddress, concurrency }
//   { type: 'stats' }  -> { type: 'stats', open, lines }
//   { type: 'close' }  -> closes everything and exits
// mode 'comet' sends POST /request {"type":"comet"} and counts a connection once its 200 header arrived;
// mode 'raw' (the bare net baseline) just connects.
// It answers { type: 'ready', connected, failed } once every connection has succeeded or failed.

const net = require('node:net');

const sockets = new Set();
let lines = 0;

// Counts "}\n" (the end of a record line) across chunk boundaries; chunked framing never contains it.
function lineCounter() {
  let lastByte = -1;
  return (chunk) => {
    for (let i = 0; i < chunk.length; i++) {
      if (chunk[i] === 0x0a && (i > 0 ? chunk[i - 1] : lastByte) === 0x7d) lines++;
    }
    lastByte = chunk[chunk.length - 1];
  };
}

function connectOne({ host, port, mode, event, localAddress }) {
  return new Promise((resolve) => {
    const socket = net.connect({ host, port, localAddress });
    let settled = false;
    const settle = (ok) => { if (!settled) { settled = true; resolve(ok); } };
    const count = lineCounter();
    let header = mode === 'comet' ? '' : null;
    socket.setNoDelay(true);
    socket.on('connect', () => {
      sockets.add(socket);
      if (mode === 'raw') { settle(true); return; }
      const body = JSON.stringify({ type: 'comet', events: [event] });
      socket.write(`POST /request HTTP/1.1\r\nHost: ${host}:${port}\r\nContent-Type: application/json\r\n` +
        `Content-Length: ${Buffer.byteLength(body)}\r\n\r\n${body}`);
    });
    socket.on('data', (chunk) => {
      if (header !== null) {
        header += chunk.toString('latin1');
        if (header.length > 32 || header.includes('\r\n')) {
          settle(header.startsWith('HTTP/1.1 200'));
          header = null;
        }
      }
      count(chunk);
    });
    socket.on('error', () => settle(false));
    socket.on('close', () => { sockets.delete(socket); settle(false); });
    socket.setTimeout(30000, () => { if (!settled) socket.destroy(); });
    socket.on('connect', () => socket.setTimeout(0));
  });
}

async function start(options) {
  let connected = 0;
  let failed = 0;
  let next = 0;
  const worker = async () => {
    while (next < options.count) {
      next++;
      if (await connectOne(options)) connected++; else failed++;
    }
  };
  await Promise.all(Array.from({ length: Math.min(options.concurrency || 200, options.count) }, worker));
  process.send({ type: 'ready', connected, failed });
}

process.on('message', (message) => {
  if (message.type === 'start') start(message).catch((err) => process.send({ type: 'failed', message: String(err) }));
  else if (message.type === 'stats') process.send({ type: 'stats', open: sockets.size, lines });
  else if (message.type === 'close') {
    for (const socket of sockets) socket.destroy();
    process.exit(0);
  }
});
// The parent going away (Ctrl-C, crash) ends this process too.
process.on('disconnect', () => process.exit(0));
