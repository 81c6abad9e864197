'use strict';
// The protocol's four managers (time stamper, log manager, event manager, request manager) plus /status,
// wired to their routes. server.js owns the HTTP server; this file owns the state. The request manager
// also holds the SSE (GET /request) and WebSocket (upgrade) streams of issue #38 (sse.js, websocket.js).
//
// The event manager, the log switch and /status act through a `control`: by default this process's own
// emitters and pool; on a node-cluster worker the primary's (cluster-worker.js), which acts on every worker.

const { RequestPool } = require('./request-pool');
const { EventManager } = require('./event-manager');
const { PushRequest } = require('./push-request');
const { PullHistory, pullRecord } = require('./pull');
const { localRunner } = require('./emitter');
const { createRouter } = require('./router');
const { createSseHandler } = require('./sse');
const { createWebSocketTransport } = require('./websocket');
const { DEFAULT_REPLAY_CYCLES, DEFAULT_BACKLOG_BYTES } = require('./stream-request');
const { errorBody } = require('./records');
const validate = require('./validate');

const bad = (message) => ({ status: 400, body: errorBody(400, message) });

// The emitters' runner: every cycle started is kept for pulls (pull.js), then written to this process's pool.
function recordingRunner({ pool, log, batchSize, history }) {
  const writeToPool = localRunner({ pool, log, batchSize });
  return (cycle, isStopped, done) => {
    history.record(cycle);
    writeToPool(cycle, isStopped, done);
  };
}

// Completes every open request of pool with a clear record (reason); returns how many.
function completeAll(pool, log, reason) {
  let completed = 0;
  for (const request of pool.all()) {
    try {
      if (request.clear(reason)) completed++;
    } catch (err) {
      log.problem(`completing a request (${reason}) failed`, err);
      request.markDone();
    }
  }
  return completed;
}

// This process alone acts and counts (a cluster worker's control, cluster-worker.js, returns promises).
function localControl({ events, pool, log, bodies, streams }) {
  return {
    set: (name, frequency) => events.set(name, frequency),
    remove: (name) => events.remove(name),
    publish: (name, data) => events.publish(name, data),
    clear: () => ({ events: events.clear(), requests: completeAll(pool, log, 'clear') }),
    logging: (enabled) => {
      if (enabled !== log.enabled) log.info(`logging ${enabled ? 'on' : 'off'}`);
      log.setEnabled(enabled);
      return log.enabled;
    },
    status: () => ({ requests: pool.counts(), logging: log.enabled, events: events.status(), bodies: { ...bodies },
      streams: { ...streams } }),
  };
}

// ---- the routes: each takes what it acts on and the parsed request, and returns the answer ----------------

// GET /timestamp: the server's clock, with ?client= echoed when it is an integer of at most 16 digits.
function timestamp({ url }) {
  const raw = url.searchParams.get('client');
  const client = raw !== null && /^-?\d{1,16}$/.test(raw) ? Number(raw) : null;
  return { status: 200, body: { timestamp: { client, server: Date.now() } } };
}

// POST /logging: switches the log through control; answers the state it is in now.
async function logging(control, { body }) {
  const checked = validate.logging(body);
  if (checked.problem) return bad(checked.problem);
  const enabled = await control.logging(checked.value.enabled);
  return { status: 200, body: { logging: { enabled } } };
}

// POST /event/set: starts or changes an emitter; 409 when events.maxEmitters exist already.
async function eventSet({ control, log, events }, { body }) {
  const checked = validate.eventSet(body);
  if (checked.problem) return bad(checked.problem);
  const { name, frequency } = checked.value;
  const state = await control.set(name, frequency);
  if (state === 'full') {
    return { status: 409, body: errorBody(409, `too many event emitters: at most ${events.maxEmitters} at once (PB_MAX_EMITTERS); remove or clear one first`) };
  }
  log.debug(`event ${name} ${state} every ${frequency} ms`);
  return { status: 200, body: { event: { name, frequency, state } } };
}

// POST /event/remove: stops the emitter of that name; 404 when there is none.
async function eventRemove({ control, log }, { body }) {
  const checked = validate.eventRemove(body);
  if (checked.problem) return bad(checked.problem);
  const { name } = checked.value;
  if (!(await control.remove(name))) return { status: 404, body: errorBody(404, 'no event with that name') };
  log.debug(`event ${name} removed`);
  return { status: 200, body: { event: { name, state: 'removed' } } };
}

// POST /event/publish: runs one emit cycle of that name now (no emitter created); answers its cycle id.
async function eventPublish({ control, log }, { body }) {
  const checked = validate.eventPublish(body);
  if (checked.problem) return bad(checked.problem);
  const { name, data } = checked.value;
  const cycle = await control.publish(name, data);
  log.debug(`event ${name} published as cycle ${cycle}`);
  return { status: 200, body: { event: { name, cycle, published: true } } };
}

// POST /event/clear: stops every emitter and completes every open request; answers how many of each.
async function eventClear({ control, log }, { body }) {
  const checked = validate.eventClear(body);
  if (checked.problem) return bad(checked.problem);
  const cleared = await control.clear();
  log.debug(`clear: ${cleared.events} events stopped, ${cleared.requests} requests completed`);
  return { status: 200, body: { clear: { events: cleared.events, requests: cleared.requests } } };
}

// POST /request: a pull is answered from history at once; any other is held in the pool (null: answered later).
function request({ pool, log, history }, { req, res, body }) {
  const created = Date.now();
  const checked = validate.pushRequest(body);
  if (checked.problem) return bad(checked.problem);
  if (checked.value.type === 'pull') return { status: 200, body: pullRecord(history, checked.value, created, pool.size) };
  // A client that left while its body was read already had its 'close': it must not join the pool.
  // (The request's socket, not the response's: a pipelined request's response has no socket yet.)
  if (req.socket.destroyed) return null;
  const held = new PushRequest({ echo: checked.value, res, pool, log, created });
  // 'close' fires when the response is done or the connection is gone; only the latter finds it open.
  res.on('close', () => held.vanish());
  held.open();
  return null;
}

// GET /status: the control's counts (the whole server's on a cluster worker).
async function status(control) {
  return { status: 200, body: await control.status() };
}

// The protocol's routes (router.js's table) bound to this app's state; stream: what an SSE stream needs.
function protocolRoutes({ control, events, log, pool, history, stream }) {
  const acting = { control, log, events };
  return {
    '/timestamp': { GET: timestamp },
    '/logging': { POST: (input) => logging(control, input) },
    '/event/set': { POST: (input) => eventSet(acting, input) },
    '/event/remove': { POST: (input) => eventRemove(acting, input) },
    '/event/publish': { POST: (input) => eventPublish(acting, input) },
    '/event/clear': { POST: (input) => eventClear(acting, input) },
    '/request': { POST: (input) => request({ pool, log, history }, input), GET: createSseHandler(stream) },
    '/status': { GET: () => status(control) },
  };
}

// One server process's state (pool, emitters, pull history, /status counts), its dispatch and upgrade.
//
// bodyDeadlineMs: a POST body (and a WebSocket's subscription) must arrive whole within it (docs/protocol.md,
// "Request bodies"); replayCycles: N, the cycles per name a resumed stream may get again; backlogBytes: the
// unsent bytes at which a stream whose client does not read is cut (docs/protocol.md, issue #38 sections).
function createApp({ log, batchSize, onCycleEnd, cluster = null, bodyDeadlineMs = Infinity,
  replayCycles = DEFAULT_REPLAY_CYCLES, backlogBytes = DEFAULT_BACKLOG_BYTES } = {}) {
  const pool = new RequestPool();
  // Requests refused for their body, for /status: late (408); refused (503) never happens on Node, whose
  // event loop waits for no body.
  const bodies = { late: 0, refused: 0 };
  // SSE and WebSocket streams cut because their client did not read, for /status.
  const streams = { dropped: 0 };
  // Every cycle started is kept for pulls (pull.js); node-cluster's workers record the primary's cycles.
  const history = new PullHistory();
  const runner = recordingRunner({ pool, log, batchSize, history });
  const events = new EventManager({ pool, log, batchSize, onCycleEnd, runner });
  const control = cluster ? cluster.control : localControl({ events, pool, log, bodies, streams });

  const onLate = () => { bodies.late++; };
  const stream = { pool, history, log, replayCycles, backlogBytes, onDropped: () => { streams.dropped++; } };
  const routes = protocolRoutes({ control, events, log, pool, history, stream });
  const dispatch = createRouter(routes, { bodyDeadlineMs, onLate });
  const { upgrade } = createWebSocketTransport({ ...stream, paths: Object.keys(routes), bodyDeadlineMs, onLate });

  const completeAllHere = (reason) => completeAll(pool, log, reason);
  return { pool, events, history, log, dispatch, upgrade, completeAll: completeAllHere, bodies, streams };
}

module.exports = { createApp };
