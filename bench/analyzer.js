#!/usr/bin/env node
'use strict';
// Analyzer throughput benchmark: builds a response archive of N realistic poll responses (event records
// of many emit cycles, a few timeouts), runs the analyzer on it in a child process and compares its speed
// with `tar -xzOf archive > /dev/null` on the same archive. Prints responses/s, the speed ratio and the
// analyzer's peak RSS per size (it must stay flat: the archive is streamed, never held whole). Each timing
// is the best of PB_BENCH_ROUNDS (default 3) interleaved rounds. "vs tar-stream" is the analyzer's speed
// against gunzip and tar-stream alone (the floor of the tar library it uses): both are Node.js on the same
// cores, so that ratio moves less with other load on the machine than the one against GNU tar. "ceiling"
// is tar-stream alone against GNU tar: the analyzer cannot read faster than the library it reads with.
//   node bench/analyzer.js [sizes...]          default: 100000 500000
const fs = require('node:fs');
const os = require('node:os');
const path = require('node:path');
const zlib = require('node:zlib');
const { spawnSync } = require('node:child_process');
const tar = require('tar');

const ROOT = path.join(__dirname, '..');
const sizes = process.argv.slice(2).map(Number).filter((n) => n > 0);
if (sizes.length === 0) sizes.push(100_000, 500_000);
const work = fs.mkdtempSync(path.join(process.env.PB_STATE || os.tmpdir(), 'pb-bench-'));

// One saved poll response as the Node.js server writes it (docs/protocol.md "Records").
function pollBody(i, start) {
  const threads = 5000;
  const cycle = Math.floor(i / threads) + 1;
  const place = (i % threads) + 1;
  const cycleCreated = start + cycle * 1000;
  const created = cycleCreated - 900 + (place % 700);
  if (i % 50 === 49) {
    const sent = created + 10000;
    return JSON.stringify({ response: { timeout: { duration: 10000 } }, request: { type: 'poll', events: ['event1'], duration: 10000 },
      timings: { duration: sent - created, sent, created }, connections: { start: place, finish: threads } });
  }
  const sent = cycleCreated + Math.floor(place / 40);
  return JSON.stringify({
    response: { event: { name: 'event1', cycle, timings: { duration: sent - cycleCreated, sent, created: cycleCreated },
      connections: { total: threads, place } } },
    request: { type: 'poll', events: ['event1'], duration: 180000 },
    timings: { duration: sent - created, sent, created }, connections: { start: place, finish: threads - (place % 100) },
  });
}

// Writes the tar stream with the tar package's header encoder (512-byte blocks) through gzip.
async function makeArchive(file, n, start) {
  const gzip = zlib.createGzip({ level: 6 });
  const out = fs.createWriteStream(file);
  gzip.pipe(out);
  const zero = Buffer.alloc(512);
  const write = (buf) => (gzip.write(buf) ? null : new Promise((r) => gzip.once('drain', r)));
  for (let i = 0; i < n; i++) {
    const body = Buffer.from(pollBody(i, start));
    const header = new tar.Header({ path: `pushbench-responses/request_${i + 1}.json`, mode: 0o644, size: body.length,
      mtime: new Date(start), type: 'File', uid: 0, gid: 0, uname: 'bench', gname: 'bench' });
    header.encode();
    await write(header.block);
    await write(body);
    const pad = (512 - (body.length % 512)) % 512;
    if (pad) await write(zero.subarray(0, pad));
  }
  gzip.end(Buffer.alloc(1024));
  await new Promise((r) => out.on('finish', r));
}

// Wall time, and CPU time of the child (the machine is shared: CPU time is the steadier comparison).
function timed(cmd, args) {
  const t = process.hrtime.bigint();
  const r = spawnSync('/usr/bin/time', ['-f', 'CPU %U %S', cmd, ...args], { encoding: 'utf8', maxBuffer: 1 << 20 });
  const seconds = Number(process.hrtime.bigint() - t) / 1e9;
  if (r.status !== 0) throw new Error(`${cmd} ${args.join(' ')} failed: ${r.stderr}`);
  const m = /CPU ([\d.]+) ([\d.]+)/.exec(r.stderr);
  return { seconds, cpu: Number(m[1]) + Number(m[2]), stdout: r.stdout, stderr: r.stderr };
}

const ROUNDS = Number(process.env.PB_BENCH_ROUNDS || 3);
// The faster of two timings (wall and CPU each at their best); the later one's output.
function best(a, b) {
  if (a === null) return b;
  return { ...b, seconds: Math.min(a.seconds, b.seconds), cpu: Math.min(a.cpu, b.cpu) };
}

// The floor set by the tar library the analyzer uses (tar-stream): gunzip, parse, drop every body.
const PARSE_ONLY = `const extract = require(${JSON.stringify(require.resolve('tar-stream'))}).extract();
extract.on('entry', (header, entry, next) => { entry.on('end', next); entry.resume(); });
require('fs').createReadStream(process.argv[1], { highWaterMark: 1 << 20 }).pipe(require('zlib').createGunzip({ chunkSize: 1 << 18 })).pipe(extract);`;

async function main() {
  const start = Date.UTC(2026, 10, 22, 1, 0, 0);
  console.log('wall s (cpu s): GNU tar = tar -xzOf archive > /dev/null; tar-stream = gunzip and tar-stream parsing, bodies dropped');
  console.log('responses   archive     GNU tar          tar-stream       analyzer      responses/s  vs GNU tar wall (cpu)  vs tar-stream  peak RSS  ceiling');
  for (const n of sizes) {
    const runDir = path.join(work, `run-${n}`);
    fs.mkdirSync(path.join(runDir, 'responses'), { recursive: true });
    fs.writeFileSync(path.join(runDir, 'run.json'), JSON.stringify({ id: `bench-${n}`, server: 'node', type: 'poll', threads: 5000,
      event: 'event1', interval: 1000, maxDuration: 180000, startedAt: start, finishedAt: start + (n / 5000 + 12) * 1000, status: 'complete', serverCrashed: false }));
    const archive = path.join(runDir, 'responses', 'bench.tar.gz');
    await makeArchive(archive, n, start);
    const probe = `require(${JSON.stringify(path.join(ROOT, 'analysis', 'analyze.js'))}).main([${JSON.stringify(runDir)}])` +
      '.then((c) => { process.stderr.write("MAXRSS " + process.resourceUsage().maxRSS + "\\n"); process.exitCode = c; })';
    // Each timed ROUNDS times, interleaved so a burst of other work on the machine hits them alike;
    // the best of each is kept (the least disturbed run).
    let raw = null, pkg = null, ana = null, maxRssMB = 0;
    for (let round = 0; round < ROUNDS; round++) {
      raw = best(raw, timed('bash', ['-c', 'tar -xzOf "$1" > /dev/null', 'bench', archive]));
      pkg = best(pkg, timed(process.execPath, ['-e', PARSE_ONLY, archive]));
      ana = best(ana, timed(process.execPath, ['-e', probe]));
      maxRssMB = Math.max(maxRssMB, Number(/MAXRSS (\d+)/.exec(ana.stderr)[1]) / 1024);   // the worst of the rounds
    }
    const summary = JSON.parse(fs.readFileSync(path.join(runDir, 'data', 'summary.json'), 'utf8'));
    if (summary.totals.requestResponses !== n) throw new Error(`analyzer saw ${summary.totals.requestResponses} of ${n} responses`);
    const mb = fs.statSync(archive).size / 1e6;
    const t = (x) => `${x.seconds.toFixed(2).padStart(6)} (${x.cpu.toFixed(2).padStart(5)})`;
    console.log(`${String(n).padEnd(9)} ${mb.toFixed(1).padStart(6)} MB ${t(raw)}  ${t(pkg)}  ${t(ana)} ${Math.round(n / ana.seconds).toString().padStart(12)}` +
      `   ${(100 * raw.seconds / ana.seconds).toFixed(0).padStart(6)} % (${(100 * raw.cpu / ana.cpu).toFixed(0)} %)  ${(100 * pkg.seconds / ana.seconds).toFixed(0).padStart(11)} %  ${maxRssMB.toFixed(0).padStart(8)} MB  ${(100 * raw.seconds / pkg.seconds).toFixed(0).padStart(5)} %`);
    fs.rmSync(runDir, { recursive: true, force: true });
  }
  fs.rmSync(work, { recursive: true, force: true });
  console.log('ceiling: tar-stream alone against GNU tar (wall), the most the analyzer can reach with the tar library it reads with');
}

main().catch((err) => { console.error(err); fs.rmSync(work, { recursive: true, force: true }); process.exitCode = 1; });
