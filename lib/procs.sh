# shellcheck shell=bash
# Process bookkeeping shared by run.sh's helpers: a PID file holds "<pid> <start time>" (field 22 of
# /proc/<pid>/stat), so a reused PID is never mistaken for ours and nothing is killed by name.
#
#   procs_record <pid> <file>             write the PID file
#   procs_alive <file>                    true if that very process still runs (prints its pid)
#   procs_stop_recorded <file> <seconds>  TERM (its process group, if it leads one), wait, then KILL;
#                                         removes the file

procs_start_time() { # <pid>: empty if no such live process
  local stat rest fields
  stat=$(cat "/proc/$1/stat" 2>/dev/null) || return 0
  rest=${stat##*) }
  read -ra fields <<<"$rest"
  [[ ${fields[0]} == Z ]] && return 0
  printf '%s' "${fields[19]}"
}

procs_record() { # <pid> <file>
  printf '%s %s\n' "$1" "$(procs_start_time "$1")" >"$2.tmp" && mv "$2.tmp" "$2"
}

procs_alive() { # <file>
  local pid recorded
  [[ -f $1 ]] || return 1
  read -r pid recorded _ <"$1" || return 1
  [[ $pid =~ ^[0-9]+$ && -n $recorded && $(procs_start_time "$pid") == "$recorded" ]] || return 1
  printf '%s' "$pid"
}

procs_stop_recorded() { # <file> <seconds>
  local file=$1 wait=$2 pid recorded target pgid deadline
  [[ -f $file ]] || return 0
  if ! pid=$(procs_alive "$file"); then
    rm -f "$file"
    return 0
  fi
  read -r _ recorded _ <"$file"
  # A process started with setsid leads its own group: signal the group so its children go too.
  pgid=$(ps -o pgid= -p "$pid" 2>/dev/null | tr -d ' ')
  target=$pid
  [[ $pgid == "$pid" ]] && target=-$pid
  kill -TERM -- "$target" 2>/dev/null || true
  deadline=$((SECONDS + wait))
  while [[ $(procs_start_time "$pid") == "$recorded" ]] && ((SECONDS < deadline)); do sleep 0.1; done
  if [[ $(procs_start_time "$pid") == "$recorded" ]]; then
    kill -KILL -- "$target" 2>/dev/null || true
    sleep 0.2
  fi
  rm -f "$file"
}
