# shellcheck shell=bash
# An nginx the project's scripts started (targets/nchan/nchan.sh, targets/tls/front.sh), found and stopped by
# its PID file only: the PID it holds is signalled only while that process is an nginx master, so a stale
# file (nginx gone, its PID reused) never leads to signalling a stranger. Sourced by those scripts.

# nginx_master_pid <pid file>: prints the PID the file holds while it is an nginx master; else returns 1.
nginx_master_pid() {
  local pidfile=$1 pid
  [[ -s $pidfile ]] || return 1
  pid=$(<"$pidfile")
  [[ $pid =~ ^[0-9]+$ ]] || return 1
  [[ $(tr '\0' ' ' <"/proc/$pid/cmdline" 2>/dev/null) == nginx:\ master* ]] || return 1
  printf '%s' "$pid"
}

# nginx_master_stop <pid file> <label>: TERM to the master (nginx's fast shutdown: held connections are
# closed, not waited for), up to 5 s for it to exit, then KILL to it and the workers it had. Prints
# "<label>: stopped" (or "not running", the stale file removed).
nginx_master_stop() {
  local pidfile=$1 label=$2 pid
  if ! pid=$(nginx_master_pid "$pidfile"); then rm -f "$pidfile"; echo "$label: not running"; return 0; fi
  local -a children
  mapfile -t children < <(pgrep -P "$pid" || true)   # its workers: the master's own children
  kill -TERM "$pid" 2>/dev/null || true
  for _ in $(seq 1 50); do
    kill -0 "$pid" 2>/dev/null || { echo "$label: stopped"; return 0; }
    sleep 0.1
  done
  kill -KILL "$pid" "${children[@]}" 2>/dev/null || true
  echo "$label: stopped (killed after 5 s)"
}
