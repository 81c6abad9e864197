'use strict';
// node-cluster, the primary's side (issue #23 item 1; the study's RQ4, Node.js on every core): forks N
// workers that each run server.js on the same port (node:cluster hands them the connections in turn) and
// keeps the state that must be one for the whole server:
//
//   emitters   the primary owns every emitter (event-manager.js with a cluster runner). Each fire is one
//              emit cycle with one id and one start time (`created`, the primary's clock) for all workers:
//              1. snapshot: every worker takes its snapshot of the cycle's subscribers and says how many;
//              2. write: the primary gives each worker its block of places (worker 1 first) and the
//                 cluster-wide total, and every worker writes its block in batches.
//              The cycle ends when the last worker is done, so its duration is the slowest worker's, and
//              records look exactly as a single process's: place 1..total once each, one total.
//   control    /event/set, /event/remove, /event/clear and /logging arrive at any worker, which calls
//              the primary; the primary acts on every worker. /status sums the workers' open requests,
//              their refused bodies and their cut streams.
//   open       the workers' open counts, relayed so each worker's records count the whole server.
//
// A worker that exits while the server runs ends the server (exit status: the worker's), so the harness
// sees a crash rather than a server that quietly lost 1/N of its connections.

const cluster = require('node:cluster');
const os = require('node:os');
const path = require('node:path');
const { createChannel } = require('./cluster-channel');
const { EventManager } = require('./event-manager');

const RELAY_MS = 50;
const SHUTDOWN_WAIT_MS = 6000;

const sum = (values) => values.reduce((a, b) => a + (Number(b) || 0), 0);

// Exit status for a worker that ended with code or signal (128 + signal number, as a shell reports it).
function exitStatusOf(code, signal) {
  if (signal) return 128 + (os.constants.signals[signal] || 0);
  return code || 1;
}

function runPrimary({ port, workers, log }) {
  const members = [];
  let seq = 0;
  let stopping = false;
  let relayDue = false;

  const ready = () => members.filter((m) => m.ready && !m.gone);
  const callAll = (cmd, args) => Promise.all(ready().map((m) => m.channel.call(cmd, args)));
  const tellAll = (cmd, args) => ready().forEach((m) => m.channel.tell(cmd, args));

  // One emit cycle across the workers (see the file comment); done({ total, written }) or done(null).
  function clusterRunner(cycle, isStopped, done) {
    const id = ++seq;
    const targets = ready();
    Promise.all(targets.map((m) => m.channel.call('snapshot', { seq: id, cycle })))
      .then((sizes) => {
        if (isStopped()) {
          targets.forEach((m) => m.channel.tell('drop', { seq: id }));
          return null;
        }
        const total = sum(sizes);
        let offset = 0;
        return Promise.all(targets.map((m, i) => {
          const from = offset;
          offset += sizes[i];
          return m.channel.call('write', { seq: id, offset: from, total });
        })).then((written) => ({ total, written: sum(written) }));
      })
      .then((result) => done(isStopped() ? null : result), (err) => {
        log.problem(`emit cycle ${cycle.name}#${cycle.id} across the workers failed`, err);
        done(null);
      });
  }

  const events = new EventManager({ pool: null, log, runner: clusterRunner });

  const control = {
    set: ({ name, frequency }) => events.set(name, frequency),
    remove: ({ name }) => {
      const removed = events.remove(name);
      if (removed) tellAll('stopCycles', { name });
      return removed;
    },
    clear: async () => {
      const stopped = events.clear();
      tellAll('stopCycles', {});
      const completed = await callAll('completeAll', { reason: 'clear' });
      return { events: stopped, requests: sum(completed) };
    },
    logging: async ({ enabled }) => {
      if (enabled !== log.enabled) log.info(`logging ${enabled ? 'on' : 'off'} (all workers)`);
      log.setEnabled(enabled);
      await callAll('logging', { enabled });
      return log.enabled;
    },
    status: async () => {
      const counts = await callAll('counts');
      const requests = { open: 0, comet: 0, poll: 0, sse: 0, ws: 0 };
      const bodies = { late: 0, refused: 0 };
      const streams = { dropped: 0 };
      for (const c of counts) {
        for (const key of Object.keys(requests)) requests[key] += Number(c[key]) || 0;
        for (const key of Object.keys(bodies)) bodies[key] += Number(c.bodies && c.bodies[key]) || 0;
        for (const key of Object.keys(streams)) streams[key] += Number(c.streams && c.streams[key]) || 0;
      }
      return { requests, logging: log.enabled, events: events.status(), bodies, streams };
    },
  };

  function fork(index) {
    const worker = cluster.fork({ PB_NODE_CLUSTER_WORKER: String(index + 1) });
    const member = { index, worker, ready: false, gone: false, open: 0 };
    member.channel = createChannel({
      send: (message) => {
        try {
          if (worker.isConnected()) worker.send(message);
        } catch { /* the worker is gone: its 'exit' handles it */ }
      },
      log,
      handlers: {
        ...control,
        ready() {
          member.ready = true;
          if (ready().length === workers) log.info(`all ${workers} workers listening on port ${port}`);
        },
        open({ open }) {
          member.open = open;
          relayDue = true;
        },
      },
    });
    worker.on('message', (message) => member.channel.receive(message));
    worker.on('exit', (code, signal) => {
      member.gone = true;
      member.channel.close(`worker ${index + 1} exited`);
      if (stopping) {
        if (members.every((m) => m.gone)) process.exit(process.exitCode || 0);
        return;
      }
      const status = exitStatusOf(code, signal);
      log.problem(`worker ${index + 1} (pid ${worker.process.pid}) exited (${signal || `code ${code}`}); ` +
        `the server stops with status ${status}`);
      shutdown('worker exit', status);
    });
    members.push(member);
  }

  // Each worker learns how many requests the others hold.
  const relay = setInterval(() => {
    if (!relayDue) return;
    relayDue = false;
    const total = sum(members.map((m) => m.open));
    for (const m of ready()) m.channel.tell('elsewhere', { open: total - m.open });
  }, RELAY_MS);
  relay.unref();

  function shutdown(reason, status = 0) {
    if (stopping) return;
    stopping = true;
    process.exitCode = status;
    const stoppedEvents = events.clear();
    log.info(`${reason}: ${stoppedEvents} events stopped; stopping the workers`);
    for (const m of members) if (!m.gone) m.channel.tell('shutdown');
    if (members.every((m) => m.gone)) process.exit(status);
    setTimeout(() => {
      for (const m of members) if (!m.gone) m.worker.process.kill('SIGKILL');
      process.exit(status);
    }, SHUTDOWN_WAIT_MS).unref();
  }

  process.on('SIGTERM', () => shutdown('SIGTERM'));
  process.on('SIGINT', () => shutdown('SIGINT'));
  process.on('uncaughtException', (err) => log.problem('uncaught exception', err));
  process.on('unhandledRejection', (err) => log.problem('unhandled rejection', err));

  cluster.setupPrimary({ exec: path.join(__dirname, 'server.js'), args: [String(port)] });
  log.info(`pushbench node-cluster primary (pid ${process.pid}) on port ${port}: forking ${workers} workers`);
  for (let i = 0; i < workers; i++) fork(i);
  log.info(`worker pids: ${members.map((m) => m.worker.process.pid).join(' ')}`);
}

module.exports = { runPrimary, exitStatusOf };
