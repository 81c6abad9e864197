#!/usr/bin/env node
'use strict';
// Runs the conformance suite against a running server:  node conformance/run.js http://127.0.0.1:8080
// (PB_CONFORMANCE_BLOCKING=1 for a server on a blocking connector, tc6-bio or tc7-bio: see suite.js;
// PB_CONFORMANCE_TRANSPORTS: the transports of issue #38 it speaks, default "sse ws"; "sse" for tc6 and tc6-bio)
const { registerSuite } = require('./suite');

const base = process.argv[2];
if (!base || !/^https?:\/\/[^/]+\/?$/.test(base)) {
  process.stderr.write('usage: node conformance/run.js <base-url>   e.g. http://127.0.0.1:8080\n');
  process.exit(2);
}
const speaks = (process.env.PB_CONFORMANCE_TRANSPORTS ?? 'sse ws').split(/[\s,]+/).filter(Boolean);
registerSuite(base.replace(/\/$/, ''), { label: base, blocking: process.env.PB_CONFORMANCE_BLOCKING === '1', speaks,
  notSpoken: 'not in PB_CONFORMANCE_TRANSPORTS' });
