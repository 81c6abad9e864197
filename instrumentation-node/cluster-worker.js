'use strict';
// node-cluster, the worker's side: server.js runs as one of N workers (node:cluster) and hands the
// protocol's shared state to the primary (cluster-primary.js) through this bridge.
//
//   control   what app.js calls for /event/set, /event/remove, /event/publish, /event/clear, /logging and /status: each
//             is a call to the primary, which acts on every worker and answers with the sum.
//   commands  what the primary calls here: take a cycle's snapshot of this worker's subscribers, write
//             the cycle to it at the places the primary gives, stop cycles, complete every request,
//             switch logging, count open requests, shut down.
//   open      every GOSSIP_MS this worker tells the primary its open requests when they changed; the
//             primary answers each worker with the others' sum, which the pool adds to its own for the
//             records' connections.start/finish (so they count the whole server, at most ~2 periods old).

const { createChannel } = require('./cluster-channel');
const { writeCycle } = require('./emitter');

const GOSSIP_MS = 50;

function sendToPrimary(message) {
  try {
    if (process.connected) process.send(message);
  } catch {
    // The primary is gone: 'disconnect' ends this worker.
  }
}

function createWorkerBridge({ log, batchSize }) {
  let app = null;
  let onShutdown = () => process.exit(0);
  const cycles = new Map(); // seq -> { cycle, snapshot, stopped }: cycles snapshotted, not yet written

  const channel = createChannel({
    send: sendToPrimary,
    log,
    handlers: {
      snapshot({ seq, cycle }) {
        app.history.record(cycle);   // pulls on this worker see the cycle from now
        const snapshot = app.pool.subscribersOf(cycle.name);
        cycles.set(seq, { cycle, snapshot, stopped: false });
        return snapshot.length;
      },
      write({ seq, offset, total }) {
        const entry = cycles.get(seq);
        if (!entry) return 0;
        return new Promise((resolve) => writeCycle({
          cycle: entry.cycle, snapshot: entry.snapshot, offset, total, batchSize, log,
          isStopped: () => entry.stopped,
          done: (result) => {
            cycles.delete(seq);
            resolve(result ? result.written : 0);
          },
        }));
      },
      drop({ seq }) { cycles.delete(seq); },
      // name: stop the cycles of that emitter; none: every cycle (clear).
      stopCycles({ name }) {
        for (const entry of cycles.values()) if (name === undefined || entry.cycle.name === name) entry.stopped = true;
      },
      completeAll({ reason }) { return app.completeAll(reason); },
      logging({ enabled }) {
        log.setEnabled(enabled);
        return log.enabled;
      },
      counts() { return { ...app.pool.counts(), bodies: { ...app.bodies }, streams: { ...app.streams } }; },
      elsewhere({ open }) { app.pool.elsewhere = open; },
      shutdown() { onShutdown('shutdown'); },
    },
  });
  process.on('message', (message) => channel.receive(message));
  process.on('disconnect', () => {
    channel.close('the primary is gone');
    onShutdown('disconnect');
  });

  let lastOpen = 0;
  const gossip = setInterval(() => {
    const open = app ? app.pool.counts().open : 0;
    if (open !== lastOpen) channel.tell('open', { open });
    lastOpen = open;
  }, GOSSIP_MS);
  gossip.unref();

  const control = {
    set: (name, frequency) => channel.call('set', { name, frequency }),
    remove: (name) => channel.call('remove', { name }),
    publish: (name, data) => channel.call('publish', { name, data }),
    clear: () => channel.call('clear'),
    logging: (enabled) => channel.call('logging', { enabled }),
    status: () => channel.call('status'),
  };

  return {
    control,
    // app: createApp's result; shutdown(reason): server.js's shutdown, run when the primary says so.
    attach(attachedApp, shutdown) {
      app = attachedApp;
      onShutdown = shutdown;
    },
    // Listening: from now on this worker takes part in emit cycles and status sums.
    ready() { channel.tell('ready', { pid: process.pid }); },
  };
}

module.exports = { createWorkerBridge, GOSSIP_MS };
