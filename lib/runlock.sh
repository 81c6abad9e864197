# shellcheck shell=bash
# One run at a time per state directory (docs/faults.md): run.sh holds an exclusive flock on
# $PB_STATE/run.lock through file descriptor 9 for its whole life, and $PB_STATE/run.owner says who
# holds it. Sourced by run.sh after lib/procs.sh.
#
#   runlock_take [<seconds>]      take the lock, at once or waiting at most that long; status 1 if another
#                                 process holds it
#   runlock_wait                  take the lock, waiting as long as it takes
#   runlock_own <what>            run.owner names this process: "pid <pid> <start time>", "what <what>"
#   runlock_own_set <key> <value> add a line to run.owner (the run's id and directory, once known)
#   runlock_owner <key>           a value of run.owner (empty if none)
#   runlock_owner_alive           status 0 if the process run.owner names still runs (pid and start time)
#   runlock_holders               the PIDs that hold run.lock open, space-separated (for a message)
#   runlock_release               remove run.owner if this process wrote it, and close the lock
#
# The lock file is never removed or replaced: a lock on a removed file excludes nobody. The descriptor
# is 9, fixed, so that whatever run.sh starts is started without it ("9>&-": lib/remote.sh, run.sh's
# quietly and controller): a server or an engine that outlives a killed run.sh must not hold the lock.
# run.owner is written aside and renamed, so a reader sees one whole version or the other.

RUNLOCK_OWNED=0

runlock_file() { printf '%s/run.lock' "$PB_STATE"; }
runlock_owner_file() { printf '%s/run.owner' "$PB_STATE"; }

runlock_take() {
  mkdir -p -- "$PB_STATE"
  exec 9>>"$(runlock_file)"
  if [[ -n ${1:-} ]]; then flock -w "$1" 9; else flock -n 9; fi
}

runlock_wait() {
  mkdir -p -- "$PB_STATE"
  exec 9>>"$(runlock_file)"
  flock 9
}

runlock_own() {
  local f
  f=$(runlock_owner_file)
  printf 'pid %s %s\nwhat %s\n' "$$" "$(procs_start_time "$$")" "$1" >"$f.tmp" && mv -f -- "$f.tmp" "$f"
  RUNLOCK_OWNED=1
}

runlock_own_set() {
  local f
  f=$(runlock_owner_file)
  { grep -v "^$1 " -- "$f" 2>/dev/null || true; printf '%s %s\n' "$1" "$2"; } >"$f.tmp" && mv -f -- "$f.tmp" "$f"
}

runlock_owner() {
  local key value
  [[ -f $(runlock_owner_file) ]] || return 0
  while read -r key value; do
    [[ $key == "$1" ]] && { printf '%s' "$value"; return 0; }
  done <"$(runlock_owner_file)"
  return 0
}

runlock_owner_alive() {
  local pid start
  read -r pid start _ <<<"$(runlock_owner pid)"
  [[ $pid =~ ^[0-9]+$ && -n $start && $(procs_start_time "$pid") == "$start" ]]
}

runlock_holders() {
  local lock fd pid found=()
  lock=$(readlink -f -- "$(runlock_file)")
  for fd in /proc/[0-9]*/fd/*; do
    [[ $(readlink -- "$fd" 2>/dev/null) == "$lock" ]] || continue
    pid=${fd#/proc/} pid=${pid%%/*}
    [[ $pid == "$$" || $pid == "$BASHPID" ]] || found+=("$pid")
  done
  ((${#found[@]})) && printf '%s\n' "${found[@]}" | sort -un | paste -sd' ' -
  return 0
}

runlock_release() {
  ((RUNLOCK_OWNED == 0)) || rm -f -- "$(runlock_owner_file)"
  RUNLOCK_OWNED=0
  exec 9>&-
}
