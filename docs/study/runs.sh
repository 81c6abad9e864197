#!/usr/bin/env bash
# The runs behind docs/study (issue #25): real sweeps of the study's permutations (section 4.2) at small
# connection levels, each repeat in its own pass over the selection so that the repeats are spread over the
# sitting. Three sets: `pilot` (1 s events at 100 and 400 connections, no events and comet with 10 s events
# at 400: 21 permutations) and `coverage` (what the pilot left out, so that every finding has runs: 32
# permutations, the blocking Tomcats and Node.js on all cores among them), and `polls` (the 12 long-poll
# permutations with events of both, run again once re-poll gaps were read in each thread's order). Raw run
# directories go to PB_STUDY_RAW (default /tmp/study-raw), never into the repository;
# charts/study-collect.js then copies what the page needs.
#
#   docs/study/runs.sh                        the pilot set, passes 1-3 (~14 min a pass on a quiet 2-core machine)
#   docs/study/runs.sh 2                      only pass 2 (resumes it where it was cut short)
#   docs/study/runs.sh --set coverage 1 2 3   the coverage set, three passes (~36 min a pass)
#   docs/study/runs.sh --set polls 7 8 9      the polls set, three passes (~8 min a pass)
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

set_name=pilot
if [[ ${1:-} == --set ]]; then
  set_name=${2:-}
  shift 2 || true
fi
[[ $set_name == pilot || $set_name == coverage || $set_name == polls ]] || { echo "runs.sh: --set is pilot, coverage or polls, not '$set_name'" >&2; exit 2; }

pilot() { # pilot <pass>
  local pass=$1
  # 1 s events, comet and long poll, 100 and 400 connections (figures 7, 8, 17, 19-27, T1, T2)
  sweep "pass$pass-events-1s" --levels 100,400 --filter 'event1 1000$' --duration 20
  # no events at 400 connections: comet held all along, long polls timing out after 10 s (figures 5, 6, 10-12)
  sweep "pass$pass-no-events" --levels 400 --filter 'comet$|poll 10000$' --duration 20
  # comet with a 10 s emit interval at 400 connections: three emits after the ramp-up (figures 7-9)
  sweep "pass$pass-comet-10s" --levels 400 --filter 'comet - event1 10000$' --duration 30
}

coverage() { # coverage <pass>
  local pass=$1
  # no events at 100 connections: the second level of figures 5, 6 and 10's trends
  sweep "cover$pass-no-events" --levels 100 --filter 'comet$|poll 10000$' --duration 20
  # comet with 5 s events at 400 (figure 8's intervals of 5 s and more)
  sweep "cover$pass-comet-5s" --levels 400 --filter 'comet - event1 5000$' --duration 20
  # 10 s events: comet at 100 (figure 9's trend), long polls at 400 (figures 16, 27, table 5.1.4)
  sweep "cover$pass-events-10s" --levels 100 --filter 'comet - event1 10000$' --duration 30
  sweep "cover$pass-poll-10s" --levels 400 --filter 'poll 180000 event1 10000$' --duration 30
  # 30 s events, comet and long poll, 100 and 400 connections: two emits (figures 13-15, 18, 19, 23, 28)
  sweep "cover$pass-events-30s" --levels 100,400 --filter 'event1 30000$' --duration 60
  # the study's open questions at 400 with 1 s events: blocking connectors (RQ2), Node.js on all cores (RQ4)
  sweep "cover$pass-bio" --servers tc6-bio,tc7-bio --levels 400 --filter 'comet - event1 1000$|poll 180000 event1 1000$' --duration 20
  sweep "cover$pass-cluster" --servers node-cluster --levels 400 --filter 'poll 180000 event1 1000$' --duration 20
}

polls() { # polls <pass>
  local pass=$1
  # every long poll with events again, judged by the analyzer that reads each thread's samples in time order
  # (results.csv is in the order the controller received them) and each emit cycle's start to the ms
  sweep "polls$pass-events-1s" --levels 100,400 --filter 'poll 180000 event1 1000$' --duration 20
  sweep "polls$pass-bio" --servers tc6-bio,tc7-bio --levels 400 --filter 'poll 180000 event1 1000$' --duration 20
  sweep "polls$pass-cluster" --servers node-cluster --levels 400 --filter 'poll 180000 event1 1000$' --duration 20
  sweep "polls$pass-poll-10s" --levels 400 --filter 'poll 180000 event1 10000$' --duration 30
}

passes=("$@")
[[ ${#passes[@]} -gt 0 ]] || passes=(1 2 3)
for pass in "${passes[@]}"; do
  [[ $pass =~ ^[1-9]$ ]] || { echo "runs.sh: a pass is one digit, not '$pass'" >&2; exit 2; }
  case $set_name in
    pilot) pilot "$pass" ;;
    coverage) coverage "$pass" ;;
    polls) polls "$pass" ;;
  esac
done
exit "$status"
