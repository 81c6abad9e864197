'use strict';
// Cross-talk regression test: thousands of concurrent control requests and short polls, each on a fresh
// TCP connection, against every server in env PB_CONFORMANCE_SERVERS (default all six servers), started
// and stopped with servers/control.sh like conformance.test.js does. Every answer must be a well-formed
// HTTP response that belongs to its own request (conformance/crosstalk.js says how that is checked).
// Written after Tomcat 6 once sent a POST /logging answer's body, chunked and without headers, as the
// first bytes of another client's fresh connection. The race is timing-dependent: a pass here is evidence,
// not proof; the deterministic checks of the cause are in CometPushServletTest.
// Env PB_CROSSTALK_REQUESTS / PB_CROSSTALK_CONCURRENCY / PB_CROSSTALK_SECONDS size the load per server.

const { describe, test, after } = require('node:test');
const assert = require('node:assert/strict');
const { crosstalk } = require('../crosstalk');
const { servers, portOf, controlSh, startServer } = require('../servers-under-test');
const REQUESTS = Number(process.env.PB_CROSSTALK_REQUESTS) || 3000;
// Every /event/set here names an emitter of its own, so that an answer carrying another request's name
// shows; the servers under this test may hold that many (the cap itself is conformance/suite.js's).
process.env.PB_MAX_EMITTERS = String(REQUESTS);
const CONCURRENCY = Number(process.env.PB_CROSSTALK_CONCURRENCY) || 50;
const SECONDS = Number(process.env.PB_CROSSTALK_SECONDS) || 20;

for (const name of servers) {
  describe(`cross-talk: server ${name}`, () => {
    let started = false;

    test(`starts with servers/control.sh start ${name}`, { timeout: 160000 }, () => {
      startServer(name);
      started = true;
    });

    test(`${REQUESTS} concurrent fresh-connection requests each get their own, well-formed answer`,
      { timeout: (SECONDS + 30) * 1000 }, async () => {
        assert.ok(started, `${name} did not start: see the previous test`);
        const result = await crosstalk(`http://127.0.0.1:${portOf(name)}`,
          { requests: REQUESTS, concurrency: CONCURRENCY, seconds: SECONDS });
        assert.deepEqual(result.failures.slice(0, 10), [],
          `${result.failures.length} of ${result.sent} answers were wrong (first ones shown)`);
        // A run cut short by the time bound still counts, but it must have done real work.
        assert.ok(result.sent >= Math.min(REQUESTS, 500), `only ${result.sent} requests in ${SECONDS} s`);
      });

    after(() => {
      try { controlSh('stop', name, 60000); } catch { /* nothing to stop */ }
    });
  });
}
