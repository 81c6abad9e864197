'use strict';
// A run's hosts decided (lib/decide.js's second part): the hosts file read and checked line by line (its
// format: the header of hosts.conf), the ports of every host against each other, and the open-file fit of
// each host for its share of the connections (the study's section 3.3.3, "Pre-flight checks").
const fs = require('node:fs');
const path = require('node:path');
const { LOCAL_DEFAULT, Refusal, argsFail, isIpv4, isPort } = require('./decide-args');

// ---------------------------------------------------------------------------------------------------
// The hosts file (format: the header of hosts.conf), every value checked against a strict pattern so
// later steps can put it in a command line. On error "<file>:<line>: <what>", exit 2.

function readHosts(s) {
  const root = s.PB_ROOT;
  const given = s.PB_HOSTS !== undefined && s.PB_HOSTS !== '';
  const file = given ? s.PB_HOSTS : path.join(root, 'hosts.conf');
  const at = (f) => path.resolve(root, f);   // run.sh reads it from the checkout
  const t = { source: file, lines: [] };
  const fail = (ln, raw) => {
    const message = `${t.source}:${ln}: ${printable(raw)}${invisibleHint(raw)}`;
    throw new Refusal('hosts', message, `run.sh: ${message}\n`);
  };
  if (!given && !fs.existsSync(at(file))) {
    t.source = LOCAL_DEFAULT;
    addLine(t, s, 0, ['sut', 'local', '127.0.0.1', 'local'], fail);
    addLine(t, s, 0, ['engine', 'local', '127.0.0.1', 'local'], fail);
    return t;
  }
  let text;
  try {
    if (!fs.statSync(at(file)).isFile()) throw new Error('not a file');
    fs.accessSync(at(file), fs.constants.R_OK);
    text = fs.readFileSync(at(file), 'utf8');
  } catch {
    throw new Refusal('hosts', `hosts file ${file}: not found or not readable`, `run.sh: hosts file ${file}: not found or not readable\n`);
  }
  const lines = text.split('\n');
  if (lines[lines.length - 1] === '') lines.pop();
  lines.forEach((line, k) => {
    const fields = line.split('#')[0].split(/[ \t\n]+/).filter(Boolean);
    if (fields.length) addLine(t, s, k + 1, fields, fail);
  });
  const last = lines.length;
  if (!t.lines.some((h) => h.role === 'sut')) fail(last, 'no sut line (exactly one host must have the role sut)');
  if (!t.lines.some((h) => h.role === 'engine')) fail(last, 'no engine line (at least one host must have the role engine)');
  return t;
}

// A text as it can be shown on one line: each control character and each invisible one a file may hold (a
// byte order mark, a zero-width space) written as an escape: \r, \u{feff}.
const INVISIBLE = /[\u0000-\u001f\u007f-\u009f\u00ad\u200b-\u200f\u2028\u2029\u2060\ufeff]/g;
const ESCAPES = { '\r': '\\r', '\n': '\\n', '\t': '\\t' };
const printable = (text) => text.replace(INVISIBLE, (c) => ESCAPES[c] ?? `\\u{${c.codePointAt(0).toString(16)}}`);

// What a refused value's invisible characters most likely are, for the message ('' when it has none).
function invisibleHint(text) {
  const hints = [];
  if (text.includes('\r')) hints.push('\\r is a carriage return: the file has Windows (CRLF) line ends; convert them with dos2unix');
  if (text.includes('\ufeff')) hints.push('\\u{feff} is a byte order mark: save the file as UTF-8 without one');
  return hints.length ? ` (${hints.join('; ')})` : '';
}

function addLine(t, s, ln, fields, fail) {
  if (fields.length < 4) fail(ln, `expected '<role> <name> <address> <access> [option=value ...]', got ${fields.length} field(s)`);
  const [role, name, address, access, ...opts] = fields;
  if (role !== 'sut' && role !== 'engine') fail(ln, `unknown role '${role}' (expected sut or engine)`);
  if (!/^[A-Za-z0-9][A-Za-z0-9_-]{0,31}$/.test(name)) fail(ln, `bad name '${name}' (1-32 of letters, digits, - and _, starting with a letter or digit)`);
  if (!isIpv4(address)) fail(ln, `bad address '${address}' (expected an IPv4 address such as 192.0.2.10)`);
  let kind;
  let target = '';
  const ssh = /^ssh:([A-Za-z_][A-Za-z0-9._-]{0,31})@([A-Za-z0-9][A-Za-z0-9.-]{0,252})$/.exec(access);
  if (access === 'local') kind = 'local';
  else if (ssh) { kind = 'ssh'; target = `${ssh[1]}@${ssh[2]}`; } else fail(ln, `bad access '${access}' (expected local or ssh:<user>@<host>)`);
  const o = hostOptions(s, ln, role, kind, opts, fail);
  const same = (h) => h.name === name;
  for (const h of t.lines) {
    if (h.role === role && same(h)) fail(ln, `duplicate ${role} name '${name}' (first on line ${h.line})`);
    if (same(h) && h.address !== address) fail(ln, `name '${name}' is used on line ${h.line} for another address (${h.address})`);
  }
  const sut = t.lines.find((h) => h.role === 'sut');
  if (role === 'sut' && sut) fail(ln, `a second sut '${name}' (the first is '${sut.name}' on line ${sut.line}; exactly one is allowed)`);
  const h = { role, name, address, access: kind, target, key: o.key, sshPort: o.port, dir: o.dir || s.PB_ROOT, rmi: null, localport: null, line: ln, bind: o.bind,
    ...(o.pid ? { pid: o.pid } : {}), ...(o.process ? { process: o.process } : {}) };
  if (o.pid && o.process) fail(ln, 'give the target server\'s pid= or its process=, not both');
  if (role === 'engine') {
    const engines = t.lines.filter((e) => e.role === 'engine');
    // Each engine needs its own RMI local port too when several share a host: numbered in file order.
    h.rmi = Number(o.rmi || s.PB_JMETER_RMI_PORT);
    h.localport = Number(s.PB_JMETER_RMI_LOCALPORT) + engines.length;
    const twin = engines.find((e) => e.address === address && e.rmi === h.rmi);
    if (twin) fail(ln, `engine '${name}' uses ${address} rmi port ${h.rmi} like engine '${twin.name}' on line ${twin.line} (give one of them rmi=<another port>)`);
  }
  t.lines.push(h);
}

function hostOptions(s, ln, role, kind, opts, fail) {
  const o = { key: '', port: '', dir: '', rmi: '', bind: '', pid: '', process: '' };
  const seen = new Set();
  for (const opt of opts) {
    if (!opt.includes('=')) fail(ln, `bad option '${opt}' (expected key=, port=, dir=, rmi=, bind=, pid= or process=)`);
    const k = opt.slice(0, opt.indexOf('='));
    let v = opt.slice(opt.indexOf('=') + 1);
    if (seen.has(k)) fail(ln, `option '${k}' given twice`);
    seen.add(k);
    switch (k) {
      case 'key': {
        if (kind !== 'ssh') fail(ln, 'key= is only for ssh access');
        if (!/^~?\/?[A-Za-z0-9._/+-]+$/.test(v) || v.includes('..')) fail(ln, `bad key file '${v}'`);
        if (v.startsWith('~/')) v = `${s.HOME ?? process.env.HOME ?? ''}/${v.slice(2)}`;   // ~ is not expanded inside a file
        let readable = false;
        try {
          const f = path.resolve(s.PB_ROOT, v);
          readable = fs.statSync(f).isFile();
          fs.accessSync(f, fs.constants.R_OK);
        } catch { readable = false; }
        if (!readable) fail(ln, `key file '${v}' is not a readable file`);
        o.key = v;
        break;
      }
      case 'port':
        if (kind !== 'ssh') fail(ln, 'port= is only for ssh access');
        if (!isPort(v)) fail(ln, `bad ssh port '${v}' (1-65535)`);
        o.port = v;
        break;
      case 'dir':
        if (!/^\/[A-Za-z0-9._/+-]*$/.test(v) || v.includes('..')) fail(ln, `bad dir '${v}' (an absolute path of letters, digits and . _ / + -)`);
        o.dir = v.endsWith('/') ? v.slice(0, -1) : v;
        if (!o.dir) o.dir = '/';
        break;
      case 'rmi':
        if (role !== 'engine') fail(ln, 'rmi= is only for engines');
        if (!isPort(v)) fail(ln, `bad rmi port '${v}' (1-65535)`);
        o.rmi = v;
        break;
      case 'bind':
        if (role !== 'sut') fail(ln, 'bind= is only for the sut (the address its server listens on)');
        if (!isIpv4(v)) fail(ln, `bad bind address '${v}' (an IPv4 address, or 0.0.0.0 for every interface)`);
        o.bind = v;
        break;
      // a target run's server on the sut host (docs/targets.md "Monitoring the target"): its PID, or the
      // name of its oldest process (its children are monitored with it)
      case 'pid':
        if (role !== 'sut') fail(ln, 'pid= is only for the sut (the target server\'s process)');
        if (!/^[1-9][0-9]{0,9}$/.test(v)) fail(ln, `bad pid '${v}' (a process id)`);
        o.pid = v;
        break;
      case 'process':
        if (role !== 'sut') fail(ln, 'process= is only for the sut (the target server\'s process name)');
        if (!/^[A-Za-z0-9._-]{1,15}$/.test(v)) fail(ln, `bad process name '${v}' (1-15 of letters, digits, . _ -: the kernel's process name)`);
        o.process = v;
        break;
      default:
        fail(ln, `unknown option '${k}' (expected key, port, dir, rmi, bind, pid or process)`);
    }
  }
  return o;
}

// The address is the host: two entries with one address share its ports. The controller runs here, so
// its callback port clashes on a local engine or one on 127.0.0.0/8.
function checkPorts(t, port, s) {
  const sut = t.lines.find((h) => h.role === 'sut');
  const engines = t.lines.filter((h) => h.role === 'engine');
  const fail = (h, message) => { throw new Refusal('hosts', `${t.source}:${h.line}: ${message}`, `run.sh: ${t.source}:${h.line}: ${message}\n`); };
  for (const e of engines) {
    if (e.address === sut.address && e.rmi === port) {
      fail(e, `engine '${e.name}' rmi port ${e.rmi} is the server's port on ${e.address} (give it rmi=<another port>)`);
    }
    if ((e.access === 'local' || e.address.startsWith('127.')) && e.rmi === Number(s.PB_JMETER_CLIENT_LOCALPORT)) {
      fail(e, `engine '${e.name}' rmi port ${e.rmi} is the controller's callback port on this machine (PB_JMETER_CLIENT_LOCALPORT; give it rmi=<another port>)`);
    }
    for (const o of engines) {
      if (o.address === e.address && o.localport === e.rmi) {
        fail(e, `engine '${e.name}' rmi port ${e.rmi} is the RMI local port of engine '${o.name}' on ${e.address} (PB_JMETER_RMI_LOCALPORT and up, one per engine; give it rmi=<another port>)`);
      }
    }
  }
}


// ---------------------------------------------------------------------------------------------------
// The open-file fit (the study's section 3.3.3, "Pre-flight checks"): does a process holding
// <connections> sockets fit a host's limits? host/host-check.js judges the same on each host at
// preflight.

function openFilesProblem(conns, soft, hard, holder, reserve, all, engines) {
  const needed = conns + reserve;
  const sf = soft === 'unlimited' ? needed : soft;
  const hd = hard === 'unlimited' ? needed : hard;
  let what;
  let fix;
  if (holder.startsWith('sut:')) {
    what = `the ${holder.slice(4)} server (one process holds every connection)`;
    fix = 'raise the open-files limit on the server host (limits.conf nofile) or lower the threads';
  } else {
    what = 'this JMeter engine';
    fix = 'add engines on other hosts to hosts.conf (the threads are split across them) or raise the limit';
    if (all !== undefined && hd > reserve) {
      const per = hd - reserve;
      fix = `${Math.ceil(all / per)} engines like this one would hold the ${all} connections, hosts.conf has ${engines}: ${fix}`;
    }
  }
  if (hd < needed) {
    return `open files: ${what} needs ${conns} connections + ${reserve} reserve = ${needed}, but a process here may `
      + `open at most ${hd} (ulimit -Hn). At most ${hd - reserve} connections fit; ${fix}`;
  }
  if (sf < needed) {
    return `open files: ${what} needs ${needed} but the soft limit here is ${sf} (hard ${hd}): add 'ulimit -n ${hd}' `
      + 'to the login environment of this host, or lower the threads';
  }
  return null;
}

// "<role>:<name>=<soft>/<hard> ..." -> { 'role:name': { soft, hard } }; a refusal naming a bad entry.
function parseOpenFiles(spec) {
  const out = {};
  for (const entry of String(spec).split(/[ \t\n]+/).filter(Boolean)) {
    const m = /^((sut|engine):[A-Za-z0-9][A-Za-z0-9_-]{0,31})=([0-9]{1,9}|unlimited)\/([0-9]{1,9}|unlimited)$/.exec(entry);
    if (!m) argsFail('limits', `PB_PLAN_OPEN_FILES: bad entry '${entry}' (expected <role>:<name>=<soft>/<hard>)`);
    const v = (x) => (x === 'unlimited' ? x : Number(x));
    out[m[1]] = { soft: v(m[3]), hard: v(m[4]) };
  }
  return out;
}

function openFilesFit(t, p, engines, s, spec, from) {
  const limits = parseOpenFiles(spec);
  for (const h of t.lines) {
    if (!limits[`${h.role}:${h.name}`]) argsFail('limits', `PB_PLAN_OPEN_FILES has no entry for ${h.role}:${h.name} (one per hosts.conf line)`);
  }
  const reserve = Number(s.PB_FD_RESERVE);
  const entry = (h, conns, holder, ...more) => {
    const { soft, hard } = limits[`${h.role}:${h.name}`];
    const problem = openFilesProblem(conns, soft, hard, holder, reserve, ...more);
    return { role: h.role, name: h.name, connections: conns, need: conns + reserve, soft, hard, fits: problem === null, problem };
  };
  const sut = t.lines.find((h) => h.role === 'sut');
  // a target's server is not pushbench's: its limits are its own, and only the engines are judged here
  const hosts = [...(p.target ? [] : [entry(sut, p.connections, `sut:${p.server}`)]),
    // a target run's engine also holds its publisher's connection per channel
    ...engines.map((e) => entry(t.lines[e.index], e.connections + (p.target?.channels ?? 0), 'engine', p.connections, engines.length))];
  return { reserve, limitsFrom: from, fits: hosts.every((h) => h.fits), hosts };
}


module.exports = { addLine, checkPorts, hostOptions, openFilesFit, openFilesProblem, parseOpenFiles, readHosts };
