'use strict';
// lib/decide.js, the run's decisions in one place (issue #37 item 2), called in this process as the sweep
// calls it: validation of the arguments, settings and hosts file (run.sh's refusals, word for word), the
// split of the connections over the engines, heaps, disk, a blocking Tomcat's threads, ports, the open-file
// fit, run.json's parameters; the shell form run.sh evaluates once; golden decisions for the study's
// extreme permutations (lib/test/fixtures/decide/; PB_UPDATE_GOLDEN=1 rewrites them). What run.sh does with
// them (--plan's measured limits, its exit 3, the same refusal as a run) is tests/run-plan.test.js.
const { test, describe, after } = require('node:test');
const assert = require('node:assert/strict');
const fs = require('node:fs');
const os = require('node:os');
const path = require('node:path');
const { spawnSync } = require('node:child_process');
const { decide, heapMb, sizeMb, muxThreads, split, shellForm, jmeterStartOrder, USAGE_LINE } = require('../decide');
const { cpuListCount, engineCpus, engineProperties, jvmOptions, DEFAULT_COLLECTOR, PINNED_MUX_COLLECTOR, PINNED_MUX_JIT } = require('../decide-jmeter');
const { settings } = require('../config');
const { need } = require('../disk-need');
const { runRecord } = require('../run-schema');

const ROOT = path.join(__dirname, '..', '..');
const GOLDEN = path.join(__dirname, 'fixtures', 'decide');
const tmp = fs.mkdtempSync(path.join(os.tmpdir(), 'pb-decide-'));
after(() => fs.rmSync(tmp, { recursive: true, force: true }));

let files = 0;
const hostsFile = (lines) => {
  const f = path.join(tmp, `hosts-${++files}.conf`);
  fs.writeFileSync(f, `${lines.join('\n')}\n`);
  return f;
};
const LOCAL = ['sut local 127.0.0.1 local', 'engine local 127.0.0.1 local'];
const SUT = 'sut s1 127.0.0.1 local';
const TWO_ENGINES = [SUT, 'engine e1 127.0.0.2 local', 'engine e2 127.0.0.3 local'];

// lib/config.sh's defaults and what a case sets, nothing of this process's PB_* settings (the suite's ports).
const BASE_ENV = { HOME: process.env.HOME, PATH: process.env.PATH };
const decideWith = (argv, { hosts = LOCAL, env = {}, limits } = {}) =>
  decide({ argv, env: { ...BASE_ENV, PB_HOSTS: Array.isArray(hosts) ? hostsFile(hosts) : hosts, ...env }, limits });
const decided = (argv, options) => {
  const d = decideWith(argv, options);
  assert.equal(d.refused, undefined, d.refused?.text);
  return d;
};
const refusal = (argv, options) => {
  const d = decideWith(argv, options);
  assert.ok(d.refused, `not refused: ${argv.join(' ')}`);
  assert.equal(d.refused.code, 2);
  return d.refused;
};
// lib/jmeter-order.sh's bash, as it was before this module took it over (commit f41fd1b), for the keys.
function jmeterStartOrderOfBash(keys) {
  const bash = 'jmeter_start_order() { local capacity=16 key i h n=$# bucket; while ((n * 4 > capacity * 3)); do capacity=$((capacity * 2)); done; '
    + 'local -a order=(); for key in "$@"; do h=0; for ((i = 0; i < ${#key}; i++)); do h=$(((h * 31 + $(printf \'%d\' "\'${key:i:1}")) & 0xFFFFFFFF)); done; '
    + 'bucket=$(((h ^ (h >> 16)) & (capacity - 1))); order+=("$(printf \'%08d %04d %s\' "$bucket" "${#order[@]}" "$key")"); done; '
    + 'printf \'%s\\n\' "${order[@]}" | sort | cut -d\' \' -f3-; }; jmeter_start_order "$@"';
  const r = spawnSync('bash', ['-c', bash, '-', ...keys], { encoding: 'utf8' });
  assert.equal(r.status, 0, r.stderr);
  return r.stdout.trim().split('\n');
}
const argsText = (message) => `run.sh: ${message}\n${USAGE_LINE}\n(./run.sh --help for details)\n`;
const defaults = settings(BASE_ENV);

describe('the split, heaps and disk (what ./run.sh --plan showed)', () => {
  test('the local hosts: the server, one engine with every connection, its heap and disk', () => {
    const d = decided(['node', '5', '30', '500', 'comet', '-', 'event1', '2000']);
    assert.equal(d.connections, 500);
    assert.deepEqual(d.parameters, { server: 'node', type: 'comet', rampupS: 5, durationS: 30, connections: 500, maxDurationMs: null,
      event: 'event1', emitIntervalMs: 2000, pullIntervalMs: null, port: 8080 });
    assert.deepEqual(d.server, { type: 'node', name: 'local', address: '127.0.0.1', listen: '127.0.0.1', port: 8080, connections: 500, bioThreads: null });
    const disk = need({ type: 'comet', durationS: 30, maxDurationMs: null, emitIntervalMs: 2000, connections: 500 });
    assert.deepEqual(d.engines, [{ name: 'local', address: '127.0.0.1', access: 'local', rmi: 1099, localport: 4000, connections: 500,
      heapMb: 256 + Math.ceil(500 * 16 / 1024), diskMb: disk.engineMB, init: true, cleanup: true }]);
    assert.equal(d.waitS, 30 + 2 + 10 + 60 + 6);
    assert.equal(d.jmeterProperties, ['server.host=127.0.0.1', 'server.port=8080', 'rampup.period=5', 'test.duration=30', 'logging.enabled=false',
      'event.enabled=true', 'event.name=event1', 'event.frequency=2000', 'request.type=comet', 'request.events=event1', 'request.duration=0',
      'pull.interval=0', 'churn.percent=0', 'request.sampler=mux', 'clear.margin.ms=0', ''].join('\n'));
    assert.equal(d.resultsDiskMb, Math.ceil((disk.archiveBytes + disk.samples * 200) / (1024 * 1024)) + 20);
    assert.equal(d.openFiles, null, 'no limits given: no fit');
    assert.equal(d.threadFit, null);
  });

  test('two engines: the connections split so shares differ by at most one (the first gets the extra), a heap and disk each', () => {
    const d = decided(['tc7', '10', '60', '1001', 'poll', '3000', 'event1', '2000'], { hosts: TWO_ENGINES });
    assert.deepEqual(d.engines.map((e) => [e.name, e.address, e.connections, e.localport]), [['e1', '127.0.0.2', 501, 4000], ['e2', '127.0.0.3', 500, 4001]]);
    assert.deepEqual(d.engines.map((e) => e.heapMb), [heapMb(501, 'mux', defaults), heapMb(500, 'mux', defaults)]);
    const disks = [501, 500].map((c) => need({ type: 'poll', durationS: 60, maxDurationMs: 3000, emitIntervalMs: 2000, connections: c }));
    assert.deepEqual(d.engines.map((e) => e.diskMb), disks.map((n) => n.engineMB));
    assert.deepEqual(d.server, { type: 'tc7', name: 's1', address: '127.0.0.1', listen: '127.0.0.1', port: 8087, connections: 1001, bioThreads: null });
    // JMeter starts them in its HashMap's order: here e1 first (it sets the event), e2 last (it clears it)
    assert.deepEqual(d.engines.map((e) => [e.name, e.init, e.cleanup]), [['e1', true, false], ['e2', false, true]]);
    // and with several engines the clear waits 5 s more: their loads start seconds apart, in either order
    assert.match(d.jmeterProperties, /^clear\.margin\.ms=5000$/m);
    // the order of the keys given is not JMeter's: its buckets decide (checked against the HashMap's in
    // a JMeter 5.6.3 controller log, lib/jmeter-order.sh before this module)
    assert.deepEqual(jmeterStartOrder(['127.0.0.3:11099', '127.0.0.2:11099', '127.0.0.4:11099']),
      jmeterStartOrderOfBash(['127.0.0.3:11099', '127.0.0.2:11099', '127.0.0.4:11099']));
    assert.equal(d.waitS, 60 + 3 + 5 + 10 + 60 + 12, 'the clear margin of several engines included');
    assert.deepEqual(split(10, 3), [4, 3, 3]);
    assert.deepEqual(split(2, 2), [1, 1]);
  });

  test('pull: its interval stands in the max duration\'s place for the disk; a bind= address is where the server listens', () => {
    const d = decided(['node', '5', '30', '500', 'pull', '1000', 'event1', '2000'], { hosts: ['sut s1 127.0.0.1 local bind=0.0.0.0', 'engine e1 127.0.0.2 local'] });
    assert.equal(d.parameters.pullIntervalMs, 1000);
    assert.equal(d.parameters.maxDurationMs, null);
    assert.equal(d.engines[0].diskMb, need({ type: 'pull', durationS: 30, maxDurationMs: 1000, emitIntervalMs: 2000, connections: 500 }).engineMB);
    assert.deepEqual([d.server.address, d.server.listen], ['127.0.0.1', '0.0.0.0']);
    assert.deepEqual(d.record.hosts.sut, { name: 's1', address: '127.0.0.1', bind: '0.0.0.0', access: 'local' });
  });

  test('limits given: an engine short of open files and a soft limit below the need are refused, each with its fix', () => {
    const d = decided(['node', '5', '30', '1001', 'comet'], {
      hosts: TWO_ENGINES,
      env: { PB_PLAN_OPEN_FILES: 'sut:s1=1024/20000 engine:e1=unlimited/unlimited engine:e2=600/600', PB_FD_RESERVE: '200' },
    });
    const o = d.openFiles;
    assert.equal(o.limitsFrom, 'PB_PLAN_OPEN_FILES');
    assert.equal(o.reserve, 200);
    assert.equal(o.fits, false);
    const [sut, e1, e2] = o.hosts;
    assert.deepEqual([sut.need, sut.soft, sut.hard, sut.fits], [1201, 1024, 20000, false]);
    assert.match(sut.problem, /the node server .* needs 1201 but the soft limit here is 1024 \(hard 20000\): add 'ulimit -n 20000'/);
    assert.deepEqual([e1.soft, e1.hard, e1.fits, e1.problem], ['unlimited', 'unlimited', true, null]);
    assert.deepEqual([e2.connections, e2.need, e2.fits], [500, 700, false]);
    assert.match(e2.problem, /this JMeter engine needs 500 connections \+ 200 reserve = 700, but a process here may open at most 600 \(ulimit -Hn\)\. At most 400 connections fit; 3 engines like this one would hold the 1001 connections, hosts\.conf has 2/);
    // given as an argument, e.g. measured by run.sh
    const m = decided(['node', '5', '30', '10', 'comet'], { limits: { openFiles: 'sut:local=20000/20000 engine:local=20000/20000', openFilesFrom: 'measured' } });
    assert.deepEqual([m.openFiles.limitsFrom, m.openFiles.fits], ['measured', true]);
  });

  test('PB_PLAN_OPEN_FILES without an entry for a host, or with a bad one: refused, exit 2', () => {
    const missing = refusal(['node', '5', '30', '10', 'comet'], { hosts: TWO_ENGINES, env: { PB_PLAN_OPEN_FILES: 'sut:s1=20000/20000 engine:e1=20000/20000' } });
    assert.equal(missing.stage, 'limits');
    assert.equal(missing.message, 'PB_PLAN_OPEN_FILES has no entry for engine:e2 (one per hosts.conf line)');
    const bad = refusal(['node', '5', '30', '10', 'comet'], { env: { PB_PLAN_OPEN_FILES: 'sut:local=many/20000' } });
    assert.equal(bad.text, argsText("PB_PLAN_OPEN_FILES: bad entry 'sut:local=many/20000' (expected <role>:<name>=<soft>/<hard>)"));
  });

  test('run.json\'s parameters and hosts pass the run schema (lib/run-schema.js)', () => {
    const d = decided(['tc7', '10', '60', '1001', 'poll', '3000', 'event1', '2000'], { hosts: TWO_ENGINES });
    const r = runRecord({ id: 'x', ...d.record, provenance: null, startedAt: 1, finishedAt: null, status: 'running', serverCrashed: false, steps: {}, notes: [] });
    assert.equal(r.connections, 1001);
    assert.deepEqual(r.hosts.engines.map((e) => [e.name, e.connections, e.heapMb]), d.engines.map((e) => [e.name, e.connections, e.heapMb]));
  });
});

describe('refusals: run.sh\'s exit 2 and its words', () => {
  // [arguments, message] (tests/run-args.test.js checks the same through run.sh)
  const bad = [
    [[], 'expected 5 to 8 arguments, got 0'],
    [['node', '5', '30', '500'], 'expected 5 to 8 arguments, got 4'],
    [['node', '5', '30', '500', 'poll', '3000', 'event1', '2000', 'extra'], 'expected 5 to 8 arguments, got 9'],
    [['jetty', '5', '30', '500', 'comet'], "server-type must be node, node-cluster, tc6, tc7, tc6-bio or tc7-bio, got 'jetty'"],
    [['node', '5', '30', '500', 'stream'], "test-type must be comet, poll, pull, sse or ws, got 'stream'"],
    [['node', 'five', '30', '500', 'comet'], "rampup must be a whole number, got 'five'"],
    [['node', '5', '-30', '500', 'comet'], "duration must be a whole number, got '-30'"],
    [['node', '5', '30', '0', 'comet'], 'threads must be between 1 and 1000000, got 0'],
    [['node', '30', '30', '500', 'comet'], 'rampup (30 s) must be shorter than duration (30 s), which includes it'],
    [['node', '5', '30', '500;touch /tmp/pb-pwned', 'comet'], "threads must be a whole number, got '500;touch /tmp/pb-pwned'"],
    [['node', '5', '30', '500', 'poll'], 'poll needs a max-duration in ms (e.g. ./run.sh node 5 30 500 poll 3000)'],
    [['node', '5', '30', '500', 'poll', '-'], 'poll needs a max-duration in ms (e.g. ./run.sh node 5 30 500 poll 3000)'],
    [['node', '5', '30', '500', 'poll', '9999999'], 'max-duration must be between 1 and 3600000, got 9999999'],
    [['node', '5', '30', '500', 'comet', '-', 'ev$(id)', '2000'], "event-name must be 1-64 of A-Z a-z 0-9 _ - starting with a letter or digit, got 'ev$(id)'"],
    [['node', '5', '30', '500', 'poll', '3000', 'mytimeout', '2000'], "event-name must not contain 'error' or 'timeout' (the plan's assertions would fail every response), got 'mytimeout'"],
    [['node', '5', '30', '500', 'comet', '-', 'event1'], "event-name 'event1' needs an emit-interval in ms after it"],
    [['node', '5', '30', '500', 'comet', '-', '-', '2000'], 'an emit-interval was given without an event-name'],
    [['node', '5', '30', '500', 'comet', '-', 'event1', '5'], 'emit-interval must be between 10 and 3600000, got 5'],
    [['node', '5', '30', '500', 'pull'], 'pull needs a pull-interval in ms (e.g. ./run.sh node 5 30 500 pull 1000 event1 2000)'],
    [['node', '5', '30', '500', 'pull', '0', 'event1', '2000'], "pull-interval must be a positive whole number of ms, got '0'"],
    [['node', '5', '30', '500', 'pull', '3600001'], 'pull-interval must be between 1 and 3600000, got 3600001'],
    [['node', '5', '30', '500', 'pull', '1000', '3000'], 'pull takes no max-duration: pull <pull-interval> [<event-name> <emit-interval>]'],
    [['node', '5', '30', '500', 'pull', '1000', '3000', 'event1', '2000'], 'pull takes no max-duration: pull <pull-interval> [<event-name> <emit-interval>]'],
    [['node', '5', '30', '500', 'sse', '3000'], 'sse takes no max-duration (a stream is held until the end): write - in its place, e.g. sse - event1 2000'],
    [['tc6', '2', '15', '50', 'ws', '-', 'event1', '1000'], 'tc6 does not speak WebSocket (Tomcat 6 has no WebSocket API; docs/protocol.md): ws runs on node, node-cluster, tc7 and tc7-bio'],
  ];
  for (const [argv, message] of bad) {
    test(`${argv.join(' ') || '(none)'}: ${message}`, () => {
      const r = refusal(argv);
      assert.equal(r.stage, 'arguments');
      assert.equal(r.message, message);
      assert.equal(r.text, argsText(message));
    });
  }

  test('the request sampler must speak the type; node-cluster\'s size is checked', () => {
    assert.equal(refusal(['node', '5', '30', '500', 'sse', '-', 'event1', '2000'], { env: { PB_REQUEST_SAMPLER: 'push' } }).message,
      'sse needs the mux engine (PB_REQUEST_SAMPLER=mux, the default), got PB_REQUEST_SAMPLER=push');
    assert.equal(refusal(['node', '5', '30', '500', 'comet', '-', 'event1', '2000'], { env: { PB_CHURN_PERCENT: '5' } }).message,
      'PB_CHURN_PERCENT=5 drops SSE and WebSocket streams only, not comet streams (leave it at 0)');
    assert.match(decided(['node', '5', '30', '500', 'ws', '-', 'event1', '2000'], { env: { PB_CHURN_PERCENT: '12.5' } }).jmeterProperties,
      /^churn\.percent=12\.5$/m, 'churn reaches the plan');
    assert.match(refusal(['node-cluster', '5', '30', '500', 'comet'], { env: { PB_NODE_CLUSTER_WORKERS: '2000' } }).message,
      /PB_NODE_CLUSTER_WORKERS \(the cluster size\) must be auto or a whole number from 1 to 1024, got '2000'/);
  });

  test('bad settings: every one named, before the arguments', () => {
    const r = refusal(['jetty'], { env: { PB_PORT_NODE: '18080\n1', PB_JMETER_RMI_PORT: '70000', PB_MAX_EMITTERS: 'many', PB_SERVER_ADDRESS: 'localhost' } });
    assert.equal(r.stage, 'settings');
    assert.equal(r.text, argsText(['bad settings (lib/config.sh; nothing was started):',
      "PB_PORT_NODE holds a control character (a newline?): $'18080\\n1'",
      "PB_PORT_NODE must be a port (1-65535), got $'18080\\n1'",
      'PB_JMETER_RMI_PORT must be a port (1-65535), got 70000',
      'PB_MAX_EMITTERS must be a whole number >= 1, got many',
      'PB_SERVER_ADDRESS must be an IPv4 address (0.0.0.0: every interface), got localhost'].join('\n')));
  });

  test('PB_JMETER_HEAP that is not a size: refused after the hosts were read', () => {
    const r = refusal(['node', '5', '30', '10', 'comet'], { env: { PB_JMETER_HEAP: 'lots' } });
    assert.equal(r.stage, 'heap');
    assert.equal(r.message, 'PB_JMETER_HEAP=lots is not a heap size (want auto, or e.g. 512m or 3g)');
  });

  test('hosts files: "<file>:<line>: <what>", the file named as given', () => {
    const cases = [
      [[SUT, 'client c1 127.0.0.1 local'], 2, "unknown role 'client' (expected sut or engine)"],
      [[SUT, 'engine e1 127.0.0.1 local colour=blue'], 2, "unknown option 'colour' (expected key, port, dir, rmi, bind, pid or process)"],
      [['# a comment', SUT, '', 'engine e1 127.0.0.300 local'], 4, "bad address '127.0.0.300' (expected an IPv4 address such as 192.0.2.10)"],
      [[SUT, 'engine e1 127.0.0.1 local', 'engine e1 127.0.0.2 local'], 3, "duplicate engine name 'e1' (first on line 2)"],
      [['engine e1 127.0.0.1 local'], 1, 'no sut line (exactly one host must have the role sut)'],
      [[SUT, 'engine e1 127.0.0.1 ssh:alice'], 2, "bad access 'ssh:alice' (expected local or ssh:<user>@<host>)"],
      [[SUT, 'engine e1 127.0.0.1 ssh:alice@127.0.0.1 key=/etc'], 2, "key file '/etc' is not a readable file"],
      [[SUT, 'engine e1 127.0.0.1 local', 'engine e2 127.0.0.1 local'], 3, "engine 'e2' uses 127.0.0.1 rmi port 1099 like engine 'e1' on line 2 (give one of them rmi=<another port>)"],
      [[SUT, 'engine e1 127.0.0.1 local rmi=8080'], 2, "engine 'e1' rmi port 8080 is the server's port on 127.0.0.1 (give it rmi=<another port>)"],
      [[SUT, 'engine e1 127.0.0.1 local', 'engine e2 127.0.0.1 local rmi=4000'], 3, "engine 'e2' rmi port 4000 is the RMI local port of engine 'e1' on 127.0.0.1 (PB_JMETER_RMI_LOCALPORT and up, one per engine; give it rmi=<another port>)"],
    ];
    for (const [lines, line, message] of cases) {
      const file = hostsFile(lines);
      const r = refusal(['node', '1', '5', '10', 'comet'], { hosts: file });
      assert.equal(r.stage, 'hosts');
      assert.equal(r.text, `run.sh: ${file}:${line}: ${message}\n`);
    }
    const few = refusal(['node', '1', '5', '2', 'comet'], { hosts: [...TWO_ENGINES, 'engine e3 127.0.0.4 local'] });
    assert.match(few.message, /^threads \(2\) must be at least the number of engines in .*hosts-\d+\.conf \(3\)$/);
    const nope = path.join(tmp, 'nope.conf');
    assert.equal(refusal(['node', '1', '5', '10', 'comet'], { hosts: nope }).text, `run.sh: hosts file ${nope}: not found or not readable\n`);
  });

  test('no hosts file: the local default', () => {
    const d = decide({ argv: ['node', '1', '5', '10', 'comet'], env: { ...BASE_ENV, PB_ROOT: tmp } });
    assert.equal(d.hosts, '(local default)');
    assert.deepEqual(d.hostLines.map((h) => [h.role, h.name, h.address, h.line, h.dir]), [['sut', 'local', '127.0.0.1', 0, tmp], ['engine', 'local', '127.0.0.1', 0, tmp]]);
  });
});

describe('heaps, sizes and threads', () => {
  const s = (env = {}) => settings({ ...BASE_ENV, PB_JMETER_HEAP_BASE_MB: '512', PB_JMETER_HEAP_PER_THREAD_KB: '128', ...env });
  test('a thread per connection: the base plus a share per thread, rounded up to whole MB; mux its own', () => {
    assert.deepEqual([0, 1, 8, 9].map((n) => heapMb(n, 'push', s())), [512, 513, 513, 514]);
    assert.equal(heapMb(15000, 'http', s()), 512 + Math.ceil(15000 * 128 / 1024));
    assert.equal(heapMb(15000, 'mux', s()), 256 + Math.ceil(15000 * 16 / 1024));
    assert.throws(() => heapMb(10, 'ws', s()), /unknown sampler 'ws'/);
  });

  test('PB_JMETER_HEAP set to a size overrides the estimate; anything else is no size', () => {
    assert.equal(heapMb(15000, 'mux', s({ PB_JMETER_HEAP: '3g' })), 3072);
    assert.deepEqual(['700m', '2G', String(1024 * 1048576)].map(sizeMb), [700, 2048, 1024]);
    for (const bad of ['lots', '3gb', '-1g', '0', '3 g', 'g']) assert.equal(sizeMb(bad), null, bad);
  });

  test('mux threads: one per PB_MUX_CONNECTIONS_PER_THREAD, at least 1, at most one per core', () => {
    assert.deepEqual([1, 19800, 40000, 1000000].map((n) => muxThreads(n, 4, s())), [1, 1, 2, 4]);
  });

  test('an engine\'s CPUs: those PB_ENGINE_CPUS pins it to (a taskset list, counted), else its host\'s cores', () => {
    assert.deepEqual(['0', '1', '0-3', '0,2', '0-1,4,6-7', '3,3'].map(cpuListCount), [1, 1, 4, 2, 5, 1]);
    for (const bad of ['', ' ', 'a', '0-', '3-1', '0;1', '-1']) assert.equal(cpuListCount(bad), null, bad);
    assert.equal(engineCpus(2, s()), 2);
    assert.equal(engineCpus(2, s({ PB_ENGINE_CPUS: '0' })), 1);
    assert.equal(engineCpus(8, s({ PB_ENGINE_CPUS: '0-3' })), 4);
    // the selector threads follow: pinned to one CPU, 40,000 connections get one, not the host's two
    const mux = (env) => Number(engineProperties({ connections: 40000, cores: 2, responses: '/r', init: true, cleanup: true }, s(env))
      .find(([k]) => k === 'mux.threads')[1]);
    assert.equal(mux({}), 2);
    assert.equal(mux({ PB_ENGINE_CPUS: '1' }), 1);
  });

  test('the JVM: a pinned mux engine gets ZGC, its CPU count and its JIT directives; every other JMeter JVM Parallel; PB_JMETER_GC overrides the collector', () => {
    const FIXED = ['-Djava.security.egd=file:/dev/urandom', '-Duser.language=en', '-Duser.region=EN', '-Dpushbench.streamLog.codec=lz4'];
    assert.equal(s().PB_JMETER_GC, 'auto');   // lib/config.sh's default
    assert.deepEqual(jvmOptions({ role: 'engine', sampler: 'mux' }, s()), ['-XX:+UseParallelGC', ...FIXED]);
    assert.deepEqual(jvmOptions({ role: 'engine', sampler: 'mux' }, s({ PB_ENGINE_CPUS: '0' })),
      ['-XX:+UseZGC', '-XX:+AlwaysPreTouch', '-XX:MetaspaceSize=128m', '-XX:-ZProactive', '-XX:ActiveProcessorCount=1', ...PINNED_MUX_JIT, ...FIXED]);
    assert.deepEqual(jvmOptions({ role: 'engine', sampler: 'mux' }, s({ PB_ENGINE_CPUS: '0-1' })).slice(0, 5),
      [...PINNED_MUX_COLLECTOR, '-XX:ActiveProcessorCount=2']);
    // a thread per connection pinned: Parallel (ZGC not measured there), still told its CPUs
    assert.deepEqual(jvmOptions({ role: 'engine', sampler: 'push' }, s({ PB_ENGINE_CPUS: '1' })), [...DEFAULT_COLLECTOR, '-XX:ActiveProcessorCount=1', ...FIXED]);
    // the controller is never pinned by PB_ENGINE_CPUS
    assert.deepEqual(jvmOptions({ role: 'controller' }, s({ PB_ENGINE_CPUS: '0' })), [...DEFAULT_COLLECTOR, ...FIXED]);
    // a collector given is taken as given, split on spaces, for every JVM
    const g1 = s({ PB_JMETER_GC: ' -XX:+UseG1GC  -XX:MaxGCPauseMillis=50', PB_ENGINE_CPUS: '0' });
    assert.deepEqual(jvmOptions({ role: 'engine', sampler: 'mux' }, g1), ['-XX:+UseG1GC', '-XX:MaxGCPauseMillis=50', '-XX:ActiveProcessorCount=1', ...PINNED_MUX_JIT, ...FIXED]);
    assert.deepEqual(jvmOptions({ role: 'controller' }, g1), ['-XX:+UseG1GC', '-XX:MaxGCPauseMillis=50', ...FIXED]);
  });

  test('the JVM: the pinned mux engine\'s compiler directives are a file this JDK reads', () => {
    assert.equal(PINNED_MUX_JIT[0], '-XX:+UnlockDiagnosticVMOptions');   // before the diagnostic flag, as HotSpot wants
    const r = spawnSync('java', [...PINNED_MUX_JIT, '-XX:+CompilerDirectivesPrint', '-version'], { encoding: 'utf8' });
    assert.equal(r.status, 0, r.stderr);
    assert.match(r.stdout, /^1 compiler directives added/m);
    // JMeter's code and the sample sender's serialisation are kept from C2, C1 still compiles them
    const matching = /^ matching: (.*)$/m.exec(r.stdout)[1].split(', ');
    assert.ok(matching.includes('org/apache/jmeter/*.*') && matching.includes('java/io/ObjectOutputStream*.*'), matching.join(', '));
    const c2 = r.stdout.split('Directive: (default)')[0].split('c2 directives:')[1];
    assert.match(c2, /\bExclude:true\b/);
  });

  test('the JVM: the stream logs\' codec, lz4 by default, gzip when PB_JMETER_STREAM_LOG_CODEC says so, for every JMeter JVM', () => {
    assert.equal(s().PB_JMETER_STREAM_LOG_CODEC, 'lz4');   // lib/config.sh's default
    const codec = (role, env) => jvmOptions({ role, sampler: role === 'engine' ? 'push' : null }, s(env))
      .filter((o) => o.startsWith('-Dpushbench.streamLog.codec='));
    assert.deepEqual(codec('engine', {}), ['-Dpushbench.streamLog.codec=lz4']);
    assert.deepEqual(codec('engine', { PB_JMETER_STREAM_LOG_CODEC: 'gzip' }), ['-Dpushbench.streamLog.codec=gzip']);
    assert.deepEqual(codec('controller', { PB_JMETER_STREAM_LOG_CODEC: 'gzip' }), ['-Dpushbench.streamLog.codec=gzip'], 'with --local the controller writes the logs');
    assert.match(refusal(['node', '5', '30', '10', 'comet'], { env: { PB_JMETER_STREAM_LOG_CODEC: 'zstd' } }).text,
      /PB_JMETER_STREAM_LOG_CODEC must be lz4 or gzip, got zstd/);
  });

  test('the JVM options through the CLI (lib/jmeter-heap.sh jmeter_jvm_options): one a line; a bad role refused', () => {
    const cli = (args, env) => spawnSync(process.execPath, [path.join(__dirname, '..', 'decide.js'), '--jvm-options', ...args],
      { env: { PATH: process.env.PATH, ...BASE_ENV, ...env }, encoding: 'utf8' });
    const pinned = cli(['engine', 'mux'], { PB_ENGINE_CPUS: '0' });
    assert.equal(pinned.status, 0, pinned.stderr);
    assert.deepEqual(pinned.stdout.trim().split('\n').slice(0, 5), ['-XX:+UseZGC', '-XX:+AlwaysPreTouch', '-XX:MetaspaceSize=128m', '-XX:-ZProactive', '-XX:ActiveProcessorCount=1']);
    assert.equal(cli(['controller'], {}).stdout.split('\n')[0], '-XX:+UseParallelGC');
    for (const bad of [[], ['engine'], ['engine', 'ws'], ['controller', 'mux'], ['gen']]) assert.equal(cli(bad, {}).status, 2, bad.join(' '));
  });

  test('a blocking Tomcat: maxThreads for the level when auto (exported), checked against this machine\'s room', () => {
    const room = [{ name: 'kernel.pid_max', room: 30000, what: '32768 PIDs' }, { name: 'RLIMIT_NPROC', room: -1, what: 'unlimited' }];
    const d = decided(['tc7-bio', '5', '30', '1000', 'comet'], { limits: { threadRoom: room } });
    assert.deepEqual(d.settings, { PB_TOMCAT_BIO_THREADS: '1050' });
    assert.deepEqual(d.threadFit, { threads: 1050, need: 1110, checked: true });
    assert.equal(d.server.bioThreads, 1050);
    const r = refusal(['tc6-bio', '5', '30', '29950', 'comet'], { limits: { threadRoom: () => room } });
    assert.equal(r.message, 'tc6-bio: a blocking connector with 30000 threads (+60 of the JVM) cannot start here: kernel.pid_max allows 30000 more (32768 PIDs); see docs/limits.md');
    assert.equal(decided(['tc7-bio', '5', '30', '10', 'comet'], { env: { PB_TOMCAT_BIO_THREADS: '400' }, limits: { threadRoom: room } }).threadFit.threads, 400);
    assert.match(refusal(['tc7-bio', '5', '30', '10', 'comet'], { env: { PB_TOMCAT_BIO_THREADS: 'x' } }).message, /PB_TOMCAT_BIO_THREADS must be auto or a whole number >= 1, got 'x'/);
  });
});

describe('the shell form run.sh evaluates once', () => {
  // Evaluates the shell form in bash and prints what run.sh would read back.
  const evaluated = (form, show) => {
    const r = spawnSync('bash', ['-c', `set -euo pipefail; eval "$1"; ${show}`, '-', form], { encoding: 'utf8' });
    assert.equal(r.status, 0, r.stderr);
    return r.stdout;
  };

  test('the RUN_* parameters, the hosts tables with each engine\'s share, heap and disk, the decisions as JSON', () => {
    const d = decided(['tc7', '10', '60', '1001', 'poll', '3000', 'event1', '2000'], { hosts: TWO_ENGINES });
    const out = evaluated(shellForm(d), 'printf "%s|" "$RUN_SERVER" "$RUN_CONNECTIONS" "$RUN_MAX_DURATION_MS" "$RUN_PULL_INTERVAL_MS" ' +
      '"$RUN_PORT" "$RUN_RESULTS_DISK_MB" "$SUT_IDX" "${ENGINE_IDX[*]}" "${H_NAME[*]}" "${H_CONNECTIONS[1]}" "${H_CONNECTIONS[2]}" ' +
      '"${H_HEAP_MB[2]}" "${H_DISK_MB[1]}" "${H_RMI[2]}" "$PB_SERVER_ADDRESS" "$DECISION_REFUSED_STAGE"; printf "%s" "$DECISIONS_JSON"');
    const fields = out.split('|');
    assert.deepEqual(fields.slice(0, -1), ['tc7', '1001', '3000', '', '8087', String(d.resultsDiskMb), '0', '1 2', 's1 e1 e2', '501', '500',
      String(d.engines[1].heapMb), String(d.engines[0].diskMb), '1099', '127.0.0.1', '']);
    assert.deepEqual(JSON.parse(fields.at(-1)), d);
  });

  test('a refusal\'s text, quotes and all, arrives as it was: safe whatever an argument holds', () => {
    const d = decideWith(['node', '5', '30', "10'; touch /tmp/pb-pwned; '", 'comet', '-', 'e\'v"$(id)`x`', '1000']);
    const out = evaluated(shellForm(d), 'printf "%s|%s|%s" "$DECISION_REFUSED_STAGE" "$DECISION_REFUSED_CODE" "$DECISION_REFUSED_TEXT"');
    assert.equal(out, `arguments|2|${d.refused.text}`);
    assert.equal(fs.existsSync('/tmp/pb-pwned'), false);
  });
});

test('lib/config.js reads lib/config.sh\'s settings as bash does', () => {
  const env = { PATH: process.env.PATH, HOME: process.env.HOME, PB_BUILD: '/x/build', PB_START_TIMEOUT_TOMCAT: '7', PB_PORT_NODE: '' };
  const r = spawnSync('bash', ['-c', 'source lib/config.sh; for v in $(compgen -v PB_); do printf "%s\\t%s\\n" "$v" "${!v}"; done'],
    { cwd: ROOT, env, encoding: 'utf8' });
  assert.equal(r.status, 0, r.stderr);
  const s = settings(env);
  const bash = Object.fromEntries(r.stdout.trim().split('\n').map((l) => l.split('\t')));
  assert.ok(Object.keys(bash).length > 50);
  for (const [k, v] of Object.entries(bash)) assert.equal(s[k], v, k);
  assert.deepEqual([s.PB_STATE, s.PB_START_TIMEOUT_TC6, s.PB_PORT_NODE], ['/x/build/state', '7', '8080']);
});

describe('golden decisions: the study\'s extreme permutations (./run.sh --plan prints these)', () => {
  const hosts = 'lib/test/fixtures/decide/two-engines.conf';   // relative: read from the checkout, as run.sh does
  const limits = 'sut:s1=20000/20000 engine:e1=unlimited/unlimited engine:e2=10000/10000';
  const room = [{ name: 'kernel.threads-max', room: 60000, what: '63000 tasks, 3000 running' }];
  const cases = {
    'smallest-comet-1s': ['node', '30', '600', '1000', 'comet', '-', 'event1', '1000'],
    'smallest-comet-no-events': ['tc6', '30', '600', '1000', 'comet'],
    'largest-comet-30s': ['node', '30', '600', '20000', 'comet', '-', 'event1', '30000'],
    'largest-poll-1s': ['tc6', '30', '600', '20000', 'poll', '180000', 'event1', '1000'],
    'largest-poll-no-events': ['tc7', '30', '600', '20000', 'poll', '30000'],
    'extended-bio-largest': ['tc7-bio', '30', '600', '20000', 'poll', '5000', 'event1', '1000'],
  };
  for (const [name, argv] of Object.entries(cases)) {
    test(`${name}: ./run.sh --plan ${argv.join(' ')}`, () => {
      const d = decided(argv, { hosts, env: { PB_PLAN_OPEN_FILES: limits, PB_ROOT: ROOT }, limits: { threadRoom: room } });
      const file = path.join(GOLDEN, `${name}.json`);
      const text = `${JSON.stringify(d, null, 2)}\n`;
      if (process.env.PB_UPDATE_GOLDEN === '1') fs.writeFileSync(file, text);
      assert.equal(text, fs.readFileSync(file, 'utf8'));
    });
  }
});
