'use strict';
// The servers a conformance-style test runs against, and how it starts and stops them: shared by
// test/conformance.test.js and test/crosstalk.test.js. Env PB_CONFORMANCE_SERVERS picks the servers
// (default all six: "node node-cluster tc6 tc7 tc6-bio tc7-bio"); ports come from PB_PORT_<NAME> (- as _;
// test.sh sets them) or else lib/config.sh.

const path = require('node:path');
const fs = require('node:fs');
const { execFileSync } = require('node:child_process');

const root = path.resolve(__dirname, '..');
const control = path.join(root, 'servers', 'control.sh');
const ALL_SERVERS = 'node node-cluster tc6 tc7 tc6-bio tc7-bio';
const servers = (process.env.PB_CONFORMANCE_SERVERS || ALL_SERVERS).split(/[\s,]+/).filter(Boolean);

// The servers on Tomcat's blocking connector (registerSuite's `blocking`).
const isBlocking = (name) => name.endsWith('-bio');

// The transports of issue #38 each server speaks (registerSuite's `speaks`), and why the others' cases are
// skipped: Tomcat 6 has no WebSocket API (its servers are tested for refusing the upgrade instead).
const STREAM_TRANSPORTS = { node: ['sse', 'ws'], 'node-cluster': ['sse', 'ws'], tc6: ['sse'], 'tc6-bio': ['sse'],
  tc7: ['sse', 'ws'], 'tc7-bio': ['sse', 'ws'] };
const transportsOf = (name) => STREAM_TRANSPORTS[name] || [];
const notSpokenBy = (name) => `${name} does not speak it: Tomcat 6 has no WebSocket API (docs/protocol.md, "WebSocket")`;

function portOf(name) {
  const variable = `PB_PORT_${name.toUpperCase().replace(/-/g, '_')}`;
  if (process.env[variable]) return process.env[variable];
  return execFileSync('bash', ['-c', `source "$1" && echo "\${!2}"`, 'port', path.join(root, 'lib', 'config.sh'), variable],
    { encoding: 'utf8' }).trim();
}

function controlSh(action, name, timeoutMs) {
  try {
    return execFileSync(control, [action, name], { encoding: 'utf8', timeout: timeoutMs, stdio: ['ignore', 'pipe', 'pipe'] });
  } catch (err) {
    const said = `${err.stdout || ''}${err.stderr || ''}`.trim();
    throw new Error(`servers/control.sh ${action} ${name} failed${err.signal ? ` (${err.signal})` : ''}:\n${said}`);
  }
}

// Starts a server; one that is not installed is a failure with the reason, never a skip.
function startServer(name) {
  const launch = path.join(root, 'servers', name, 'launch.sh');
  if (!fs.existsSync(launch)) {
    throw new Error(`${name} is not available: ${path.relative(root, launch)} is missing (install it with setup.sh)`);
  }
  controlSh('start', name, 150000);
}

module.exports = { root, control, servers, isBlocking, transportsOf, notSpokenBy, portOf, controlSh, startServer };
