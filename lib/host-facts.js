'use strict';
// What a host is and holds, read where it is (the study's section 3.3.3, "Pre-flight checks"): each
// function reads /proc, /sys or the file system of the machine it runs on and starts no process, so a
// check costs no shell. host/host-check.js judges these facts before a run (locally, or on a host over
// ssh); lib/decide.js asks threadRoom for a blocking Tomcat's thread fit; servers/bio-limits.sh shows it.
//
//   openFileLimits()          { soft, hard }: the open-file limits of a server or engine started here, each
//                             a number or "unlimited". Node.js (libuv) and the JVMs (HotSpot's MaxFDLimit)
//                             raise their soft limit to the hard one as they start, this process included,
//                             so the soft limit read here is the raised one: the hard limit decides.
//   nearestDir(dir)           dir, or its nearest parent that exists as a directory
//   freeKb(dir)               kB free to an unprivileged writer under dir (its nearestDir), as df -Pk's
//                             Available column
//   memAvailableKb(), memAvailableMb()   /proc/meminfo's MemAvailable in kB, in MB (whole), or null
//   onPath(command, env)      true when command is an executable file in one of env.PATH's directories
//   portInUse(port)           a listener, or a connection whose local end is the port (ESTABLISHED,
//                             SYN-SENT), in /proc/net/tcp or tcp6
//   localPortRange()          "<low>-<high>": the ports outgoing connections may be given
//   runningPid(name, pidDir)  the PID of servers/control.sh's <name> when its PID file names a live
//                             process with the recorded start time, else null (servers/control.sh's rule)
//   threadRoom(s)             [{ name, room (-1: no limit), what }]: how many more threads each limit allows
//                             (servers/bio-limits.sh's header says why each counts); s: lib/config.js's settings
//   roomLines(room)           the same as "<name> <room> <what>" lines (servers/bio-limits.sh show)
//   portsHeld(text), limitOf(text, title)   the parsers of /proc/net/tcp and /proc/<pid>/limits (tested on
//                             captured files, tests/fixtures/host-facts)

const fs = require('node:fs');
const path = require('node:path');

const read = (file) => fs.readFileSync(file, 'utf8');
const readOr = (file, fallback) => { try { return read(file); } catch { return fallback; } };

// A limit of /proc/<pid>/limits' text ("Max open files  20000  20000  files") -> { soft, hard }.
function limitOf(text, title) {
  const line = text.split('\n').find((l) => l.startsWith(title));
  if (!line) throw new Error(`/proc/self/limits has no '${title}' line`);
  const [soft, hard] = line.slice(title.length).trim().split(/\s+/);
  const value = (v) => (v === 'unlimited' ? v : Number(v));
  return { soft: value(soft), hard: value(hard) };
}

const procLimit = (title) => limitOf(read('/proc/self/limits'), title);
const openFileLimits = () => procLimit('Max open files');

function nearestDir(dir) {
  let d = path.resolve(dir);
  while (!isDir(d)) d = path.dirname(d);
  return d;
}
function isDir(d) { try { return fs.statSync(d).isDirectory(); } catch { return false; } }

function freeKb(dir) {
  if (!fs.statfsSync) throw new Error(`Node.js 18.15 or newer is needed here (fs.statfsSync), found ${process.version}`);
  const st = fs.statfsSync(nearestDir(dir));
  return Math.floor((st.bavail * st.bsize) / 1024);
}

function memAvailableKb() {
  const m = /^MemAvailable:\s+(\d+)/m.exec(readOr('/proc/meminfo', ''));
  return m ? Number(m[1]) : null;
}

function memAvailableMb() {
  const kb = memAvailableKb();
  return kb === null ? null : Math.floor(kb / 1024);
}

function onPath(command, env = process.env) {
  return (env.PATH || '').split(':').filter(Boolean).some((dir) => {
    try {
      const file = path.join(dir, command);
      fs.accessSync(file, fs.constants.X_OK);
      return fs.statSync(file).isFile();
    } catch { return false; }
  });
}

// The local ports of /proc/net/tcp's or tcp6's text whose socket holds them: states 01 ESTABLISHED,
// 02 SYN_SENT, 0A LISTEN (a closing connection, TIME_WAIT and the like, does not block a bind).
const HOLDING = new Set(['01', '02', '0A']);
function portsHeld(text) {
  const held = new Set();
  for (const line of text.split('\n').slice(1)) {
    const f = line.trim().split(/\s+/);
    if (f.length < 4 || !HOLDING.has(f[3])) continue;
    held.add(parseInt(f[1].slice(f[1].lastIndexOf(':') + 1), 16));
  }
  return held;
}

const portInUse = (port) => ['/proc/net/tcp', '/proc/net/tcp6'].some((file) => portsHeld(readOr(file, '')).has(port));

const localPortRange = () => readOr('/proc/sys/net/ipv4/ip_local_port_range', '? ?').trim().split(/\s+/).join('-');

// Field 22 of /proc/<pid>/stat (the start time in clock ticks); null for no process or a zombie.
function startTimeOf(pid) {
  const stat = readOr(`/proc/${pid}/stat`, null);
  if (stat === null) return null;
  const fields = stat.slice(stat.lastIndexOf(') ') + 2).split(' ');   // the name may hold spaces and parentheses
  return fields[0] === 'Z' ? null : fields[19];
}

function runningPid(name, pidDir) {
  const [pid, recorded] = readOr(path.join(pidDir, `${name}.pid`), '').trim().split(/\s+/);
  if (!/^[0-9]+$/.test(pid ?? '') || !recorded) return null;
  return startTimeOf(pid) === recorded ? Number(pid) : null;
}

// pids.max and pids.current of this process's cgroup (v2, else v1's pids controller), or null.
function cgroupPids() {
  for (const line of readOr('/proc/self/cgroup', '').split('\n')) {
    let dir = null;
    if (line.startsWith('0::')) dir = `/sys/fs/cgroup${line.slice(3)}`;
    else if (line.includes(':pids:')) dir = `/sys/fs/cgroup/pids${line.slice(line.indexOf(':pids:') + 6)}`;
    if (!dir) continue;
    const max = readOr(`${dir}/pids.max`, null);
    const current = readOr(`${dir}/pids.current`, null);
    if (max !== null && current !== null) return { max: max.trim(), current: Number(current) };
  }
  return null;
}

// Threads of one user now: the Threads: lines of its processes' /proc/<pid>/status.
function userThreads(uid) {
  let n = 0;
  for (const pid of fs.readdirSync('/proc').filter((d) => /^[0-9]+$/.test(d))) {
    const status = readOr(`/proc/${pid}/status`, '');
    const owner = /^Uid:\s+(\d+)/m.exec(status);
    const threads = /^Threads:\s+(\d+)/m.exec(status);
    if (owner && threads && Number(owner[1]) === uid) n += Number(threads[1]);
  }
  return n;
}

function threadRoom(s) {
  const number = (file) => Number(read(file).trim());
  const now = Number(read('/proc/loadavg').split(' ')[3].split('/')[1]);   // scheduling entities now
  const pidMax = number('/proc/sys/kernel/pid_max');
  const threadsMax = number('/proc/sys/kernel/threads-max');
  const maps = number('/proc/sys/vm/max_map_count');
  const room = [
    { name: 'kernel.pid_max', room: pidMax - now, what: `${pidMax} PIDs, ${now} threads running` },
    { name: 'kernel.threads-max', room: threadsMax - now, what: `${threadsMax} tasks, ${now} running` },
    { name: 'vm.max_map_count', room: Math.floor(maps / 2), what: `${maps} mappings per process, 2 per thread` },
  ];
  const nproc = procLimit('Max processes').soft;
  const uid = process.getuid();
  if (uid === 0 || nproc === 'unlimited') {
    room.push({ name: 'RLIMIT_NPROC', room: -1, what: `ulimit -u ${nproc} (root is exempt)` });
  } else {
    const mine = userThreads(uid);
    room.push({ name: 'RLIMIT_NPROC', room: nproc - mine, what: `ulimit -u ${nproc}, ${mine} threads of this user` });
  }
  const pids = cgroupPids();
  room.push(!pids || pids.max === 'max'
    ? { name: 'cgroup-pids.max', room: -1, what: 'no pids limit' }
    : { name: 'cgroup-pids.max', room: Number(pids.max) - pids.current, what: `pids.max ${pids.max}, ${pids.current} in use` });
  const memKb = memAvailableKb();
  if (memKb === null) throw new Error('/proc/meminfo has no MemAvailable line');
  const perThread = Number(s.PB_TOMCAT_BIO_THREAD_KB);
  room.push({ name: 'memory', room: Math.floor(memKb / perThread),
    what: `MemAvailable ${Math.floor(memKb / 1024)} MB at ${perThread} KB per held thread (PB_TOMCAT_BIO_THREAD_KB)` });
  return room;
}

const roomLines = (room) => room.map((l) => `${l.name} ${l.room} ${l.what}\n`).join('');

module.exports = { openFileLimits, nearestDir, freeKb, memAvailableKb, memAvailableMb, onPath, portInUse, localPortRange, runningPid, threadRoom, roomLines, portsHeld, limitOf };
