#!/usr/bin/env node
'use strict';
// Entry point of the node-cluster server under test (issue #23 item 1): the Node.js server of server.js
// on N worker processes behind one port. `node cluster.js [port] [workers]`; defaults: env
// PB_PORT_NODE_CLUSTER (8081) and PB_NODE_CLUSTER_WORKERS ("auto": one worker per core of this host).
// The primary holds the emitters and sums /status (cluster-primary.js); each worker is server.js.

const os = require('node:os');
require('./test-clock').applyTestClockOffset();
const { createLog } = require('./log');
const { runPrimary } = require('./cluster-primary');

const MAX_WORKERS = 1024;

// "auto" -> this host's cores; else a positive integer up to MAX_WORKERS; null for anything else.
function workerCount(raw, cores = os.availableParallelism()) {
  const text = String(raw).trim();
  if (text === 'auto') return cores;
  if (!/^[1-9]\d{0,3}$/.test(text) || Number(text) > MAX_WORKERS) return null;
  return Number(text);
}

function main() {
  const rawPort = process.argv[2] || process.env.PB_PORT_NODE_CLUSTER || '8081';
  const rawWorkers = process.argv[3] || process.env.PB_NODE_CLUSTER_WORKERS || 'auto';
  const port = Number(rawPort);
  if (!Number.isInteger(port) || port < 1 || port > 65535) {
    process.stderr.write(`usage: node cluster.js [port] [workers]  (bad port: ${rawPort})\n`);
    process.exit(2);
  }
  const workers = workerCount(rawWorkers);
  if (workers === null) {
    process.stderr.write(`usage: node cluster.js [port] [workers]  (workers must be "auto" or a whole number ` +
      `from 1 to ${MAX_WORKERS}, got '${rawWorkers}')\n`);
    process.exit(2);
  }
  const log = createLog();
  if (process.env.PB_NODE_LOGGING === '1') log.setEnabled(true);
  runPrimary({ port, workers, log });
}

if (require.main === module) main();

module.exports = { workerCount, MAX_WORKERS };
