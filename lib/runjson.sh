# shellcheck shell=bash disable=SC2034  # sets run.sh's run state (RUN_*)
# Writes <run-dir>/run.json (docs/run-layout.md) from the run state. Sourced by run.sh.
#
#   runjson_write    rewrite run.json whole, from the run state read through lib/run-get.sh (its values,
#                    steps, notes and the host tables with each engine's connections and heap), through lib/run-record.js (which builds
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

# shellcheck source=lib/run-get.sh
source "$(dirname "${BASH_SOURCE[0]}")/run-get.sh"
# shellcheck source=lib/provenance.sh
source "$(dirname "${BASH_SOURCE[0]}")/provenance.sh"


RUNJSON_WRITER=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)/run-record.js

runjson_write() {
  local dir f out rc=0
  dir=$(run_get dir)
  [[ -n $dir && -d $dir ]] || return 0
  f=$dir/run.json
  [[ -n $(run_get provenance) ]] || RUN_PROVENANCE=$(provenance_json)
  out=$(runjson_fields | node "$RUNJSON_WRITER" "$f" 2>&1) || rc=$?
  ((rc != 0)) || return 0
  if ((rc == 1)); then
    printf 'run.sh: cannot write %s (disk full?); the previous version is kept\n' "$f" >&2
  else
    printf 'run.sh: run.json not written: %s\n' "$out" >&2
  fi
  if [[ $(run_get runjson_failed) != 1 ]]; then
    RUN_RUNJSON_FAILED=1 RUN_FAILED=1
    RUN_NOTES+=("run.json could not be written at $(date +%T) (disk full?); the run is incomplete")
  fi
  return 0
}

# The run state as lib/run-record.js's fields, NUL-separated: the RUN_* scalars in the run schema's names,
# the hosts, the steps and the notes.
runjson_fields() {
  local e k s=$SUT_IDX field
  # the run's values, each named as run.json names it: <field>=<run state key>
  for field in id=id server=server type=type rampupS=rampup_s durationS=duration_s connections=connections \
    maxDurationMs=max_duration_ms event=event emitIntervalMs=emit_interval_ms pullIntervalMs=pull_interval_ms port=port; do
    printf '%s=%s\0' "${field%%=*}" "$(run_get "${field#*=}")"
  done
  k=$(host_get bind "$s")
  printf '%s\0' "sut=$(host_get name "$s"),$(host_get addr "$s"),${k:-$(host_get addr "$s")},$(host_get access "$s")" \
    "provenance=$(run_get provenance)" "startedAt=$(run_get started_at)" "finishedAt=$(run_get finished_at)" \
    "status=$(run_get status)" "serverCrashed=$(run_get crashed)"
  k=$(run_get target_json)
  [[ -z $k ]] || printf '%s\0' "target=$k"
  k=$(run_get tls_json)
  [[ -z $k ]] || printf '%s\0' "tls=$k"
  while IFS= read -r -d '' k; do printf '%s\0' "threshold=$k"; done < <(run_list thresholds)
  for e in "${ENGINE_IDX[@]}"; do
    printf '%s\0' "engine=$(host_get name "$e"),$(host_get addr "$e"),$(host_get access "$e"),$(host_get rmi "$e"),$(host_get connections "$e"),$(host_get heap_mb "$e")"
  done
  while IFS= read -r -d '' k; do printf '%s\0' "step=${k% *}=${k#* }"; done < <(run_list steps)   # "<step> <ms>", in the order they ran
  while IFS= read -r -d '' k; do printf '%s\0' "note=$k"; done < <(run_list notes)
}
