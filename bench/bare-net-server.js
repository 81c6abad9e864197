'use strict';
// Child process of bench/emit-loop.js: the baseline. A bare `net` server that holds every connection and,
// on request, writes one record-sized line to each in a plain loop, timed like a server's emit cycle
// (process.hrtime around the loop). Messages from the parent (IPC):
//   { type: 'listen' }            -> { type: 'listening', port }
//   { type: 'count' }             -> { type: 'count', open }
//   { type: 'emit', line }        -> { type: 'emitted', total, durationMicros }
//   { type: 'close' }             -> exits

const net = require('node:net');

const sockets = new Set();
const server = net.createServer((socket) => {
  socket.setNoDelay(true);
  sockets.add(socket);
  socket.on('error', () => {});
  socket.on('close', () => sockets.delete(socket));
  socket.resume();
});
server.maxConnections = Infinity;

// Timed like the Node server's cycle: from before the snapshot to the next event-loop turn after the
// last write (so any write work Node defers to process.nextTick is counted on both sides).
function emit(line, reply) {
  const began = process.hrtime.bigint();
  const snapshot = Array.from(sockets);
  for (const socket of snapshot) socket.write(line);
  setImmediate(() => {
    const durationMicros = Number((process.hrtime.bigint() - began) / 1000n);
    reply({ total: snapshot.length, durationMicros });
  });
}

process.on('message', (message) => {
  if (message.type === 'listen') {
    server.listen(0, '127.0.0.1', () => process.send({ type: 'listening', port: server.address().port }));
  } else if (message.type === 'count') {
    process.send({ type: 'count', open: sockets.size });
  } else if (message.type === 'emit') {
    emit(message.line, (result) => process.send({ type: 'emitted', ...result }));
  } else if (message.type === 'close') {
    for (const socket of sockets) socket.destroy();
    process.exit(0);
  }
});
process.on('disconnect', () => process.exit(0));
