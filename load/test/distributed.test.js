'use strict';
// Distributed mode for real: two JMeter engines on 127.0.0.1 (load/engine.sh), the controller
// (load/controller.sh) sending the plan to both, the real Node server under test.
const test = require('node:test');
const assert = require('node:assert/strict');
const fs = require('node:fs');
const path = require('node:path');
const h = require('./helpers');
const { jmeterStartOrder } = require('../../lib/decide');

const EVENT = 'pbload1';
// Two engines on one host need their own RMI ports; derived from the configured ones.
const ENGINES = [
  { name: 'loadtest-e1', port: h.RMI_PORT, localport: h.RMI_LOCALPORT, threads: 12 },
  { name: 'loadtest-e2', port: h.RMI_PORT + 100, localport: h.RMI_LOCALPORT + 1, threads: 18 },
];
// Roles as run.sh gives them, by the order JMeter's controller starts the engines (lib/decide.js
// jmeterStartOrder): Init on the engine started first, the Clean Up clear on the one started last.
const START_ORDER = jmeterStartOrder(ENGINES.map((e) => `127.0.0.1:${e.port}`));
for (const e of ENGINES) {
  e.init = START_ORDER[0] === `127.0.0.1:${e.port}` ? 1 : 0;
  e.cleanup = START_ORDER.at(-1) === `127.0.0.1:${e.port}` ? 1 : 0;
}

const pidFile = (e) => path.join(process.env.PB_STATE || path.join(h.ROOT, 'build', 'state'), `engine-${e.name}.pid`);

let stopServer = () => {};
let runDir;
test.before(() => {
  h.requireJMeter();
  stopServer = h.ensureNodeServer();
  runDir = h.newRunDir('distributed');
});
test.after(() => {
  for (const e of ENGINES) h.engine(['stop', '--name', e.name]);
  stopServer();
});

test('engines start, and a second engine on a taken RMI port fails clearly', () => {
  for (const e of ENGINES) {
    e.responses = path.join(runDir, 'engine-responses', e.name);
    const r = h.engine(['start', '--name', e.name, '--address', '127.0.0.1', '--port', String(e.port),
      '--localport', String(e.localport), '--connections', String(e.threads), '--responses', e.responses,
      '--init', String(e.init), '--cleanup', String(e.cleanup)]);
    assert.equal(r.status, 0, `engine ${e.name} did not start:\n${r.stdout}${r.stderr}`);
    assert.match(r.stdout, /running \(pid \d+, rmi 127\.0\.0\.1:/);
    assert.equal(h.engine(['status', '--name', e.name]).status, 0);
    // The recorded PID is the engine's JVM itself (what stop signals).
    const pid = fs.readFileSync(pidFile(e), 'utf8').split(' ')[0];
    const cmdline = fs.readFileSync(`/proc/${pid}/cmdline`, 'utf8');
    assert.match(cmdline, /ApacheJMeter\.jar\0-s\0/);
    // The collector decided for an unpinned engine (lib/decide-jmeter.js jvmOptions, PB_JMETER_GC auto):
    // Parallel, and no second collector beside it.
    assert.match(cmdline, /\0-XX:\+UseParallelGC\0/);
    assert.doesNotMatch(cmdline, /UseG1GC/);
    // The whole heap from the start: growing it took a full collection of seconds at each step.
    const xms = /\0-Xms(\d+[kmg]?)\0/i.exec(cmdline);
    const xmx = /\0-Xmx(\d+[kmg]?)\0/i.exec(cmdline);
    assert.ok(xms && xmx, `no -Xms/-Xmx in ${cmdline.replace(/\0/g, ' ')}`);
    assert.equal(xms[1], xmx[1]);
  }
  const clash = h.engine(['start', '--name', 'loadtest-clash', '--address', '127.0.0.1',
    '--port', String(ENGINES[0].port), '--localport', String(h.RMI_LOCALPORT + 2), '--connections', '1',
    '--responses', path.join(runDir, 'clash')]);
  assert.notEqual(clash.status, 0);
  assert.match(clash.stderr, /already taken/);
});

test('a distributed run splits the threads between both engines', async (t) => {
  const props = h.writeProps(runDir, {
    'server.host': '127.0.0.1', 'server.port': h.NODE_PORT, 'rampup.period': 2, 'test.duration': 8,
    'logging.enabled': false, 'event.enabled': true, 'event.name': EVENT, 'event.frequency': 1000,
    'request.type': 'poll', 'request.events': EVENT, 'request.duration': 3000, 'request.sampler': 'push',
    // Per-engine values: the controller must drop these rather than override the engines' own (with
    // them, the engine started with --init 0 would set the event too, and no engine would clear).
    'threads.num': 999, 'log.dir.res': '/nonexistent', 'cleanup.threads': 0,
  });
  const engines = ENGINES.map((e) => `127.0.0.1:${e.port}`).join(',');
  const run = await h.runController(['--run-dir', runDir, '--engines', engines, '--props', props,
    '--set', 'init.threads=1'], 180000);
  t.diagnostic(`distributed run took ${run.ms} ms`);
  assert.equal(run.code, 0, run.output);

  // JMeter started the engines in the order jmeterStartOrder predicts (not the order given).
  const started = /Starting distributed test with remote engines: \[([^\]]*)\]/.exec(
    fs.readFileSync(path.join(runDir, 'jmeter', 'controller.log'), 'utf8'));
  assert.deepEqual(started?.[1].split(', '), START_ORDER);

  const sent = fs.readFileSync(path.join(runDir, 'jmeter', 'global.properties'), 'utf8');
  assert.doesNotMatch(sent, /^(threads\.num|mux\.threads|log\.dir\.res|init\.threads|cleanup\.threads)=/m);
  assert.match(run.output, /are per engine \(load\/engine\.sh\); not sent/);
  assert.match(sent, /^test\.duration=8$/m);

  const { rows } = h.readResults(runDir);
  assert.deepEqual(rows.filter((r) => r.success !== 'true').map((r) => `${r.threadName}: ${r.failureMessage}`), []);
  for (const e of ENGINES) {
    const prefix = `127.0.0.1:${e.port}-`;
    const mine = rows.filter((r) => r.threadName.startsWith(prefix));
    const labels = h.byLabel(mine);
    // Every engine runs the whole plan: its own time-stamp exchanges (every 5 s through the 8 s), Init
    // where --init is 1 and the clear where --cleanup is 1 (the event is set once, cleared once).
    assert.equal(labels.timestamp?.length, Math.ceil(8000 / 5000), `${e.name}: timestamp`);
    for (const [label, want] of [['logging', e.init], ['setevent', e.init], ['clear', e.cleanup]]) {
      assert.equal(labels[label]?.length ?? 0, want, `${e.name} (--init ${e.init} --cleanup ${e.cleanup}): ${label}`);
    }
    // Its answers' one record is its stream log (no results.csv row), each with its verdict, counted by its
    // summary samples (their responseFile is no saved response).
    assert.equal(labels.request, undefined, `${e.name}: a results.csv row per answer`);
    const samples = h.streamSamples(e.responses);
    const answers = [...samples.values()].filter((x) => x.label === 'request');
    const threads = new Set(answers.map((x) => x.thread));
    assert.equal(threads.size, e.threads, `${e.name} ran ${threads.size} request threads`);
    assert.deepEqual(answers.filter((x) => !x.end?.ok || x.end.failure !== '').map((x) => x.end), [], `${e.name}: failed answers`);
    const summaries = labels['request-summary'] ?? [];
    assert.equal(summaries.reduce((n, x) => n + Number(x.SampleCount), 0), answers.length, `${e.name}: the summaries count every answer`);
    const saved = mine.filter((r) => r.label !== 'request-summary');
    // Its responses are in its own directory, named after the label: the push samples (request,
    // timestamp) in its stream logs, each other response in a file of its own.
    for (const r of saved) {
      assert.equal(path.dirname(r.responseFile), e.responses);
      assert.ok(path.basename(r.responseFile).startsWith(`${r.label}_`));
      assert.ok(h.savedSample(r.responseFile), `${r.responseFile} missing`);
    }
    const files = fs.readdirSync(e.responses).filter((f) => !f.startsWith('push-'));
    assert.equal(saved.length + answers.length, samples.size + files.length, `${e.name}: every other saved response has its row`);
    assert.ok([...samples.values()].every((x) => x.end), `${e.name}: every push sample ended in the log`);
  }
});

// Gone, or a zombie its new parent has not reaped yet.
function alive(pid) {
  try {
    return fs.readFileSync(`/proc/${pid}/stat`, 'utf8').replace(/^.*\) /, '')[0] !== 'Z';
  } catch {
    return false;
  }
}

test('engines stop by PID; stopping again is a no-op', () => {
  for (const e of ENGINES) {
    const pid = Number(fs.readFileSync(pidFile(e), 'utf8').split(' ')[0]);
    const r = h.engine(['stop', '--name', e.name]);
    assert.equal(r.status, 0, r.stderr);
    assert.match(r.stdout, /stopped/);
    assert.ok(!alive(pid), `the engine JVM ${pid} is still alive`);
    assert.equal(h.engine(['status', '--name', e.name]).status, 3);
    const again = h.engine(['stop', '--name', e.name]);
    assert.equal(again.status, 0);
    assert.match(again.stdout, /not running/);
  }
});
