#!/usr/bin/env node
'use strict';
// Slow-body check: many clients send a request body a byte at a time while others use the server as usual.
//   node conformance/slow-bodies.js <base-url> [connections=420] [intervalMs=2000] [seconds=30]
// Opens <connections> clients that each send POST /request's head and then one body byte every
// <intervalMs> (never the whole body), and, meanwhile, one GET /timestamp every 100 ms on a fresh
// connection. Prints how the slow clients were answered (status: count, and when) and how long the other
// clients waited (p50/p99/max, and how many got no answer within 5 s). The server must answer every slow
// client (408 at its body deadline, or 503 at once where too many bodies are arriving: docs/protocol.md)
// and keep answering the others at once. Exit 1 if a slow client was left unanswered or an other client
// waited 5 s. Keep it light on a shared machine: 420 connections at 2 s send 210 bytes a second.

const { request, trickle, sleep } = require('./http-client');

const quantile = (sorted, q) => (sorted.length ? sorted[Math.min(sorted.length - 1, Math.floor(q * sorted.length))] : null);

// Resolves { slow: { byStatus, answeredMs: {min,p50,max}, unanswered }, others: { count, p50, p99, max, failed } }.
async function measureSlowBodies(base, { connections = 420, intervalMs = 2000, seconds = 30, path = '/request' } = {}) {
  const slow = Array.from({ length: connections }, () => trickle(base, { path, intervalMs, giveUpMs: seconds * 1000 }));
  const waits = [];
  let failed = 0;
  let done = false;
  const all = Promise.all(slow).then((results) => { done = true; return results; });
  const probes = [];
  while (!done) {
    probes.push(request(base, 'GET', `/timestamp?client=${Date.now()}`, { timeoutMs: 5000 })
      .then((answer) => { if (answer.status === 200) waits.push(answer.elapsed); else failed++; }, () => { failed++; }));
    await sleep(100);
  }
  await Promise.all(probes);
  const results = await all;
  const byStatus = {};
  for (const r of results) byStatus[r.status ?? 'none'] = (byStatus[r.status ?? 'none'] || 0) + 1;
  const answered = results.filter((r) => r.answeredMs !== null).map((r) => r.answeredMs).sort((a, b) => a - b);
  waits.sort((a, b) => a - b);
  return {
    slow: { byStatus, answeredMs: { min: answered[0] ?? null, p50: quantile(answered, 0.5), max: answered.at(-1) ?? null },
      unanswered: results.length - answered.length, results },
    others: { count: waits.length, p50: quantile(waits, 0.5), p99: quantile(waits, 0.99), max: waits.at(-1) ?? null, failed },
  };
}

if (require.main === module) {
  const [base, connections = '420', intervalMs = '2000', seconds = '30'] = process.argv.slice(2);
  if (!base || !/^https?:\/\/[^/]+\/?$/.test(base)) {
    process.stderr.write('usage: node conformance/slow-bodies.js <base-url> [connections] [intervalMs] [seconds]\n');
    process.exit(2);
  }
  measureSlowBodies(base.replace(/\/$/, ''), { connections: Number(connections), intervalMs: Number(intervalMs), seconds: Number(seconds) })
    .then(({ slow, others }) => {
      const { results, ...summary } = slow;
      process.stdout.write(`${JSON.stringify({ slow: summary, others })}\n`);
      process.exit(slow.unanswered === 0 && others.failed === 0 ? 0 : 1);
    });
}

module.exports = { measureSlowBodies };
