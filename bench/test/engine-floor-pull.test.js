'use strict';
// bench/PullFloor.java, the pull mode of bench/engine-floor.sh: compiled with javac and run against a real
// HTTP server in this process that answers pulls as the built-in servers do (a cursor in the answer, the
// request echoed), once chunked on kept-alive connections (Node.js's http framing without a length) and
// once with Content-Length and Connection: close (Tomcat 6's way): every pull must carry the cursor of its
// connection's last answer, every answer be counted, a closed connection be opened again. Also the usage
// errors of PullFloor and of bench/engine-floor.sh's new options, and one short run of engine-floor.sh: its
// lines appended to --out, a ratio without a denominator null.
const { test, before, after } = require('node:test');
const assert = require('node:assert/strict');
const { execFile, spawnSync } = require('node:child_process');
const fs = require('node:fs');
const http = require('node:http');
const os = require('node:os');
const path = require('node:path');

const ROOT = path.join(__dirname, '..', '..');
let classes;

before(() => {
  classes = fs.mkdtempSync(path.join(os.tmpdir(), 'pb-pull-floor-'));
  const javac = spawnSync('javac', ['-nowarn', '-d', classes, path.join(ROOT, 'bench', 'StreamFloor.java'),
    path.join(ROOT, 'bench', 'PullFloor.java')], { encoding: 'utf8' });
  assert.equal(javac.status, 0, javac.stderr);
});

after(() => fs.rmSync(classes, { recursive: true, force: true }));

// A pull server: the answer's cursor is the request's event1 + 1 (0 without one), as the built-in servers
// move a cursor on; per socket, the cursor each request carried against the one its last answer gave.
function pullServer({ close }) {
  const seen = { requests: 0, wrongCursor: 0, sockets: new Set() };
  const server = http.createServer((req, res) => {
    let body = '';
    req.on('data', (d) => { body += d; });
    req.on('end', () => {
      const request = JSON.parse(body);
      const given = request.cursor && request.cursor.event1 !== undefined ? request.cursor.event1 : null;
      const expected = req.socket.lastCursor ?? null;
      if (!close && given !== expected) seen.wrongCursor++;   // closed connections: one pull per socket
      seen.requests++;
      seen.sockets.add(req.socket);
      const next = (given ?? 0) + 1;
      req.socket.lastCursor = next;
      const text = JSON.stringify({ response: { pull: { events: [{ name: 'event1', cycle: next }], cursor: { event1: next }, skipped: 0 } }, request });
      if (close) {
        res.writeHead(200, { 'Content-Type': 'application/json', 'Content-Length': Buffer.byteLength(text), Connection: 'close' });
        res.end(text);
      } else {
        res.writeHead(200, { 'Content-Type': 'application/json' });   // no length: chunked
        res.write(text.slice(0, 40));
        res.end(text.slice(40));
      }
    });
  });
  return new Promise((resolve) => server.listen(0, '127.0.0.1', () => resolve({ server, seen, port: server.address().port })));
}

function pullFloor(args) {
  return new Promise((resolve) => {
    execFile('java', ['-Xmx64m', '-cp', classes, 'PullFloor', ...args], { encoding: 'utf8', timeout: 30000 },
      (error, stdout, stderr) => resolve({ code: error ? error.code : 0, stdout, stderr }));
  });
}

test('kept-alive chunked answers: each counted, each pull with its last answer\'s cursor, no reconnection', async () => {
  const { server, seen, port } = await pullServer({ close: false });
  try {
    // 20 connections, a pull each 100 ms, opened at once, no warm-up, a 2 s window: about 400 answers
    const run = await pullFloor(['127.0.0.1', String(port), '20', 'event1', '100', '0', String(process.pid), '0', '2']);
    assert.equal(run.code, 0, run.stderr);
    const line = JSON.parse(run.stdout);
    assert.equal(line.mode, 'pull');
    assert.equal(line.connections, 20);
    assert.equal(line.open, 20);
    assert.equal(line.failed, 0);
    assert.equal(line.noCursor, 0);
    assert.equal(line.connects, 0);
    assert.ok(line.records >= 250 && line.records <= 420, `records ${line.records}`);
    assert.ok(line.bytesPerAnswer > 150, `bytes per answer ${line.bytesPerAnswer}`);
    assert.equal(seen.wrongCursor, 0);
    assert.equal(seen.sockets.size, 20);
    assert.ok(seen.requests >= line.records);
  } finally {
    server.close();
    server.closeAllConnections();
  }
});

test('Content-Length with Connection: close: each answer counted and its connection opened again', async () => {
  const { server, seen, port } = await pullServer({ close: true });
  try {
    const run = await pullFloor(['127.0.0.1', String(port), '10', 'event1', '100', '0', String(process.pid), '0', '2']);
    assert.equal(run.code, 0, run.stderr);
    const line = JSON.parse(run.stdout);
    assert.equal(line.failed, 0);
    assert.equal(line.noCursor, 0);
    assert.ok(line.records >= 120 && line.records <= 210, `records ${line.records}`);
    // one connection per pull: those opened in the window within a pull per connection of the answers
    assert.ok(Math.abs(line.connects - line.records) <= 10, `connects ${line.connects}, records ${line.records}`);
    assert.ok(seen.sockets.size >= line.records);
  } finally {
    server.close();
    server.closeAllConnections();
  }
});

test('usage errors: PullFloor without its arguments, engine-floor.sh with an unknown server or a comet mode on Tomcat', async () => {
  const run = await pullFloor([]);
  assert.equal(run.code, 2);
  assert.match(run.stderr, /^usage: java PullFloor <host> <port> <connections>/);
  const bench = (...args) => spawnSync(path.join(ROOT, 'bench', 'engine-floor.sh'), args, { encoding: 'utf8' });
  const unknown = bench('--server', 'tc5', '--modes', 'pull');
  assert.equal(unknown.status, 2);
  assert.match(unknown.stderr, /^usage: bench\/engine-floor.sh \[--server node\|tc6\|tc7\]/);
  const comet = bench('--server', 'tc6', '--modes', 'count,pull');
  assert.equal(comet.status, 2);
  assert.match(comet.stderr, /modes count and log are for --server node only/);
  assert.equal(bench('--modes', 'pull', '--interval', '0').status, 2);
});

test('engine-floor.sh appends each run to --out, keeping what it held, and a ratio over no server CPU is null', () => {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'pb-floor-out-'));
  try {
    const out = path.join(dir, 'runs.jsonl');
    const earlier = '{"mode":"count","streams":5000,"floorOverServer":0.5,"server":"node","repeat":1}';
    fs.writeFileSync(out, `${earlier}\n`);   // an earlier sitting's line
    const run = spawnSync(path.join(ROOT, 'bench', 'engine-floor.sh'), ['--levels', '20', '--modes', 'count',
      '--repeats', '1', '--warmup', '1', '--window', '2', '--ramp', '1', '--out', out], { encoding: 'utf8', timeout: 120_000 });
    assert.equal(run.status, 0, run.stderr);
    const lines = fs.readFileSync(out, 'utf8').trim().split('\n');
    assert.equal(lines.length, 2, 'the earlier line kept, this run appended');
    assert.equal(lines[0], earlier);
    const line = JSON.parse(lines[1]);
    assert.equal(line.streams, 20);
    assert.equal(line.open, 20);
    for (const f of ['floorUsPerRecord', 'serverUsPerRecord', 'floorOverServer', 'floorCpuPercent', 'serverCpuPercent']) {
      assert.ok(line[f] === null || (Number.isFinite(line[f]) && line[f] < 1e6), `${f}: ${line[f]}`);
    }
    assert.equal(line.floorOverServer === null, line.serverCpuPercent === 0, 'null exactly when the server took no CPU time');
    assert.match(run.stdout, /\| node \| 5000 \| count \| 1 \|/, 'the table covers every line of --out');
    assert.match(run.stdout, /\| node \| 20 \| count \| 1 \|/);
  } finally {
    fs.rmSync(dir, { recursive: true, force: true });
  }
});
