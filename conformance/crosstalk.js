'use strict';
// Cross-talk check: many concurrent control requests and very short polls, each on a fresh TCP connection
// (never reused), and every answer must be a well-formed HTTP response that belongs to its own request.
// Half the requests are polls of 1-19 ms, so held requests are answered and closed by the server's timer
// threads while other connections come and go (the pattern behind Tomcat 6's cross-talk). A server that writes
// one connection's answer onto another (a recycled response object written to after its request ended)
// shows up here as a parse error, an answer echoing another request's name, or a body framed differently
// from the answer's own headers.
//
//   node conformance/crosstalk.js <base-url> [requests] [concurrency] [seconds]
//
// Bounded: stops after `requests` requests or `seconds` seconds, whichever comes first.

const http = require('node:http');

const FREQUENCY = 3600000; // emitters made here must never fire during the run

// One request of each kind, told apart by `n` (unique per run), with the check its answer must pass.
// A check returns null when the answer is right, else what was wrong.
function makeRequest(kind, n, tag) {
  switch (kind) {
    case 'timestamp':
      return {
        method: 'GET', path: `/timestamp?client=${n}`,
        check: (json) => (json?.timestamp?.client === n ? null : `expected client ${n}`),
      };
    case 'logging': {
      const enabled = false; // logging on would write a line per request to the server log
      return {
        method: 'POST', path: '/logging', body: { enabled },
        check: (json) => (json?.logging?.enabled === enabled && Object.keys(json).length === 1 ? null : 'expected the logging answer'),
      };
    }
    case 'set': {
      const name = `${tag}${n}`;
      return {
        method: 'POST', path: '/event/set', body: { name, frequency: FREQUENCY },
        check: (json) => (json?.event?.name === name && json.event.frequency === FREQUENCY ? null : `expected event ${name}`),
      };
    }
    case 'remove': {
      const name = `${tag}none${n}`; // never set: the answer is a 404 error
      return {
        method: 'POST', path: '/event/remove', body: { name }, status: 404,
        check: (json) => (json?.error?.status === 404 && !json.event ? null : 'expected a 404 error'),
      };
    }
    case 'poll': {
      const name = `${tag}poll${n}`;
      return {
        method: 'POST', path: '/request', body: { type: 'poll', events: [name], duration: 1 + (n % 7) * 3 },
        check: (json) => (json?.request?.events?.[0] === name && json?.response?.timeout !== undefined
          ? null : `expected the timeout record of poll ${name}`),
      };
    }
    default:
      throw new Error(`unknown kind ${kind}`);
  }
}

const KINDS = ['logging', 'poll', 'set', 'poll', 'timestamp', 'poll', 'remove', 'poll'];

// Sends one request on a fresh connection; resolves null if its answer is right, else a description.
function exchange(base, request, timeoutMs) {
  const payload = request.body === undefined ? null : Buffer.from(JSON.stringify(request.body));
  const headers = payload ? { 'Content-Type': 'application/json', 'Content-Length': payload.length } : {};
  const what = `${request.method} ${request.path}${payload ? ` ${payload}` : ''}`;
  return new Promise((resolve) => {
    const req = http.request(new URL(request.path, base), { method: request.method, headers, agent: false }, (res) => {
      const chunks = [];
      res.on('data', (chunk) => chunks.push(chunk));
      res.on('error', (err) => resolve(`${what}: ${err.message}`));
      res.on('end', () => {
        const text = Buffer.concat(chunks).toString('utf8');
        let json;
        try { json = JSON.parse(text); } catch { json = undefined; }
        const status = request.status || 200;
        if (res.statusCode !== status) return resolve(`${what}: status ${res.statusCode}, expected ${status}: ${text}`);
        // Every control answer and poll record states its length; a chunked one was framed by someone else.
        if (res.headers['content-length'] === undefined) {
          return resolve(`${what}: no Content-Length (transfer-encoding ${res.headers['transfer-encoding']}): ${text}`);
        }
        if (Number(res.headers['content-length']) !== Buffer.byteLength(text)) {
          return resolve(`${what}: Content-Length ${res.headers['content-length']} but ${Buffer.byteLength(text)} bytes`);
        }
        const wrong = request.check(json);
        resolve(wrong ? `${what}: ${wrong}, got ${JSON.stringify(text)}` : null);
      });
    });
    req.setTimeout(timeoutMs, () => req.destroy(new Error(`no answer in ${timeoutMs} ms`)));
    req.on('error', (err) => {
      const raw = err.rawPacket ? ` raw ${JSON.stringify(err.rawPacket.toString('utf8'))}` : '';
      resolve(`${what}: ${err.code || ''} ${err.message}${raw}`);
    });
    req.end(payload || undefined);
  });
}

// Runs the bounded load; resolves { sent, failures: [description], elapsedMs, stoppedByTime }.
async function crosstalk(base, { requests = 2000, concurrency = 50, seconds = 15, timeoutMs = 10000 } = {}) {
  const tag = `x${Date.now().toString(36)}`;
  const started = Date.now();
  const deadline = started + seconds * 1000;
  const failures = [];
  let next = 0;
  let stoppedByTime = false;
  const loop = async () => {
    for (;;) {
      if (Date.now() > deadline) { stoppedByTime = true; return; }
      const n = next++;
      if (n >= requests) return;
      const wrong = await exchange(base, makeRequest(KINDS[n % KINDS.length], n, tag), timeoutMs);
      if (wrong) failures.push(wrong);
    }
  };
  await Promise.all(Array.from({ length: concurrency }, loop));
  const sent = Math.min(next, requests);
  // Leave no emitter behind (their names are unique to this run).
  await exchange(base, { method: 'POST', path: '/event/clear', body: {}, check: () => null }, timeoutMs);
  return { sent, failures, elapsedMs: Date.now() - started, stoppedByTime };
}

module.exports = { crosstalk };

if (require.main === module) {
  const [base, requests = '2000', concurrency = '50', seconds = '15'] = process.argv.slice(2);
  if (!base) {
    console.error('usage: node conformance/crosstalk.js <base-url> [requests] [concurrency] [seconds]');
    process.exit(2);
  }
  crosstalk(base, { requests: Number(requests), concurrency: Number(concurrency), seconds: Number(seconds) }).then((result) => {
    for (const failure of result.failures.slice(0, 20)) console.log(`FAIL ${failure}`);
    console.log(`crosstalk ${base}: ${result.sent} requests, ${result.failures.length} wrong, ${result.elapsedMs} ms${result.stoppedByTime ? ' (stopped by time)' : ''}`);
    process.exit(result.failures.length ? 1 : 0);
  });
}
