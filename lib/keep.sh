# shellcheck shell=bash disable=SC2034  # sets RUN_FAILED, run.sh's
# Never delete what was not copied (docs/faults.md): what run.sh's collecting functions do when a copy
# back from a host fails. Sourced by run.sh after lib/hosts.sh and lib/log.sh; notes go to the run
# state (RUN_NOTES, RUN_FAILED: run.sh's "Run state"), read through lib/run-get.sh.
#
#   keep_note <text>                  add a note to run.json, once however often it is noted
#   keep_place <i> <path>             "<path> on <host> (<address>)": where kept data really is
#   keep_left_behind <i> <what> <path>
#                                     note that <what> was not copied and stays at <path> on host i, and
#                                     mark the run incomplete
#   keep_remove_work_dir <dir>        remove run.sh's own files from its work directory, and the directory
#                                     itself if nothing else is left: on a host sharing this state
#                                     directory (the local default) an engine's responses and the SUT's
#                                     monitor files live in it until they are copied

# shellcheck source=lib/run-get.sh
source "$(dirname "${BASH_SOURCE[0]}")/run-get.sh"

keep_note() {
  local n
  while IFS= read -r -d '' n; do [[ $n != "$1" ]] || return 0; done < <(run_list notes)
  RUN_NOTES+=("$1")
}

keep_place() {
  printf '%s on %s (%s)' "$2" "$(host_get name "$1")" "$(host_get addr "$1")"
}

keep_left_behind() {
  local text
  text="$2 not copied back; kept in $(keep_place "$1" "$3")"
  RUN_FAILED=1
  keep_note "$text"
  say "  $text"
}

keep_remove_work_dir() {
  local dir=$1
  [[ -n $dir && -d $dir ]] || return 0
  rm -f -- "$dir/controller.pid" "$dir"/engine-start-*.out
  rmdir -- "$dir" 2>/dev/null || true
}
