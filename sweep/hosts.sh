#!/usr/bin/env bash
# sweep.sh's preflight, once for the whole sweep: every host of hosts.conf reached the way run.sh
# reaches it (lib/remote.sh) and checked by run.sh's own per-host check (host/host-check.sh) for each
# server the sweep will test. Prints tab-separated lines:
#   host    <role> <name> <address> <ok|unreachable> <open files: soft limit> <hard limit> <free kB> <message>
#   problem <host> <what host/host-check.sh found>
#
#   sweep/hosts.sh <server>...     (node tc6 tc7)
#
# The open-file limits (host/host-check.sh limits, read once here) go to the run's decisions
# (lib/decide.js, in the sweep's own process), which judge each permutation's fit; the free space (under PB_STATE, where an engine saves responses)
# to the sweep's disk summary. Exit 2 on a hosts.conf error (message on stderr).
set -euo pipefail

pb_state_explicit=0
[[ -z ${PB_STATE:-} ]] || pb_state_explicit=1
# shellcheck source=lib/config.sh
source "$(dirname "${BASH_SOURCE[0]}")/../lib/config.sh"
# shellcheck source=lib/hosts.sh
source "$PB_ROOT/lib/hosts.sh"
# shellcheck source=lib/remote.sh
source "$PB_ROOT/lib/remote.sh"
cd "$PB_ROOT"

hosts_load   # PB_HOSTS, else hosts.conf, else the local default (lib/decide.js)
remote_init "$pb_state_explicit"

errfile=$(mktemp)
trap 'remote_close_all; rm -f "$errfile"' EXIT

problems() { # <host description> <host-check output>
  local line
  while IFS= read -r line; do
    [[ -z $line ]] || printf 'problem\t%s\t%s\n' "$1" "$line"
  done <<<"$2"
}


for i in "${!H_NAME[@]}"; do
  status=ok soft=0 hard=0 free=0 msg=''
  # Not in $(...): remote_open records the connections it opens, for remote_close_all.
  if ! remote_open "$i" >"$errfile" 2>&1; then
    status=unreachable msg=$(<"$errfile")
  elif ! facts=$(remote_run "$i" host/host-check.sh limits 2>&1); then
    status=unreachable msg=$facts
  else
    { read -r soft; read -r hard; read -r free; } <<<"$facts"
  fi
  printf 'host\t%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\n' "${H_ROLE[i]}" "${H_NAME[i]}" "${H_ADDR[i]}" "$status" \
    "$soft" "$hard" "$free" "$(tr '\t\n' '  ' <<<"$msg")"
  [[ $status == ok ]] || continue

  # run.sh's per-host checks with one connection: tools, installs, ports, disk. (How many connections
  # fit is the run's decisions' answer per permutation (lib/decide.js), from the limits above.)
  if [[ ${H_ROLE[i]} == sut ]]; then
    for server in "$@"; do
      out=$(remote_run "$i" host/host-check.sh sut "$server" 1 "$(pb_server_port "$server")" 2>&1) ||
        problems "$(hosts_describe "$i") [$server]" "$out"
    done
  else
    out=$(remote_run "$i" host/host-check.sh engine 1 "${H_RMI[i]}" "${H_LOCALPORT[i]}" 2>&1) ||
      problems "$(hosts_describe "$i")" "$out"
  fi
done

out=$(host/host-check.sh controller "$PB_JMETER_CLIENT_LOCALPORT" 2>&1) || problems "controller (this machine)" "$out"
exit 0
