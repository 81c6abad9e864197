# shellcheck shell=bash disable=SC2034  # sets run.sh's run state (RUN_*), read through lib/run-get.sh
# The one run of a state directory (docs/faults.md): what run.sh says when another run holds $PB_STATE
# (lib/runlock.sh) or a run killed beyond any trap left its state there (lib/runstate.sh), and
# ./run.sh --stop-stale / --stop <run id>. Sourced by run.sh after lib/runlock.sh, lib/runstate.sh,
# lib/remote.sh, lib/runjson.sh, lib/cleanup.sh and lib/log.sh.
#
#   statedir_refuse_busy <refused>   EXIT_BUSY: another run holds the lock; names it, how to wait for it and
#                                    how to stop it; <refused> says what was not done
#   statedir_refuse_stale [<file>]   EXIT_STALE: a run killed beyond any trap (its run-state.sh; none: only the
#                                    processes holding its lock are known); names it, what it recorded,
#                                    and ./run.sh --stop-stale
#   statedir_stop [<run id>]         ./run.sh --stop-stale (no id) or --stop <run id>: exits 0 once nothing
#                                    of it is left running, 1 if some of its undo failed, EXIT_BUSY if a live run
#                                    holds the state directory (--stop-stale, or --stop of another id)
#
# A stale run is stopped by its own undo entries, read back from its run-state.sh: the same functions,
# on the same hosts, as its EXIT trap would have run, so only what it recorded is signalled (each PID
# checked against its start time) and what it collected is copied into its run directory, or noted
# where it stays. It is then marked incomplete with a note saying so. A run that ended leaving processes
# on an engine host ssh did not reach (lib/run-undo.sh engine_host_lost) is stale the same way: its
# entries for that host are what is left, run once the host answers. The run state (the stale run's,
# once read back) is read through lib/run-get.sh.

# shellcheck source=lib/run-get.sh
source "$(dirname "${BASH_SOURCE[0]}")/run-get.sh"

STATEDIR_DONE=0   # 1 once statedir_stop stopped something
STATEDIR_WHAT=''  # the stop's own command line, for the note

statedir_refuse_busy() {
  local id pid what
  id=$(runlock_owner id) what=$(runlock_owner what)
  read -r pid _ <<<"$(runlock_owner pid)"
  [[ $what != run ]] || what='a run.sh that has not made its run directory yet'
  {
    printf 'run.sh: another run is using the state directory %s: %s (run.sh pid %s); %s\n' "$PB_STATE" \
      "${id:-$what}" "${pid:-?}" "$1"
    printf '  wait for it:  flock %s true\n' "$(runlock_file)"
    [[ -z $id ]] || printf '  stop it:      ./run.sh --stop %s   (it stops what it started and keeps what it collected)\n' "$id"
    printf '  or run beside it with a state directory and ports of its own (PB_STATE=<dir>, lib/config.sh)\n'
  } >&2
  exit "$EXIT_BUSY"
}

statedir_refuse_stale() {
  local pid
  {
    if [[ -n ${1:-} ]]; then
      statedir_describe_stale "$1" || printf 'run.sh: a stale run: %s cannot be read\n' "$1"
    else
      read -r pid _ <<<"$(runlock_owner pid)"
      printf 'run.sh: the state directory %s is locked by processes %s, left by run.sh pid %s, which is gone\n' \
        "$PB_STATE" "$(runlock_holders)" "${pid:-?}"
    fi
    printf '  stop it, keeping what it collected: ./run.sh --stop-stale   (nothing was started)\n'
  } >&2
  exit "$EXIT_STALE"
}

# statedir_describe_stale <run-state.sh>: what a stale run was and what it left, in a subshell.
statedir_describe_stale() (
  local pid i id status dir step
  runstate_load "$1"
  read -r pid _ <"${1%/*}/run.pid" 2>/dev/null || pid='?'
  id=$(run_get id) status=$(run_get status) dir=$(run_get dir) step=$(run_get step)
  if [[ -n $(lost_hosts) ]]; then
    printf 'run.sh: run %s left processes on hosts ssh did not reach: %s; its run.json says "%s" (%s)\n' \
      "$id" "$(lost_hosts)" "$status" "$dir"
  else
    printf 'run.sh: run %s ended without its teardown: its run.sh (pid %s) is gone, killed beyond any trap (SIGKILL, the OOM killer?) during %s; its run.json says "%s" (%s)\n' \
    "$id" "$pid" "${step:-start-up}" "$status" "$dir"
  fi
  printf '  recorded here: %s\n' "$(runstate_recorded "$1" | paste -sd';' - | sed 's/;/; /g')"
  for i in $(host_indexes); do
    [[ $(host_get access "$i") != ssh ]] ||
      printf '  recorded on %s (%s): %s/runs/%s\n' "$(host_get name "$i")" "$(host_get addr "$i")" "$(host_get state "$i")" "$id"
  done
)

statedir_stop() {
  local id=${1:-} f rc=0
  local -a stale
  # Its output gone (| head), a stop runs on to its end; its lines are in the stopped run's run.log.
  trap '' PIPE
  # shellcheck disable=SC2034  # lib/log.sh's
  LOG_ON_LOST=''
  statedir_stop_lock "$id"
  mapfile -t stale < <(runstate_stale)
  for f in "${stale[@]}"; do
    [[ -z $id || $f == "$PB_STATE/runs/$id/run-state.sh" ]] || continue
    STATEDIR_DONE=1
    (statedir_stop_stale "$f") || rc=1
  done
  ((STATEDIR_DONE)) || statedir_nothing "$id"
  runlock_release
  exit "$rc"
}

statedir_nothing() { # [<run id>]
  if [[ -n $1 ]]; then say "run $1: neither running nor stale in $PB_STATE; nothing to stop"
  else say "no stale run in $PB_STATE; nothing to stop"; fi
}

# statedir_stop_lock [<run id>]: this state directory's lock, for the stop; a live run of that id is
# stopped first (SIGTERM to its run.sh, then its teardown waited for).
statedir_stop_lock() {
  local what="./run.sh --stop${1:+ $1}" holders
  [[ -n ${1:-} ]] || what='./run.sh --stop-stale'
  STATEDIR_WHAT=$what
  if runlock_take "$what"; then return 0; fi
  if runlock_owner_alive; then
    [[ -n ${1:-} && $(runlock_owner id) == "$1" ]] || statedir_refuse_busy "not stopped while it runs"
    statedir_stop_live "$1" "$what"
    return 0
  fi
  holders=$(runlock_holders)
  say "the lock is held by ${holders:-processes} of a run.sh that is gone; waiting for it up to 10 s"
  if runlock_take "$what" 10; then return 0; fi
  say "still held: stopping the stale run without the lock"
}

statedir_stop_live() { # <run id> <what takes the lock after it>
  local pid
  read -r pid _ <<<"$(runlock_owner pid)"
  say "run $1 is running (run.sh pid $pid): sending it SIGTERM; it stops what it started and keeps what it collected"
  kill -TERM "$pid" 2>/dev/null || true
  say "waiting for its teardown (Ctrl-C ends the waiting, not the teardown)"
  runlock_wait "$2"
  STATEDIR_DONE=1
  say "run $1 stopped"
}

# statedir_stop_stale <run-state.sh>: one stale run, stopped and collected by its own undo entries. Run
# it in a subshell: it replaces the run state with that run's.
statedir_stop_stale() {
  local pid rc=0 lost id dir step finished
  runstate_load "$1"
  read -r pid _ <"${1%/*}/run.pid" 2>/dev/null || pid='?'
  set +eu   # as in the EXIT trap: every entry runs, whatever fails
  # shellcheck disable=SC2034  # run.sh's: the launches were the dead run.sh's children, not ours
  H_LAUNCH_PID=()
  id=$(run_get id) dir=$(run_get dir) step=$(run_get step) finished=$(run_get finished)
  if [[ -d $dir ]]; then log_open "$dir/run.log" append; else log_open /dev/null append; fi
  lost=$(lost_hosts)
  if [[ -n $lost ]]; then
    say "run $id: it left processes on hosts ssh did not reach: $lost; stopping what it recorded there"
  else
    say "run $id: its run.sh (pid $pid) ended without its teardown during ${step:-start-up}; stopping what it recorded"
  fi
  statedir_reopen_ssh
  if [[ -n $lost ]]; then
    undo_run_all || rc=$?
    remote_close_all   # the run's own close ran at its end
    if [[ -z $(lost_hosts) ]]; then
      keep_note "$STATEDIR_WHAT at $(date '+%F %T') stopped and collected what the run had left on $lost"
    else
      say "run $id: still not reached: $(lost_hosts); what it left there stays recorded"
      rc=1
    fi
    runjson_write
    say "run $id: status $(run_get status); what it collected is in $dir"
    return "$rc"
  fi
  if ((finished == 0)); then
    RUN_NOTES+=("run.sh (pid $pid) ended without its teardown during ${step:-start-up}, killed beyond any trap (SIGKILL, the OOM killer?); $STATEDIR_WHAT at $(date '+%F %T') stopped the processes it had recorded and collected what they wrote")
    RUN_STATUS=incomplete
    runjson_write
  fi
  undo_run_all || rc=$?
  ((finished)) || RUN_FINISHED_AT=$(now_ms)
  runjson_write
  say "run $id: stopped, status $(run_get status); what it collected is in $dir"
  return "$rc"
}

# The ssh master connections of the stale run's hosts (its undo entries reach them through one).
statedir_reopen_ssh() {
  local i err=$PB_STATE/stop.$$.err
  for i in $(host_indexes); do
    [[ $(host_get access "$i") == ssh ]] || continue
    if remote_open "$i" >"$err" 2>&1; then
      unset 'H_LOST[i]' 'H_UNREACHABLE[i]'   # lib/run-undo.sh engine_host_lost: its entries run now
    else
      say "  $(host_get name "$i") ($(host_get addr "$i")) does not answer ssh ($(head -n 1 "$err")); what the run left there stays"
    fi
  done
  rm -f -- "$err"
}
