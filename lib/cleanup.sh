# shellcheck shell=bash disable=SC2034  # sets globals for run.sh
# What run.sh does when it ends, normally or not. Sourced by run.sh, which defines the stop_* and
# collect_* functions used here (the same ones its normal steps use; each is safe to call twice and
# stops only what this run recorded having started).
#
#   cleanup_install_traps   EXIT, INT, TERM and HUP handlers
#
# On INT/TERM or a failing step: stop the controller, the engines, the server and the monitors on every
# host, collect the logs and the responses saved so far, mark run.json incomplete with a note saying where it stopped, and
# exit 130 (interrupted) or 1 (failed). Exit codes 2 and 3 (nothing started yet) pass through unchanged.

RUN_INTERRUPTED=''
RUN_FINISHED=0

cleanup_install_traps() {
  trap 'RUN_INTERRUPTED=SIGINT; exit 130' INT
  trap 'RUN_INTERRUPTED=SIGTERM; exit 130' TERM
  trap 'RUN_INTERRUPTED=SIGHUP; exit 130' HUP   # the terminal closed
  trap cleanup_on_exit EXIT
}

cleanup_on_exit() {
  local rc=$?
  set +eu   # the clean-up must run to its end, whatever state the run was in
  trap '' INT TERM HUP   # a second Ctrl-C must not cut the clean-up short
  if ((RUN_FINISHED == 0)) && [[ -n ${RUN_DIR:-} ]]; then
    [[ ! -t 1 ]] || printf '\n'   # end a progress line
    if [[ -n $RUN_INTERRUPTED ]]; then
      say "interrupted ($RUN_INTERRUPTED) during ${CURRENT_STEP:-start-up}: stopping everything this run started"
      RUN_NOTES+=("interrupted by $RUN_INTERRUPTED during ${CURRENT_STEP:-start-up}")
      rc=130
    else
      say "step ${CURRENT_STEP:-?} failed (exit $rc): stopping everything this run started"
      RUN_NOTES+=("step ${CURRENT_STEP:-?} failed (exit $rc)${STEP_ERROR:+: $STEP_ERROR}")
      rc=1
    fi
    stop_controller
    stop_engines
    collect_engine_logs
    stop_the_server
    collect_server_log
    stop_monitors
    collect_monitor_files
    collect_responses_anyway
    keep_remove_work_dir "$WORK_DIR"   # never what was not copied (lib/keep.sh)
    RUN_STATUS=incomplete
    RUN_FINISHED_AT=$(now_ms)
    runjson_write
    say "run incomplete; what was collected is in $RUN_DIR"
  elif [[ -n ${RUN_INTERRUPTED:-} && -z ${RUN_DIR:-} ]]; then
    rc=130
  fi
  remote_close_all
  exit "$rc"
}
