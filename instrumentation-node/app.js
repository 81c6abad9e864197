'use strict';
// The protocol's four managers (time stamper, log manager, event manager, request manager) plus /status,
// wired to their routes. server.js owns the HTTP server; this file owns the state.

const { RequestPool } = require('./request-pool');
const { EventManager } = require('./event-manager');
const { PushRequest } = require('./push-request');
const { createRouter } = require('./router');
const { errorBody } = require('./records');
const validate = require('./validate');

const bad = (message) => ({ status: 400, body: errorBody(400, message) });

function createApp({ log, batchSize, onCycleEnd } = {}) {
  const pool = new RequestPool();
  const events = new EventManager({ pool, log, batchSize, onCycleEnd });

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

  function timestamp({ url }) {
    const raw = url.searchParams.get('client');
    const client = raw !== null && /^-?\d{1,16}$/.test(raw) ? Number(raw) : null;
    return { status: 200, body: { timestamp: { client, server: Date.now() } } };
  }

  function logging({ body }) {
    const checked = validate.logging(body);
    if (checked.problem) return bad(checked.problem);
    if (checked.value.enabled !== log.enabled) log.info(`logging ${checked.value.enabled ? 'on' : 'off'}`);
    log.setEnabled(checked.value.enabled);
    return { status: 200, body: { logging: { enabled: log.enabled } } };
  }

  function eventSet({ body }) {
    const checked = validate.eventSet(body);
    if (checked.problem) return bad(checked.problem);
    const { name, frequency } = checked.value;
    const state = events.set(name, frequency);
    log.debug(`event ${name} ${state} every ${frequency} ms`);
    return { status: 200, body: { event: { name, frequency, state } } };
  }

  function eventRemove({ body }) {
    const checked = validate.eventRemove(body);
    if (checked.problem) return bad(checked.problem);
    const { name } = checked.value;
    if (!events.remove(name)) return { status: 404, body: errorBody(404, 'no event with that name') };
    log.debug(`event ${name} removed`);
    return { status: 200, body: { event: { name, state: 'removed' } } };
  }

  function eventClear({ body }) {
    const checked = validate.eventClear(body);
    if (checked.problem) return bad(checked.problem);
    const stopped = events.clear();
    const completed = completeAll('clear');
    log.debug(`clear: ${stopped} events stopped, ${completed} requests completed`);
    return { status: 200, body: { clear: { events: stopped, requests: completed } } };
  }

  function request({ req, res, body }) {
    const created = Date.now();
    const checked = validate.pushRequest(body);
    if (checked.problem) return bad(checked.problem);
    // A client that left while its body was read already had its 'close': it must not join the pool.
    // (The request's socket, not the response's: a pipelined request's response has no socket yet.)
    if (req.socket.destroyed) return null;
    const held = new PushRequest({ echo: checked.value, res, pool, log, created });
    // 'close' fires when the response is done or the connection is gone; only the latter finds it open.
    res.on('close', () => held.vanish());
    held.open();
    return null;
  }

  function status() {
    return {
      status: 200,
      body: { requests: pool.counts(), logging: log.enabled, events: events.status() },
    };
  }

  const dispatch = createRouter({
    '/timestamp': { GET: timestamp },
    '/logging': { POST: logging },
    '/event/set': { POST: eventSet },
    '/event/remove': { POST: eventRemove },
    '/event/clear': { POST: eventClear },
    '/request': { POST: request },
    '/status': { GET: status },
  });

  return { pool, events, log, dispatch, completeAll };
}

module.exports = { createApp };
