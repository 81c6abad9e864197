# shellcheck shell=bash
# The run state read through one accessor. run.sh keeps the run state (its "Run state": the RUN_* values
# and lists, the per-host H_* tables indexed as lib/hosts.sh's); the lib files that read it ask here by key
# rather than naming run.sh's globals. Sourced by run.sh and by each lib file that reads the run state.
#
#   run_get <key>             the value of the run state's <key> (run_get server: RUN_SERVER); '' when unset
#   run_list <key>            a list's entries (run_list notes: RUN_NOTES), each ended by a NUL, so an entry
#                             may hold any character; nothing for an empty or unset list
#   host_get <field> <host>   one host's <field> (host_get name 2: H_NAME[2]); '' when unset
#   host_indexes              every host's index (those of H_NAME, lib/hosts.sh), space-separated, in order
# A key or field is lower case: letters and _ (exit 2 otherwise).

run_get() {
  [[ $1 =~ ^[a-z_]+$ ]] || { echo "run_get: bad key '$1'" >&2; return 2; }
  local n="RUN_${1^^}"
  printf '%s' "${!n-}"
}

run_list() {
  [[ $1 =~ ^[a-z_]+$ ]] || { echo "run_list: bad key '$1'" >&2; return 2; }
  declare -p "RUN_${1^^}" >/dev/null 2>&1 || return 0
  local n="RUN_${1^^}[@]"
  local -a v=("${!n}")
  ((${#v[@]} == 0)) || printf '%s\0' "${v[@]}"
}

host_get() {
  [[ $1 =~ ^[a-z_]+$ && $2 =~ ^[0-9]+$ ]] || { echo "host_get: bad field or host '$1' '$2'" >&2; return 2; }
  local n="H_${1^^}[$2]"
  printf '%s' "${!n-}"
}

host_indexes() {
  local -a v=()
  declare -p H_NAME >/dev/null 2>&1 && v=("${!H_NAME[@]}")
  printf '%s' "${v[*]}"
}
