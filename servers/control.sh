#!/usr/bin/env bash
# Start, stop or query a server under test:
#   servers/control.sh [--pid-dir <dir>] {start|stop|status} {node|node-cluster|tc6|tc7|tc6-bio|tc7-bio|all}
#
#   start   runs servers/<name>/launch.sh in the background (its own session, survives this shell), records
#           "<pid> <start time>" in $PB_STATE/<name>.pid, logs to $PB_STATE/<name>.log, and waits until
#           GET /timestamp answers on the server's port (PB_PORT_<NAME>, - as _) within PB_START_TIMEOUT_<NAME> s.
#   stop    TERM to the recorded PID, up to PB_STOP_TIMEOUT s for it to exit, then KILL; removes the PID file.
#   status  prints running/stopped ("stopped (stale PID file)": its process ended without a stop); exit 0 if
#           running (for all: if every server is running), else 3.
#   all     every server that has a servers/<name>/launch.sh.
#   --pid-dir  the PID files in <dir> instead of $PB_STATE: run.sh gives each run its own ($PB_STATE/runs/<id>),
#           so that a run starts, checks and stops only its own server, and nothing else reads its PID file.
#
# Only a PID this script recorded is ever signalled, and only if that process still has the start time
# recorded with it, so a stale PID file (reboot, crash, PID reuse) never leads to killing a stranger.
# Exit: 0 done, 1 failed, 2 usage, 3 (status) not running.
set -euo pipefail

here=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
# shellcheck source=lib/config.sh
source "$here/../lib/config.sh"

usage() {
  echo "usage: servers/control.sh [--pid-dir <dir>] {start|stop|status} {node|node-cluster|tc6|tc7|tc6-bio|tc7-bio|all}" >&2
  exit 2
}

# Servers this script can run: every folder with a launch.sh.
available_servers() {
  local launch
  for launch in "$here"/*/launch.sh; do
    [[ -e $launch ]] && basename "$(dirname "$launch")"
  done
}

pid_dir=$PB_STATE
pid_file() { echo "$pid_dir/$1.pid"; }
log_file() { echo "$PB_STATE/$1.log"; }

# Name of the setting PB_<KIND>_<NAME> (NAME upper-cased, - as _).
setting_var() { # setting_var <kind> <name>
  local name=${2^^}
  echo "PB_${1}_${name//-/_}"
}

# Value of PB_<KIND>_<NAME>, or the default given.
setting() { # setting <kind> <name> <default>
  local var
  var=$(setting_var "$1" "$2")
  echo "${!var:-$3}"
}

# Field 22 of /proc/<pid>/stat (start time in clock ticks since boot); empty if no such live process.
start_time_of() {
  local stat rest fields
  stat=$(cat "/proc/$1/stat" 2>/dev/null) || return 0
  rest=${stat##*) }           # the command name may hold spaces and parentheses
  read -ra fields <<<"$rest"  # fields[0] is field 3 (state)
  [[ ${fields[0]} == Z ]] && return 0  # a zombie has already exited
  echo "${fields[19]}"
}

# Prints the recorded PID if that very process is still alive.
running_pid() { # running_pid <name>
  local file pid recorded
  file=$(pid_file "$1")
  [[ -f $file ]] || return 1
  read -r pid recorded _ <"$file" || return 1
  [[ $pid =~ ^[0-9]+$ && -n $recorded ]] || return 1
  [[ $(start_time_of "$pid") == "$recorded" ]] || return 1
  echo "$pid"
}

answers() { # answers <port>: GET /timestamp succeeds
  curl -fsS -o /dev/null -m 2 "http://$PB_SERVER_ADDRESS:$1/timestamp?client=0" 2>/dev/null
}

log_tail() {
  local log
  log=$(log_file "$1")
  echo "--- last lines of $log ---" >&2
  tail -n 30 "$log" >&2 2>/dev/null || echo "(no log)" >&2
  echo "---" >&2
}

# Waits until the process is gone; false if it is still alive after <seconds>.
wait_gone() { # wait_gone <pid> <start time> <seconds>
  local deadline=$((SECONDS + $3))
  while [[ $(start_time_of "$1") == "$2" ]]; do
    ((SECONDS < deadline)) || return 1
    sleep 0.2
  done
}

stop_one() {
  local name=$1 file pid recorded
  file=$(pid_file "$name")
  if [[ ! -f $file ]]; then
    echo "$name: not running"
    return 0
  fi
  if ! pid=$(running_pid "$name"); then
    rm -f "$file"
    echo "$name: not running (removed stale PID file)"
    return 0
  fi
  read -r _ recorded _ <"$file"
  kill -TERM "$pid" 2>/dev/null || true
  if ! wait_gone "$pid" "$recorded" "$PB_STOP_TIMEOUT"; then
    echo "$name: still running ${PB_STOP_TIMEOUT}s after TERM; sending KILL to pid $pid" >&2
    kill -KILL "$pid" 2>/dev/null || true
    wait_gone "$pid" "$recorded" 10 || { echo "$name: pid $pid survived KILL" >&2; return 1; }
  fi
  rm -f "$file"
  echo "$name: stopped (pid $pid)"
}

start_one() {
  local name=$1 launch port timeout pid recorded deadline log file
  launch="$here/$name/launch.sh"
  if [[ ! -x $launch ]]; then
    echo "$name: $launch is missing or not executable (is $name installed? run setup.sh)" >&2
    return 1
  fi
  port=$(setting PORT "$name" "")
  [[ -n $port ]] || { echo "$name: no port: set $(setting_var PORT "$name") in lib/config.sh" >&2; return 1; }
  timeout=$(setting START_TIMEOUT "$name" 30)
  if pid=$(running_pid "$name"); then
    echo "$name: already running (pid $pid, port $port)"
    return 0
  fi
  file=$(pid_file "$name")
  rm -f "$file"
  if answers "$port"; then
    echo "$name: port $port already answers GET /timestamp, but not from a server this script started;" \
      "stop that one first or choose another $(setting_var PORT "$name")" >&2
    return 1
  fi
  mkdir -p "$PB_STATE" "$pid_dir"
  log=$(log_file "$name")
  : >"$log"
  # PB_SERVER_CPUS: the CPUs the server (and every process or thread it starts) may run on.
  local -a pin=()
  if [[ -n ${PB_SERVER_CPUS:-} ]]; then
    [[ $PB_SERVER_CPUS =~ ^[0-9]+([,-][0-9]+)*$ ]] || { echo "PB_SERVER_CPUS=$PB_SERVER_CPUS is not a CPU list (e.g. 1 or 2-3 or 1,3)" >&2; return 1; }
    pin=(taskset -c "$PB_SERVER_CPUS")
  fi
  # setsid: its own session, so it outlives the caller's terminal and process group; taskset, nohup and
  # launch.sh exec in turn, so $! is the server's PID.
  setsid "${pin[@]}" nohup "$launch" >>"$log" 2>&1 </dev/null &
  pid=$!
  recorded=$(start_time_of "$pid")
  if [[ -z $recorded ]]; then
    echo "$name: exited at once" >&2
    log_tail "$name"
    return 1
  fi
  echo "$pid $recorded $name" >"$file.tmp" && mv "$file.tmp" "$file"

  deadline=$((SECONDS + timeout))
  while ! answers "$port"; do
    if [[ $(start_time_of "$pid") != "$recorded" ]]; then
      wait "$pid" 2>/dev/null || true
      rm -f "$file"
      echo "$name: exited while starting (see $log)" >&2
      log_tail "$name"
      return 1
    fi
    if ((SECONDS >= deadline)); then
      echo "$name: GET /timestamp on port $port did not answer within ${timeout}s; stopping it" >&2
      log_tail "$name"
      stop_one "$name" >&2 || true
      return 1
    fi
    sleep 0.2
  done
  echo "$name: running (pid $pid, port $port, log $log)"
}

status_one() {
  local name=$1 pid
  if pid=$(running_pid "$name"); then
    echo "$name: running (pid $pid, port $(setting PORT "$name" '?'))"
    return 0
  fi
  if [[ -f $(pid_file "$name") ]]; then
    echo "$name: stopped (stale PID file)"
  else
    echo "$name: stopped"
  fi
  return 3
}

if [[ ${1:-} == --pid-dir ]]; then
  [[ -n ${2:-} ]] || usage
  pid_dir=$2
  shift 2
fi
[[ $# -eq 2 ]] || usage
action=$1
target=$2
case $action in start | stop | status) ;; *) usage ;; esac

mapfile -t servers < <(available_servers)
if [[ $target == all ]]; then
  targets=("${servers[@]}")
  [[ ${#targets[@]} -gt 0 ]] || { echo "no servers/<name>/launch.sh found" >&2; exit 1; }
elif [[ $target =~ ^(node|node-cluster|tc6|tc7|tc6-bio|tc7-bio)$ || " ${servers[*]} " == *" $target "* ]]; then
  targets=("$target")
else
  usage
fi

rc=0
for name in "${targets[@]}"; do
  case $action in
    start) start_one "$name" || rc=1 ;;
    stop) stop_one "$name" || rc=1 ;;
    status) status_one "$name" || { s=$?; ((rc == 0 || rc == 3)) && rc=$s; } ;;
  esac
done
exit "$rc"
