'use strict';
// Input rules of docs/protocol.md. Each validator returns { value } or { problem: "<what was wrong>" };
// the caller turns a problem into a 400. Messages avoid echoing client text verbatim into logs unbounded.

const NAME = /^[A-Za-z0-9_-]{1,64}$/;
const MAX_EVENTS = 16;
const FREQUENCY = { min: 10, max: 3600000 };
const DURATION = { min: 1, max: 3600000 };
const CYCLE = { min: 0, max: Number.MAX_SAFE_INTEGER };   // a pull cursor's last cycle id per name
const TYPES = ['comet', 'poll', 'pull'];

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

// /event/clear takes an empty body or an object (whose content is ignored).
function eventClear(body) {
  if (body !== undefined && !isObject(body)) return { problem: 'body must be empty or a JSON object' };
  return { value: {} };
}

// Returns the request as the server parsed it: { type, events, duration? } (the record's `request` echo).
function pushRequest(body) {
  if (!isObject(body)) return { problem: 'body must be a JSON object' };
  const { type, events, duration } = body;
  if (!TYPES.includes(type)) return { problem: 'type must be "comet", "poll" or "pull"' };
  if (!Array.isArray(events)) return { problem: 'events must be an array of event names' };
  if (events.length > MAX_EVENTS) return { problem: `events may hold at most ${MAX_EVENTS} names` };
  for (const name of events) {
    const bad = checkName(name, 'each event name');
    if (bad) return { problem: bad };
  }
  const value = { type, events: events.slice() };
  if (type === 'poll') {
    if (!inRange(duration, DURATION)) {
      return { problem: `duration must be an integer from ${DURATION.min} to ${DURATION.max} ms` };
    }
    value.duration = duration;
  } else if (inRange(duration, DURATION)) {
    // Comet and pull have no maximum hold, so duration is ignored and never a reason to reject (a load plan may send
    // a placeholder); a well-formed one is echoed, as "the request as parsed".
    value.duration = duration;
  }
  if (type === 'pull' && body.cursor !== undefined) {
    const cursor = pullCursor(body.cursor);
    if (cursor.problem) return cursor;
    value.cursor = cursor.value;
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

module.exports = { logging, eventSet, eventRemove, eventClear, pushRequest, NAME, MAX_EVENTS, FREQUENCY, DURATION };
