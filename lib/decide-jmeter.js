'use strict';
// A run's sizes and JMeter's properties decided (lib/decide.js's third part): each engine's share of the
// connections, its heap and selector threads, the order JMeter starts the engines in, how long run.sh
// waits and its wait's rules, the plan's global properties (the one table where the run schema's names
// become JMeter's) and each engine's own.

const path = require('node:path');

// ---------------------------------------------------------------------------------------------------
// Sizes: each engine's share of the connections, its heap, the disk.

// The shares differ by at most one; the first engines take the remainder.
const split = (total, n) => Array.from({ length: n }, (_, k) => Math.floor(total / n) + (k < total % n ? 1 : 0));

// A JVM size (512m, 3g, 2048 bytes) in MB; null on anything else.
function sizeMb(size) {
  const m = /^([1-9][0-9]*)([mg]?)$/.exec(String(size).toLowerCase());
  if (!m) return null;
  const n = Number(m[1]);
  return m[2] === 'g' ? n * 1024 : m[2] === 'm' ? n : Math.floor(n / 1048576);
}

// An engine's heap (-Xmx, MB) for the connections it drives with a sampler (docs/engine.md):
// mux: PB_JMETER_MUX_HEAP_BASE_MB + PB_JMETER_MUX_HEAP_PER_CONNECTION_KB per connection (a held connection's
// state and the garbage of its answers between two young collections); push, http: PB_JMETER_HEAP_BASE_MB +
// PB_JMETER_HEAP_PER_THREAD_KB per connection (a JMeter thread each). PB_JMETER_HEAP set to a size
// overrides the estimate; null when it is neither auto nor a size. Too small a heap does not fail a run,
// it starves it: the engine collects garbage instead of sending requests (docs/limits.md).
function heapMb(connections, sampler, s) {
  if (s.PB_JMETER_HEAP !== 'auto') return sizeMb(s.PB_JMETER_HEAP);
  const perKb = (base, kb) => Number(base) + Math.floor((connections * Number(kb) + 1023) / 1024);
  if (sampler === 'mux') return perKb(s.PB_JMETER_MUX_HEAP_BASE_MB, s.PB_JMETER_MUX_HEAP_PER_CONNECTION_KB);
  if (sampler === 'push' || sampler === 'http') return perKb(s.PB_JMETER_HEAP_BASE_MB, s.PB_JMETER_HEAP_PER_THREAD_KB);
  throw new Error(`unknown sampler '${sampler}' (mux, push or http)`);
}

// The mux engine's selector threads (testplan.jmx mux.threads): one per PB_MUX_CONNECTIONS_PER_THREAD
// connections, at least 1, at most one per core of the engine's host.
const muxThreads = (connections, cores, s) =>
  Math.max(1, Math.min(cores, Math.ceil(connections / Number(s.PB_MUX_CONNECTIONS_PER_THREAD))));

// ---------------------------------------------------------------------------------------------------
// The JVM: how many CPUs an engine has, its collector and the options that go with it.

// The CPUs a taskset list names (0, 0-3, 0,2,5-7), counted; null for an empty list (not pinned) or one
// that does not read as a list.
function cpuListCount(list) {
  const text = String(list ?? '').trim();
  if (!/^[0-9]+(-[0-9]+)?(,[0-9]+(-[0-9]+)?)*$/.test(text)) return null;
  const cpus = new Set();
  for (const part of text.split(',')) {
    const [from, to = from] = part.split('-').map(Number);
    if (to < from) return null;
    for (let c = from; c <= to; c++) cpus.add(c);
  }
  return cpus.size;
}

// The CPUs an engine's JVM may use: those PB_ENGINE_CPUS pins it to (load/engine.sh's taskset), else every
// core of its host. Its selector threads (muxThreads) and its JVM (jvmOptions) are sized for these.
const engineCpus = (hostCores, s) => cpuListCount(s.PB_ENGINE_CPUS) ?? hostCores;

// The collector of a mux engine pinned to its CPUs (docs/engine.md "Stops under pinning"). A pinned JVM's
// stop-the-world collector copies the survivors (~15-20 MB at 15,000 streams: each held stream's recent
// records) with one thread on the CPUs it shares with whatever else runs there: 20-70 ms of CPU per young
// collection, stretched to 130-380 ms of stop on a shared machine (Parallel and Serial alike). ZGC does that
// work concurrently and stops only for its roots, so what the machine takes from the JVM lengthens a stop of
// well under a millisecond of work. Its heap committed and touched at start (no page faults in a collection),
// and a metaspace threshold above what JMeter and the plan load (~38 MB), so loading them starts no cycle.
// No proactive cycles (-ZProactive): ZGC's timer otherwise collects every 25-30 s although the heap is
// mostly free (the engine allocates ~1.6 MB/s at 15,000 streams), each cycle marking the held connections
// again; cycles still start when the allocation rate would fill the heap (docs/engine.md "Stops under pinning").
const PINNED_MUX_COLLECTOR = ['-XX:+UseZGC', '-XX:+AlwaysPreTouch', '-XX:MetaspaceSize=128m', '-XX:-ZProactive'];
// The JIT of a mux engine pinned to its CPUs: JMeter's own code (test elements, listeners, the remote sample
// sender's serialisation, RMI), which a mux engine runs once a second, stays compiled by C1
// (load/mux-compiler-directives.json): C2 would compile it late in the load, on the engine's CPU, for calls
// that never pay it back (docs/engine.md "The JIT in the steady window").
const PINNED_MUX_JIT = ['-XX:+UnlockDiagnosticVMOptions',
  `-XX:CompilerDirectivesFile=${path.join(__dirname, '..', 'load', 'mux-compiler-directives.json')}`];
// Every other JMeter JVM: Parallel, not G1: held polls live 10 s, and G1 chasing its pause goal with thousands
// of thread stacks keeps the young generation small, promotes them and then spends ~30% of the machine
// marking the old one (docs/limits.md).
const DEFAULT_COLLECTOR = ['-XX:+UseParallelGC'];
// What every JMeter JVM gets besides: a fixed entropy source and locale.
const FIXED_JVM_OPTIONS = ['-Djava.security.egd=file:/dev/urandom', '-Duser.language=en', '-Duser.region=EN'];

// The JVM options of a JMeter JVM besides its heap (lib/jmeter-heap.sh jmeter_jvm_options: load/engine.sh,
// load/controller.sh). role 'engine' or 'controller', an engine's sampler. The collector:
// PB_JMETER_GC split on spaces when set to anything but auto; auto (the default) decides it here, the
// pinned mux engine's (PINNED_MUX_COLLECTOR) else Parallel; a pinned mux engine's JIT directives
// (PINNED_MUX_JIT) whatever the collector. An engine pinned with PB_ENGINE_CPUS is told how
// many CPUs it has (-XX:ActiveProcessorCount: its GC and compiler threads sized for them, as the JVM would
// read from its affinity, stated where the pinning is decided). The stream logs' codec during the load,
// PB_JMETER_STREAM_LOG_CODEC (lz4 or gzip; lib/decide-args.js refuses another), as the plugin's
// pushbench.streamLog.codec: every JMeter JVM gets it, the one that runs the plan (an engine, or the
// controller with --local) writes the logs.
function jvmOptions({ role, sampler = null }, s) {
  const pinned = role === 'engine' ? cpuListCount(s.PB_ENGINE_CPUS) : null;
  const pinnedMux = pinned !== null && sampler === 'mux';
  const collector = (s.PB_JMETER_GC ?? 'auto') !== 'auto' ? String(s.PB_JMETER_GC).split(/\s+/).filter(Boolean)
    : pinnedMux ? PINNED_MUX_COLLECTOR : DEFAULT_COLLECTOR;
  return [...collector, ...(pinned !== null ? [`-XX:ActiveProcessorCount=${pinned}`] : []), ...(pinnedMux ? PINNED_MUX_JIT : []), ...FIXED_JVM_OPTIONS,
    `-Dpushbench.streamLog.codec=${s.PB_JMETER_STREAM_LOG_CODEC ?? 'lz4'}`];
}

// The order in which JMeter 5.6's controller starts its engines: not the order given with -R but its
// DistributedRunner's java.util.HashMap iteration order over "<address>:<port>" (its log's "Starting
// distributed test with remote engines: [...]"), one after the other, a few hundred ms to seconds apart:
// buckets ascending, (h ^ (h >>> 16)) & (capacity - 1) of Java's String.hashCode, the capacity the
// smallest power of two from 16 up that holds them at a load factor of 0.75, one bucket's in the order
// given. The engine started first sets the event (Init: each set restarts the server's emitter, and set
// first the event exists before the other engines' first requests); the one started last clears it
// (Clean Up), clear.margin.ms after its own duration and emit interval (CLEAR_MARGIN_MS: the engines' loads
// start up to seconds apart, in either order).
function jmeterStartOrder(keys) {
  let capacity = 16;
  while (keys.length * 4 > capacity * 3) capacity *= 2;
  const bucket = (key) => {
    let h = 0;
    for (const c of key) h = (Math.imul(h, 31) + c.charCodeAt(0)) >>> 0;
    return ((h ^ (h >>> 16)) & (capacity - 1)) >>> 0;
  };
  return keys.map((key, i) => ({ key, i, b: bucket(key) })).sort((x, y) => x.b - y.b || x.i - y.i).map((x) => x.key);
}

// The wait's hard deadline, in seconds from the test's start on the first engine: the test (the plan's
// Request group runs the duration, ramp-up included), its tail (the last polls or emit cycle, the clean-up
// group with its clear margin, the engines' final batch), then 60 s and a fifth of the duration to spare.
const waitSeconds = (p, engineCount = 1) => p.durationS + Math.ceil(Math.max(p.maxDurationMs ?? 0, p.emitIntervalMs ?? 0) / 1000)
  + Math.ceil(clearMarginMs(engineCount) / 1000) + 10 + 60 + Math.floor(p.durationS / 5);

// With several engines, how much later than its own duration and one emit interval the Clean Up clear
// comes (clear.margin.ms). The engines' loads do not start together: the controller starts them one after
// the other, and JMeter runs an engine's setUp groups (Init, on the engine started first) before its load,
// so either may start first. In distributed test runs of two namespace engines the cleaning engine's load
// started 0.99 s after the other's, and 0.22 and 0.47 s before it (Init's first HTTP requests on a cold
// JVM); a clear before another engine's duration is over leaves that engine's next polls waiting for an
// event that no longer exists. The margin covers a spread of 5 s beyond the emit interval, for 5 s more per
// run with several engines.
const CLEAR_MARGIN_MS = 5000;
const clearMarginMs = (engineCount) => (engineCount > 1 ? CLEAR_MARGIN_MS : 0);

// A target run's transport as the engine's request.type (a held stream is read as comet's); the engine
// takes the rest from its target.spec (docs/targets.md "Inside").
const TARGET_REQUEST_TYPE = { sse: 'sse', ws: 'ws', stream: 'comet', poll: 'poll', pull: 'pull' };

// The disk estimate of a target run: as a built-in run of its request type whose clients each get `rate`
// messages a second (lib/response-estimate.js sizes a message as the protocol's record).
const targetDiskRun = (p) => ({ ...p, type: TARGET_REQUEST_TYPE[p.type], emitIntervalMs: Math.max(10, Math.round(1000 / p.target.rate)) });

// The plan's global properties, the one table where the run schema's names become JMeter's
// (load/controller.sh sends them to every engine with -G and sets log.dir.base itself; each engine's own,
// threads.num among them, are engineProperties below, given by load/engine.sh). request.timeout is left
// to the plan, which derives it from the type, duration and interval (load/README.md).
function jmeterProperties(p, address, sampler, churnPercent = '0', engineCount = 1) {
  return [
    ['server.host', address], ['server.port', p.port], ['rampup.period', p.rampupS], ['test.duration', p.durationS],
    ['logging.enabled', 'false'], ['event.enabled', p.event ? 'true' : 'false'], ['event.name', p.event ?? 'none'],
    ['event.frequency', p.emitIntervalMs ?? 0], ['request.type', p.target ? TARGET_REQUEST_TYPE[p.type] : p.type], ['request.events', p.event ?? ''],
    ['request.duration', p.maxDurationMs ?? 0], ['pull.interval', p.pullIntervalMs ?? 0], ['churn.percent', churnPercent],
    ['request.sampler', sampler], ['clear.margin.ms', clearMarginMs(engineCount)],
    // a target run: no time stamps (the server has no /timestamp; publisher and subscribers share a clock)
    ...(p.target ? [['timestamp.threads', 0]] : []),
    // a built-in run over TLS: the mux connections go to the TLS front's port (the event set, clear and time
    // stamps go to server.port, plain, as before); run.sh adds tls.ca, the CA it makes for the run
    ...(p.tlsPort ? [['tls.port', p.tlsPort]] : []),
    // a target's long poll is held until its channel's next message: the silence allowed covers two
    // publish intervals and a margin (the plan derives the built-in poll's from its max duration)
    ...(p.target && p.type === 'poll' ? [['request.timeout', Math.ceil(2000 / p.target.rate) + 30000]] : []),
  ].map(([k, v]) => `${k}=${v}\n`).join('');
}


// Each engine's own properties, the ones the controller never sends with -G (a -G value would override them
// on every engine; load/controller.sh leaves out these names): load/engine.sh gives them to its JVM with -J.
// threads.num its share of the connections, mux.threads the mux engine's selector threads for that share on
// the CPUs it may use (engineCpus: those it is pinned to, else its host's cores), log.dir.res where it
// writes its responses, init.threads and cleanup.threads 1 for the engine that sets the event and the one that clears it (else 0: jmeterStartOrder), target.spec a target
// run's spec for this engine (lib/target.js engineSpec, base64). A value holding a line break is refused
// (the properties go to bash one a line).
const ENGINE_PROPERTY_NAMES = ['threads.num', 'mux.threads', 'log.dir.res', 'init.threads', 'cleanup.threads', 'target.spec'];
function engineProperties({ connections, cores, responses, init, cleanup, targetSpec = '' }, s) {
  const props = [
    ['threads.num', connections], ['mux.threads', muxThreads(connections, engineCpus(cores, s), s)], ['log.dir.res', responses],
    ['init.threads', init ? 1 : 0], ['cleanup.threads', cleanup ? 1 : 0],
    ...(targetSpec ? [['target.spec', targetSpec]] : []),
  ];
  const bad = props.find(([, v]) => /[\r\n]/.test(String(v)));
  if (bad) throw new Error(`${bad[0]}: a value holding a line break`);
  return props;
}

// The wait's rules (lib/run-wait.sh, run.sh's wait for the test to finish), in seconds from the
// controller's start: it checks the engines, the server and results.csv every checkEveryS; gives up on a test
// JMeter has not started on any engine after startupLimitS, and on a started one deadlineS after the test's
// start on the first engine (waitSeconds); stops the controller once every engine ended the test and
// results.csv had the same size at csvUnchangedChecks checks in a row (the study's rule: it stopped
// growing, seen twice); and stops the test crashStopS after the server under test was found gone (every
// request fails from then on).
const WAIT_RULES = { checkEveryS: 5, startupLimitS: 180, csvUnchangedChecks: 2, crashStopS: 5 };
const waitRules = (p, engineCount = 1) => ({ ...WAIT_RULES, deadlineS: waitSeconds(p, engineCount) });

module.exports = { DEFAULT_COLLECTOR, PINNED_MUX_COLLECTOR, PINNED_MUX_JIT, cpuListCount, engineCpus, jvmOptions, CLEAR_MARGIN_MS, ENGINE_PROPERTY_NAMES, WAIT_RULES, engineProperties, waitRules, TARGET_REQUEST_TYPE, clearMarginMs, heapMb, jmeterProperties, jmeterStartOrder, muxThreads, sizeMb, split, targetDiskRun, waitSeconds };
