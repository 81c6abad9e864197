# shellcheck shell=bash
# run.sh's output: every line it says goes to stdout and, with the time of day, to run.log. Lines said
# before the run directory exists are kept and written there once log_open names the file. Sourced by
# run.sh.
#
#   now_ms            the time, epoch ms
#   say <text>        print one line and log it
#   log_open <file>   start run.log with the lines said so far; RUN_LOG is its path from then on (empty
#                     before), for commands whose output goes there

RUN_LOG='' LOG_PENDING=()

now_ms() { local t=${EPOCHREALTIME/./}; printf '%s' "${t:0:13}"; }

say() {
  printf '%s\n' "$*"
  local line
  printf -v line '%(%H:%M:%S)T %s' -1 "$*"
  if [[ -n $RUN_LOG ]]; then printf '%s\n' "$line" >>"$RUN_LOG"; else LOG_PENDING+=("$line"); fi
}

log_open() {
  RUN_LOG=$1
  : >"$RUN_LOG"
  ((${#LOG_PENDING[@]} == 0)) || printf '%s\n' "${LOG_PENDING[@]}" >>"$RUN_LOG"
  LOG_PENDING=()
}
