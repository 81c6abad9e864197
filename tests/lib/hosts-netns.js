'use strict';
// Test helper: several hosts on this machine (tests/lib/netns.sh) for Node tests — bring them up, read
// what netns.sh wrote, tear them down (also on Ctrl-C), and look inside the namespaces.

const fs = require('node:fs');
const path = require('node:path');
const { spawn, spawnSync, execFileSync } = require('node:child_process');

const ROOT = path.resolve(__dirname, '..', '..');
const NETNS = path.join(ROOT, 'tests', 'lib', 'netns.sh');

function sh(cmd, args, opts = {}) {
  return spawnSync(cmd, args, { encoding: 'utf8', ...opts });
}

// Fails (not skips) with the reason when this machine cannot host the namespaces.
function requireNetnsSupport() {
  if (process.getuid && process.getuid() !== 0) throw new Error('multi-host tests need root (ip netns, sshd)');
  for (const tool of ['/usr/sbin/sshd', '/usr/bin/ssh', '/usr/bin/ssh-keygen']) {
    if (!fs.existsSync(tool)) throw new Error(`${tool} missing (Debian packages openssh-server, openssh-client)`);
  }
  if (sh('ip', ['netns', 'list']).status !== 0) throw new Error('`ip netns` does not work here (iproute2, root)');
}

class NetnsHosts {
  // count: hosts (1 sut + count-1 engines). state: a directory of its own for keys, configs and logs.
  constructor(count, stateDir, prefix = `pb${process.pid}`) {
    this.count = count;
    this.prefix = prefix;
    this.state = stateDir;
    this.up = false;
    this.onSignal = () => {
      this.down();
      process.exit(130);
    };
  }

  start() {
    requireNetnsSupport();
    fs.rmSync(this.state, { recursive: true, force: true });
    // Ctrl-C or a kill while the namespaces exist: take them down before going.
    process.once('SIGINT', this.onSignal);
    process.once('SIGTERM', this.onSignal);
    const r = sh(NETNS, ['up', this.prefix, String(this.count), this.state]);
    if (r.status !== 0) throw new Error(`netns.sh up failed (exit ${r.status}):\n${r.stderr}`);
    this.up = true;
    this.hostsFile = r.stdout.trim().split('\n').pop();
    const env = {};
    for (const m of fs.readFileSync(path.join(this.state, 'env'), 'utf8').matchAll(/^export (\w+)='?(.*?)'?$/gm)) env[m[1]] = m[2];
    this.env = env; // PB_HOSTS, PB_SSH_OPTS
    const made = Object.fromEntries(fs.readFileSync(path.join(this.state, 'netns.env'), 'utf8')
      .trim().split('\n').map((l) => l.split('=')));
    this.net = made.NET;
    this.hosts = [];
    for (let i = 1; i <= this.count; i++) {
      this.hosts.push({
        role: i === 1 ? 'sut' : 'engine',
        name: i === 1 ? 'sut' : `eng${i - 1}`,
        ns: made[`NS${i}`],
        address: `${made.NET}.${i + 1}`,
        sshdPid: Number(made[`SSHD_PID${i}`]),
      });
    }
    return this;
  }

  get sut() { return this.hosts[0]; }
  get engines() { return this.hosts.slice(1); }

  // PIDs of the processes inside a host's namespace, with their command lines.
  processes(host) {
    const r = sh('ip', ['netns', 'pids', host.ns]);
    return r.stdout.split('\n').filter(Boolean).map(Number).map((pid) => {
      let cmd = '';
      try {
        cmd = fs.readFileSync(`/proc/${pid}/cmdline`, 'utf8').replace(/\0/g, ' ').trim();
      } catch { /* exited meanwhile */ }
      return { pid, cmd };
    }).filter((p) => p.cmd !== '');
  }

  // Everything in the namespace except its sshd listener.
  strangers(host) {
    return this.processes(host).filter((p) => p.pid !== host.sshdPid);
  }

  // Established TCP connections to <port> inside a host's namespace: [{local, peer}], IPv4 addresses
  // (ss writes a dual-stack socket's as [::ffff:a.b.c.d]).
  connections(host, port) {
    const r = sh('ip', ['netns', 'exec', host.ns, 'ss', '-Htn', 'state', 'established', `( sport = :${port} )`]);
    const addr = (a) => a.replace(/:\d+$/, '').replace(/^\[(::ffff:)?/, '').replace(/\]$/, '');
    return r.stdout.split('\n').filter(Boolean).map((l) => {
      const f = l.trim().split(/\s+/);
      return { local: addr(f[2]), peer: addr(f[3]) };
    });
  }

  // The host's sshd gone: its listener and every session process (the far end of run.sh's ssh master
  // connection, which then ends too), by the PIDs found in its namespace. Returns the PIDs killed.
  stopSshd(host) {
    const pids = this.processes(host).filter((p) => /^sshd/.test(p.cmd) || /\/sshd /.test(`${p.cmd} `)).map((p) => p.pid);
    for (const pid of pids) process.kill(pid, 'SIGKILL');
    return pids;
  }

  // The host's sshd started again with the configuration netns.sh wrote (as netns.sh starts it: in the
  // foreground of its namespace), its PID recorded where netns.sh's `down` finds it; resolves once it
  // answers ssh (10 s at most).
  async startSshd(host) {
    const dir = path.join(this.state, `host${this.hosts.indexOf(host) + 1}`);
    const child = spawn('ip', ['netns', 'exec', host.ns, '/usr/sbin/sshd', '-D', '-f', path.join(dir, 'sshd_config'),
      '-E', path.join(dir, 'sshd.log')], { detached: true, stdio: 'ignore' });
    child.unref();
    host.sshdPid = child.pid;
    fs.writeFileSync(path.join(dir, 'sshd.started-pid'), `${child.pid}\n`);
    for (let i = 0; i < 50; i++) {
      const r = sh('ssh', ['-F', path.join(this.state, 'ssh_config'), '-o', 'ConnectTimeout=2', `root@${host.address}`, 'true']);
      if (r.status === 0) return host.sshdPid;
      await new Promise((resolve) => { setTimeout(resolve, 200); });
    }
    throw new Error(`the sshd of ${host.name} started again does not answer`);
  }

  // Names of namespaces and links that still carry our prefix.
  leftovers() {
    const ns = execFileSync('ip', ['netns', 'list'], { encoding: 'utf8' }).split('\n')
      .map((l) => l.split(' ')[0]).filter((n) => n.startsWith(`${this.prefix}-`));
    const links = execFileSync('ip', ['-o', 'link', 'show'], { encoding: 'utf8' }).split('\n')
      .map((l) => (l.split(': ')[1] || '').split('@')[0]).filter((n) => n.startsWith(`${this.prefix}-`));
    return { ns, links };
  }

  down() {
    const r = sh(NETNS, ['down', this.prefix, this.state]);
    this.up = false;
    process.off('SIGINT', this.onSignal);
    process.off('SIGTERM', this.onSignal);
    return r;
  }
}

module.exports = { NetnsHosts, requireNetnsSupport, ROOT };
