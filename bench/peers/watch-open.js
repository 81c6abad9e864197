'use strict';
// How fast a generator opens its streams, seen from the server (bench/peers.sh, issue #38 item 6;
// bench/engine-cost.sh, issue #48 item 4): polls GET /status every 20 ms on one kept-alive connection until
// requests.<type> reaches <connections> (or <limit s> pass) and prints one JSON line: openSeconds from the
// last poll that saw none open to the first that saw them all, openedPerSecond = connections / openSeconds
// (a poll's 20 ms bound each side), open. A refused or failed poll before the server's first answer is
// tried again (the server may not be up yet); one after it ends the watch (exit 1).
//   node bench/peers/watch-open.js <port> <comet|poll|sse|ws> <connections> <limit s>
const http = require('node:http');

const POLL_MS = 20;

// The figure from the polls, in their order: [{ ms, open }] (ms: when the poll was sent). Returns { open
// (the last poll's count), openSeconds, openedPerSecond }: null span and rate when no poll saw none open
// before the first that saw all (the streams opened before the watch began) or none saw all.
function openSpan(polls, want) {
  let lastNone = null;
  for (const p of polls) {
    if (p.open === 0) lastNone = p.ms;
    if (p.open >= want) {
      const seconds = lastNone === null ? null : (p.ms - lastNone) / 1000;
      return { open: p.open, openSeconds: seconds, openedPerSecond: seconds ? Math.round(want / seconds) : null };
    }
  }
  return { open: polls.length ? polls[polls.length - 1].open : 0, openSeconds: null, openedPerSecond: null };
}

function status(port, agent) {
  return new Promise((resolve, reject) => {
    const req = http.get({ host: '127.0.0.1', port, path: '/status', agent, timeout: 5000 }, (res) => {
      let body = '';
      res.setEncoding('utf8');
      res.on('data', (d) => { body += d; });
      res.on('end', () => {
        try { resolve(JSON.parse(body)); } catch (e) { reject(e); }
      });
    });
    req.on('timeout', () => req.destroy(new Error('status timed out')));
    req.on('error', reject);
  });
}

async function watch(port, type, want, limitS) {
  const agent = new http.Agent({ keepAlive: true, maxSockets: 1 });
  const deadline = Date.now() + limitS * 1000;
  const polls = [];
  try {
    for (;;) {
      const ms = Date.now();
      let answer;
      try {
        answer = await status(port, agent);
      } catch (e) {
        if (polls.length || Date.now() >= deadline) throw e;
        await new Promise((r) => setTimeout(r, 5 * POLL_MS));
        continue;
      }
      const open = answer.requests[type];
      if (!Number.isInteger(open)) throw new Error(`/status has no requests.${type}`);
      polls.push({ ms, open });
      if (open >= want || Date.now() >= deadline) return openSpan(polls, want);
      await new Promise((r) => setTimeout(r, POLL_MS));
    }
  } finally {
    agent.destroy();
  }
}

if (require.main === module) {
  const [port, type, n, limit] = process.argv.slice(2);
  if (!/^\d+$/.test(port || '') || !/^(comet|poll|sse|ws)$/.test(type || '') || !/^\d+$/.test(n || '') || !/^\d+$/.test(limit || '')) {
    console.error('usage: node bench/peers/watch-open.js <port> <comet|poll|sse|ws> <connections> <limit s>');
    process.exit(2);
  }
  watch(Number(port), type, Number(n), Number(limit)).then((r) => console.log(JSON.stringify(r)), (e) => {
    console.error(`watch-open: ${e.message}`);
    process.exit(1);
  });
}

module.exports = { openSpan, watch, POLL_MS };
