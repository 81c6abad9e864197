# shellcheck shell=bash
# The run state on disk, for a run killed beyond any trap (kill -9, the OOM killer; docs/faults.md).
# While a run lives its work directory here ($PB_STATE/runs/<id>) holds run.pid (run.sh's "<pid> <start
# time>", lib/procs.sh) and run-state.sh: the run state as bash declarations (every RUN_*, RUN_NOTES
# and RUN_STEPS among them, the undo list, the host tables, the PB_* settings), rewritten after every
# step and every change of the undo list. A run.sh killed beyond its trap leaves both behind; ./run.sh --stop-stale reads run-state.sh
# back and runs the undo entries left, the ones the EXIT trap would have run. Sourced by run.sh after
# lib/procs.sh.
#
#   runstate_begin              write run.pid and run-state.sh (RUN_WORK_DIR exists)
#   runstate_save               rewrite run-state.sh; a no-op before runstate_begin and after runstate_forget
#   runstate_forget             remove both and save no more: the teardown has reached the run's own files
#   runstate_load <file>        read a run-state.sh back into this shell (as globals) and save to it from now
#   runstate_stale              the run-state.sh files of runs whose run.sh is gone, one a line
#   runstate_recorded <file>    what that run recorded in its work directory, one PID file a line:
#                               "<what> pid <pid> (running|gone)"
#
# run-state.sh is run.sh's own file in its own state directory, read back only by run.sh: the same trust
# as the PID files it signals by. The run state is read through lib/run-get.sh.

# shellcheck source=lib/run-get.sh
source "$(dirname "${BASH_SOURCE[0]}")/run-get.sh"

RUNSTATE_FILE=''

runstate_begin() {
  local dir
  dir=$(run_get work_dir)
  RUNSTATE_FILE=$dir/run-state.sh
  procs_record "$$" "$dir/run.pid"
  runstate_save
}

# Written aside and renamed: a kill at any moment leaves the last whole version. Never fails the run.
runstate_save() {
  [[ -n $RUNSTATE_FILE ]] || return 0
  local -a names
  mapfile -t names < <(compgen -v H_; compgen -v PB_; compgen -v RUN_)
  names+=(UNDO SUT_IDX ENGINE_IDX HOSTS_SOURCE REMOTE_SSH_DIR)
  # declare -p, made global: the file is read back inside a function.
  { declare -p "${names[@]}" 2>/dev/null || true; } | sed -E 's/^declare -- /declare -g /; t; s/^declare -([A-Za-z]+) /declare -g\1 /' \
    >"$RUNSTATE_FILE.tmp" 2>/dev/null && mv -f -- "$RUNSTATE_FILE.tmp" "$RUNSTATE_FILE" 2>/dev/null
  return 0
}

runstate_forget() {
  [[ -n $RUNSTATE_FILE ]] || return 0
  rm -f -- "$RUNSTATE_FILE" "$RUNSTATE_FILE.tmp" "${RUNSTATE_FILE%/*}/run.pid"
  RUNSTATE_FILE=''
}

runstate_load() {
  # shellcheck source=/dev/null
  source "$1"
  RUNSTATE_FILE=$1
  runstate_upgrade
}

# A run-state.sh written before the run state was RUN_* scalars holds one associative array RUN (and,
# before the run schema's names, its old keys, lib/run-schema.js): each of its entries becomes RUN_<KEY>.
# shellcheck disable=SC2154  # RUN is declared by such a file only
runstate_upgrade() {
  [[ $(declare -p RUN 2>/dev/null) == 'declare -A'* ]] || return 0
  local key new
  local -A renamed=([rampup]=rampup_s [duration]=duration_s [maxdur]=max_duration_ms [interval]=emit_interval_ms [pull]=pull_interval_ms)
  for key in "${!RUN[@]}"; do
    [[ $key =~ ^[a-z_]{1,40}$ ]] || continue
    new=${renamed[$key]:-$key}
    [[ -n ${RUN[$new]+set} && $new != "$key" ]] && continue   # both names: the new one wins
    printf -v "RUN_${new^^}" '%s' "${RUN[$key]}"
  done
  unset RUN
}

runstate_stale() {
  local f
  for f in "$PB_STATE"/runs/*/run-state.sh; do
    [[ -f $f ]] || continue
    procs_alive "${f%/*}/run.pid" >/dev/null || printf '%s\n' "$f"
  done
}

runstate_recorded() {
  local dir=${1%/*} f what pid state
  while IFS= read -r f; do
    what=${f#"$dir"/} what=${what%.pid}
    read -r pid _ <"$f" 2>/dev/null || continue
    state=gone
    procs_alive "$f" >/dev/null && state=running
    printf '%s pid %s (%s)\n' "$what" "$pid" "$state"
  done < <(find "$dir" -name '*.pid' ! -path "$dir/run.pid" 2>/dev/null | sort)
}
