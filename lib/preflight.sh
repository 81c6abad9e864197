# shellcheck shell=bash
# Before anything starts: can every host be reached, and does the run fit on it? Sourced by run.sh
# after lib/hosts.sh and lib/remote.sh.
#
#   preflight_all <server> <connections> <server port> <results disk MB>
#                   checks every host (host/host-check.js runs there) and this machine (the controller)
#                   for a run of <connections> against <server>, each engine for its share (its connections,
#                   heap and disk: lib/run-get.sh host_get); prints every problem found to stderr, each naming its host;
#                   returns 1 if there was any. Call it directly, not in $(...): the ssh connections it
#                   opens are recorded for remote_close_all.

# shellcheck source=lib/run-get.sh
source "$(dirname "${BASH_SOURCE[0]}")/run-get.sh"

preflight_all() {
  local server=$1 connections=$2 port=$3 results_mb=$4
  local i e out problems=0 errfile=$PB_STATE/preflight.$$.err

  # 1. Reachability: one ssh master connection per ssh host (later commands reuse it).
  mkdir -p "$PB_STATE"
  for i in $(host_indexes); do
    [[ $(host_get access "$i") == ssh ]] || continue
    if ! remote_open "$i" >"$errfile" 2>&1; then
      preflight_report "$(hosts_describe "$i")" "unreachable over ssh (key only, BatchMode): $(<"$errfile")"
      problems=$((problems + 1))
    fi
  done
  rm -f "$errfile"
  ((problems == 0)) || return 1

  # 2. The server under test: it holds every connection in one process (a target run's is not ours to check).
  if [[ $server != target ]] && ! out=$(remote_run "$SUT_IDX" node host/host-check.js sut "$server" "$connections" "$port" 2>&1); then
    preflight_report "$(hosts_describe "$SUT_IDX")" "$out"
    problems=$((problems + 1))
  fi

  # 3. Each engine: its share of the connections, its heap, its RMI ports.
  for e in "${ENGINE_IDX[@]}"; do
    if ! out=$(remote_run "$e" node host/host-check.js engine "$(host_get connections "$e")" "$(host_get rmi "$e")" "$(host_get localport "$e")" \
      "$(host_get heap_mb "$e")" "$(host_get disk_mb "$e")" 2>&1); then
      preflight_report "$(hosts_describe "$e") [$(host_get connections "$e") threads]" "$out"
      problems=$((problems + 1))
    fi
  done

  # 4. This machine runs the controller, the analysis and the report.
  if ! out=$(cd "$PB_ROOT" && node host/host-check.js controller "$PB_JMETER_CLIENT_LOCALPORT" "$results_mb" 2>&1); then
    preflight_report "controller (this machine)" "$out"
    problems=$((problems + 1))
  fi
  ((problems == 0)) || return 1
}

preflight_report() { # <host> <lines>
  local line
  [[ -n $2 ]] || set -- "$1" "the check failed without a message"
  while IFS= read -r line; do
    [[ -n $line ]] && printf '  %s: %s\n' "$1" "$line" >&2
  done <<<"$2"
}
