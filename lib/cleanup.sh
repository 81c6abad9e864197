# shellcheck shell=bash
# The undo list: how run.sh takes down what it started, in the same steps whether the run ends normally,
# is interrupted or a step fails. Sourced by run.sh. Each start step registers the undo of what it
# starts (stop it, collect what it wrote) as it starts it; the normal stop steps run those entries one
# phase at a time, and run.sh's EXIT trap runs whatever is left. This file runs only what was
# registered, and knows nothing of what the entries do.
#
#   undo_phases <phase>...            the phases of the teardown, in the order they run
#   undo_add <phase> <command> [<argument>...]
#                                     register an entry: a command with the values it needs as arguments
#   undo_run <phase>...               run the entries of these phases, phase by phase, in each the last
#                                     registered first; returns the status of the last entry that failed
#   undo_drop <phase>                 drop a phase's entries without running them
#   undo_run_all                      every entry left, phase by phase (the EXIT trap)
#   undo_on_change <command>          run <command> after every change of the list (run.sh keeps the
#                                     list on disk with it, lib/runstate.sh)
#
# An entry leaves the list once it has run to its end, failed or not, so nothing is undone twice; one
# cut short by a signal stays, and the EXIT trap runs it again. Entries run with errexit off, as they
# do in the trap: each must go on past a failure it only notes, and act only on what it was given.

UNDO_PHASES=()
UNDO=()   # "<phase> <command and arguments, each quoted with printf %q>", in the order registered
UNDO_ON_CHANGE=''

undo_phases() { UNDO_PHASES=("$@"); }
undo_on_change() { UNDO_ON_CHANGE=$1; }
undo_changed() { [[ -z $UNDO_ON_CHANGE ]] || "$UNDO_ON_CHANGE"; }

undo_add() {
  local phase=$1 command; shift
  [[ " ${UNDO_PHASES[*]} " == *" $phase "* ]] || { echo "undo_add: unknown phase '$phase'" >&2; return 2; }
  printf -v command ' %q' "$@"
  UNDO+=("$phase$command")
  undo_changed
}

undo_run() {
  local phase i k rc=0
  local -a idx
  for phase; do
    idx=("${!UNDO[@]}")
    for ((k = ${#idx[@]} - 1; k >= 0; k--)); do
      i=${idx[k]}
      [[ ${UNDO[i]%% *} == "$phase" ]] || continue
      eval "${UNDO[i]#* }" || rc=$?
      unset 'UNDO[i]'
      undo_changed
    done
  done
  return "$rc"
}

undo_drop() {
  local i
  for i in "${!UNDO[@]}"; do [[ ${UNDO[i]%% *} != "$1" ]] || unset 'UNDO[i]'; done
  undo_changed
}

undo_run_all() { undo_run "${UNDO_PHASES[@]}"; }
