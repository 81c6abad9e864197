# shellcheck shell=bash
# ./run.sh --plan: the run's decisions, what a run with these arguments would do, as run.sh decides it
# (the split of the connections over the engines, each engine's heap and disk, the open-file fit its
# preflight would judge), printed as one JSON object; nothing starts. The sweep asks it instead of deciding
# again. (The flag keeps its name; "plan" alone means the JMeter plan, testplan.jmx.)
# Sourced by run.sh after lib/hosts.sh, lib/remote.sh and lib/runjson.sh (json_string).
#
#   decisions_print <server type> <port> <connections> <results disk MB> <shares> <heaps> <disks>
#       after lib/hosts.sh read the hosts; the last three name arrays indexed like the hosts: each
#       engine's share of the connections, heap MB and disk MB as run.sh's read_hosts set them. Exit 3
#       when a host's limits cannot be read, 2 on a bad PB_PLAN_OPEN_FILES. The object (docs/architecture.md):
#       { "connections", "hosts" (the hosts file),
#         "server":  { "type", "name", "address", "port", "connections" },
#         "engines": [ { "name", "address", "rmi", "connections", "heapMb", "diskMb" } ],
#         "resultsDiskMb",
#         "openFiles": { "reserve", "limitsFrom", "fits",
#                        "hosts": [ { "role", "name", "connections", "need", "soft", "hard", "fits", "problem" } ] } }
#
# Each host's open-file limits: PB_PLAN_OPEN_FILES when set, "<role>:<name>=<soft>/<hard> ..." with an
# entry for every hosts.conf line (the sweep passes the limits it read once per lane with sweep/hosts.sh,
# so the decisions of hundreds of permutations cost no ssh); otherwise read on each host, one remote_run of
# host/host-check.sh limits each (what a person asking for one run's decisions wants). "unlimited" stays a string.

# shellcheck source=lib/open-files.sh
source "$(dirname "${BASH_SOURCE[0]}")/open-files.sh"

DECISIONS_SOFT=() DECISIONS_HARD=()

# decisions_limits_given: DECISIONS_SOFT/DECISIONS_HARD from PB_PLAN_OPEN_FILES, or exit 2 naming what is wrong.
decisions_limits_given() {
  local entry i found
  local -A soft=() hard=()
  for entry in $PB_PLAN_OPEN_FILES; do
    [[ $entry =~ ^((sut|engine):[A-Za-z0-9][A-Za-z0-9_-]{0,31})=([0-9]{1,9}|unlimited)/([0-9]{1,9}|unlimited)$ ]] ||
      args_fail "PB_PLAN_OPEN_FILES: bad entry '$entry' (expected <role>:<name>=<soft>/<hard>)"
    soft[${BASH_REMATCH[1]}]=${BASH_REMATCH[3]} hard[${BASH_REMATCH[1]}]=${BASH_REMATCH[4]}
  done
  for i in "${!H_NAME[@]}"; do
    found=${H_ROLE[i]}:${H_NAME[i]}
    [[ -n ${soft[$found]:-} ]] || args_fail "PB_PLAN_OPEN_FILES has no entry for $found (one per hosts.conf line)"
    DECISIONS_SOFT[i]=${soft[$found]} DECISIONS_HARD[i]=${hard[$found]}
  done
}

# decisions_limits_read: DECISIONS_SOFT/DECISIONS_HARD read on each host, or exit 3 naming the host that did not answer.
# remote_open runs here, not in $(...), so remote_close_all knows the connections it opened.
DECISIONS_ERR=''
decisions_limits_read() {
  local i out
  DECISIONS_ERR=$(mktemp)
  trap 'remote_close_all; rm -f "$DECISIONS_ERR"' EXIT
  for i in "${!H_NAME[@]}"; do
    if ! remote_open "$i" >"$DECISIONS_ERR" 2>&1 || ! out=$(remote_run "$i" host/host-check.sh limits 2>"$DECISIONS_ERR"); then
      printf 'run.sh: cannot read the open-file limits of %s: %s\n' "$(hosts_describe "$i")" "$(<"$DECISIONS_ERR")" >&2
      exit 3
    fi
    { read -r "DECISIONS_SOFT[i]"; read -r "DECISIONS_HARD[i]"; } <<<"$out"
  done
}

# decisions_fit <index> <connections> <holder> [<all connections> <engines>]: one host of "openFiles", added
# to DECISIONS_FIT_JSON; DECISIONS_FITS becomes false when it does not fit.
DECISIONS_FIT_JSON='' DECISIONS_FITS=true
decisions_fit() {
  local i=$1 conns=$2 problem fits=true entry
  problem=$(open_files_problem "$conns" "${DECISIONS_SOFT[i]}" "${DECISIONS_HARD[i]}" "${@:3}") || fits=false DECISIONS_FITS=false
  printf -v entry '{"role": "%s", "name": "%s", "connections": %s, "need": %s, "soft": %s, "hard": %s, "fits": %s, "problem": %s}' \
    "${H_ROLE[i]}" "${H_NAME[i]}" "$conns" "$(open_files_need "$conns")" "$(decisions_limit_json "${DECISIONS_SOFT[i]}")" \
    "$(decisions_limit_json "${DECISIONS_HARD[i]}")" "$fits" "$(json_or_null "$problem" s)"
  DECISIONS_FIT_JSON+=${DECISIONS_FIT_JSON:+$',\n      '}$entry
}

decisions_limit_json() { if [[ $1 == unlimited ]]; then printf '"unlimited"'; else printf '%s' "$1"; fi; }

decisions_print() {
  local server=$1 port=$2 conns=$3 results_mb=$4 e sep='' limits_from=measured
  local -n decisions_share=$5 decisions_heap=$6 decisions_disk=$7
  if [[ -n ${PB_PLAN_OPEN_FILES:-} ]]; then
    decisions_limits_given
    limits_from=PB_PLAN_OPEN_FILES
  else
    decisions_limits_read
  fi
  decisions_fit "$SUT_IDX" "$conns" "sut:$server"
  for e in "${ENGINE_IDX[@]}"; do decisions_fit "$e" "${decisions_share[e]}" engine "$conns" "${#ENGINE_IDX[@]}"; done
  printf '{\n  "connections": %s, "hosts": %s,\n' "$conns" "$(json_string "$HOSTS_SOURCE")"
  printf '  "server": {"type": "%s", "name": "%s", "address": "%s", "port": %s, "connections": %s},\n' \
    "$server" "${H_NAME[SUT_IDX]}" "${H_ADDR[SUT_IDX]}" "$port" "$conns"
  printf '  "engines": ['
  for e in "${ENGINE_IDX[@]}"; do
    printf '%s\n    {"name": "%s", "address": "%s", "rmi": %s, "connections": %s, "heapMb": %s, "diskMb": %s}' "$sep" \
      "${H_NAME[e]}" "${H_ADDR[e]}" "${H_RMI[e]}" "${decisions_share[e]}" "${decisions_heap[e]}" "${decisions_disk[e]}"
    sep=','
  done
  printf '\n  ],\n  "resultsDiskMb": %s,\n' "$results_mb"
  printf '  "openFiles": {"reserve": %s, "limitsFrom": "%s", "fits": %s,\n    "hosts": [\n      %s\n    ]}\n}\n' \
    "$PB_FD_RESERVE" "$limits_from" "$DECISIONS_FITS" "$DECISIONS_FIT_JSON"
}
