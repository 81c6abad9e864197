'use strict';
// The run schema (issue #37 item 1): a run's parameters, one name each, its unit in the name or stated
// here. run.json (lib/runjson.sh), `run.sh --plan`, the sweep, the analysis and the reports use these
// names; docs/run-layout.md shows the JSON and docs/architecture.md the name table.
//
// This module is also the read boundary: runs written before the schema (run.json with "threads",
// "rampup", "duration", "maxDuration", "interval", "pullInterval", engines[].threads; data/summary.json
// whose "parameters" copied them) are read through it and come out in the new names. Old files are
// never rewritten. Nothing else in the repository reads the old names.
//
//   runParameters(json)   the parameters of a run.json (old or new names) or of a summary's
//                         "parameters": { server, type, rampupS, durationS, connections, maxDurationMs,
//                         event, emitIntervalMs, pullIntervalMs, port, hosts }; throws a RunSchemaError
//                         naming a field that is missing, unknown, doubly named or of the wrong kind
//   summaryParameters(p)  a summary's "parameters" (old or new names) in the new names; unlike a run.json's,
//                         a required one may be null (the analysis of a run without a readable run.json)
//   runRecord(json)       the whole run.json in the new names: its parameters as above, every other field
//                         (id, provenance, startedAt, finishedAt, status, serverCrashed, steps, notes) kept
//   engineConnections(e)  an engine entry's share of the connections (engines[].connections, old: threads)

// name: the one name; old: the name a run.json before the schema used; unit; required: a run.json
// without it is refused; kind: what its value is (null allowed where `nullable`).
const PARAMETERS = [
  { name: 'server', old: 'server', unit: null, kind: 'string', required: true,
    about: 'the server under test: node, node-cluster, tc6, tc7, tc6-bio, tc7-bio' },
  { name: 'type', old: 'type', unit: null, kind: 'string', required: true,
    about: 'the test type, one of lib/test-types.js TEST_TYPES: comet, poll, pull, sse, ws' },
  { name: 'rampupS', old: 'rampup', unit: 's', kind: 'number', required: true,
    about: 'seconds to start all connections' },
  { name: 'durationS', old: 'duration', unit: 's', kind: 'number', required: true,
    about: 'seconds the load runs, the ramp-up included' },
  { name: 'connections', old: 'threads', unit: 'connections', kind: 'number', required: true,
    about: 'clients held at once, one JMeter thread each (the CLI\'s <threads>, JMeter\'s threads.num)' },
  { name: 'maxDurationMs', old: 'maxDuration', unit: 'ms', kind: 'number', nullable: true,
    about: 'how long a long poll is held at most; null when not given (always for sse)' },
  { name: 'event', old: 'event', unit: null, kind: 'string', nullable: true,
    about: 'the event emitter\'s name; null: no events' },
  { name: 'emitIntervalMs', old: 'interval', unit: 'ms', kind: 'number', nullable: true,
    about: 'ms between emit cycles (JMeter\'s event.frequency); null: no events' },
  { name: 'pullIntervalMs', old: 'pullInterval', unit: 'ms', kind: 'number', nullable: true,
    about: 'pull only: ms between one client\'s pulls; null otherwise' },
  { name: 'port', old: 'port', unit: null, kind: 'number', nullable: true,
    about: 'the server\'s TCP port (absent from the oldest runs: null)' },
  { name: 'hosts', old: 'hosts', unit: null, kind: 'object', nullable: true,
    about: '{ sut: {name, address, bind, access}, engines: [{name, address, access, rmi, connections, heapMb}] }' },
];

// Fields of run.json that are not parameters, kept as they are.
// target: a target run's record (docs/targets.md: name, file, sha256, transport, channels, rate, drainMs,
// subscribeUrl, publishUrl, host, port, monitored); absent for the built-in servers.
// thresholds: the run's thresholds as given (lib/thresholds.js); absent when none.
// tls: a built-in run over TLS (run.sh --tls): { front: 'nginx', port, ca: 'per run' }; absent otherwise.
const RECORD_FIELDS = ['id', 'provenance', 'startedAt', 'finishedAt', 'status', 'serverCrashed', 'steps', 'notes', 'target', 'thresholds', 'tls'];

const ENGINE_FIELDS = ['name', 'address', 'access', 'rmi', 'connections', 'heapMb'];

class RunSchemaError extends Error {
  constructor(message) { super(message); this.name = 'RunSchemaError'; }
}

const byNew = new Map(PARAMETERS.map((p) => [p.name, p]));
const byOld = new Map(PARAMETERS.filter((p) => p.old !== p.name).map((p) => [p.old, p]));

function kindOf(v) { return v === null ? 'null' : Array.isArray(v) ? 'array' : typeof v; }

function engineConnections(e) {
  if (!e || typeof e !== 'object') return undefined;
  return e.connections !== undefined ? e.connections : e.threads;
}

function translateHosts(hosts, where) {
  if (hosts === null || hosts === undefined) return null;
  if (kindOf(hosts) !== 'object') throw new RunSchemaError(`${where}: "hosts" must be an object, got ${kindOf(hosts)}`);
  const out = { ...hosts };
  if (hosts.engines !== undefined) {
    if (!Array.isArray(hosts.engines)) throw new RunSchemaError(`${where}: "hosts.engines" must be an array`);
    out.engines = hosts.engines.map((e, i) => {
      if (kindOf(e) !== 'object') throw new RunSchemaError(`${where}: hosts.engines[${i}] must be an object`);
      if (e.threads !== undefined && e.connections !== undefined) {
        throw new RunSchemaError(`${where}: hosts.engines[${i}] has both "connections" and its old name "threads"`);
      }
      const { threads, ...rest } = e;
      const unknown = Object.keys(rest).filter((k) => !ENGINE_FIELDS.includes(k));
      if (unknown.length) throw new RunSchemaError(`${where}: hosts.engines[${i}] has unknown field "${unknown[0]}"`);
      return threads !== undefined ? { ...rest, connections: threads } : rest;
    });
  }
  return out;
}

// Splits a parsed run.json (or a summary's parameters) into { params, rest } in the new names.
function translate(json, where, allowed, partial = false) {
  if (kindOf(json) !== 'object') throw new RunSchemaError(`${where}: expected a JSON object, got ${kindOf(json)}`);
  const params = {};
  const rest = {};
  for (const [key, value] of Object.entries(json)) {
    const p = byNew.get(key) ?? byOld.get(key);
    if (p) {
      if (Object.prototype.hasOwnProperty.call(params, p.name)) {
        throw new RunSchemaError(`${where}: "${p.name}" is given twice (also as its old name "${p.old}")`);
      }
      params[p.name] = value;
    } else if (allowed.includes(key)) {
      rest[key] = value;
    } else {
      throw new RunSchemaError(`${where}: unknown field "${key}" (the run schema, lib/run-schema.js, has no such field)`);
    }
  }
  for (const p of PARAMETERS) {
    const v = params[p.name];
    if (v === undefined || v === null) {
      if (p.required && !partial) throw new RunSchemaError(`${where}: the required field "${p.name}" (old name "${p.old}") is missing`);
      params[p.name] = null;
      continue;
    }
    if (p.name === 'hosts') { params.hosts = translateHosts(v, where); continue; }
    if (kindOf(v) !== p.kind) throw new RunSchemaError(`${where}: "${p.name}" must be a ${p.kind}, got ${JSON.stringify(v)}`);
  }
  // One order, the schema's, whatever the file's.
  return { params: Object.fromEntries(PARAMETERS.map((p) => [p.name, params[p.name]])), rest };
}

function runParameters(json, where = 'run.json') {
  return translate(json, where, RECORD_FIELDS).params;
}

// A summary's parameters (data/summary.json "parameters", old or new names): as runParameters, but a
// required field may be null or absent, as the analysis of a run without a readable run.json writes them.
function summaryParameters(json, where = 'data/summary.json parameters') {
  return translate(json, where, [], true).params;
}

function runRecord(json, where = 'run.json') {
  const { params, rest } = translate(json, where, RECORD_FIELDS);
  return { id: rest.id ?? null, ...params, ...rest };
}

module.exports = { PARAMETERS, RECORD_FIELDS, ENGINE_FIELDS, RunSchemaError, runParameters, summaryParameters, runRecord, engineConnections };
