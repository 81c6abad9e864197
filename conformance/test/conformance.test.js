'use strict';
// Runs the conformance suite against every server in env PB_CONFORMANCE_SERVERS (default all six):
// each is started with servers/control.sh on its PB_PORT_<NAME> (a 2 s body deadline unless
// PB_BODY_DEADLINE_MS says otherwise), tested, and stopped (also on failure).
// A server that is not installed fails here with the reason; it is never skipped.

const { describe, test, after } = require('node:test');
const assert = require('node:assert/strict');
const { execFile } = require('node:child_process');
const { registerSuite } = require('../suite');
const { request, openStream, waitUntil } = require('../http-client');
const { control, servers, isBlocking, portOf, controlSh, startServer } = require('../servers-under-test');

// Each server starts with a 2 s body deadline unless the environment sets one, so the slow-body case
// takes 2 s, not the default 10 (the suite reads the same variable).
process.env.PB_BODY_DEADLINE_MS = process.env.PB_BODY_DEADLINE_MS || '2000';

for (const name of servers) {
  describe(`server ${name}`, () => {
    // Start and stop are tests of their own, so a server that cannot start is a counted failure.
    test(`starts with servers/control.sh start ${name}`, { timeout: 160000 }, () => {
      startServer(name);
    });

    const base = `http://127.0.0.1:${portOf(name)}`;
    registerSuite(base, { label: name, blocking: isBlocking(name) });

    test(`stops with servers/control.sh stop ${name}, completing open requests with reason "shutdown"`, { timeout: 70000 }, async () => {
      const cometEcho = { type: 'comet', events: ['shutdown-a'] };
      const pollEcho = { type: 'poll', events: ['shutdown-b'], duration: 60000 };
      const stream = await openStream(base, cometEcho);
      const poll = request(base, 'POST', '/request', { body: pollEcho, timeoutMs: 60000 });
      await waitUntil(async () => (await request(base, 'GET', '/status')).json.requests.open === 2, 5000, 'two open requests');
      // control.sh blocks while the server shuts down; run it without blocking this process's event loop.
      await new Promise((resolve, reject) => execFile(control, ['stop', name], { timeout: 60000 },
        (err, stdout, stderr) => (err ? reject(new Error(`control.sh stop ${name} failed: ${stdout}${stderr}`)) : resolve())));
      assert.throws(() => controlSh('status', name, 10000), /stopped/, 'status says stopped after stop');
      const polled = await poll;
      assert.equal(polled.status, 200);
      assert.deepEqual(polled.json.response, { clear: { reason: 'shutdown' } });
      assert.deepEqual(polled.json.request, pollEcho);
      await stream.waitEnd(5000);
      const last = stream.lines.at(-1);
      assert.ok(last && last.record, 'the comet stream got a final record');
      assert.deepEqual(last.record.response, { clear: { reason: 'shutdown' } });
    });

    // Whatever failed above, leave nothing running.
    after(() => {
      try { controlSh('stop', name, 60000); } catch { /* reported by the stop test */ }
    });
  });
}
