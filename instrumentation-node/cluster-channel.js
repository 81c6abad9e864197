'use strict';
// node-cluster: calls and notices between the primary and one worker over Node's IPC channel
// (process.send / 'message'). Both ends use the same shape:
//   { pb: 'call', id, cmd, args }          a call; the other end answers with
//   { pb: 'reply', id, result | problem }  its handler's result (a handler may return a promise)
//   { pb: 'tell', cmd, args }              a notice, no answer
// Messages without `pb` belong to Node's cluster module and are left alone.

function createChannel({ send, handlers, log }) {
  const pending = new Map(); // id -> { resolve, reject }
  let nextId = 0;
  let closed = false;

  function call(cmd, args = {}) {
    if (closed) return Promise.reject(new Error(`channel closed (call ${cmd})`));
    const id = ++nextId;
    return new Promise((resolve, reject) => {
      pending.set(id, { resolve, reject });
      send({ pb: 'call', id, cmd, args });
    });
  }

  function tell(cmd, args = {}) {
    if (!closed) send({ pb: 'tell', cmd, args });
  }

  function handle(cmd, args) {
    const handler = Object.prototype.hasOwnProperty.call(handlers, cmd) ? handlers[cmd] : null;
    if (!handler) throw new Error(`unknown cluster command ${cmd}`);
    return handler(args);
  }

  // Feed every IPC message here; returns false for a message that is not ours.
  function receive(message) {
    if (!message || typeof message !== 'object' || !message.pb) return false;
    if (message.pb === 'reply') {
      const waiter = pending.get(message.id);
      pending.delete(message.id);
      if (waiter && message.problem !== undefined) waiter.reject(new Error(message.problem));
      else if (waiter) waiter.resolve(message.result);
    } else if (message.pb === 'call') {
      Promise.resolve()
        .then(() => handle(message.cmd, message.args))
        .then((result) => { if (!closed) send({ pb: 'reply', id: message.id, result }); },
          (err) => {
            log.problem(`cluster call ${message.cmd} failed`, err);
            if (!closed) send({ pb: 'reply', id: message.id, problem: String(err && err.message) });
          });
    } else if (message.pb === 'tell') {
      try {
        handle(message.cmd, message.args);
      } catch (err) {
        log.problem(`cluster notice ${message.cmd} failed`, err);
      }
    }
    return true;
  }

  // The other end is gone: every call still waiting fails.
  function close(reason) {
    closed = true;
    for (const waiter of pending.values()) waiter.reject(new Error(reason));
    pending.clear();
  }

  return { call, tell, receive, close };
}

module.exports = { createChannel };
