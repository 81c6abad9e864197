# shellcheck shell=bash
# One run at a time per state directory (docs/faults.md): run.sh holds an exclusive flock on
# $PB_STATE/run.lock through file descriptor 9 for its whole life, and $PB_STATE/run.owner says who
# holds it. Sourced by run.sh after lib/procs.sh.
#
#   runlock_take <what> [<seconds>]  take the lock and write run.owner ("pid <pid> <start time>",
#                                    "what <what>"), at once or trying at most that long; status 1 if
#                                    another process holds it (runlock_owner then reads its run.owner)
#   runlock_wait <what>              the same, waiting as long as it takes
#   runlock_own_set <key> <value>    add a line to run.owner (the run's id and directory, once known)
#   runlock_owner <key>              a value of run.owner (empty if none): this process's own while it
#                                    holds the lock, else the holder's as read when a take was refused
#   runlock_owner_alive              status 0 if the process runlock_owner names still runs (pid and start time)
#   runlock_holders                  the PIDs that hold run.lock open, space-separated (for a message)
#   runlock_release                  remove run.owner if this process wrote it, and close the lock
#
# The lock and its owner change together: every take of run.lock with the write of run.owner, every
# refused take with its read of run.owner, and every release with the removal of run.owner run while
# holding a second flock, on $PB_STATE/run.gate, for that moment only. So a refused start reads the
# run.owner of the very process that holds the lock, never a lock taken whose owner is not yet written
# (or already removed): a live run is never taken for one killed beyond any trap.
#
# The lock file is never removed or replaced: a lock on a removed file excludes nobody. The descriptor
# is 9, fixed, so that whatever run.sh starts is started without it ("9>&-": lib/remote.sh, run.sh's
# quietly and controller): a server or an engine that outlives a killed run.sh must not hold the lock.
# run.gate's descriptor is closed again before the function that took it returns.
# run.owner is written aside and renamed, so a reader sees one whole version or the other.

RUNLOCK_OWNED=0
RUNLOCK_SEEN=''   # the holder's run.owner, as read under the gate when a take was refused
RUNLOCK_RETRY_S=0.2   # seconds between tries of a take that waits

runlock_file() { printf '%s/run.lock' "$PB_STATE"; }
runlock_owner_file() { printf '%s/run.owner' "$PB_STATE"; }
runlock_gate_file() { printf '%s/run.gate' "$PB_STATE"; }

# runlock_gated <command...>: the command (a function of this file, run in this shell) while holding run.gate.
runlock_gated() {
  local gate rc=0
  exec {gate}>>"$(runlock_gate_file)"
  flock "$gate"
  "$@" || rc=$?
  exec {gate}>&-
  return "$rc"
}

# runlock_try <what>, under the gate: the lock taken and run.owner written, or the holder's run.owner read.
runlock_try() {
  exec 9>>"$(runlock_file)"
  if flock -n 9; then
    runlock_own "$1"
    return 0
  fi
  exec 9>&-
  RUNLOCK_SEEN=$(cat -- "$(runlock_owner_file)" 2>/dev/null) || RUNLOCK_SEEN=''
  return 1
}

runlock_take() {
  local deadline
  mkdir -p -- "$PB_STATE"
  deadline=$((SECONDS + ${2:-0}))
  until runlock_gated runlock_try "$1"; do
    ((SECONDS < deadline)) || return 1
    sleep "$RUNLOCK_RETRY_S"
  done
}

runlock_wait() {
  mkdir -p -- "$PB_STATE"
  until runlock_gated runlock_try "$1"; do sleep "$RUNLOCK_RETRY_S"; done
}

runlock_own() {
  local f
  f=$(runlock_owner_file)
  printf 'pid %s %s\nwhat %s\n' "$$" "$(procs_start_time "$$")" "$1" >"$f.tmp" && mv -f -- "$f.tmp" "$f"
  RUNLOCK_OWNED=1 RUNLOCK_SEEN=''
}

runlock_own_set() {
  local f
  f=$(runlock_owner_file)
  { grep -v "^$1 " -- "$f" 2>/dev/null || true; printf '%s %s\n' "$1" "$2"; } >"$f.tmp" && mv -f -- "$f.tmp" "$f"
}

runlock_owner() {
  local key value text=$RUNLOCK_SEEN
  ((RUNLOCK_OWNED == 0)) || text=$(cat -- "$(runlock_owner_file)" 2>/dev/null) || text=''
  while read -r key value; do
    [[ $key == "$1" ]] && { printf '%s' "$value"; return 0; }
  done <<<"$text"
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

# runlock_drop, under the gate: run.owner removed and the lock closed.
runlock_drop() {
  rm -f -- "$(runlock_owner_file)"
  RUNLOCK_OWNED=0
  exec 9>&-
}

runlock_release() {
  if ((RUNLOCK_OWNED)); then runlock_gated runlock_drop; else exec 9>&-; fi
}
