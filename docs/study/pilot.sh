#!/usr/bin/env bash
# The pilot behind docs/study (issue #25): a small real sweep of the study's permutations (section 4.2)
# at small connection levels, every permutation run 3 times, each repeat in its own pass over the
# selection so that the repeats are spread over the sitting. Raw run directories go to PB_STUDY_RAW
# (default /tmp/study-raw), never into the repository; docs/study/collect.js then copies what the page needs.
#
#   docs/study/pilot.sh            the three passes (~45 min on a 2-core machine)
#   docs/study/pilot.sh 2          only pass 2 (resumes it where it was cut short)
#
# PB_STUDY_TREE: the checkout whose sweep.sh runs (default: this one). The ports are moved out of the test
# slots' ranges (./test.sh uses 18080-19897 and 11000-12900) so the pilot can run beside other suites.
# Exit 1 when a sweep had a run that failed (the other groups still run), 2 on a bad pass number.
set -uo pipefail

tree=${PB_STUDY_TREE:-$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)}
raw=${PB_STUDY_RAW:-/tmp/study-raw}
export PB_RESULTS=$raw/results PB_STATE=${PB_STATE:-/tmp/study-state}
export PB_PORT_NODE=20080 PB_PORT_TC6=20086 PB_PORT_TC7=20087
export PB_JMETER_RMI_PORT=20099 PB_JMETER_RMI_LOCALPORT=20000 PB_JMETER_CLIENT_LOCALPORT=20100

status=0
sweep() { # sweep <dir name> <sweep.sh options>...
  local dir=$1
  shift
  "$tree/sweep.sh" --yes --quiet --dir "$raw/$dir" --rampup 5 "$@" || status=1
}

passes=("$@")
[[ ${#passes[@]} -gt 0 ]] || passes=(1 2 3)
for pass in "${passes[@]}"; do
  [[ $pass =~ ^[1-9]$ ]] || { echo "pilot.sh: a pass is one digit, not '$pass'" >&2; exit 2; }
  # 1 s events, comet and long poll, 100 and 400 connections (figures 7, 8, 17, 19-27, T1, T2)
  sweep "pass$pass-events-1s" --levels 100,400 --filter 'event1 1000$' --duration 20
  # no events at 400 connections: comet held all along, long polls timing out after 10 s (figures 5, 6, 10-12)
  sweep "pass$pass-no-events" --levels 400 --filter 'comet$|poll 10000$' --duration 20
  # comet with a 10 s emit interval at 400 connections: three emits after the ramp-up (figures 7-9)
  sweep "pass$pass-comet-10s" --levels 400 --filter 'comet - event1 10000$' --duration 30
done
exit "$status"
