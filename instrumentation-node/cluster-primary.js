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
//   control    /event/set, /event/remove, /event/publish, /event/clear and /logging arrive at any worker, which calls
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

// The workers that take part: forked, listening (they said 'ready') and not exited.
const readyOf = (members) => members.filter((m) => m.ready && !m.gone);

// A call to every ready worker; resolves with their answers in worker order.
const callAll = (members, cmd, args) => Promise.all(readyOf(members).map((m) => m.channel.call(cmd, args)));

// A notice to every ready worker.
const tellAll = (members, cmd, args) => readyOf(members).forEach((m) => m.channel.tell(cmd, args));

// Each worker's first place in the cycle: the sum of the snapshot sizes before it (worker 1 first).
function blockOffsets(sizes) {
  let offset = 0;
  return sizes.map((size) => {
    const from = offset;
    offset += size;
    return from;
  });
}

// One emit cycle across targets (see the file comment): { total, written }, or null when it was stopped.
async function clusterCycle(targets, seq, cycle, isStopped) {
  const sizes = await Promise.all(targets.map((m) => m.channel.call('snapshot', { seq, cycle })));
  if (isStopped()) {
    targets.forEach((m) => m.channel.tell('drop', { seq }));
    return null;
  }
  const total = sum(sizes);
  const offsets = blockOffsets(sizes);
  const writes = targets.map((m, i) => m.channel.call('write', { seq, offset: offsets[i], total }));
  const written = await Promise.all(writes);
  return isStopped() ? null : { total, written: sum(written) };
}

// The emitters' runner: each fire is one cycle, new id, over the workers ready then; a failure ends it null.
function clusterRunner(primary) {
  return (cycle, isStopped, done) => {
    clusterCycle(readyOf(primary.members), ++primary.seq, cycle, isStopped).then(done, (err) => {
      primary.log.problem(`emit cycle ${cycle.name}#${cycle.id} across the workers failed`, err);
      done(null);
    });
  };
}

// /status's counts for the whole server: each worker's open requests, refused bodies and cut streams, summed.
function sumCounts(counts) {
  const requests = { open: 0, comet: 0, poll: 0, sse: 0, ws: 0 };
  const bodies = { late: 0, refused: 0 };
  const streams = { dropped: 0 };
  for (const c of counts) {
    for (const key of Object.keys(requests)) requests[key] += Number(c[key]) || 0;
    for (const key of Object.keys(bodies)) bodies[key] += Number(c.bodies && c.bodies[key]) || 0;
    for (const key of Object.keys(streams)) streams[key] += Number(c.streams && c.streams[key]) || 0;
  }
  return { requests, bodies, streams };
}

// The control calls a worker passes on (app.js's): each acts on the primary's emitters and on every worker.
function primaryControl({ events, log, members }) {
  return {
    set: ({ name, frequency }) => events.set(name, frequency),
    publish: ({ name, data }) => events.publish(name, data),
    remove: ({ name }) => {
      const removed = events.remove(name);
      if (removed) tellAll(members, 'stopCycles', { name });
      return removed;
    },
    clear: async () => {
      const stopped = events.clear();
      tellAll(members, 'stopCycles', {});
      const completed = await callAll(members, 'completeAll', { reason: 'clear' });
      return { events: stopped, requests: sum(completed) };
    },
    logging: async ({ enabled }) => {
      if (enabled !== log.enabled) log.info(`logging ${enabled ? 'on' : 'off'} (all workers)`);
      log.setEnabled(enabled);
      await callAll(members, 'logging', { enabled });
      return log.enabled;
    },
    status: async () => {
      const { requests, bodies, streams } = sumCounts(await callAll(members, 'counts'));
      return { requests, logging: log.enabled, events: events.status(), bodies, streams };
    },
  };
}

// A worker's channel answers the control calls, 'ready' (it listens) and 'open' (its count, relayed later).
function memberHandlers(primary, member, control) {
  const { members, workers, port, log } = primary;
  return {
    ...control,
    ready() {
      member.ready = true;
      if (readyOf(members).length === workers) log.info(`all ${workers} workers listening on port ${port}`);
    },
    open({ open }) {
      member.open = open;
      primary.relayDue = true;
    },
  };
}

// Forks worker index + 1 and returns its member; onExit(member, code, signal) runs when it exits.
function forkMember(primary, index, control, onExit) {
  const worker = cluster.fork({ PB_NODE_CLUSTER_WORKER: String(index + 1) });
  const member = { index, worker, ready: false, gone: false, open: 0 };
  member.channel = createChannel({
    send: (message) => {
      try {
        if (worker.isConnected()) worker.send(message);
      } catch { /* the worker is gone: its 'exit' handles it */ }
    },
    log: primary.log,
    handlers: memberHandlers(primary, member, control),
  });
  worker.on('message', (message) => member.channel.receive(message));
  worker.on('exit', (code, signal) => {
    member.gone = true;
    member.channel.close(`worker ${index + 1} exited`);
    onExit(member, code, signal);
  });
  return member;
}

// An exit during shutdown is expected (the last ends the primary); any other stops the server with its status.
function onWorkerExit(primary, member, code, signal) {
  const { members, log } = primary;
  if (primary.stopping) {
    if (members.every((m) => m.gone)) process.exit(process.exitCode || 0);
    return;
  }
  const status = exitStatusOf(code, signal);
  const { index, worker } = member;
  log.problem(`worker ${index + 1} (pid ${worker.process.pid}) exited (${signal || `code ${code}`}); ` +
    `the server stops with status ${status}`);
  shutdown(primary, 'worker exit', status);
}

// Every RELAY_MS, when an open count changed, each ready worker learns how many requests the others hold.
function startRelay(primary) {
  const relay = setInterval(() => {
    if (!primary.relayDue) return;
    primary.relayDue = false;
    const total = sum(primary.members.map((m) => m.open));
    for (const m of readyOf(primary.members)) m.channel.tell('elsewhere', { open: total - m.open });
  }, RELAY_MS);
  relay.unref();
}

// Stops the server once: emitters stop, workers are told to, any left after SHUTDOWN_WAIT_MS is killed.
function shutdown(primary, reason, status = 0) {
  const { members, events, log } = primary;
  if (primary.stopping) return;
  primary.stopping = true;
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

// The node-cluster server: the primary's state, its emitters and control, then the workers forked on port.
function runPrimary({ port, workers, log }) {
  // seq: the last emit cycle's id; relayDue: an open count changed since the last relay.
  const primary = { port, workers, log, members: [], seq: 0, stopping: false, relayDue: false, events: null };
  primary.events = new EventManager({ pool: null, log, runner: clusterRunner(primary) });
  const control = primaryControl(primary);
  startRelay(primary);

  process.on('SIGTERM', () => shutdown(primary, 'SIGTERM'));
  process.on('SIGINT', () => shutdown(primary, 'SIGINT'));
  process.on('uncaughtException', (err) => log.problem('uncaught exception', err));
  process.on('unhandledRejection', (err) => log.problem('unhandled rejection', err));

  cluster.setupPrimary({ exec: path.join(__dirname, 'server.js'), args: [String(port)] });
  log.info(`pushbench node-cluster primary (pid ${process.pid}) on port ${port}: forking ${workers} workers`);
  const onExit = (member, code, signal) => onWorkerExit(primary, member, code, signal);
  for (let i = 0; i < workers; i++) primary.members.push(forkMember(primary, i, control, onExit));
  log.info(`worker pids: ${primary.members.map((m) => m.worker.process.pid).join(' ')}`);
}

module.exports = { runPrimary, exitStatusOf, blockOffsets, sumCounts };
