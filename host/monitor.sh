#!/usr/bin/env bash
# shellcheck source-path=SCRIPTDIR
# Runs ON a monitored host: system and process monitoring for one run (study 3.4.1; the engines' side
# is CHIRON's threat to validity: a run must show whether the load generator kept up).
#
#   host/monitor.sh start <run-id> <pid> [<role>]   vmstat -SM -a 1 and pidstat -h -u -r -p <pid>,<its children> 1 in the
#                                                  background; for the role sut also host/meminfo-log.sh,
#                                                  host/netstat-log.sh and a copy of /proc/meminfo; prints the directory
#   host/monitor.sh stop <run-id> [<role>]          stops them (by their recorded PIDs only)
#   host/monitor.sh dir <run-id> [<role>]           prints the directory the files are in
#   host/monitor.sh clean <run-id> [<role>]         removes it (after run.sh copied the files)
#   host/monitor.sh pid <process name>              the PID of the oldest process of that exact name (a target
#                                                  server's, docs/targets.md; its children are monitored with it), or exit 1
#
# role: sut (the default: <pid> is the server under test), engine-<name> (<pid> is that JMeter engine's
# JVM) or controller (the JMeter controller's JVM, where run.sh runs: pidstat only). Files: $PB_STATE/runs/<run-id>/<role>/{vmstat.log,pidstat.log,memory.log,netstat.log,meminfo.txt,started-at.txt,
# cpus-allowed.txt,*.pid}.
set -euo pipefail
here=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
# shellcheck source=../lib/config.sh
source "$here/../lib/config.sh"
# shellcheck source=../lib/procs.sh
source "$here/../lib/procs.sh"

usage() { echo "usage: host/monitor.sh {start <run-id> <pid>|stop|dir|clean <run-id>} [sut|controller|engine-<name>] | pid <process name>" >&2; exit 2; }
[[ $# -ge 2 ]] || usage
if [[ $1 == pid ]]; then
  [[ $# -eq 2 && $2 =~ ^[A-Za-z0-9._-]{1,15}$ ]] || usage
  pgrep -o -x -- "$2" || { echo "no process named '$2' runs on $(hostname)" >&2; exit 1; }
  exit 0
fi
[[ $2 =~ ^[A-Za-z0-9_-]{1,100}$ ]] || { echo "bad run id '$2'" >&2; exit 2; }
role=sut
case $1 in start) role=${4:-sut} ;; *) role=${3:-sut} ;; esac
[[ $role == sut || $role == controller || $role =~ ^engine-[A-Za-z0-9_-]{1,32}$ ]] ||
  { echo "bad role '$role' (sut, controller or engine-<name>)" >&2; exit 2; }
dir=$PB_STATE/runs/$2/$role

# Starts "$@" detached (own session, no terminal, output to <log>) and records "<pid> <start time>".
start_detached() { # <name> <log> <command...>
  local name=$1 log=$2; shift 2
  LC_ALL=C setsid nohup "$@" >"$log" 2>"$dir/$name.err" </dev/null &
  procs_record "$!" "$dir/$name.pid"
}

# "<pid>,<child>,...": a server of several processes (node-cluster's primary and its workers) is
# monitored whole; analysis/read/pidstat.js sums the lines of one second.
pid_and_children() { # <pid>
  local children
  children=$(pgrep -P "$1" | paste -sd, -) || true
  echo "$1${children:+,$children}"
}

case $1 in
  start)
    [[ ($# -eq 3 || $# -eq 4) && $3 =~ ^[0-9]+$ ]] || usage
    mkdir -p "$dir"
    date +%s%3N >"$dir/started-at.txt"   # this host's clock when vmstat starts: its line n is second n after it
    # The CPUs the process may run on (a pinned engine: PB_ENGINE_CPUS): what its %CPU can reach.
    sed -n 's/^Cpus_allowed_list:[[:space:]]*//p' "/proc/$3/status" >"$dir/cpus-allowed.txt" 2>/dev/null || true
    [[ $role == controller ]] || start_detached vmstat "$dir/vmstat.log" vmstat -SM -a 1
    start_detached pidstat "$dir/pidstat.log" pidstat -h -u -r -p "$(pid_and_children "$3")" 1
    if [[ $role == sut ]]; then
      cp /proc/meminfo "$dir/meminfo.txt"
      start_detached memory "$dir/memory.log" "$here/meminfo-log.sh"
      start_detached netstat "$dir/netstat.log" "$here/netstat-log.sh"
    fi
    echo "$dir"
    ;;
  stop)
    [[ $# -le 3 ]] || usage
    for name in vmstat pidstat memory netstat; do
      procs_stop_recorded "$dir/$name.pid" 3 || true
    done
    ;;
  clean)
    [[ $# -le 3 ]] || usage
    rm -rf -- "$dir"
    rmdir -- "$PB_STATE/runs/$2" 2>/dev/null || true
    ;;
  dir) echo "$dir" ;;
  *) usage ;;
esac
