# shellcheck shell=bash disable=SC2034  # sets run.sh's run state (RUN_*)
# Writes <run-dir>/run.json (docs/run-layout.md) from the run state. Sourced by run.sh.
#
#   runjson_write    rewrite run.json whole, from RUN (its scalars), RUN_STEPS, RUN_NOTES and the host
#                    tables (lib/hosts.sh, H_CONNECTIONS, H_HEAP_MB), through lib/run-record.js (which builds
#                    the object, checks it against the run schema and writes it); a no-op before RUN_DIR exists
#
# run.json is a snapshot of the whole run, rewritten after every step and from the EXIT trap, so it reads
# the one run state run.sh keeps (its "Run state" section) rather than taking two dozen values as arguments.
# Written to a temporary file, flushed to disk and only then renamed over the old one (lib/atomic-write.js),
# so an interrupted run or a full disk leaves the last good version (docs/faults.md); a write that fails
# is reported on stderr and marks the run incomplete (RUN_FAILED, RUN_RUNJSON_FAILED, a note). The
# values reach the writer NUL-separated on its stdin, so a note may hold any character. The provenance
# (lib/provenance.sh) is collected once, at the first write after the hosts were read and checked.
# The parameters carry the run schema's names (lib/run-schema.js, docs/run-layout.md); runs written before
# it used older ones, which lib/run-schema.js still reads.

# shellcheck source=lib/provenance.sh
source "$(dirname "${BASH_SOURCE[0]}")/provenance.sh"


RUNJSON_WRITER=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)/run-record.js

runjson_write() {
  [[ -n ${RUN_DIR:-} && -d ${RUN_DIR} ]] || return 0
  local f=${RUN_DIR}/run.json out rc=0
  [[ -n ${RUN_PROVENANCE:-} ]] || RUN_PROVENANCE=$(provenance_json)
  out=$(runjson_fields | node "$RUNJSON_WRITER" "$f" 2>&1) || rc=$?
  ((rc != 0)) || return 0
  if ((rc == 1)); then
    printf 'run.sh: cannot write %s (disk full?); the previous version is kept\n' "$f" >&2
  else
    printf 'run.sh: run.json not written: %s\n' "$out" >&2
  fi
  if ((${RUN_RUNJSON_FAILED:-0} == 0)); then
    RUN_RUNJSON_FAILED=1 RUN_FAILED=1
    RUN_NOTES+=("run.json could not be written at $(date +%T) (disk full?); the run is incomplete")
  fi
  return 0
}

# The run state as lib/run-record.js's fields, NUL-separated: the RUN_* scalars in the run schema's names,
# the hosts, the steps and the notes.
runjson_fields() {
  local e k
  printf '%s\0' "id=${RUN_ID}" "server=${RUN_SERVER}" "type=${RUN_TYPE}" "rampupS=${RUN_RAMPUP_S}" "durationS=${RUN_DURATION_S}" \
    "connections=${RUN_CONNECTIONS}" "maxDurationMs=${RUN_MAX_DURATION_MS:-}" "event=${RUN_EVENT:-}" \
    "emitIntervalMs=${RUN_EMIT_INTERVAL_MS:-}" "pullIntervalMs=${RUN_PULL_INTERVAL_MS:-}" "port=${RUN_PORT}" \
    "sut=${H_NAME[SUT_IDX]},${H_ADDR[SUT_IDX]},${H_BIND[SUT_IDX]:-${H_ADDR[SUT_IDX]}},${H_ACCESS[SUT_IDX]}" \
    "provenance=${RUN_PROVENANCE}" "startedAt=${RUN_STARTED_AT}" "finishedAt=${RUN_FINISHED_AT:-}" \
    "status=${RUN_STATUS}" "serverCrashed=${RUN_CRASHED}"
  [[ -z ${RUN_TARGET_JSON:-} ]] || printf '%s\0' "target=${RUN_TARGET_JSON}"
  for k in "${RUN_THRESHOLDS[@]}"; do printf '%s\0' "threshold=$k"; done
  for e in "${ENGINE_IDX[@]}"; do
    printf '%s\0' "engine=${H_NAME[e]},${H_ADDR[e]},${H_ACCESS[e]},${H_RMI[e]},${H_CONNECTIONS[e]},${H_HEAP_MB[e]}"
  done
  for k in "${RUN_STEPS[@]}"; do printf '%s\0' "step=${k% *}=${k#* }"; done   # "<step> <ms>", in the order they ran
  for k in "${RUN_NOTES[@]}"; do printf '%s\0' "note=$k"; done
}
