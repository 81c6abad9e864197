#!/usr/bin/env node
'use strict';
// Runs ON a host before a run (the study's section 3.3.3, "Pre-flight checks"; run.sh calls it there,
// locally or over ssh, and the sweep once per host) and prints one line per problem that would spoil
// the run; exit 0 when there is none, 1 otherwise, 2 on a usage error. It reads the host's facts with
// lib/host-facts.js (no shell, no other process) and judges the open-file and thread fits with
// lib/decide.js, so a run, its --plan and a sweep's --check judge them alike.
//
//   node host/host-check.js sut <server> <connections> <port>
//   node host/host-check.js engine <connections> <rmi port> <rmi local port> [<heap MB> [<disk MB>]]
//   node host/host-check.js controller <client local port> [<disk MB>]
//   node host/host-check.js limits      this host's open-file soft and hard limits and the kB free under
//                                       PB_STATE, one a line (unlimited as is), for lib/decisions.sh
//   node host/host-check.js facts sut <server>...  |  facts engine <rmi port> <rmi local port>
//                                       the sweep's preflight of one host, with one connection, as JSON:
//                                       { soft, hard, freeKb, problems: [{ server, line }] } (server: for
//                                       the sut, the server a problem is about, else null); exit 0
//   node host/host-check.js threads     this host's room for threads, "<name> <room> <what>" a line
//                                       (servers/bio-limits.sh show)
//   node host/host-check.js threads <max-threads>   a blocking connector's thread fit here: exit 0, or the
//                                       limit that leaves no room on stderr and exit 1 (servers/bio-limits.sh check)
//
// <disk MB>: what the run needs there (run.sh sizes it from the run, lib/disk-need.js); without it
// DEFAULT_DISK_MB. <connections>: sockets one process on this host must hold (a JVM or Node needs
// PB_FD_RESERVE more). The checks read the checkout this file is in.

const fs = require('node:fs');
const path = require('node:path');
const { settings } = require('../lib/config');
const { openFilesProblem, threadProblem, serverPort } = require('../lib/decide');
const facts = require('../lib/host-facts');

const ROOT = path.resolve(__dirname, '..');
const DEFAULT_DISK_MB = 200;
const SERVERS = ['node', 'node-cluster', 'tc6', 'tc7', 'tc6-bio', 'tc7-bio'];

class Usage extends Error {}

const exists = (rel) => fs.existsSync(path.resolve(ROOT, rel));
const executable = (rel) => { try { fs.accessSync(path.resolve(ROOT, rel), fs.constants.X_OK); return true; } catch { return false; } };

// Each check returns its problem lines (none when it passes).
const needCommand = (cmd, why, env) => (facts.onPath(cmd, env) ? [] : [`${cmd} not found in PATH (${why})`]);

function openFiles(conns, holder, s) {
  const { soft, hard } = facts.openFileLimits();
  const p = openFilesProblem(conns, soft, hard, holder, Number(s.PB_FD_RESERVE));
  return p ? [p] : [];
}

// A listener, or an open connection whose local end is the port: with no listener there, that is an
// outgoing connection that got the port as its ephemeral port, and the server cannot bind it either.
function portFree(port, what) {
  if (!facts.portInUse(Number(port))) return [];
  return [`port ${port} (${what}) is already in use here: stop what holds it (ss -tanp 'sport = :${port}') or choose another `
    + `port; ports inside ${facts.localPortRange()} can be taken by any outgoing connection`];
}

function disk(dir, mb) {
  if (!/^[0-9]{1,9}$/.test(String(mb))) return [`disk: '${mb}' is not a size in MB`];
  const d = facts.nearestDir(dir);
  const avail = Math.floor(facts.freeKb(d) / 1024);
  return avail < Number(mb)
    ? [`disk: only ${avail} MB free under ${d}, need at least ${mb} MB for this run's files (estimated from its threads, duration and intervals)`]
    : [];
}

// An engine short of heap does not fail: it runs on in its garbage collector and sends its requests late.
function memory(mb, what) {
  const avail = facts.memAvailableMb();
  if (avail === null || Number(mb) <= avail) return [];
  return [`memory: ${what} needs a ${mb} MB heap but only ${avail} MB are available here: add engines on other `
    + 'hosts to hosts.conf (the threads are split across them), lower the threads, or set PB_JMETER_HEAP'];
}

function jmeter(s) {
  return [
    ...needCommand('java', 'JMeter needs a JDK/JRE', s.env),
    ...(fs.existsSync(path.join(s.JMETER_HOME, 'bin', 'ApacheJMeter.jar')) ? []
      : [`JMeter home ${s.JMETER_HOME} is missing: run load/install-jmeter.sh on this host`]),
  ];
}

function sut(server, conns, port, s) {
  if (!SERVERS.includes(server)) throw new Usage(`unknown server '${server}'`);
  const out = [
    ...needCommand('vmstat', 'monitoring; Debian package procps', s.env),
    ...needCommand('pidstat', 'monitoring; Debian package sysstat', s.env),
    ...(executable('servers/control.sh') ? [] : [`servers/control.sh is missing in ${ROOT}`]),
  ];
  if (server.startsWith('node')) {
    out.push(...needCommand('node', 'the Node.js server', s.env));
    if (!exists('instrumentation-node/server.js')) out.push(`instrumentation-node/server.js is missing in ${ROOT}`);
  } else {
    out.push(...needCommand('java', 'Tomcat needs a JDK', s.env));
    const tc = server.replace(/-bio$/, '');
    const home = tc === 'tc6' ? s.TC6_HOME : s.TC7_HOME;
    if (!fs.existsSync(path.join(home, 'bin', 'bootstrap.jar'))) out.push(`Tomcat home ${home} is missing: run servers/${tc}/install.sh`);
    const war = `instrumentation-java/tomcat${tc.slice(2)}/target/pushbench-${tc}.war`;
    if (!exists(war)) out.push(`${war} is missing: run instrumentation-java/build.sh`);
    // The blocking connector's threads must fit this host (lib/host-facts.js threadRoom names the limit).
    if (server.endsWith('-bio')) {
      const threads = s.PB_TOMCAT_BIO_THREADS === 'auto' ? s.PB_TOMCAT_MAX_THREADS : s.PB_TOMCAT_BIO_THREADS;
      if (!/^[1-9][0-9]{0,8}$/.test(threads)) out.push(`PB_TOMCAT_BIO_THREADS must be auto or a whole number >= 1, got '${s.PB_TOMCAT_BIO_THREADS}'`);
      else {
        const p = threadProblem(Number(threads), facts.threadRoom(s), s);
        if (p) out.push(p);
      }
    }
  }
  out.push(...openFiles(conns, `sut:${server}`, s));
  // Our own server still running from before is fine: run.sh stops it first.
  if (facts.runningPid(server, s.PB_STATE) === null) out.push(...portFree(port, `the ${server} server's port`));
  out.push(...disk(s.PB_STATE, 100));
  return out;
}

function engine(conns, rmi, localport, heapMb, diskMb, s) {
  return [
    ...jmeter(s),
    ...(heapMb ? memory(heapMb, `this JMeter engine (${conns} threads)`) : []),
    ...(executable('load/engine.sh') ? [] : [`load/engine.sh is missing in ${ROOT}`]),
    ...openFiles(conns, 'engine', s),
    ...portFree(rmi, 'JMeter engine RMI port'),
    ...portFree(localport, 'JMeter engine RMI local port'),
    ...disk(s.PB_STATE, diskMb || DEFAULT_DISK_MB),
  ];
}

function controller(localport, diskMb, s) {
  const out = [...jmeter(s)];
  if (!executable('load/controller.sh')) out.push(`load/controller.sh is missing in ${ROOT}`);
  if (!exists('testplan.jmx')) out.push(`testplan.jmx is missing in ${ROOT}`);
  for (const tool of ['node', 'tar']) out.push(...needCommand(tool, 'run.sh needs it', s.env));
  if (!exists('analysis/analyze.js')) out.push(`analysis/analyze.js is missing in ${ROOT}`);
  if (!exists('charts/report.js')) out.push(`charts/report.js is missing in ${ROOT}`);
  // Over SSL JMeter picks free callback ports itself (lib/jmeter-rmi.sh); plain RMI binds this one.
  if (s.PB_JMETER_RMI_SSL === '0') out.push(...portFree(localport, 'JMeter controller RMI local port'));
  out.push(...disk(s.PB_RESULTS, diskMb || DEFAULT_DISK_MB));
  return out;
}

// The sweep's preflight of one host: its limits, free space and the checks of one connection.
function hostFacts(role, args, s) {
  const { soft, hard } = facts.openFileLimits();
  const problems = role === 'sut'
    ? args.flatMap((server) => sut(server, 1, serverPort(server, s), s).map((line) => ({ server, line })))
    : engine(1, args[0], args[1], null, null, s).map((line) => ({ server: null, line }));
  return { soft, hard, freeKb: facts.freeKb(s.PB_STATE), problems };
}

const ARITY = { sut: [3, 3], engine: [3, 5], controller: [1, 2], limits: [0, 0], threads: [0, 1] };
const USAGE = {
  sut: 'sut <server> <connections> <port>',
  engine: 'engine <connections> <rmi port> <rmi local port> [<heap MB> [<disk MB>]]',
  controller: 'controller <client local port> [<disk MB>]',
  limits: 'limits',
  facts: 'facts sut <server>... | facts engine <rmi port> <rmi local port>',
  threads: 'threads [<max-threads>]',
};

// -> { out: text for stdout, err: text for stderr, code }
function run(argv, env = process.env) {
  const s = { ...settings(env), env };
  const [role, ...args] = argv;
  const usage = () => { throw new Usage(`usage: host/host-check.js ${USAGE[role] ?? '{sut|engine|controller|limits|facts|threads} ...'}`); };
  if (!(role in USAGE)) usage();
  if (role === 'facts') {
    const [of, ...rest] = args;
    if (!((of === 'sut' && rest.length >= 1) || (of === 'engine' && rest.length === 2))) usage();
    return { out: `${JSON.stringify(hostFacts(of, rest, s))}\n`, code: 0 };
  }
  if (args.length < ARITY[role][0] || args.length > ARITY[role][1]) usage();
  if (role === 'limits') {
    const { soft, hard } = facts.openFileLimits();
    return { out: `${soft}\n${hard}\n${facts.freeKb(s.PB_STATE)}\n`, code: 0 };
  }
  if (role === 'threads' && args.length === 0) return { out: facts.roomLines(facts.threadRoom(s)), code: 0 };
  if (role === 'threads') {
    if (!/^[0-9]{1,9}$/.test(args[0])) usage();
    const p = threadProblem(Number(args[0]), facts.threadRoom(s), s);
    return { out: '', err: p ? `${p}\n` : '', code: p ? 1 : 0 };
  }
  const problems = role === 'sut' ? sut(args[0], Number(args[1]), args[2], s)
    : role === 'engine' ? engine(Number(args[0]), args[1], args[2], args[3], args[4], s)
      : controller(args[0], args[1], s);
  return { out: problems.map((p) => `${p}\n`).join(''), code: problems.length ? 1 : 0 };
}

if (require.main === module) {
  try {
    const { out, err = '', code } = run(process.argv.slice(2));
    process.stdout.write(out);
    process.stderr.write(err);
    process.exitCode = code;
  } catch (e) {
    if (!(e instanceof Usage)) throw e;
    process.stderr.write(`${e.message}\n`);
    process.exitCode = 2;
  }
}

module.exports = { run, hostFacts, sut, engine, controller };
