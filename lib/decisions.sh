# shellcheck shell=bash disable=SC2034  # sets globals for run.sh
# The run's decisions, read once (issue #37 item 2): lib/decide.js takes the arguments, the settings and
# the hosts file and decides everything about the run that is not a process, a connection or a signal
# (validation, the split of the connections over the engines, heaps, disk, a blocking Tomcat's threads,
# ports, run.json's parameters); run.sh evaluates its answer once and keeps to what bash is good at.
# Sourced by run.sh after lib/hosts.sh and lib/remote.sh.
#
#   decisions_exit_codes
#       node lib/decide.js --exit-codes, evaluated: run.sh's exit codes by name (lib/decide-exit.js, README's
#       table: EXIT_REFUSED EXIT_PREFLIGHT_FAILED EXIT_BUSY EXIT_STALE EXIT_INTERRUPTED ...), read once before
#       anything else; run.sh and lib/ exit by these names, never by a bare code of the table.
#   decisions_load <run.sh arguments>
#       node lib/decide.js --shell, evaluated: the run's parameters (RUN_SERVER RUN_RAMPUP_S RUN_DURATION_S
#       RUN_CONNECTIONS RUN_TYPE RUN_MAX_DURATION_MS RUN_EVENT RUN_EMIT_INTERVAL_MS RUN_PULL_INTERVAL_MS RUN_PORT
#       RUN_RESULTS_DISK_MB), the hosts tables
#       (lib/hosts.sh) with H_CONNECTIONS, H_HEAP_MB and H_DISK_MB, PB_SERVER_ADDRESS, the settings run.sh
#       exports (PB_TOMCAT_BIO_THREADS when auto) and the whole object as DECISIONS_JSON; or, when run.sh
#       would refuse the run, DECISION_REFUSED_STAGE, _CODE and _TEXT. Every value is quoted by the module.
#   decisions_refuse_at <stage>...
#       a refusal of one of these stages (settings, arguments, hosts, heap) printed as it is and exited with
#       its code (2); so arguments are refused before the state directory is claimed, a hosts file after.
#   decisions_print <run.sh arguments>
#       ./run.sh --plan: the decisions as JSON with the open-file fit (lib/decide.js --json) after
#       decisions_load; the limits from PB_PLAN_OPEN_FILES ("<role>:<name>=<soft>/<hard> ...", one entry
#       per hosts.conf line: the sweep's form) or read on each host here, one remote_run of
#       host/host-check.js limits each (EXIT_PREFLIGHT_FAILED naming a host that did not answer).

# shellcheck source=lib/run-get.sh
source "$(dirname "${BASH_SOURCE[0]}")/run-get.sh"

DECISION_REFUSED_STAGE='' DECISION_REFUSED_CODE='' DECISION_REFUSED_TEXT='' DECISIONS_JSON=''

decisions_exit_codes() {
  local out
  out=$(node "$PB_ROOT/lib/decide.js" --exit-codes) || { echo "run.sh: lib/decide.js --exit-codes failed" >&2; exit 1; }
  eval "$out"
}

decisions_load() {
  local out
  out=$(node "$PB_ROOT/lib/decide.js" --shell -- "$@") || { echo "run.sh: lib/decide.js failed" >&2; exit 1; }
  eval "$out"
}

decisions_refuse_at() {
  local stage
  for stage; do
    [[ $DECISION_REFUSED_STAGE == "$stage" ]] || continue
    printf '%s' "$DECISION_REFUSED_TEXT" >&2
    exit "$DECISION_REFUSED_CODE"
  done
}

# decisions_limits_read: "<role>:<name>=<soft>/<hard> ..." read on each host, or EXIT_PREFLIGHT_FAILED naming the host that
# did not answer. remote_open runs here, not in $(...), so remote_close_all knows the connections it opened.
DECISIONS_ERR='' DECISIONS_LIMITS=''
decisions_limits_read() {
  local i out soft hard
  DECISIONS_ERR=$(mktemp)
  trap 'remote_close_all; rm -f "$DECISIONS_ERR"' EXIT
  DECISIONS_LIMITS=''
  for i in $(host_indexes); do
    if ! remote_open "$i" >"$DECISIONS_ERR" 2>&1 || ! out=$(remote_run "$i" node host/host-check.js limits 2>"$DECISIONS_ERR"); then
      printf 'run.sh: cannot read the open-file limits of %s: %s\n' "$(hosts_describe "$i")" "$(<"$DECISIONS_ERR")" >&2
      exit "$EXIT_PREFLIGHT_FAILED"
    fi
    { read -r soft; read -r hard; } <<<"$out"
    DECISIONS_LIMITS+="${DECISIONS_LIMITS:+ }$(host_get role "$i"):$(host_get name "$i")=$soft/$hard"
  done
}

decisions_print() {
  decisions_load "$@"
  decisions_refuse_at settings arguments hosts heap
  if [[ -n ${PB_PLAN_OPEN_FILES:-} ]]; then
    node "$PB_ROOT/lib/decide.js" --json -- "$@"
  else
    remote_init "$PB_STATE_EXPLICIT"
    decisions_limits_read
    node "$PB_ROOT/lib/decide.js" --json --open-files "$DECISIONS_LIMITS" -- "$@"
  fi
}
