'use strict';
// sweep.sh's preflight, once per lane (docs/sweep.md, "Before anything starts"): every host of the lane's
// hosts file reached the way run.sh reaches it (lib/remote.sh: the same ssh options, the same settings
// forwarded, the same state directory) and checked by run.sh's own per-host check (host/host-check.js)
// with one connection, for each server the sweep will test; then this machine as the controller. No
// shell runs on this machine: a local host is checked in this process, an ssh host with one
// `ssh <target> <command line>` (its login shell runs that line, as for every command run.sh sends).
//
//   hostFacts(servers, env)  env: the lane's (lanes.js), over process.env; servers: the server types the
//       lane's runs start (none for a target sweep: its server is not pushbench's, so the sut host is
//       only reached and its limits read, as run.sh's preflight only reaches it for a target run) ->
//       { hosts: [{ role, name, address, status: "ok" | "unreachable", soft, hard (open-file limits, a
//         number or "unlimited"), freeKb (under the host's state directory), message }],
//         problems: ["<host>: <what host/host-check.js found>"] }
//       or { error: 2 (a hosts file error) | 3 (cannot check), message }
//
// The open-file limits go to the run's decisions (lib/decide.js, in the sweep's own process), which
// judge each permutation's fit; the free space to the sweep's disk summary.

const fs = require('node:fs');
const path = require('node:path');
const { spawn } = require('node:child_process');
const { settings, ROOT } = require('../lib/config');
const { readHosts, Refusal, sh: quote } = require('../lib/decide');
const check = require('../host/host-check');

const SSH_TIMEOUT_MS = 120000;   // one host's check, connection included

// The settings every host gets: lib/remote.sh's remote_forwarded_settings pattern, read from there so
// that file stays the one place that decides it.
const FORWARDED = (() => {
  const m = /grep -E '(\^PB_\([^']*\))'/.exec(fs.readFileSync(path.join(ROOT, 'lib', 'remote.sh'), 'utf8'));
  if (!m) throw new Error('lib/remote.sh: remote_forwarded_settings has no grep -E pattern');
  return new RegExp(m[1]);
})();

// lib/remote.sh's remote_init: where a host keeps its state.
function stateDir(h, s, stateExplicit) {
  return h.access === 'local' || h.dir === s.PB_ROOT || stateExplicit ? s.PB_STATE : `${h.dir}/build/state`;
}

// lib/remote.sh's remote_command_line: cd to the host's checkout, export the settings, run the words.
function commandLine(h, s, state, words) {
  const exports = Object.keys(s).filter((k) => FORWARDED.test(k) && s[k] !== '').sort()
    .map((k) => ` export ${k}=${quote(s[k])};`).join('');
  return `cd ${quote(h.dir)} || { echo ${quote(`no pushbench checkout at ${h.dir} on this host (dir= in hosts.conf)`)} >&2; exit 97; };`
    + ` export PB_STATE=${quote(state)};${exports} ${words.map(quote).join(' ')}`;
}

// lib/remote.sh's remote_ssh_opts, without the master connection (one command per host here).
function sshArgs(h, s) {
  const strict = s.PB_SSH_NEW_HOST_KEYS === 'accept' ? 'accept-new' : 'yes';
  return [...(s.PB_SSH_OPTS || '').split(/\s+/).filter(Boolean),
    '-o', 'BatchMode=yes', '-o', `StrictHostKeyChecking=${strict}`, '-o', 'ConnectTimeout=5',
    '-o', 'ServerAliveInterval=15', '-o', 'ServerAliveCountMax=4',
    ...(h.key ? ['-i', h.key, '-o', 'IdentitiesOnly=yes'] : []), ...(h.sshPort ? ['-p', String(h.sshPort)] : [])];
}

// lib/hosts.sh's hosts_describe: a host as messages name it.
function describe(h) {
  return `${h.role} ${h.name} (${h.address}, ${h.access === 'ssh' ? `ssh:${h.target}` : 'local'})`;
}

// host/host-check.js's answer as facts: JSON for 'facts', three lines (soft, hard, free KB) for 'limits'.
function factsOf(words, out) {
  if (words[0] !== 'limits') return JSON.parse(out);
  const [soft, hard, freeKb] = out.trim().split('\n');
  const limit = (v) => (v === 'unlimited' ? v : Number(v));
  if (!/^([0-9]+|unlimited)$/.test(soft ?? '') || !/^([0-9]+|unlimited)$/.test(hard ?? '') || !/^[0-9]+$/.test(freeKb ?? '')) throw new Error('not three limits lines');
  return { soft: limit(soft), hard: limit(hard), freeKb: Number(freeKb), problems: [] };
}

// One host's facts: { facts } or { unreachable: message }.
function askHost(h, words, s, state) {
  if (h.access === 'local') {
    const env = { ...s.env, PB_STATE: state };
    return Promise.resolve({ facts: factsOf(words, check.run(words, env).out) });
  }
  return new Promise((resolve) => {
    const child = spawn('ssh', [...sshArgs(h, s), h.target, commandLine(h, s, state, ['node', 'host/host-check.js', ...words])],
      { cwd: ROOT, stdio: ['ignore', 'pipe', 'pipe'] });
    let out = '';
    let err = '';
    const timer = setTimeout(() => { err += `no answer within ${SSH_TIMEOUT_MS / 1000} s`; child.kill('SIGTERM'); }, SSH_TIMEOUT_MS);
    child.stdout.on('data', (d) => { out += d; });
    child.stderr.on('data', (d) => { err += d; });
    child.on('error', (e) => { err += e.message; });
    child.on('close', (code) => {
      clearTimeout(timer);
      let message = err.trim() || `ssh exited ${code}`;
      if (message.includes('Host key verification failed')) {
        message += '\nits host key is not in known_hosts: add it (ssh-keyscan, checked by hand) or set PB_SSH_NEW_HOST_KEYS=accept';
      }
      if (code !== 0) return resolve({ unreachable: message });
      try {
        resolve({ facts: factsOf(words, out) });
      } catch {
        resolve({ unreachable: `host/host-check.js gave no facts: ${(out + err).trim().slice(0, 300)}` });
      }
    });
  });
}

async function hostFacts(servers, env = {}) {
  const merged = { ...process.env, ...env };
  const s = { ...settings(merged), env: merged };
  let table;
  try {
    table = readHosts(s);
  } catch (e) {
    if (e instanceof Refusal) return { error: 2, message: e.message };
    throw e;
  }
  const stateExplicit = (merged.PB_STATE ?? '') !== '';
  const answers = await Promise.all(table.lines.map((h) => {
    const words = h.role === 'sut' ? (servers.length ? ['facts', 'sut', ...servers] : ['limits'])
      : ['facts', 'engine', String(h.rmi), String(h.localport)];
    return askHost(h, words, s, stateDir(h, s, stateExplicit));
  }));
  const hosts = [];
  const problems = [];
  table.lines.forEach((h, k) => {
    const a = answers[k];
    const base = { role: h.role, name: h.name, address: h.address };
    if (a.unreachable) {
      hosts.push({ ...base, status: 'unreachable', soft: 0, hard: 0, freeKb: 0, message: a.unreachable.replace(/[\t\n]+/g, ' ') });
      return;
    }
    hosts.push({ ...base, status: 'ok', soft: a.facts.soft, hard: a.facts.hard, freeKb: a.facts.freeKb, message: '' });
    for (const p of a.facts.problems) problems.push(`${describe(h)}${p.server ? ` [${p.server}]` : ''}: ${p.line}`);
  });
  const here = check.run(['controller', s.PB_JMETER_CLIENT_LOCALPORT], merged);
  for (const line of here.out.split('\n').filter(Boolean)) problems.push(`controller (this machine): ${line}`);
  return { hosts, problems };
}

module.exports = { hostFacts, commandLine, FORWARDED };
