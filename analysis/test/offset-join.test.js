'use strict';
// The clock offset's join: a time-stamp answer from an engine's archive is paired with the JMeter sample
// that engine made, by the engine named in the sample's responseFile path. Two engines on one address
// (bench/poll-headline.sh --engines 2) both save timestamp_<n>.json and both have 127.0.0.1 in their
// thread names.
const test = require('node:test');
const assert = require('node:assert/strict');
const fs = require('node:fs');
const path = require('node:path');
const { execFileSync } = require('node:child_process');
const { analyzeRun } = require('../run-analysis');
const { offsetMeasurements } = require('../stage/clock');
const { responseFilePlace } = require('../read/jmeter-csv');
const { copyRun, scratchDir, readJson, REAL_RUN } = require('./helpers');

test('responseFilePlace: the engine is the folder above responses/, either slash; none for other shapes', () => {
  assert.deepEqual(responseFilePlace('/r/runs/x/local2/responses/timestamp_3.json'), { engine: 'local2', file: 'timestamp_3.json' });
  assert.deepEqual(responseFilePlace('C:\\r\\gen1\\responses\\request_7.json'), { engine: 'gen1', file: 'request_7.json' });
  assert.deepEqual(responseFilePlace('/tmp/out/request_7.json'), { engine: '', file: 'request_7.json' });
  assert.deepEqual(responseFilePlace('request_7.json'), { engine: '', file: 'request_7.json' });
});

test('two engines on one address, both saving timestamp_3.json: each answer gets its own engine\'s sample', async () => {
  const run = copyRun(undefined, REAL_RUN);
  const runJson = readJson(path.join(run, 'run.json'));
  const first = runJson.hosts.engines[0];
  runJson.hosts.engines.push({ ...first, name: 'local2', rmi: first.rmi + 100 });
  fs.writeFileSync(path.join(run, 'run.json'), JSON.stringify(runJson));

  const csvFile = path.join(run, 'jmeter', 'results.csv');
  const csv = fs.readFileSync(csvFile, 'utf8');
  const own = csv.split('\n').find((l) => /,timestamp,/.test(l)).split(',');
  const ownElapsed = Number(own[1]);
  assert.ok(ownElapsed > 2, 'the fixture\'s own time-stamp sample took more than 2 ms');

  // The second engine: its answer says the server is 1,000 ms ahead, over a 2 ms round trip; its sample comes
  // after the first engine's in results.csv and has the same file name.
  const client = Number(own[0]) + 50;
  const body = path.join(scratchDir(), 'local2');
  fs.mkdirSync(body);
  fs.writeFileSync(path.join(body, 'timestamp_3.json'), JSON.stringify({ timestamp: { client, server: client + 1000 + 1 } }));
  execFileSync('tar', ['-czf', path.join(run, 'responses', 'local2.tar.gz'), '-C', body, 'timestamp_3.json']);
  const row = [client, 2, 'timestamp', 200, 'OK', `127.0.0.1:${first.rmi + 100}-Timestamp 1-1`, 'true', '', 217, 179, 1, 3, 2, 1,
    own[own.length - 1].replace('/local/responses/', '/local2/responses/')];
  fs.writeFileSync(csvFile, `${csv.replace(/\n*$/, '\n')}${row.join(',')}\n`);

  const { summary } = await analyzeRun(run);
  assert.equal(summary.clockOffset.engine, 'local2');
  assert.equal(summary.clockOffset.ms, 1000);
  assert.equal(summary.clockOffset.errorBoundMs, 2);   // half the 2 ms round trip, half of each whole-ms stamp
});

test('offsetMeasurements: a sample placed on another engine is never used; unplaced samples fall back on the address', () => {
  const engines = [{ name: 'a', address: '10.0.0.1' }, { name: 'b', address: '10.0.0.2' }];
  const ts = (engine) => ({ server: 2000, client: 1000, name: 'timestamp_1.json', engine });

  const placed = [{ file: 'timestamp_1.json', engine: 'b', threadName: '10.0.0.2-Timestamp 1-1', timeStamp: 1000, elapsed: 4 }];
  assert.deepEqual(offsetMeasurements([ts('b'), ts('a')], placed, engines).map((m) => m.elapsed), [4, null]);

  const unplaced = [
    { file: 'timestamp_1.json', engine: '', threadName: '10.0.0.1-Timestamp 1-1', timeStamp: 1000, elapsed: 6 },
    { file: 'timestamp_1.json', engine: '', threadName: '10.0.0.2-Timestamp 1-1', timeStamp: 1000, elapsed: 8 },
  ];
  assert.deepEqual(offsetMeasurements([ts('b'), ts('a'), ts('c')], unplaced, engines).map((m) => m.elapsed), [8, 6, 6]);
});
