#!/usr/bin/env node
'use strict';
// Dev tool: builds the fixture run directory analysis/test/fixtures/run-local/ from real output captured
// on this machine (fixtures/captured/: bodies from the real Node.js server via capture-bodies.js, real
// vmstat/pidstat/meminfo taken during that capture), laid out as docs/run-layout.md says, with the damage
// a real run can leave: a second engine whose archive was cut off, a comet stream whose last line was
// half-written, a vmstat line cut mid-way, a repeated vmstat header.
//   node analysis/tools/make-fixture-run.js
const fs = require('node:fs');
const path = require('node:path');
const tar = require('tar');

const fixtures = path.join(__dirname, '..', 'test', 'fixtures');
const captured = path.join(fixtures, 'captured');
const out = path.join(fixtures, 'run-local');
const ENGINE_DIR = '/tmp/pushbench-responses';   // where the engine saved its files (JMeter's Filename column)

async function main() {
  fs.rmSync(out, { recursive: true, force: true });
  for (const d of ['sut', 'jmeter', 'responses']) fs.mkdirSync(path.join(out, d), { recursive: true });
  const { startedAt, finishedAt, samples } = JSON.parse(fs.readFileSync(path.join(captured, 'samples.json'), 'utf8'));

  // run.json in the names run.sh wrote before the run schema (lib/run-schema.js reads them), as committed
  fs.writeFileSync(path.join(out, 'run.json'), JSON.stringify({
    id: 'fixture-node-comet-3-4', server: 'node', rampup: 0, duration: 4, threads: 3, type: 'comet',
    maxDuration: 3000, event: 'event1', interval: 700,
    hosts: { sut: { name: 'local', address: '127.0.0.1' },
      engines: [{ name: 'gen1', address: '127.0.0.1', threads: 3 }, { name: 'gen2', address: '127.0.0.2', threads: 0 }] },
    startedAt, finishedAt, status: 'complete', serverCrashed: false, notes: [],
  }, null, 2) + '\n');

  // vmstat: the real capture, plus a repeated header (vmstat repeats it on a terminal) and a cut last line.
  const vm = fs.readFileSync(path.join(captured, 'vmstat.log'), 'utf8').trimEnd().split('\n');
  const withHeader = [...vm.slice(0, 6), vm[0], vm[1], ...vm.slice(6), ' 3  0      0  16210   7076    531    0'];
  fs.writeFileSync(path.join(out, 'sut', 'vmstat.log'), withHeader.join('\n') + '\n');
  fs.copyFileSync(path.join(captured, 'pidstat.log'), path.join(out, 'sut', 'pidstat.log'));
  fs.copyFileSync(path.join(captured, 'meminfo.txt'), path.join(out, 'sut', 'meminfo.txt'));
  fs.copyFileSync(path.join(captured, 'server.log'), path.join(out, 'sut', 'server.log'));

  // results.csv in JMeter 5.6.3's CSV layout (distributed mode: the engine's address prefixes the thread name).
  const header = 'timeStamp,elapsed,label,responseCode,responseMessage,threadName,dataType,success,failureMessage,bytes,' +
    'sentBytes,grpThreads,allThreads,URL,Filename,Latency,IdleTime,Connect';
  const body = (f) => fs.readFileSync(path.join(captured, 'bodies', f), 'utf8');
  const rows = samples.map((s) => {
    let failure = '';
    let success = s.success;
    const text = body(s.file);
    if (success && text.includes('timeout')) { success = false; failure = 'Test failed: text expected not to contain /timeout/'; }
    if (text.includes('error')) { success = false; failure = 'Test failed: text expected not to contain /error/'; }
    const q = (v) => (/[",\n]/.test(String(v)) ? `"${String(v).replace(/"/g, '""')}"` : String(v));
    return [s.timeStamp, s.elapsed, s.label, s.responseCode, s.responseMessage, `127.0.0.1-${s.threadName}`, s.dataType,
      success, failure, s.bytes, 120, 3, 3, s.URL, `${ENGINE_DIR}/${s.file}`, s.elapsed, 0, 1].map(q).join(',');
  });
  fs.writeFileSync(path.join(out, 'jmeter', 'results.csv'), [header, ...rows].join('\n') + '\n');

  // gen1: every captured body; the aborted comet stream gets a half-written last line.
  const stage = fs.mkdtempSync(path.join(require('node:os').tmpdir(), 'pb-fixture-'));
  const dir1 = path.join(stage, 'gen1', 'pushbench-responses');
  fs.mkdirSync(dir1, { recursive: true });
  for (const f of fs.readdirSync(path.join(captured, 'bodies'))) fs.copyFileSync(path.join(captured, 'bodies', f), path.join(dir1, f));
  fs.appendFileSync(path.join(dir1, 'request_13.x-ndjson'), '{"response":{"event":{"name":"event1","cycle":3,"timings":{"dur');
  await tar.c({ gzip: true, file: path.join(out, 'responses', 'gen1.tar.gz'), cwd: path.join(stage, 'gen1') }, ['pushbench-responses']);

  // gen2: a few polls, then the copy broke off (only the first part of the gzip arrived).
  const dir2 = path.join(stage, 'gen2', 'pushbench-responses');
  fs.mkdirSync(dir2, { recursive: true });
  for (const f of ['request_5.json', 'request_6.json', 'request_7.json']) {
    fs.copyFileSync(path.join(captured, 'bodies', f), path.join(dir2, f.replace('_', '_9')));
  }
  const full = path.join(stage, 'gen2.tar.gz');
  await tar.c({ gzip: true, file: full, cwd: path.join(stage, 'gen2') }, ['pushbench-responses']);
  const bytes = fs.readFileSync(full);
  fs.writeFileSync(path.join(out, 'responses', 'gen2.tar.gz'), bytes.subarray(0, Math.floor(bytes.length * 0.6)));
  fs.rmSync(stage, { recursive: true, force: true });
  console.log(`fixture run directory: ${out}`);
}

main();
