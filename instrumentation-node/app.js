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
  const writeToPool = localRunner({ pool, log, batchSize });
  const runner = (cycle, isStopped, done) => {
    history.record(cycle);
    writeToPool(cycle, isStopped, done);
  };
  const events = new EventManager({ pool, log, batchSize, onCycleEnd, runner });

  // Completes every open request with a clear record; returns how many.
  function completeAll(reason) {
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

  // This process alone: every method may also return a promise (a cluster worker's control does).
  const localControl = {
    set: (name, frequency) => events.set(name, frequency),
    remove: (name) => events.remove(name),
    clear: () => ({ events: events.clear(), requests: completeAll('clear') }),
    logging: (enabled) => {
      if (enabled !== log.enabled) log.info(`logging ${enabled ? 'on' : 'off'}`);
      log.setEnabled(enabled);
      return log.enabled;
    },
    status: () => ({ requests: pool.counts(), logging: log.enabled, events: events.status(), bodies: { ...bodies },
      streams: { ...streams } }),
  };
  const control = cluster ? cluster.control : localControl;

  function timestamp({ url }) {
    const raw = url.searchParams.get('client');
    const client = raw !== null && /^-?\d{1,16}$/.test(raw) ? Number(raw) : null;
    return { status: 200, body: { timestamp: { client, server: Date.now() } } };
  }

  async function logging({ body }) {
    const checked = validate.logging(body);
    if (checked.problem) return bad(checked.problem);
    const enabled = await control.logging(checked.value.enabled);
    return { status: 200, body: { logging: { enabled } } };
  }

  async function eventSet({ body }) {
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

  async function eventRemove({ body }) {
    const checked = validate.eventRemove(body);
    if (checked.problem) return bad(checked.problem);
    const { name } = checked.value;
    if (!(await control.remove(name))) return { status: 404, body: errorBody(404, 'no event with that name') };
    log.debug(`event ${name} removed`);
    return { status: 200, body: { event: { name, state: 'removed' } } };
  }

  async function eventClear({ body }) {
    const checked = validate.eventClear(body);
    if (checked.problem) return bad(checked.problem);
    const cleared = await control.clear();
    log.debug(`clear: ${cleared.events} events stopped, ${cleared.requests} requests completed`);
    return { status: 200, body: { clear: { events: cleared.events, requests: cleared.requests } } };
  }

  function request({ req, res, body }) {
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

  async function status() {
    return { status: 200, body: await control.status() };
  }

  const onLate = () => { bodies.late++; };
  const stream = { pool, history, log, replayCycles, backlogBytes, onDropped: () => { streams.dropped++; } };
  const routes = {
    '/timestamp': { GET: timestamp },
    '/logging': { POST: logging },
    '/event/set': { POST: eventSet },
    '/event/remove': { POST: eventRemove },
    '/event/clear': { POST: eventClear },
    '/request': { POST: request, GET: createSseHandler(stream) },
    '/status': { GET: status },
  };
  const dispatch = createRouter(routes, { bodyDeadlineMs, onLate });
  const { upgrade } = createWebSocketTransport({ ...stream, paths: Object.keys(routes), bodyDeadlineMs, onLate });

  return { pool, events, history, log, dispatch, upgrade, completeAll, bodies, streams };
}

module.exports = { createApp };
