#!/usr/bin/env bash
# shellcheck source-path=SCRIPTDIR
# Runs ON the SUT host: system and server-process monitoring for one run.
#
#   lib/monitor.sh start <run-id> <server pid>   vmstat -SM -a 1, pidstat -h -u -r -p <pid> 1 and
#                                                lib/meminfo-log.sh in the background, /proc/meminfo
#                                                copied; prints the directory
#   lib/monitor.sh stop <run-id>                 stops all three (by their recorded PIDs only)
#   lib/monitor.sh dir <run-id>                  prints the directory the files are in
#   lib/monitor.sh clean <run-id>                removes it (after run.sh copied the files)
#
# Files: $PB_STATE/runs/<run-id>/sut/{vmstat.log,pidstat.log,memory.log,meminfo.txt,*.pid}.
set -euo pipefail
here=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
# shellcheck source=config.sh
source "$here/config.sh"
# shellcheck source=procs.sh
source "$here/procs.sh"

usage() { echo "usage: lib/monitor.sh {start <run-id> <server pid>|stop|dir|clean <run-id>}" >&2; exit 2; }
[[ $# -ge 2 ]] || usage
[[ $2 =~ ^[A-Za-z0-9_-]{1,100}$ ]] || { echo "bad run id '$2'" >&2; exit 2; }
dir=$PB_STATE/runs/$2/sut

# Starts "$@" detached (own session, no terminal, output to <log>) and records "<pid> <start time>".
start_detached() { # <name> <log> <command...>
  local name=$1 log=$2; shift 2
  LC_ALL=C setsid nohup "$@" >"$log" 2>"$dir/$name.err" </dev/null &
  procs_record "$!" "$dir/$name.pid"
}

case $1 in
  start)
    [[ $# -eq 3 && $3 =~ ^[0-9]+$ ]] || usage
    mkdir -p "$dir"
    cp /proc/meminfo "$dir/meminfo.txt"
    start_detached vmstat "$dir/vmstat.log" vmstat -SM -a 1
    start_detached pidstat "$dir/pidstat.log" pidstat -h -u -r -p "$3" 1
    start_detached memory "$dir/memory.log" "$here/meminfo-log.sh"
    echo "$dir"
    ;;
  stop)
    [[ $# -eq 2 ]] || usage
    for name in vmstat pidstat memory; do
      procs_stop_recorded "$dir/$name.pid" 3 || true
    done
    ;;
  clean)
    [[ $# -eq 2 ]] || usage
    rm -rf -- "$dir"
    rmdir -- "$PB_STATE/runs/$2" 2>/dev/null || true
    ;;
  dir) echo "$dir" ;;
  *) usage ;;
esac
