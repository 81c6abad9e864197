#!/usr/bin/env node
'use strict';
// A run's decisions, in one place (issue #37 item 2): from its arguments, the settings (lib/config.sh),
// the hosts file and what was read on the hosts (their open-file limits, this machine's room for
// threads), every pure decision of run.sh as one object; run.sh keeps what bash is good at (processes,
// ssh, traps, tear-down). Nothing here starts anything or reaches another host. The decisions by kind:
// lib/decide-args.js (the arguments, the settings, the usage text), lib/decide-hosts.js (the hosts file,
// the ports, the open-file fit), lib/decide-jmeter.js (the sizes, the wait and its rules, JMeter's
// properties: the plan's global ones and each engine's own), lib/decide-exit.js (run.sh's exit codes); this
// module joins them into one object and is their command line.
//
//   decide({ argv, env, limits })  ->  decisions (below), or { refused } when run.sh would refuse the run
//       argv     run.sh's arguments: <server> <rampup> <duration> <threads> <type> [...] (lib/args.sh's usage)
//       env      the environment (default process.env); lib/config.sh's defaults fill what it leaves out
//                (lib/config.js). The hosts file is PB_HOSTS, else hosts.conf, else the local default.
//       limits   { openFiles: "<role>:<name>=<soft>/<hard> ..." (PB_PLAN_OPEN_FILES's form; default
//                  env.PB_PLAN_OPEN_FILES; absent: no open-file fit), openFilesFrom: what they came from,
//                  threadRoom: [{ name, room, what }] or a function giving them (lib/host-facts.js
//                  threadRoom on this machine; asked only for a blocking Tomcat) }
//
// The decisions, in the run schema's names (lib/run-schema.js):
//   parameters   { server, type, rampupS, durationS, connections, maxDurationMs, event, emitIntervalMs,
//                  pullIntervalMs, port }
//   connections, hosts (the hosts file, or "(local default)")
//   server       { type, name, address (the engines target it), listen (where it listens: bind= or its
//                  address), port, connections, bioThreads (tc6-bio, tc7-bio: maxThreads, else null) }
//   engines      [{ name, address, access, rmi, localport, connections (its share), heapMb, diskMb, init,
//                  cleanup (true for the engine JMeter starts first, which sets the event, and the one it
//                  starts last, which clears it: jmeterStartOrder) }]
//   resultsDiskMb  the disk the run directory needs here
//   waitS        when run.sh's wait gives up, in seconds from the test's start on the first engine
//                (shell: RUN_WAIT_S; the wait's other rules, lib/decide-jmeter.js WAIT_RULES, as RUN_WAIT_CHECK_EVERY_S,
//                RUN_WAIT_STARTUP_LIMIT_S, RUN_WAIT_CSV_UNCHANGED_CHECKS, RUN_WAIT_CRASH_STOP_S)
//   jmeterProperties  the plan's global properties (run.properties), the one JMeter translation table
//   hostLines    hosts.conf's lines as checked: [{ role, name, address, access, target, key, sshPort, dir,
//                  rmi, localport, line, bind }] (file order; run.sh's H_* tables)
//   settings     the settings run.sh exports for the run ({ PB_TOMCAT_BIO_THREADS } when it was auto)
//   threadFit    a blocking Tomcat's maxThreads and the threads it needs with the JVM's own, checked against
//                this machine's room when threadRoom was given (a level that does not fit is refused), else null
//   openFiles    { reserve, limitsFrom, fits, hosts: [{ role, name, connections, need, soft, hard, fits,
//                  problem }] } when limits were given, else null
//   record       run.json's parameters and hosts (docs/run-layout.md), what lib/run-record.js writes
// A refusal: { refused: { stage, code, message, text } }: stage "settings" or "arguments" (run.sh's
// validate_arguments), "hosts" or "heap" (its read_hosts; the heap after the hosts were shown), "limits"
// (a bad PB_PLAN_OPEN_FILES); code, run.sh's exit code (2); message, its first line without "run.sh: ";
// text, all it prints to stderr, word for word.
//
// The CLI (run.sh's --plan and its one reading of the decisions):
//   node lib/decide.js --json <run.sh arguments>    the decisions as JSON (what ./run.sh --plan prints);
//                                                    a refusal: its text on stderr, its exit code
//   node lib/decide.js --shell <run.sh arguments>   the decisions as bash assignments for run.sh to eval
//                                                    (every value single-quoted here), a refusal as
//                                                    DECISION_REFUSED_* variables; exit 0
//   node lib/decide.js --hosts                      the hosts file alone as bash assignments (lib/hosts.sh)
//   node lib/decide.js --usage | --usage-line       run.sh's usage text, its usage line
//   node lib/decide.js --engine-properties <connections> <cores> <responses> <init 0|1> <cleanup 0|1> [<target spec>]
//                                                    one engine's own JMeter properties, name=value a line
//                                                    (load/engine.sh gives each with -J)
//   node lib/decide.js --engine-property-names      their names, one a line (load/controller.sh sends none)
//   node lib/decide.js --jvm-options engine <sampler> | --jvm-options controller
//                                                    a JMeter JVM's options besides its heap, one a line: the
//                                                    collector decided for its shape and pinning (jvmOptions)
//   node lib/decide.js --exit status=<s> runjson_failed=0|1 crashed=0|1 verdict=<v> thresholds_failed=0|1
//                                                    the exit of a run that ran every step (lib/decide-exit.js):
//                                                    "<code> <message>" (run.sh prints the message, exits the code)
//   node lib/decide.js --exit-codes                 the exit codes by name, EXIT_<OUTCOME>=<code> a line (lib/decisions.sh)
//   node lib/decide.js --heap <connections> [<sampler>] | --size-mb <size> | --mux-threads <connections> <cores>
//                                                    one engine's heap, a JVM size in MB, its selector threads
//                                                    (lib/jmeter-heap.sh: load/engine.sh and load/controller.sh
//                                                    size theirs here too)
// --open-files "<spec>" before the arguments gives limits measured by run.sh (limitsFrom "measured").

const { settings } = require('./config');
const { threadRoom } = require('./host-facts');
const { runDiskNeed } = require('./disk-need');
const { PARAMETERS } = require('./run-schema');
const { USAGE_LINE, BOUNDS, SAMPLERS, Refusal, argsFail, parseArguments, serverPort, serverSettings, settingsProblems, threadProblem,
  typeSettings, usage } = require('./decide-args');
const { readHosts, checkPorts, openFilesFit, openFilesProblem } = require('./decide-hosts');
const { split, sizeMb, heapMb, muxThreads, jmeterStartOrder, waitSeconds, waitRules, targetDiskRun, jmeterProperties, engineProperties,
  ENGINE_PROPERTY_NAMES, jvmOptions } = require('./decide-jmeter');
const { EXIT_CODES, exitCodesShell, runExit, runExitFromArgs } = require('./decide-exit');

// ---------------------------------------------------------------------------------------------------

function decideOrThrow({ argv, env = process.env, limits = {} }) {
  const s = settings(env);
  const bad = settingsProblems(s);
  if (bad.length) argsFail('settings', `bad settings (lib/config.sh; nothing was started):\n${bad.join('\n')}`);
  const p = parseArguments(argv.map(String));
  p.port = p.target ? p.target.port : serverPort(p.server, s);
  // a built-in run over TLS: the front's port on the server's host (lib/config.sh PB_PORT_TLS)
  p.tlsPort = p.tls ? Number(s.PB_PORT_TLS) : null;
  if (p.tls && p.tlsPort === p.port) argsFail('settings', `PB_PORT_TLS (${p.tlsPort}) is ${p.server}'s own port: the TLS front needs a port of its own`);
  const { exports, threadFit } = serverSettings(p, s, limits.threadRoom);
  typeSettings(p, s);

  const t = readHosts(s);
  checkPorts(t, p.port, s);
  const engineIdx = t.lines.map((h, i) => (h.role === 'engine' ? i : -1)).filter((i) => i >= 0);
  if (p.connections < engineIdx.length) {
    argsFail('hosts', `threads (${p.connections}) must be at least the number of engines in ${t.source} (${engineIdx.length})`);
  }
  const shares = split(p.connections, engineIdx.length);
  const disk = runDiskNeed(p.target ? targetDiskRun(p) : p, shares);   // each engine's share and the run directory here (lib/disk-need.js)
  const sampler = s.PB_REQUEST_SAMPLER;
  const heaps = shares.map((c) => heapMb(c, sampler, s));
  if (heaps.some((h) => h === null)) {
    // run.sh printed the size's own complaint first, then its refusal
    const message = `PB_JMETER_HEAP=${s.PB_JMETER_HEAP} is not a heap size (want auto, or e.g. 512m or 3g)`;
    throw new Refusal('heap', message, `not a heap size: '${s.PB_JMETER_HEAP}' (want e.g. 512m or 3g)\nrun.sh: ${message}\n${USAGE_LINE}\n(./run.sh --help for details)\n`);
  }
  const sut = t.lines.find((h) => h.role === 'sut');
  if ((sut.pid || sut.process) && !p.target) argsFail('hosts', `${t.source}: pid= and process= name a target run's server (./run.sh --target); a built-in server is started and watched by run.sh itself`);
  if (p.target) p.target = { ...p.target, ...targetMonitor(sut) };
  const order = jmeterStartOrder(engineIdx.map((i) => `${t.lines[i].address}:${t.lines[i].rmi}`));
  const engines = engineIdx.map((i, k) => {
    const h = t.lines[i];
    const key = `${h.address}:${h.rmi}`;
    return { index: i, name: h.name, address: h.address, access: h.access, rmi: h.rmi, localport: h.localport,
      connections: shares[k], heapMb: heaps[k], diskMb: disk.engines[k], init: !p.target && key === order[0],
      cleanup: !p.target && key === order[order.length - 1] };
  });
  const spec = limits.openFiles ?? env.PB_PLAN_OPEN_FILES;
  const openFiles = spec !== undefined && spec !== '' ?
    openFilesFit(t, p, engines, s, spec, limits.openFilesFrom ?? 'PB_PLAN_OPEN_FILES') : null;

  const parameters = Object.fromEntries(PARAMETERS.filter((x) => x.name !== 'hosts').map((x) => [x.name, p[x.name] ?? null]));
  const record = {
    ...parameters,
    hosts: {
      sut: { name: sut.name, address: sut.address, bind: sut.bind || sut.address, access: sut.access },
      engines: engines.map((e) => ({ name: e.name, address: e.address, access: e.access, rmi: e.rmi, connections: e.connections, heapMb: e.heapMb })),
    },
  };
  return {
    parameters,
    // the run directory's name after its time stamp (run.sh: <yyyymmdd-hhmmss>-<runName>[-<n>])
    runName: p.target ? `target-${p.target.name}-${p.connections}-${p.durationS}` : `${p.server}-${p.type}-${p.connections}-${p.durationS}`,
    connections: p.connections,
    hosts: t.source,
    server: { type: p.server, name: sut.name, address: p.target ? p.target.host : sut.address, listen: sut.bind || sut.address, port: p.port,
      connections: p.connections, bioThreads: threadFit ? threadFit.threads : null },
    engines: engines.map(({ index, ...e }) => e),
    resultsDiskMb: disk.resultsMb,
    sampler,
    waitS: waitSeconds(p, engines.length),
    jmeterProperties: jmeterProperties(p, p.target ? p.target.host : sut.address, sampler, s.PB_CHURN_PERCENT, engines.length),
    ...(p.target ? { target: p.target } : {}),
    ...(p.thresholds.length ? { thresholds: p.thresholds } : {}),
    // run.json's tls: the engines spoke TLS to nginx in front of the server, with a CA made for the run
    ...(p.tls ? { tls: { front: 'nginx', port: p.tlsPort, ca: 'per run' } } : {}),
    settings: exports,
    threadFit,
    openFiles,
    hostLines: t.lines,
    record,
  };
}

// A target run's server is monitored when hosts.conf's sut line names its process (pid= or process=):
// { monitored, monitor: { host, pid | process } }, else not (docs/targets.md "Monitoring the target").
function targetMonitor(sut) {
  if (!sut.pid && !sut.process) return { monitored: false };
  return { monitored: true, monitor: { host: sut.name, ...(sut.pid ? { pid: Number(sut.pid) } : { process: sut.process }) } };
}

function decide(input) {
  try {
    return decideOrThrow(input);
  } catch (e) {
    if (!(e instanceof Refusal)) throw e;
    return { refused: { stage: e.stage, code: e.code, message: e.message.split('\n')[0], text: e.text } };
  }
}

// ---------------------------------------------------------------------------------------------------
// The CLI

// A bash word: single-quoted, safe to eval whatever the value holds.
const sh = (v) => (v === null || v === undefined ? "''" : `'${String(v).replace(/'/g, "'\\''")}'`);
const shArray = (name, values) => `${name}=(${values.map((v, i) => `[${i}]=${sh(v)}`).join(' ')})`;

// The hosts table as run.sh's H_* arrays (indexed like the file's host lines).
function hostsShell(lines, source) {
  const col = (f) => lines.map(f);
  return [
    shArray('H_ROLE', col((h) => h.role)), shArray('H_NAME', col((h) => h.name)), shArray('H_ADDR', col((h) => h.address)),
    shArray('H_ACCESS', col((h) => h.access)), shArray('H_TARGET', col((h) => h.target)), shArray('H_KEY', col((h) => h.key)),
    shArray('H_PORT', col((h) => h.sshPort)), shArray('H_DIR', col((h) => h.dir)), shArray('H_RMI', col((h) => h.rmi ?? '')),
    shArray('H_LOCALPORT', col((h) => h.localport ?? '')), shArray('H_LINE', col((h) => h.line)), shArray('H_BIND', col((h) => h.bind)),
    `SUT_IDX=${sh(lines.findIndex((h) => h.role === 'sut'))}`,
    `ENGINE_IDX=(${lines.map((h, i) => (h.role === 'engine' ? i : null)).filter((i) => i !== null).join(' ')})`,
    `HOSTS_SOURCE=${sh(source)}`,
  ];
}

// The decisions as bash assignments: run.sh's RUN_* parameters (the schema's names in snake case:
// RUN_RAMPUP_S, RUN_CONNECTIONS, ...), the H_* tables with each engine's share, heap and disk, and the whole object as DECISIONS_JSON.
function shellForm(d) {
  if (d.refused) {
    return [`DECISION_REFUSED_STAGE=${sh(d.refused.stage)}`, `DECISION_REFUSED_CODE=${sh(d.refused.code)}`,
      `DECISION_REFUSED_TEXT=${sh(d.refused.text)}`].join('\n');
  }
  const p = d.parameters;
  const bash = { server: p.server, rampup_s: p.rampupS, duration_s: p.durationS, connections: p.connections, type: p.type,
    max_duration_ms: p.maxDurationMs, event: p.event, emit_interval_ms: p.emitIntervalMs, pull_interval_ms: p.pullIntervalMs,
    port: p.port, results_disk_mb: d.resultsDiskMb };
  const perEngine = (f) => d.hostLines.map((h) => {
    const e = h.role === 'engine' ? d.engines.find((x) => x.name === h.name) : null;
    return e ? f(e) : '';
  });
  return [
    "DECISION_REFUSED_STAGE=''",
    ...Object.entries(bash).map(([k, v]) => `RUN_${k.toUpperCase()}=${sh(v)}`),
    ...hostsShell(d.hostLines, d.hosts),
    shArray('H_CONNECTIONS', perEngine((e) => e.connections)),
    shArray('H_HEAP_MB', perEngine((e) => e.heapMb)),
    shArray('H_DISK_MB', perEngine((e) => e.diskMb)),
    shArray('H_INIT', perEngine((e) => (e.init ? 1 : 0))),
    shArray('H_CLEANUP', perEngine((e) => (e.cleanup ? 1 : 0))),
    `RUN_WAIT_S=${sh(d.waitS)}`,
    ...Object.entries(waitRules(d.parameters, d.engines.length)).filter(([k]) => k !== 'deadlineS')
      .map(([k, v]) => `RUN_WAIT_${k.replace(/S$/, '_S').replace(/([a-z])([A-Z])/g, '$1_$2').toUpperCase()}=${sh(v)}`),
    `RUN_NAME=${sh(d.runName)}`,
    `RUN_JMETER_PROPERTIES=${sh(d.jmeterProperties)}`,
    ...Object.entries(d.settings).map(([k, v]) => `export ${k}=${sh(v)}`),
    `PB_SERVER_ADDRESS=${sh(d.server.listen)}`,
    `DECISIONS_JSON=${sh(JSON.stringify(d))}`,
    // a target run: the file to copy into the run directory and run.json's record of it
    ...(d.thresholds ? [shArray('RUN_THRESHOLDS', d.thresholds)] : []),
    ...(d.tls ? [`RUN_TLS_PORT=${sh(d.tls.port)}`, `RUN_TLS_JSON=${sh(JSON.stringify(d.tls))}`] : []),
    ...(d.target ? [`RUN_TARGET_FILE=${sh(d.target.source)}`, `RUN_TARGET_JSON=${sh(JSON.stringify(d.target))}`,
      `RUN_TARGET_MONITOR=${sh(d.target.monitor ? `${d.target.monitor.pid ? 'pid' : 'process'}:${d.target.monitor.pid ?? d.target.monitor.process}` : '')}`,
      `RUN_TARGET_ADDRESSES=(${sh(`${d.target.host}:${d.target.port}`)} ${sh(`${d.target.publishHost}:${d.target.publishPort}`)})`] : []),
  ].join('\n');
}

// This machine's room for threads (lib/host-facts.js, read in this process).
const threadRoomHere = (env) => threadRoom(settings(env));


// The helper modes, each for one bash caller; each returns the exit code.
const print = (text) => process.stdout.write(text);
const complain = (text, code) => (process.stderr.write(text), code);

function heapCli(args) {   // lib/jmeter-heap.sh's jmeter_heap_mb <connections> [<sampler>]
  if (!(args.length === 1 || args.length === 2) || !/^[0-9]+$/.test(args[0])) {
    return complain(`usage: jmeter_heap_mb <connections> [<sampler>] (got: ${args.join(' ')})\n`, 2);
  }
  const s = settings(process.env);
  const sampler = args[1] ?? s.PB_REQUEST_SAMPLER;
  if (s.PB_JMETER_HEAP === 'auto' && !SAMPLERS.includes(sampler)) return complain(`jmeter_heap_mb: unknown sampler '${sampler}' (mux, push or http)\n`, 2);
  const mb = heapMb(Number(args[0]), sampler, s);
  if (mb === null) return complain(`not a heap size: '${s.PB_JMETER_HEAP}' (want e.g. 512m or 3g)\n`, 1);
  return print(`${mb}\n`), 0;
}

function muxThreadsCli(args) {   // lib/jmeter-heap.sh's jmeter_mux_threads <connections> <cores>
  if (args.length !== 2 || !args.every((v) => /^[0-9]+$/.test(v))) return complain('usage: jmeter_mux_threads <connections> (cores from nproc)\n', 2);
  return print(`${muxThreads(Number(args[0]), Number(args[1]), settings(process.env))}\n`), 0;
}

function sizeMbCli(args) {   // lib/jmeter-heap.sh's jmeter_size_mb <size>
  const mb = sizeMb(args[0] ?? '');
  if (mb === null) return complain(`not a heap size: '${args[0] ?? ''}' (want e.g. 512m or 3g)\n`, 1);
  return print(`${mb}\n`), 0;
}

function hostsCli() {   // lib/hosts.sh's hosts_load: the hosts table alone, as H_* arrays
  try {
    const t = readHosts(settings(process.env));
    print(`${["DECISION_REFUSED_STAGE=''", ...hostsShell(t.lines, t.source)].join('\n')}\n`);
  } catch (e) {
    if (!(e instanceof Refusal)) throw e;
    print(`${shellForm({ refused: { stage: e.stage, code: e.code, message: e.message, text: e.text } })}\n`);
  }
  return 0;
}

// --json (run.sh --plan) and --shell (run.sh's one reading): the run's decisions.
function decideCli(mode, args) {
  const limits = { threadRoom: () => threadRoomHere(process.env) };
  if (args[0] === '--open-files') {
    args.shift();
    limits.openFiles = args.shift();
    limits.openFilesFrom = 'measured';
  }
  if (args[0] === '--') args.shift();
  // run.sh's own reading judges no open-file fit (its preflight measures the hosts); --plan's does.
  if (mode === '--shell') limits.openFiles ??= '';
  const d = decide({ argv: args, env: process.env, limits });
  if (mode === '--shell') return print(`${shellForm(d)}\n`), 0;
  if (d.refused) return complain(d.refused.text, d.refused.code);
  return print(`${JSON.stringify(d, null, 2)}\n`), 0;
}

function enginePropertiesCli(args) {   // lib/jmeter-heap.sh's jmeter_engine_properties
  const [connections, cores, responses, init, cleanup, targetSpec = ''] = args;
  if (!(args.length === 5 || args.length === 6) || !/^[0-9]+$/.test(connections) || !/^[1-9][0-9]*$/.test(cores) || !responses
    || !/^[01]$/.test(init) || !/^[01]$/.test(cleanup)) {
    return complain('usage: --engine-properties <connections> <cores> <responses> <init 0|1> <cleanup 0|1> [<target spec>]\n', 2);
  }
  let props;
  try {
    props = engineProperties({ connections: Number(connections), cores: Number(cores), responses, init: init === '1', cleanup: cleanup === '1',
      targetSpec }, settings(process.env));
  } catch (e) {
    return complain(`engine properties: ${e.message}\n`, 2);
  }
  return print(props.map(([k, v]) => `${k}=${v}\n`).join('')), 0;
}

function exitCli(args) {   // run.sh's exit after its last step
  if (!args.every((a) => /^[a-z_]+=/.test(a))) return complain('usage: --exit status=<s> runjson_failed=0|1 crashed=0|1 verdict=<v> thresholds_failed=0|1\n', 2);
  const { code, message } = runExitFromArgs(args);
  return print(`${code} ${message}\n`), 0;
}

function jvmOptionsCli(args) {   // lib/jmeter-heap.sh's jmeter_jvm_options <engine <sampler>|controller>
  const [role, sampler] = args;
  if (!((role === 'engine' && args.length === 2 && SAMPLERS.includes(sampler)) || (role === 'controller' && args.length === 1))) {
    return complain('usage: --jvm-options engine <mux|push|http> | --jvm-options controller\n', 2);
  }
  return print(jvmOptions({ role, sampler }, settings(process.env)).map((o) => `${o}\n`).join('')), 0;
}

const HELPERS = { '--heap': heapCli, '--jvm-options': jvmOptionsCli, '--mux-threads': muxThreadsCli, '--size-mb': sizeMbCli, '--hosts': hostsCli,
  '--engine-properties': enginePropertiesCli, '--engine-property-names': () => (print(`${ENGINE_PROPERTY_NAMES.join('\n')}\n`), 0),
  '--exit': exitCli, '--exit-codes': () => (print(exitCodesShell()), 0) };

function main(args) {
  const mode = args.shift();
  if (mode === '--usage') return print(usage()), 0;
  if (mode === '--usage-line') return print(`${USAGE_LINE}\n`), 0;
  if (HELPERS[mode]) return HELPERS[mode](args);
  if (mode === '--json' || mode === '--shell') return decideCli(mode, args);
  return complain('usage: node lib/decide.js --json|--shell [--open-files <spec>] [--] <run.sh arguments> | --hosts | --usage | --usage-line\n', 2);
}

if (require.main === module) process.exitCode = main(process.argv.slice(2));

module.exports = {
  decide, jmeterStartOrder, jmeterProperties, engineProperties, ENGINE_PROPERTY_NAMES, waitSeconds, waitRules, EXIT_CODES, runExit, parseArguments, settingsProblems, readHosts, heapMb, sizeMb, muxThreads, split, openFilesProblem, threadProblem, shellForm,
  serverPort, sh,
  threadRoomHere, usage, USAGE_LINE, BOUNDS, Refusal,
};

