'use strict';
// Capacity of the two Tomcats as installed and configured by servers/: each one, started with
// servers/control.sh, must hold 3,000 comet streams at once, deliver at least two event records to every
// one of them, end them all on /event/clear, and keep the 3,000 request processors for later requests.
//
// Needs servers/tc6/install.sh, servers/tc7/install.sh and instrumentation-java/build.sh to have run;
// fails (does not skip) when they have not. Ports: PB_PORT_TC6 / PB_PORT_TC7; state: PB_STATE;
// PB_TC6_WAR / PB_TC7_WAR name other WARs, as for servers/tc*/launch.sh.

const test = require('node:test');
const assert = require('node:assert/strict');
const http = require('node:http');
const fs = require('node:fs');
const path = require('node:path');
const { execFileSync, spawnSync } = require('node:child_process');

const ROOT = path.resolve(__dirname, '..');
const STREAMS = 3000;
const EVENT = 'capacity';           // an event name without the words "error" or "timeout"
const FREQUENCY_MS = 1000;
const RECORDS_WANTED = 2;
const MAX_PENDING_CONNECTS = 100;   // connects in flight at once: the listen backlog never overflows
const SERVER_BUDGET_MS = 60000;     // everything for one server, start to stop

// lib/config.sh is the one place for defaults; the environment (test.sh) overrides them.
const config = JSON.parse(execFileSync('bash', ['-c',
  'source lib/config.sh && printf \'{"tc6":{"port":"%s","home":"%s"},"tc7":{"port":"%s","home":"%s"}}\' ' +
  '"$PB_PORT_TC6" "$TC6_HOME" "$PB_PORT_TC7" "$TC7_HOME"'], { cwd: ROOT, encoding: 'utf8' }));

const SERVERS = [
  { name: 'tc6', label: 'Tomcat 6', ...config.tc6,
    war: process.env.PB_TC6_WAR || path.join(ROOT, 'instrumentation-java/tomcat6/target/pushbench-tc6.war'), install: 'servers/tc6/install.sh' },
  { name: 'tc7', label: 'Tomcat 7', ...config.tc7,
    war: process.env.PB_TC7_WAR || path.join(ROOT, 'instrumentation-java/tomcat7/target/pushbench-tc7.war'), install: 'servers/tc7/install.sh' },
];

function control(action, name) {
  // control.sh bounds its own waits (PB_START_TIMEOUT_*, PB_STOP_TIMEOUT); this is only a backstop.
  const r = spawnSync(path.join(ROOT, 'servers/control.sh'), [action, name], { cwd: ROOT, encoding: 'utf8', timeout: 180000 });
  return { ok: r.status === 0, output: `${r.stdout || ''}${r.stderr || ''}`.trim() };
}

function sleep(ms) { return new Promise((resolve) => setTimeout(resolve, ms)); }

async function waitFor(what, predicate, deadline) {
  while (!predicate()) {
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await sleep(100);
  }
}

// One JSON request on a fresh connection; resolves { status, json, text }.
function call(port, method, urlPath, body) {
  const payload = body === undefined ? null : Buffer.from(JSON.stringify(body));
  return new Promise((resolve, reject) => {
    const req = http.request({ host: '127.0.0.1', port, method, path: urlPath, agent: false,
      headers: payload ? { 'Content-Type': 'application/json', 'Content-Length': payload.length } : {} }, (res) => {
      const chunks = [];
      res.on('data', (c) => chunks.push(c));
      res.on('end', () => {
        const text = Buffer.concat(chunks).toString('utf8');
        let json;
        try { json = JSON.parse(text); } catch { json = undefined; }
        resolve({ status: res.statusCode, json, text });
      });
      res.on('error', reject);
    });
    req.setTimeout(15000, () => req.destroy(new Error(`${method} ${urlPath}: no answer in 15 s`)));
    req.on('error', reject);
    req.end(payload || undefined);
  });
}

// Opens one comet stream; the returned object collects its complete lines as they arrive.
function openComet(agent, port, streams) {
  const payload = Buffer.from(JSON.stringify({ type: 'comet', events: [EVENT] }));
  const stream = { status: 0, lines: [], rest: '', ended: false, failure: null, req: null };
  streams.push(stream);
  return new Promise((resolve) => {
    const req = http.request({ host: '127.0.0.1', port, method: 'POST', path: '/request', agent,
      headers: { 'Content-Type': 'application/json', 'Content-Length': payload.length } }, (res) => {
      stream.status = res.statusCode;
      res.setEncoding('utf8');
      res.on('data', (text) => {
        const parts = (stream.rest + text).split('\n');
        stream.rest = parts.pop();
        for (const line of parts) if (line.trim() !== '') stream.lines.push(line);
      });
      res.on('end', () => { stream.ended = true; });
      res.on('error', (e) => { stream.failure = stream.failure || e.message; });
      resolve();
    });
    stream.req = req;
    req.on('error', (e) => { stream.failure = stream.failure || e.message; resolve(); });
    req.end(payload);
  });
}

// Opens `count` streams, at most MAX_PENDING_CONNECTS waiting for their response headers at a time.
async function openAll(agent, port, count, streams, deadline) {
  let started = 0;
  const pending = new Set();
  while (started < count) {
    if (Date.now() > deadline) throw new Error(`only ${started} of ${count} streams opened in time`);
    while (pending.size < MAX_PENDING_CONNECTS && started < count) {
      const p = openComet(agent, port, streams).finally(() => pending.delete(p));
      pending.add(p);
      started++;
    }
    // A server that never sends the headers must not hang the test past its deadline.
    await Promise.race([...pending, sleep(1000)]);
  }
  await waitFor(`response headers on all ${count} streams`, () => pending.size === 0, deadline);
}

function parse(line) {
  try { return JSON.parse(line); } catch { return undefined; }
}

function pidOf(name) {
  return fs.readFileSync(path.join(process.env.PB_STATE || path.join(ROOT, 'build/state'), `${name}.pid`), 'utf8').split(/\s+/)[0];
}

// Live Http11NioProcessor objects in the server's heap (jcmd's class histogram collects garbage first).
function liveProcessors(name) {
  const out = execFileSync('jcmd', [pidOf(name), 'GC.class_histogram'], { encoding: 'utf8', timeout: 60000 });
  const line = out.split('\n').find((l) => /\sorg\.apache\.coyote\.http11\.Http11NioProcessor\s*$/.test(l));
  return line ? Number(line.trim().split(/\s+/)[1]) : 0;
}

function rssOf(name) {
  try {
    const pid = pidOf(name);
    const status = fs.readFileSync(`/proc/${pid}/status`, 'utf8');
    const rss = /VmRSS:\s+(\d+) kB/.exec(status)[1];
    const threads = /Threads:\s+(\d+)/.exec(status)[1];
    return `RSS ${Math.round(rss / 1024)} MB, ${threads} threads`;
  } catch { return 'RSS unknown'; }
}

for (const server of SERVERS) {
  test(`${server.label} holds ${STREAMS} comet streams and ends them on clear`, { timeout: SERVER_BUDGET_MS + 30000 }, async (t) => {
    assert.ok(fs.existsSync(path.join(server.home, '.pushbench-installed')),
      `${server.label} is not installed in ${server.home}: run ${server.install} (or ./setup.sh)`);
    assert.ok(fs.existsSync(server.war), `${server.war} is missing: run instrumentation-java/build.sh`);

    const deadline = Date.now() + SERVER_BUDGET_MS;
    const port = Number(server.port);
    const agent = new http.Agent({ keepAlive: false, maxSockets: Infinity });
    const streams = [];
    try {
      const started = control('start', server.name);
      assert.ok(started.ok, `servers/control.sh start ${server.name} failed:\n${started.output}`);
      // Nothing left from an earlier run on this instance.
      await call(port, 'POST', '/event/clear', {});

      const t0 = Date.now();
      await openAll(agent, port, STREAMS, streams, deadline);
      const failed = streams.filter((s) => s.failure || s.status !== 200);
      assert.equal(failed.length, 0, `${failed.length} streams failed to open, e.g. ${failed[0] && (failed[0].failure || failed[0].status)}`);
      const status = await call(port, 'GET', '/status');
      assert.equal(status.status, 200, status.text);
      assert.equal(status.json.requests.comet, STREAMS, `server counts ${status.text}`);
      t.diagnostic(`${server.name}: ${STREAMS} streams open in ${Date.now() - t0} ms (${rssOf(server.name)})`);

      const set = await call(port, 'POST', '/event/set', { name: EVENT, frequency: FREQUENCY_MS });
      assert.equal(set.status, 200, set.text);
      const t1 = Date.now();
      await waitFor(`${RECORDS_WANTED} records on every stream`,
        () => streams.every((s) => s.lines.length >= RECORDS_WANTED || s.ended || s.failure), deadline);
      t.diagnostic(`${server.name}: ${RECORDS_WANTED} records on every stream after ${Date.now() - t1} ms (${rssOf(server.name)})`);

      // Every stream is still open and every record so far is a valid event record for it.
      let records = 0;
      const places = new Set();
      for (const [i, s] of streams.entries()) {
        assert.equal(s.failure, null, `stream ${i} failed: ${s.failure}`);
        assert.equal(s.ended, false, `stream ${i} ended before clear`);
        let lastCycle = 0;
        for (const line of s.lines) {
          assert.ok(!line.includes('error'), `stream ${i} got a record with "error": ${line}`);
          const r = parse(line);
          assert.ok(r, `stream ${i}: not JSON: ${line}`);
          const e = r.response && r.response.event;
          assert.ok(e, `stream ${i}: not an event record: ${line}`);
          assert.equal(e.name, EVENT);
          assert.ok(Number.isInteger(e.cycle) && e.cycle > lastCycle, `stream ${i}: cycle ${e.cycle} after ${lastCycle}`);
          lastCycle = e.cycle;
          assert.equal(e.connections.total, STREAMS, `stream ${i}: snapshot total ${e.connections.total}`);
          assert.ok(e.connections.place >= 1 && e.connections.place <= STREAMS, `stream ${i}: place ${e.connections.place}`);
          if (e.cycle === 1) places.add(e.connections.place);
          assert.equal(r.request.type, 'comet');
          assert.ok(r.connections.start >= 1 && r.connections.finish >= 1, `stream ${i}: connections ${JSON.stringify(r.connections)}`);
          records++;
        }
      }
      // Cycle 1 reached every stream exactly once: its places are 1..STREAMS, each once.
      assert.equal(places.size, STREAMS, `cycle 1 places cover ${places.size} of ${STREAMS}`);

      const clear = await call(port, 'POST', '/event/clear', {});
      assert.equal(clear.status, 200, clear.text);
      assert.equal(clear.json.clear.requests, STREAMS, `clear answered ${clear.text}`);
      await waitFor('every stream to end after clear', () => streams.every((s) => s.ended || s.failure), deadline);
      for (const [i, s] of streams.entries()) {
        assert.equal(s.failure, null, `stream ${i} failed at clear: ${s.failure}`);
        const last = parse(s.lines[s.lines.length - 1]);
        assert.ok(last && last.response && last.response.clear && last.response.clear.reason === 'clear',
          `stream ${i} did not end with a clear record: ${s.lines[s.lines.length - 1]}`);
      }
      const after = await call(port, 'GET', '/status');
      assert.equal(after.json.requests.open, 0, `after clear: ${after.text}`);
      t.diagnostic(`${server.name}: ${records} event records checked on ${STREAMS} streams, all ended by clear in ${Date.now() - t0} ms`);

      // A held request keeps its processor (~70 KB of buffers) until it ends. The connector caches them
      // all for the next requests (processorCache = PB_TOMCAT_MAX_CONNECTIONS in conf/server.xml);
      // Tomcat's default cache of 200 drops the rest, so each later request past 200 builds and
      // JMX-registers a new one: at 15,000 long polls on Tomcat 6, 1,500 a second (docs/limits.md).
      let kept = 0;
      await waitFor('the processors', () => (kept = liveProcessors(server.name)) >= STREAMS, Math.min(deadline, Date.now() + 15000))
        .catch((e) => { if (!/timed out/.test(e.message)) throw e; });   // a jcmd failure is its own error
      assert.ok(kept >= STREAMS, `${kept} request processors kept after ${STREAMS} streams ended: is processorCache set in conf/server.xml?`);
      t.diagnostic(`${server.name}: ${kept} request processors kept after the streams ended`);
    } finally {
      for (const s of streams) if (s.req) s.req.destroy();
      agent.destroy();
      const stopped = control('stop', server.name);
      assert.ok(stopped.ok, `servers/control.sh stop ${server.name} failed:\n${stopped.output}`);
    }
  });
}
