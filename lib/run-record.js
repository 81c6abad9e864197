#!/usr/bin/env node
'use strict';
// run.json (docs/run-layout.md), written from the run state run.sh keeps (lib/runjson.sh gathers it):
// built as an object, checked against the run schema (lib/run-schema.js) and written whole or not at all
// (lib/atomic-write.js). No JSON is put together by hand in bash.
//
//   printf '%s\0' <field>=<value>... | node lib/run-record.js <run.json>
//
// The fields, NUL-separated on stdin (a note may hold any character but NUL):
//   id server type rampupS durationS connections maxDurationMs event emitIntervalMs pullIntervalMs port
//   startedAt finishedAt status serverCrashed (0|1) provenance (JSON text; unreadable: null)
//   sut=<name>,<address>,<bind>,<access>
//   engine=<name>,<address>,<access>,<rmi>,<connections>,<heapMb>   one per engine, in order
//   step=<name>=<ms>                                                one per step run, in order
//   note=<text>                                                     one per note, in order
//   threshold=<text>    one per threshold of the run (lib/thresholds.js), in order; none: no "thresholds"
//   target=<JSON>       a target run's record (lib/decide.js, docs/targets.md); absent for the built-in servers
//   tls=<JSON>          a built-in run over TLS (run.sh --tls): { front, port, ca } (lib/decide.js); absent otherwise
// A number or a string given empty is null. Exit 0 written; 1 not written, the old file kept (a full
// disk: the message on stderr); 2 a record the run schema refuses (naming the field) or a bad field.

const fs = require('node:fs');
const { writeFileAtomic } = require('./atomic-write');
const { runRecord, RunSchemaError } = require('./run-schema');

const NUMBERS = new Set(['rampupS', 'durationS', 'connections', 'maxDurationMs', 'emitIntervalMs', 'pullIntervalMs', 'port', 'startedAt', 'finishedAt']);
const STRINGS = new Set(['id', 'server', 'type', 'event', 'status']);

// A number field: empty is null, anything but a whole number is refused by name.
function number(key, v) {
  if (v === '' || v === undefined) return null;
  if (!/^-?[0-9]+$/.test(v)) throw new RunSchemaError(`"${key}" must be a whole number, got '${v}'`);
  return Number(v);
}

// The fields -> run.json's object, in the order docs/run-layout.md shows.
function record(fields) {
  const scalar = {};
  const engines = [];
  const steps = {};
  const notes = [];
  let sut = null;
  for (const f of fields) {
    const eq = f.indexOf('=');
    if (eq < 0) throw new RunSchemaError(`bad field '${f}' (expected <name>=<value>)`);
    const [key, value] = [f.slice(0, eq), f.slice(eq + 1)];
    if (key === 'note') notes.push(value);
    else if (key === 'step') {
      const at = value.lastIndexOf('=');
      steps[value.slice(0, at)] = number('steps', value.slice(at + 1));
    } else if (key === 'engine') {
      const [name, address, access, rmi, connections, heapMb] = value.split(',');
      engines.push({ name, address, access, rmi: number('rmi', rmi), connections: number('connections', connections), heapMb: number('heapMb', heapMb) });
    } else if (key === 'sut') {
      const [name, address, bind, access] = value.split(',');
      sut = { name, address, bind, access };
    } else if (NUMBERS.has(key)) scalar[key] = number(key, value);
    else if (STRINGS.has(key)) scalar[key] = value === '' ? null : value;
    else if (key === 'serverCrashed') scalar.serverCrashed = value === '1';
    else if (key === 'provenance') {
      try { scalar.provenance = JSON.parse(value); } catch { scalar.provenance = null; }
    } else if (key === 'threshold') {
      (scalar.thresholds ??= []).push(value);
    } else if (key === 'tls') {
      try { scalar.tls = JSON.parse(value); } catch { throw new RunSchemaError(`"tls" must be JSON, got '${value.slice(0, 80)}'`); }
    } else if (key === 'target') {
      try { scalar.target = JSON.parse(value); } catch { throw new RunSchemaError(`"target" must be JSON, got '${value.slice(0, 80)}'`); }
    } else throw new RunSchemaError(`unknown field '${key}'`);
  }
  const s = (k) => (scalar[k] === undefined ? null : scalar[k]);
  const json = {
    id: s('id'), server: s('server'), type: s('type'), rampupS: s('rampupS'), durationS: s('durationS'), connections: s('connections'),
    maxDurationMs: s('maxDurationMs'), event: s('event'), emitIntervalMs: s('emitIntervalMs'), pullIntervalMs: s('pullIntervalMs'),
    port: s('port'), hosts: { sut, engines },
    provenance: s('provenance'), startedAt: s('startedAt'), finishedAt: s('finishedAt'), status: s('status'),
    serverCrashed: scalar.serverCrashed ?? false, steps, notes,
    ...(scalar.target ? { target: scalar.target } : {}),
    ...(scalar.thresholds ? { thresholds: scalar.thresholds } : {}),
    ...(scalar.tls ? { tls: scalar.tls } : {}),
  };
  runRecord(json);   // the read boundary's check, at the write: a missing or mistyped field refused by name
  return json;
}

function main(argv) {
  const file = argv[0];
  if (argv.length !== 1) {
    process.stderr.write("usage: printf '%s\\0' <field>=<value>... | node lib/run-record.js <run.json>\n");
    return 2;
  }
  const input = fs.readFileSync(0, 'utf8');
  const fields = input.split('\0');
  if (fields[fields.length - 1] === '') fields.pop();
  let json;
  try {
    json = record(fields);
  } catch (e) {
    if (!(e instanceof RunSchemaError)) throw e;
    process.stderr.write(`lib/run-record.js: ${file}: ${e.message}\n`);
    return 2;
  }
  try {
    writeFileAtomic(file, `${JSON.stringify(json, null, 2)}\n`);
  } catch (e) {
    process.stderr.write(`${e.message}\n`);
    return 1;
  }
  return 0;
}

if (require.main === module) process.exitCode = main(process.argv.slice(2));
module.exports = { record };
