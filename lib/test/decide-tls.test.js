'use strict';
// run.sh --tls decided (lib/decide-args.js tlsArgument, lib/decide.js, lib/decide-jmeter.js; docs/engine.md
// "TLS for the built-in servers"): the option anywhere among a built-in run's arguments, the front's port
// (PB_PORT_TLS) in run.json's tls record, the plan's tls.port and run.sh's RUN_TLS_*; refused with a target
// file (its TLS is its file's), with the push and http samplers (no TLS there) and when PB_PORT_TLS is the
// server's own port. A run without it carries none of these.
const { test, after } = require('node:test');
const assert = require('node:assert/strict');
const fs = require('node:fs');
const os = require('node:os');
const path = require('node:path');
const { decide, shellForm } = require('../decide');
const { tlsArgument } = require('../decide-args');

const tmp = fs.mkdtempSync(path.join(os.tmpdir(), 'pb-decide-tls-'));
after(() => fs.rmSync(tmp, { recursive: true, force: true }));
const hosts = path.join(tmp, 'hosts.conf');
fs.writeFileSync(hosts, 'sut local 127.0.0.1 local\nengine local 127.0.0.1 local\n');
// lib/config.sh's defaults (PB_PORT_NODE 8080, PB_PORT_TLS 8443), nothing of this process's PB_* settings
const decideWith = (argv, env = {}) => decide({ argv, env: { HOME: process.env.HOME, PATH: process.env.PATH, PB_HOSTS: hosts, ...env } });

test('tlsArgument: --tls taken wherever it stands, the other arguments kept in their order', () => {
  assert.deepEqual(tlsArgument(['node', '1', '5', '10', 'comet', '--tls']), { tls: true, rest: ['node', '1', '5', '10', 'comet'] });
  assert.deepEqual(tlsArgument(['--tls', 'node', '1', '5', '10', 'sse', '-']), { tls: true, rest: ['node', '1', '5', '10', 'sse', '-'] });
  assert.deepEqual(tlsArgument(['node', '1', '5', '10', 'comet']), { tls: false, rest: ['node', '1', '5', '10', 'comet'] });
});

test('--tls: run.json\'s tls record, the plan\'s tls.port (the front\'s), server.port still the server\'s, run.sh\'s RUN_TLS_*', () => {
  const d = decideWith(['node', '3', '12', '200', 'comet', '-', 'event1', '1000', '--tls']);
  assert.equal(d.refused, undefined, d.refused?.text);
  assert.deepEqual(d.tls, { front: 'nginx', port: 8443, ca: 'per run' });
  assert.match(d.jmeterProperties, /^server\.port=8080$/m);
  assert.match(d.jmeterProperties, /^tls\.port=8443$/m);
  assert.equal(d.parameters.port, 8080);
  const sh = shellForm(d);
  assert.match(sh, /^RUN_TLS_PORT='8443'$/m);
  assert.match(sh, /^RUN_TLS_JSON='\{"front":"nginx","port":8443,"ca":"per run"\}'$/m);
  const moved = decideWith(['--tls', 'tc7', '1', '5', '10', 'ws', '-'], { PB_PORT_TLS: '18743' });
  assert.equal(moved.tls.port, 18743);
  assert.match(moved.jmeterProperties, /^tls\.port=18743$/m);
});

test('without --tls: no tls record, no tls.port, no RUN_TLS_*', () => {
  const d = decideWith(['node', '1', '5', '10', 'sse', '-']);
  assert.equal(d.tls, undefined);
  assert.doesNotMatch(d.jmeterProperties, /tls\./);
  assert.doesNotMatch(shellForm(d), /RUN_TLS_/);
});

for (const [what, argv, env, text] of [
  ['the push sampler (a thread per connection, no TLS)', ['node', '1', '5', '10', 'comet', '--tls'], { PB_REQUEST_SAMPLER: 'push' },
    /--tls needs the mux engine \(PB_REQUEST_SAMPLER=mux, the default\): the push sampler speaks no TLS/],
  ['the http sampler', ['node', '1', '5', '10', 'poll', '3000', '--tls'], { PB_REQUEST_SAMPLER: 'http' }, /--tls needs the mux engine/],
  ['a target file', ['--target', path.join(__dirname, '..', '..', 'targets', 'nchan-sse.json'), '2', '8', '10', '--tls'], {},
    /--tls is for the built-in servers: a target run speaks TLS through its file/],
  ['PB_PORT_TLS the server\'s own port', ['node', '1', '5', '10', 'comet', '--tls'], { PB_PORT_TLS: '8080' },
    /PB_PORT_TLS \(8080\) is node's own port: the TLS front needs a port of its own/],
  ['PB_PORT_TLS not a port', ['node', '1', '5', '10', 'comet', '--tls'], { PB_PORT_TLS: '99999' }, /PB_PORT_TLS must be a port \(1-65535\)/],
]) {
  test(`--tls refused with ${what}: exit 2, named`, () => {
    const d = decideWith(argv, env);
    assert.ok(d.refused, 'refused');
    assert.equal(d.refused.code, 2);
    assert.match(d.refused.text, text);
  });
}
