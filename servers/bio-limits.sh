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

# "<name> <room for more threads> <what it is>" per limit, room -1 for none (read by lib/host-facts.js).
limits() { node "$here/../host/host-check.js" threads; }

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
check() { node "$here/../host/host-check.js" threads "$1"; }

case ${1:-} in
  resolve) [[ $# -eq 1 ]] || usage; resolve ;;
  check)
    { [[ $# -eq 2 ]] && whole "$2"; } || usage
    check "$2"
    ;;
  show) [[ $# -eq 1 ]] || usage; limits ;;
  *) usage ;;
esac
