#!/usr/bin/env node
'use strict';
// Runs the conformance suite against a running server:  node conformance/run.js http://127.0.0.1:8080
const { registerSuite } = require('./suite');

const base = process.argv[2];
if (!base || !/^https?:\/\/[^/]+\/?$/.test(base)) {
  process.stderr.write('usage: node conformance/run.js <base-url>   e.g. http://127.0.0.1:8080\n');
  process.exit(2);
}
registerSuite(base.replace(/\/$/, ''), { label: base });
