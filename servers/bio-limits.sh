#!/usr/bin/env bash
# The blocking connectors' thread budget (tc6-bio, tc7-bio; issue #23 item 2, the study's RQ2): on
# Tomcat's blocking HTTP/1.1 connector every held connection is one thread, so the connections a machine
# can hold are the threads it can start. docs/limits.md has this machine's figures.
#
#   servers/bio-limits.sh resolve                  maxThreads a launch uses: PB_TOMCAT_BIO_THREADS, or for
#                                                  "auto" PB_TOMCAT_MAX_THREADS (run.sh sets it per level:
#                                                  connections + PB_TOMCAT_BIO_THREAD_MARGIN, lib/decide.js)
#   servers/bio-limits.sh check <max-threads>      exit 0 if this machine can start that many more threads;
#                                                  else one line naming the limit, exit 1
#   servers/bio-limits.sh show                     this machine's limits, one per line
#
# A thread needs a PID-space entry (kernel.pid_max counts threads), a task (kernel.threads-max), a slot
# under the cgroup's pids.max and the user's RLIMIT_NPROC (root is exempt), two memory mappings (its
# stack and guard page, under vm.max_map_count) and memory: PB_TOMCAT_BIO_THREAD_KB, the measured
# resident cost of one held connection's thread (its touched stack pages, kernel stack, Tomcat's
# per-connection buffers), against MemAvailable.
set -euo pipefail
here=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
# shellcheck source=lib/config.sh
source "$here/../lib/config.sh"

usage() {
  echo "usage: servers/bio-limits.sh {resolve|check <max-threads>|show}" >&2
  exit 2
}

whole() { [[ $1 =~ ^[0-9]{1,9}$ ]]; }

# Threads running on this machine now (the kernel's count of scheduling entities, /proc/loadavg field 4).
threads_now() { local fields; read -ra fields </proc/loadavg; echo "${fields[3]#*/}"; }

# pids.max and pids.current of this process's cgroup (v2, else v1's pids controller); "max" if none.
cgroup_pids() {
  local line path dir
  while IFS= read -r line; do
    case $line in
      0::*) path=${line#0::}; dir=/sys/fs/cgroup$path ;;
      *:pids:*) path=${line#*:pids:}; dir=/sys/fs/cgroup/pids$path ;;
      *) continue ;;
    esac
    if [[ -r $dir/pids.max && -r $dir/pids.current ]]; then
      echo "$(cat "$dir/pids.max") $(cat "$dir/pids.current")"
      return
    fi
  done </proc/self/cgroup
  echo "max 0"
}

mem_available_kb() { awk '/^MemAvailable:/ { print $2 }' /proc/meminfo; }

# Prints "<name> <room for more threads> <what it is>" per limit; room -1 means no limit.
limits() {
  local now pid_max threads_max maps nproc user_threads pids_max pids_cur mem
  now=$(threads_now)
  pid_max=$(cat /proc/sys/kernel/pid_max)
  threads_max=$(cat /proc/sys/kernel/threads-max)
  maps=$(cat /proc/sys/vm/max_map_count)
  echo "kernel.pid_max $((pid_max - now)) $pid_max PIDs, $now threads running"
  echo "kernel.threads-max $((threads_max - now)) $threads_max tasks, $now running"
  echo "vm.max_map_count $((maps / 2)) $maps mappings per process, 2 per thread"
  nproc=$(ulimit -u)
  if [[ $(id -u) == 0 || $nproc == unlimited ]]; then
    echo "RLIMIT_NPROC -1 ulimit -u $nproc (root is exempt)"
  else
    user_threads=$(ps -L -u "$(id -u)" --no-headers | wc -l)
    echo "RLIMIT_NPROC $((nproc - user_threads)) ulimit -u $nproc, $user_threads threads of this user"
  fi
  read -r pids_max pids_cur < <(cgroup_pids)
  if [[ $pids_max == max ]]; then
    echo "cgroup-pids.max -1 no pids limit"
  else
    echo "cgroup-pids.max $((pids_max - pids_cur)) pids.max $pids_max, $pids_cur in use"
  fi
  mem=$(mem_available_kb)
  echo "memory $((mem / PB_TOMCAT_BIO_THREAD_KB)) MemAvailable $((mem / 1024)) MB at $PB_TOMCAT_BIO_THREAD_KB KB per held thread (PB_TOMCAT_BIO_THREAD_KB)"
}

# The thread count a launch uses.
resolve() {
  local threads=$PB_TOMCAT_BIO_THREADS
  [[ $threads == auto ]] && threads=$PB_TOMCAT_MAX_THREADS
  if ! whole "$threads" || ((threads < 1)); then
    echo "PB_TOMCAT_BIO_THREADS must be auto or a whole number >= 1, got '$PB_TOMCAT_BIO_THREADS'" >&2
    exit 1
  fi
  echo "$threads"
}

# Fails with the first limit that leaves no room for the connector's threads and the JVM's own
# (PB_TOMCAT_BIO_JVM_THREADS: GC, JIT, Tomcat's acceptor and timers), naming it on stderr: decided by
# lib/decide.js (threadProblem), the run's decisions, from this machine's limits.
check() { # <max-threads>
  limits | node "$here/../lib/decide.js" --thread-problem "$1"
}

case ${1:-} in
  resolve) [[ $# -eq 1 ]] || usage; resolve ;;
  check)
    { [[ $# -eq 2 ]] && whole "$2"; } || usage
    check "$2"
    ;;
  show) [[ $# -eq 1 ]] || usage; limits ;;
  *) usage ;;
esac
