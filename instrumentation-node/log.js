'use strict';
// The server's own log. Per-request logging is off by default (the protocol's log manager switches it),
// because writing a line per record at 15k connections would itself be the bottleneck under test.
// Lifecycle lines (listening, shutdown) and unexpected failures are always written.

function createLog(stream = process.stderr) {
  let enabled = false;
  const stamp = () => new Date().toISOString();
  return {
    get enabled() { return enabled; },
    setEnabled(value) { enabled = value === true; },
    // Per-request / per-record / per-cycle detail: only when logging is on.
    debug(message) { if (enabled) stream.write(`${stamp()} ${message}\n`); },
    // Always written.
    info(message) { stream.write(`${stamp()} ${message}\n`); },
    problem(message, err) {
      const detail = err && err.stack ? ` ${err.stack}` : err ? ` ${err}` : '';
      stream.write(`${stamp()} PROBLEM ${message}${detail}\n`);
    },
  };
}

module.exports = { createLog };
