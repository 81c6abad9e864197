'use strict';
// Builders for the records of docs/protocol.md ("Records"). Field order follows the protocol's example.
// A normal record must never contain the substrings "error" or "timeout"; only the timeout record does.
// The replay and gap records belong to the streams of issue #38 (docs/protocol.md "Replay and gaps").

// Every record's shape: what answered, the request as parsed, its timings and the open counts.
function recordEnvelope(echo, created, response, sent, start, finish) {
  return {
    response,
    request: echo,
    timings: { duration: sent - created, sent, created },
    connections: { start, finish },
  };
}

function envelope(pushRequest, response, sent, finish) {
  return recordEnvelope(pushRequest.echo, pushRequest.created, response, sent, pushRequest.start, finish);
}

// cycle: { name, id, created, data? } of the emit cycle (data: a publish's value, docs/protocol.md); place is 1-based in the cycle's snapshot of `total`.
function eventRecord(pushRequest, cycle, place, total, sent, finish) {
  const event = {
    name: cycle.name,
    cycle: cycle.id,
    ...(cycle.data === undefined ? {} : { data: cycle.data }),
    timings: { duration: sent - cycle.created, sent, created: cycle.created },
    connections: { total, place },
  };
  return envelope(pushRequest, { event }, sent, finish);
}

// The same event record as one NDJSON line, built from precomputed pieces: the hot path of an emit cycle
// (one line per held connection per cycle). Must stay byte-for-byte JSON.stringify(eventRecord(...)) + "\n"
// (test/records.test.js checks that). All numbers are integers, so plain concatenation prints them as JSON.
//
// cycleHead(cycle): once per cycle, the part before the event's timings.duration (with a published
// cycle's `data`, when it has one, after its id).
function cycleHead(cycle) {
  const data = cycle.data === undefined ? '' : `"data":${JSON.stringify(cycle.data)},`;
  return `{"response":{"event":{"name":${JSON.stringify(cycle.name)},"cycle":${cycle.id},${data}"timings":{"duration":`;
}

// requestMiddle(echo): once per request, what sits between the event's `place` and the request's
// timings.duration (closes the event, then the request echo).
function requestMiddle(echo) {
  return `}}},"request":${JSON.stringify(echo)},"timings":{"duration":`;
}

// head = cycleHead(cycle); middle = requestMiddle(pushRequest.echo). end: what follows the record (a comet
// line's "\n"; "" for the SSE and WebSocket framings, which add their own).
function eventLine(head, middle, pushRequest, cycle, place, total, sent, finish, end = '\n') {
  return head + (sent - cycle.created) + ',"sent":' + sent + ',"created":' + cycle.created +
    '},"connections":{"total":' + total + ',"place":' + place + middle + (sent - pushRequest.created) +
    ',"sent":' + sent + ',"created":' + pushRequest.created + '},"connections":{"start":' + pushRequest.start +
    ',"finish":' + finish + '}}' + end;
}

function timeoutRecord(pushRequest, sent, finish) {
  return envelope(pushRequest, { timeout: { duration: pushRequest.echo.duration } }, sent, finish);
}

// reason: "clear" (POST /event/clear) or "shutdown" (SIGTERM).
function clearRecord(pushRequest, reason, sent, finish) {
  return envelope(pushRequest, { clear: { reason } }, sent, finish);
}

// A cycle a resumed stream missed and the server still keeps: sent now, in no cycle's snapshot (so no
// `connections`), like a pull's event. kept: { id, created } of the cycle.
function replayRecord(pushRequest, name, kept, sent, finish) {
  const replay = { name, cycle: kept.id, timings: { duration: sent - kept.created, sent, created: kept.created } };
  return envelope(pushRequest, { replay }, sent, finish);
}

// Cycles from..to (inclusive) of `name` a resumed stream missed and the server no longer keeps.
function gapRecord(pushRequest, name, from, to, sent, finish) {
  return envelope(pushRequest, { gap: { name, from, to, skipped: to - from + 1 } }, sent, finish);
}

function errorBody(status, message) {
  return { error: { status, message } };
}

module.exports = {
  recordEnvelope, eventRecord, cycleHead, requestMiddle, eventLine, timeoutRecord, clearRecord, replayRecord, gapRecord,
  errorBody,
};
