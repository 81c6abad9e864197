'use strict';
// Builders for the records of docs/protocol.md ("Records"). Field order follows the protocol's example.
// A normal record must never contain the substrings "error" or "timeout"; only the timeout record does.

function envelope(pushRequest, response, sent, finish) {
  return {
    response,
    request: pushRequest.echo,
    timings: { duration: sent - pushRequest.created, sent, created: pushRequest.created },
    connections: { start: pushRequest.start, finish },
  };
}

// cycle: { name, id, created } of the emit cycle; place is 1-based in the cycle's snapshot of `total`.
function eventRecord(pushRequest, cycle, place, total, sent, finish) {
  const event = {
    name: cycle.name,
    cycle: cycle.id,
    timings: { duration: sent - cycle.created, sent, created: cycle.created },
    connections: { total, place },
  };
  return envelope(pushRequest, { event }, sent, finish);
}

function timeoutRecord(pushRequest, sent, finish) {
  return envelope(pushRequest, { timeout: { duration: pushRequest.echo.duration } }, sent, finish);
}

// reason: "clear" (POST /event/clear) or "shutdown" (SIGTERM).
function clearRecord(pushRequest, reason, sent, finish) {
  return envelope(pushRequest, { clear: { reason } }, sent, finish);
}

function errorBody(status, message) {
  return { error: { status, message } };
}

module.exports = { eventRecord, timeoutRecord, clearRecord, errorBody };
