'use strict';
// A loopback port nothing listens on: one the kernel gave a listener, closed again (for a server a test
// starts later, or an address that must refuse).
const net = require('node:net');

async function freePort() {
  const srv = net.createServer();
  await new Promise((resolve) => srv.listen(0, '127.0.0.1', resolve));
  const { port } = srv.address();
  await new Promise((resolve) => srv.close(resolve));
  return port;
}

module.exports = { freePort };
