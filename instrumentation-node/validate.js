'use strict';
// Input rules of docs/protocol.md. Each validator returns { value } or { problem: "<what was wrong>" };
// the caller turns a problem into a 400. Messages avoid echoing client text verbatim into logs unbounded.
// The streams of issue #38 (docs/protocol.md "Server-Sent Events" and "WebSocket") are checked here too:
// an SSE subscription in the query of GET /request, its Last-Event-ID, a WebSocket's first message.

const NAME = /^[A-Za-z0-9_-]{1,64}$/;
const MAX_EVENTS = 16;
const FREQUENCY = { min: 10, max: 3600000 };
const DURATION = { min: 1, max: 3600000 };
const CYCLE = { min: 0, max: Number.MAX_SAFE_INTEGER };   // a pull cursor's last cycle id per name
const TYPES = ['comet', 'poll', 'pull'];   // POST /request
// Where each transport is asked for, for the refusal of a type sent the wrong way.
const ASKED = {
  comet: 'POST /request', poll: 'POST /request', pull: 'POST /request',
  sse: 'GET /request?type=sse&events=<names>', ws: 'a WebSocket upgrade of GET /request',
};
const wrongWay = (type) => `type ${type} is ${ASKED[type]}`;

const isObject = (v) => v !== null && typeof v === 'object' && !Array.isArray(v);
const inRange = (v, { min, max }) => Number.isSafeInteger(v) && v >= min && v <= max;

function checkName(name, field = 'name') {
  if (typeof name !== 'string') return `${field} must be a string`;
  if (!NAME.test(name)) return `${field} must be 1-64 characters of A-Z a-z 0-9 _ -`;
  return null;
}

function logging(body) {
  if (!isObject(body)) return { problem: 'body must be a JSON object' };
  if (typeof body.enabled !== 'boolean') return { problem: 'enabled must be true or false' };
  return { value: { enabled: body.enabled } };
}

function eventSet(body) {
  if (!isObject(body)) return { problem: 'body must be a JSON object' };
  const bad = checkName(body.name);
  if (bad) return { problem: bad };
  if (!inRange(body.frequency, FREQUENCY)) {
    return { problem: `frequency must be an integer from ${FREQUENCY.min} to ${FREQUENCY.max} ms` };
  }
  return { value: { name: body.name, frequency: body.frequency } };
}

function eventRemove(body) {
  if (!isObject(body)) return { problem: 'body must be a JSON object' };
  const bad = checkName(body.name);
  if (bad) return { problem: bad };
  return { value: { name: body.name } };
}

// POST /event/publish: { name, data? }; data any JSON value (the body's size bounds it). Value: { name, data }
// with data undefined when absent.
function eventPublish(body) {
  if (!isObject(body)) return { problem: 'body must be a JSON object' };
  const bad = checkName(body.name);
  if (bad) return { problem: bad };
  return { value: { name: body.name, data: body.data } };
}

// /event/clear takes an empty body or an object (whose content is ignored).
function eventClear(body) {
  if (body !== undefined && !isObject(body)) return { problem: 'body must be empty or a JSON object' };
  return { value: {} };
}

// Returns the request as the server parsed it: { type, events, duration? } (the record's `request` echo).
function pushRequest(body) {
  return subscription(body, TYPES, 'type must be "comet", "poll" or "pull"');
}

// A WebSocket's first message (docs/protocol.md "WebSocket"): { type: "ws", events, cursor? }, echoed as parsed.
function wsSubscription(body) {
  return subscription(body, ['ws'], 'this connection is a WebSocket: type must be "ws"');
}

// The rules shared by every subscription sent as JSON: `types` the types taken here, `unknown` the
// message for any other type (one taken elsewhere also says where it is asked for).
function subscription(body, types, unknown) {
  if (!isObject(body)) return { problem: 'body must be a JSON object' };
  const { type, duration } = body;
  if (!types.includes(type)) {
    const elsewhere = typeof type === 'string' && Object.prototype.hasOwnProperty.call(ASKED, type);
    return { problem: elsewhere ? `${unknown} (${wrongWay(type)})` : unknown };
  }
  const events = eventList(body.events);
  if (events.problem) return events;
  const value = { type, events: events.value };
  if (type === 'poll') {
    if (!inRange(duration, DURATION)) {
      return { problem: `duration must be an integer from ${DURATION.min} to ${DURATION.max} ms` };
    }
    value.duration = duration;
  } else if (inRange(duration, DURATION)) {
    // Only a poll is held for a duration, so it is ignored elsewhere and never a reason to reject (a load
    // plan may send a placeholder); a well-formed one is echoed, as "the request as parsed".
    value.duration = duration;
  }
  if ((type === 'pull' || type === 'ws') && body.cursor !== undefined) {
    const cursor = pullCursor(body.cursor);
    if (cursor.problem) return cursor;
    value.cursor = cursor.value;
  }
  return { value };
}

function eventList(events) {
  if (!Array.isArray(events)) return { problem: 'events must be an array of event names' };
  if (events.length > MAX_EVENTS) return { problem: `events may hold at most ${MAX_EVENTS} names` };
  for (const name of events) {
    const bad = checkName(name, 'each event name');
    if (bad) return { problem: bad };
  }
  return { value: events.slice() };
}

// GET /request's query (URLSearchParams) as an SSE subscription: type=sse once, events once (a comma-
// separated list of 0-16 names, empty for none). Other parameters are ignored. Echo: { type, events }.
function sseQuery(params) {
  const types = params.getAll('type');
  if (types.length !== 1) return { problem: 'GET /request takes one type=sse (comet, poll and pull are POST /request)' };
  const [type] = types;
  if (type !== 'sse') {
    const elsewhere = Object.prototype.hasOwnProperty.call(ASKED, type);
    return { problem: elsewhere ? wrongWay(type) : 'unknown transport: GET /request takes type=sse' };
  }
  const lists = params.getAll('events');
  if (lists.length !== 1) return { problem: 'events must be given once: a comma-separated list of event names' };
  const events = eventList(lists[0] === '' ? [] : lists[0].split(','));
  if (events.problem) return events;
  return { value: { type, events: events.value } };
}

// A Last-Event-ID header (an SSE stream's id: "name:cycle" pairs joined by ",") as a cursor, the shape a
// pull's and a WebSocket's cursor have. Absent or empty: { value: null }.
const CURSOR_PAIR = /^([A-Za-z0-9_-]{1,64}):(0|[1-9]\d{0,15})$/;
function lastEventId(header) {
  if (header === undefined || header === '') return { value: null };
  const pairs = String(header).split(',');
  if (pairs.length > MAX_EVENTS) return { problem: `Last-Event-ID may name at most ${MAX_EVENTS} events` };
  const value = Object.create(null);   // names are client text: "__proto__" must stay a plain key
  for (const pair of pairs) {
    const match = CURSOR_PAIR.exec(pair.trim());
    if (!match || !inRange(Number(match[2]), CYCLE) || Object.prototype.hasOwnProperty.call(value, match[1])) {
      return { problem: 'Last-Event-ID must be the id of an event of this server: name:cycle pairs joined by ","' };
    }
    value[match[1]] = Number(match[2]);
  }
  return { value };
}

// A pull's cursor: { "<event name>": <last cycle id received>, ... }, at most MAX_EVENTS names.
function pullCursor(cursor) {
  if (!isObject(cursor)) return { problem: 'cursor must be an object of event name -> cycle id' };
  const names = Object.keys(cursor);
  if (names.length > MAX_EVENTS) return { problem: `cursor may hold at most ${MAX_EVENTS} names` };
  const value = Object.create(null);   // names are client text: "__proto__" must stay a plain key
  for (const name of names) {
    const bad = checkName(name, 'each cursor name');
    if (bad) return { problem: bad };
    if (!inRange(cursor[name], CYCLE)) return { problem: 'each cursor value must be a cycle id, an integer >= 0' };
    value[name] = cursor[name];
  }
  return { value };
}

module.exports = {
  logging, eventSet, eventRemove, eventPublish, eventClear, pushRequest, wsSubscription, sseQuery, lastEventId,
  NAME, MAX_EVENTS, FREQUENCY, DURATION,
};
