'use strict';
// host/host-check.js (run.sh's per-host preflight, the study's section 3.3.3) and sweep/hosts.js (the
// sweep's preflight of every host, issue #37: a sweep's --check starts no shell). The facts are read
// from this machine and compared with what its tools say; the ssh path is exercised against hosts in
// network namespaces, each with its own sshd (tests/lib/netns.sh).

const { test, describe, before, after } = require('node:test');
const assert = require('node:assert/strict');
const fs = require('node:fs');
const net = require('node:net');
const os = require('node:os');
const path = require('node:path');
const { spawn, spawnSync } = require('node:child_process');
const { NetnsHosts, ROOT } = require('./lib/hosts-netns');
const facts = require('../lib/host-facts');
const { settings } = require('../lib/config');
const { hostFacts, commandLine, FORWARDED } = require('../sweep/hosts');
const { freePort } = require('./lib/free-port');

const CHECK = path.join(ROOT, 'host', 'host-check.js');
const tmp = fs.mkdtempSync(path.join(os.tmpdir(), 'pb-host-check-'));
after(() => fs.rmSync(tmp, { recursive: true, force: true }));

// host/host-check.js as run.sh runs it; extra: a command put in front (prlimit).
function hostCheck(args, env = {}, front = []) {
  const [cmd, ...pre] = [...front, process.execPath];
  const r = spawnSync(cmd, [...pre, CHECK, ...args], { cwd: ROOT, env: { ...process.env, PB_STATE: tmp, ...env }, encoding: 'utf8' });
  return { code: r.status, out: r.stdout, err: r.stderr };
}

describe('the facts host/host-check.js reads are the ones the system tools show', () => {
  test('open-file limits as ulimit, free space as df, the room for threads from /proc', () => {
    const u = spawnSync('bash', ['-c', 'ulimit -Sn; ulimit -Hn; df -Pk "$1" | awk "NR == 2 { print \\$4 }"', '-', tmp], { encoding: 'utf8' });
    const [soft, hard, free] = u.stdout.trim().split('\n');
    const { soft: s, hard: h } = facts.openFileLimits();
    assert.deepEqual([String(s), String(h)], [soft, hard]);
    // The file system is shared with other work: a few MB may come and go between the two readings.
    assert.ok(Math.abs(facts.freeKb(tmp) - Number(free)) < 64 * 1024, `${facts.freeKb(tmp)} kB against df's ${free}`);
    assert.equal(facts.freeKb(path.join(tmp, 'not', 'made', 'yet')), facts.freeKb(tmp), 'a missing directory: its nearest parent');

    const room = facts.threadRoom(settings({ ...process.env, PB_TOMCAT_BIO_THREAD_KB: '128' }));
    const pidMax = Number(fs.readFileSync('/proc/sys/kernel/pid_max', 'utf8'));
    const pid = room.find((l) => l.name === 'kernel.pid_max');
    assert.ok(pid.room > 0 && pid.room < pidMax && pid.what.startsWith(`${pidMax} PIDs, `), JSON.stringify(pid));
    assert.deepEqual(room.map((l) => l.name), ['kernel.pid_max', 'kernel.threads-max', 'vm.max_map_count', 'RLIMIT_NPROC', 'cgroup-pids.max', 'memory']);
    const shown = hostCheck(['threads']);
    assert.equal(shown.code, 0, shown.err);
    assert.match(shown.out, /^kernel\.pid_max \d+ \d+ PIDs, \d+ threads running\n(?:.+\n){4}memory \d+ MemAvailable \d+ MB at 128 KB per held thread/);
    const bio = spawnSync(path.join(ROOT, 'servers', 'bio-limits.sh'), ['check', String(pidMax + 1)], { cwd: ROOT, encoding: 'utf8' });
    assert.equal(bio.status, 1);
    assert.match(bio.stderr, new RegExp(`^a blocking connector with ${pidMax + 1} threads \\(\\+\\d+ of the JVM\\) cannot start here: kernel\\.pid_max allows \\d+ more`));
    assert.equal(spawnSync(path.join(ROOT, 'servers', 'bio-limits.sh'), ['check', '100'], { cwd: ROOT }).status, 0);
  });

  test('a port held by a listener is in use; the same port closed again is free', async () => {
    const srv = net.createServer();
    await new Promise((resolve) => srv.listen(0, '127.0.0.1', resolve));
    const { port } = srv.address();
    assert.equal(facts.portInUse(port), true);
    const r = hostCheck(['engine', '10', String(port), String(await freePort())]);
    assert.equal(r.code, 1);
    assert.match(r.out, new RegExp(`^port ${port} \\(JMeter engine RMI port\\) is already in use here: stop what holds it \\(ss -tanp 'sport = :${port}'\\) or choose another port; ports inside \\d+-\\d+ can be taken`));
    await new Promise((resolve) => srv.close(resolve));
    assert.equal(facts.portInUse(port), false);
  });
});

test('the /proc parsers on files captured from this machine', () => {
  const fixture = (name) => fs.readFileSync(path.join(__dirname, 'fixtures', 'host-facts', name), 'utf8');
  // Listeners on 2024 and 20080, 20080's accepted connections, two TIME_WAIT connections (not held).
  assert.deepEqual([...facts.portsHeld(fixture('proc-net-tcp.txt'))].sort((a, b) => a - b), [2024, 20080]);
  assert.deepEqual([...facts.portsHeld(fixture('proc-net-tcp6.txt'))].sort((a, b) => a - b), [20000, 20099, 34489, 36457, 39123]);
  assert.deepEqual(facts.limitOf(fixture('proc-self-limits.txt'), 'Max open files'), { soft: 20000, hard: 20000 });
  assert.deepEqual(facts.limitOf(fixture('proc-self-limits.txt'), 'Max file size'), { soft: 'unlimited', hard: 'unlimited' });
  assert.throws(() => facts.limitOf('Limit  Soft Limit\n', 'Max open files'), /no 'Max open files' line/);
});

describe('host/host-check.js judges a host as run.sh needs it', () => {
  test('a host with room passes: no line, exit 0', async () => {
    for (const args of [['sut', 'node', '100', String(await freePort())], ['controller', String(await freePort())],
      ['engine', '100', String(await freePort()), String(await freePort()), '64', '1']]) {
      const r = hostCheck(args);
      assert.deepEqual([r.code, r.out, r.err], [0, '', ''], args.join(' '));
    }
  });

  test('each problem is one line naming the fix; exit 1', async () => {
    const port = await freePort();
    // Open-file limits of 300/400: 500 connections + the 200 reserve fit neither.
    const low = hostCheck(['sut', 'tc7', '500', String(port)], { PB_FD_RESERVE: '200' }, ['prlimit', '--nofile=300:400', '--']);
    assert.equal(low.code, 1);
    assert.equal(low.out, 'open files: the tc7 server (one process holds every connection) needs 500 connections + 200 reserve = 700, '
      + 'but a process here may open at most 400 (ulimit -Hn). At most 200 connections fit; raise the open-files limit on the server host '
      + '(limits.conf nofile) or lower the threads\n');
    // A low soft limit spoils nothing: Node.js and the JVMs raise theirs to the hard one as they start.
    const soft = hostCheck(['engine', '100', String(port), String(await freePort())], { PB_FD_RESERVE: '200' }, ['prlimit', '--nofile=250:1000', '--']);
    assert.deepEqual([soft.code, soft.out], [0, '']);

    const missing = hostCheck(['controller', String(port), '999999999'], { JMETER_HOME: path.join(tmp, 'no-jmeter'), PB_RESULTS: tmp });
    assert.equal(missing.code, 1);
    assert.deepEqual(missing.out.trim().split('\n').map((l) => l.replace(/ \d+ MB free/, ' N MB free')), [
      `JMeter home ${path.join(tmp, 'no-jmeter')} is missing: run load/install-jmeter.sh on this host`,
      `disk: only N MB free under ${tmp}, need at least 999999999 MB for this run's files (estimated from its threads, duration and intervals)`,
    ]);
    const heap = hostCheck(['engine', '100', String(port), String(await freePort()), '99999999']);
    assert.match(heap.out, /^memory: this JMeter engine \(100 threads\) needs a 99999999 MB heap but only \d+ MB are available here/);
    const noTools = hostCheck(['sut', 'node', '1', String(port)], { PATH: path.join(tmp, 'empty-path') });
    assert.deepEqual(noTools.out.trim().split('\n'), ['vmstat not found in PATH (monitoring; Debian package procps)',
      'pidstat not found in PATH (monitoring; Debian package sysstat)', 'node not found in PATH (the Node.js server)']);
  });

  test('usage errors: exit 2 with the usage line', () => {
    for (const args of [[], ['sut', 'node'], ['sut', 'jetty', '1', '8080'], ['threads', 'many'], ['facts', 'engine', '1']]) {
      const r = hostCheck(args);
      assert.equal(r.code, 2, args.join(' '));
      assert.match(r.err, /^(usage: host\/host-check\.js|unknown server 'jetty')/);
    }
  });
});

describe('sweep/hosts.js: every host of a lane, no shell on this machine', () => {
  test('the local default: both hosts ok with their limits and free space; the controller checked', async () => {
    const f = await hostFacts(['node', 'tc7'], { PB_HOSTS: '', PB_STATE: tmp });
    const { soft, hard } = facts.openFileLimits();
    assert.deepEqual(f.hosts.map((h) => [h.role, h.name, h.status, h.soft, h.hard]), [['sut', 'local', 'ok', soft, hard], ['engine', 'local', 'ok', soft, hard]]);
    assert.ok(f.hosts.every((h) => h.freeKb > 0));
    assert.ok(Array.isArray(f.problems));
  });

  test('a hosts-file error is error 2 naming the line; a host without sshd is unreachable', async () => {
    const badFile = path.join(tmp, 'bad.conf');
    fs.writeFileSync(badFile, 'sut local 127.0.0.1 local\nengine far 127.0.0.1 telnet\n');
    assert.deepEqual(await hostFacts(['node'], { PB_HOSTS: badFile }), { error: 2, message: `${badFile}:2: bad access 'telnet' (expected local or ssh:<user>@<host>)` });
    const gone = path.join(tmp, 'gone.conf');
    // 127.0.0.1 port 1 has no sshd: ssh fails at once, nothing leaves the machine.
    fs.writeFileSync(gone, 'sut local 127.0.0.1 local\nengine gone 127.0.0.1 ssh:nobody@127.0.0.1 port=1\n');
    const f = await hostFacts(['node'], { PB_HOSTS: gone, PB_STATE: tmp });
    assert.equal(f.hosts[1].status, 'unreachable');
    assert.match(f.hosts[1].message, /port 1: Connection refused/);
  });

  test('the command line a host runs exports the settings lib/remote.sh forwards, quoted', () => {
    const env = { PATH: process.env.PATH, HOME: process.env.HOME, PB_PORT_NODE: "80'81 x", PB_ENGINE_CPUS: '0' };
    const bash = spawnSync('bash', ['-c', 'source lib/config.sh; source lib/remote.sh; remote_forwarded_settings'], { cwd: ROOT, env, encoding: 'utf8' });
    const s = { ...settings(env), env };
    assert.deepEqual(Object.keys(s).filter((k) => FORWARDED.test(k)).sort(), bash.stdout.trim().split('\n').sort());
    const line = commandLine({ dir: tmp }, s, '/state dir', ['node', '-e', 'console.log(process.env.PB_PORT_NODE + "|" + process.env.PB_STATE + "|" + process.cwd())']);
    const r = spawnSync('sh', ['-c', line], { encoding: 'utf8', env: { PATH: process.env.PATH } });
    assert.equal(r.stdout, `80'81 x|/state dir|${tmp}\n`, r.stderr);
    const none = spawnSync('sh', ['-c', commandLine({ dir: path.join(tmp, 'none') }, s, tmp, ['true'])], { encoding: 'utf8' });
    assert.equal(none.status, 97);
    assert.match(none.stderr, new RegExp(`\\nno pushbench checkout at ${path.join(tmp, 'none')} on this host \\(dir= in hosts\\.conf\\)\\n$`));
  });

  describe('hosts in network namespaces, reached over ssh', () => {
    const hosts = new NetnsHosts(2, path.join(tmp, 'netns'));
    before(() => hosts.start());
    after(() => { if (hosts.up) hosts.down(); });

    test('each host answers with its facts over one ssh command; a port held there is named with the host', async () => {
      const f = await hostFacts(['node'], { ...hosts.env, PB_STATE: tmp });
      assert.deepEqual(f.hosts.map((h) => [h.role, h.name, h.address, h.status]),
        [['sut', 'sut', hosts.sut.address, 'ok'], ['engine', 'eng1', hosts.engines[0].address, 'ok']], JSON.stringify(f));
      assert.ok(f.hosts.every((h) => h.soft > 0 && h.freeKb > 0));
      assert.deepEqual(f.problems.filter((p) => !p.startsWith('controller')), []);

      // Inside the engine's namespace, a listener on its RMI port for at most 20 s (ended by its PID below).
      const rmi = settings({ ...process.env, ...hosts.env }).PB_JMETER_RMI_PORT;
      const holder = spawn('ip', ['netns', 'exec', hosts.engines[0].ns, process.execPath, '-e',
        `require('net').createServer().listen(${rmi}, () => console.log('up')); setTimeout(() => process.exit(0), 20000);`],
      { stdio: ['ignore', 'pipe', 'inherit'] });
      try {
        await new Promise((resolve, reject) => {
          holder.stdout.once('data', resolve);
          holder.once('exit', (code) => reject(new Error(`the listener ended (${code}) before it was up`)));
        });
        const g = await hostFacts(['node'], { ...hosts.env, PB_STATE: tmp });
        const address = hosts.engines[0].address.replace(/\./g, '\\.');
        assert.match(g.problems.join('\n'), new RegExp(`^engine eng1 \\(${address}, ssh:[^)]+\\): port ${rmi} \\(JMeter engine RMI port\\) is already in use`, 'm'));
      } finally {
        holder.kill('SIGTERM');
      }
    });

    test('a host whose sshd is down is unreachable, named', async () => {
      process.kill(hosts.engines[0].sshdPid, 'SIGTERM');   // our own sshd, by the PID netns.sh recorded
      for (let i = 0; i < 50 && hosts.processes(hosts.engines[0]).some((p) => p.pid === hosts.engines[0].sshdPid); i++) {
        await new Promise((resolve) => setTimeout(resolve, 100));
      }
      const f = await hostFacts(['node'], { ...hosts.env, PB_STATE: tmp });
      assert.deepEqual(f.hosts.map((h) => h.status), ['ok', 'unreachable']);
      assert.match(f.hosts[1].message, /Connection refused|timed out|No route/);
    });
  });
});
