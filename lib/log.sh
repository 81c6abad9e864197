# shellcheck shell=bash
# run.sh's output: every line it says goes to stdout and, with the time of day, to run.log. Lines said
# before the run directory exists are kept and written there once log_open names the file. Sourced by
# run.sh.
#
#   now_ms                   the time, epoch ms
#   say <text>               print one line and log it
#   log_open <file> [append] start run.log with the lines said so far (append: add to it); RUN_LOG is its
#                            path from then on (empty before), for commands whose output goes there
#   log_output_lost          a write to stdout failed: if stdout is a pipe, socket or terminal (a character
#                            device: a hung-up terminal is no tty any more, but still one), its reader
#                            or terminal went away, so from now on lines go to run.log only and LOG_ON_LOST
#                            (a command, if set) is run once; a file that cannot be written (a full disk)
#                            is not a lost output
#
# A write to stdout that fails (EPIPE, or EIO from a terminal that vanished) is the output lost, whether
# or not a signal says so.

RUN_LOG='' LOG_PENDING=() LOG_ON_LOST='' LOG_LOST=0

now_ms() { local t=${EPOCHREALTIME/./}; printf '%s' "${t:0:13}"; }

say() {
  printf '%s\n' "$*" 2>/dev/null || log_output_lost
  local line
  printf -v line '%(%H:%M:%S)T %s' -1 "$*"
  if [[ -n $RUN_LOG ]]; then printf '%s\n' "$line" >>"$RUN_LOG"; else LOG_PENDING+=("$line"); fi
}

log_open() {
  RUN_LOG=$1
  [[ ${2:-} == append ]] || : >"$RUN_LOG"
  ((${#LOG_PENDING[@]} == 0)) || printf '%s\n' "${LOG_PENDING[@]}" >>"$RUN_LOG"
  LOG_PENDING=()
}

log_output_lost() {
  [[ -p /dev/stdout || -S /dev/stdout || -c /dev/stdout ]] || return 0
  exec >/dev/null
  ((LOG_LOST)) && return 0
  LOG_LOST=1
  [[ -z $LOG_ON_LOST ]] || "$LOG_ON_LOST"
}
