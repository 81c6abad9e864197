'use strict';
const { RequestPool } = require('../request-pool');
const { EventManager } = require('../event-manager');
const { PushRequest } = require('../push-request');
const { createLog } = require('../log');
const { FakeResponse } = require('./fake-response');

const quietLog = () => createLog({ write() {} });

// A pool + event manager whose cycle ends can be awaited: `await world.cycleEnd("name", id)`.
function createWorld({ batchSize } = {}) {
  const log = quietLog();
  const pool = new RequestPool();
  const waiters = [];
  const onCycleEnd = (emitter, cycle) => {
    for (const waiter of waiters.slice()) {
      if (waiter.name === emitter.name && cycle.id >= waiter.id) {
        waiters.splice(waiters.indexOf(waiter), 1);
        waiter.resolve(cycle);
      }
    }
  };
  const events = new EventManager({ pool, log, batchSize, onCycleEnd });
  const cycleEnd = (name, id, timeoutMs = 5000) => new Promise((resolve, reject) => {
    const timer = setTimeout(() => reject(new Error(`cycle ${name}#${id} did not end in ${timeoutMs} ms`)), timeoutMs);
    waiters.push({ name, id, resolve: (c) => { clearTimeout(timer); resolve(c); } });
  });
  const open = (echo) => {
    const res = new FakeResponse();
    const request = new PushRequest({ echo, res, pool, log });
    request.open();
    return { request, res };
  };
  return { log, pool, events, cycleEnd, open };
}

const sleep = (ms) => new Promise((resolve) => setTimeout(resolve, ms));

module.exports = { createWorld, quietLog, sleep };
