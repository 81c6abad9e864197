#!/usr/bin/env bash
# The runs behind docs/study (issues #25 and #35): real sweeps of the study's permutations (section 4.2),
# each repeat in its own pass over the selection so that the repeats are spread over the sitting. Raw run
# directories go to PB_STUDY_RAW (default /tmp/study-raw), never into the repository;
# charts/study-collect.js then copies what the page needs.
#
# The small sitting (100 and 400 connections, everything on one machine, issue #25):
#   pilot      1 s events at 100 and 400 connections, no events and comet with 10 s events at 400 (21 permutations)
#   coverage   what the pilot left out, so that every finding has runs (32, the blocking Tomcats and node-cluster among them)
#   polls      the 12 long-poll permutations with events, run again once re-poll gaps were read in each thread's order
# The sitting at the study's scale (1,000-15,000 connections, issue #35; docs/study/README.md has the table of
# which finding each set judges). The server is pinned to PB_SERVER_CPUS (default 1) and the load generator,
# the controller, the monitors and the analysis to PB_ENGINE_CPUS (default 0), so the server has a core of
# its own; a run's steady window is 30 s or more and holds at least 3 emit cycles after the warm-up:
#   scale-1s        comet and long poll with 1 s events, 1,000/5,000/10,000/15,000, node/tc6/tc7 (24)
#   scale-none      comet held and long polls timing out after 10 s, no events, the same levels, 70 s (24)
#   scale-intervals comet with 5 s events at 5,000; comet with 10 s events at 1,000/5,000/15,000; comet and
#                   long poll with 30 s events at 1,000/5,000/15,000; long polls with 10 s events at
#                   10,000/15,000 (36)
#   scale-open      the open questions: node-cluster's and one Node.js process's long polls with 1 s events at
#                   10,000/15,000, the server on both cores (RQ4); the blocking Tomcats' comet and long
#                   polls with 1 s events at 1,000-15,000, a thread per connection (RQ2) (20)
#   scale-rq4       RQ4 where one Node.js process saturates: node-cluster's and one Node.js process's long
#                   polls with 0.5 s events (beyond the study's grid: sweep.sh --emit-intervals) at
#                   10,000/15,000, 20,000 and 30,000 answers a second, the server on both cores (4)
#   scale-rq2       RQ2's long-poll rates where both connectors saturate: Tomcat 6 NIO and blocking, long polls
#                   with 1 s events at 10,000/15,000 (on the AMD machine 2 of 3 NIO runs at 15,000 were
#                   generator-bound) (4)
#   scale-long      600 s, as the study's runs: Tomcat 7 comet with 1 s events at 5,000 and 15,000, Tomcat 6
#                   long polls with 1 s events at 5,000, Tomcat 7 long polls with 10 s and 30 s events at 15,000 (5)
#
#   docs/study/runs.sh                            the pilot set, passes 1-3 (~14 min a pass on a quiet 2-core machine)
#   docs/study/runs.sh 2                          only pass 2 (resumes it where it was cut short)
#   docs/study/runs.sh --set scale-1s 1 2 3       a scale set, three passes (~28 min a pass)
#
# PB_STUDY_TREE: the checkout whose sweep.sh runs (default: this one). The ports are moved out of the test
# slots' ranges (./test.sh uses 18080-19897 and 11000-12900) so the sets can run beside other suites.
# Exit 1 when a sweep had a run that failed (the other groups still run), 2 on a bad set or pass number.
set -uo pipefail

tree=${PB_STUDY_TREE:-$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)}
raw=${PB_STUDY_RAW:-/tmp/study-raw}
export PB_RESULTS=$raw/results PB_STATE=${PB_STATE:-/tmp/study-state}
export PB_PORT_NODE=20080 PB_PORT_TC6=20086 PB_PORT_TC7=20087
export PB_JMETER_RMI_PORT=20099 PB_JMETER_RMI_LOCALPORT=20000 PB_JMETER_CLIENT_LOCALPORT=20100

status=0
rampup=5     # the small sitting's; the scale sets' is 10 s (15,000 connections open in about 1.6 s)
pin=()       # the scale sets run the sweep on PB_ENGINE_CPUS
sweep() { # sweep <dir name> <sweep.sh options>...
  local dir=$1
  shift
  "${pin[@]}" "$tree/sweep.sh" --yes --quiet --dir "$raw/$dir" --rampup "$rampup" "$@" || status=1
}

set_name=pilot
if [[ ${1:-} == --set ]]; then
  set_name=${2:-}
  shift 2 || true
fi
case $set_name in
  pilot | coverage | polls) ;;
  scale-1s | scale-none | scale-intervals | scale-open | scale-rq4 | scale-rq2 | scale-long)
    rampup=10
    export PB_SERVER_CPUS=${PB_SERVER_CPUS:-1} PB_ENGINE_CPUS=${PB_ENGINE_CPUS:-0}
    pin=(taskset -c "$PB_ENGINE_CPUS")
    ;;
  *) echo "runs.sh: --set is pilot, coverage, polls, scale-1s, scale-none, scale-intervals, scale-open, scale-rq4, scale-rq2 or scale-long, not '$set_name'" >&2; exit 2 ;;
esac

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

# The sitting at the study's scale: the levels of the study this machine holds (its 20,000 does not fit the
# 20,000 open files a process may have here: docs/limits.md).
LEVELS=1000,5000,10000,15000

scale_1s() { # scale_1s <pass>: figures 7, 8 (1 s), 17, 19-27, section 6.1, RQ1, RQ3
  sweep "scale$1-1s" --levels "$LEVELS" --filter 'event1 1000$' --duration 40
}

scale_none() { # scale_none <pass>: figures 5, 6, 10-12, table 5.1.3, 13's reference
  # 70 s: a 60 s window holds five waves of 10 s long-poll timeouts after the warm-up (part 1 ran passes 1
  # and 2 for 40 s: docs/study/README.md)
  sweep "scale$1-none-70s" --levels "$LEVELS" --filter 'comet$|poll 10000$' --duration 70
}

scale_intervals() { # scale_intervals <pass>: figures 7-9, 13-16, 18, 19, 23, 27, 28
  sweep "scale$1-comet-5s" --levels 5000 --filter 'comet - event1 5000$' --duration 50
  sweep "scale$1-comet-10s" --levels 1000,5000,15000 --filter 'comet - event1 10000$' --duration 70
  sweep "scale$1-poll-10s" --levels 10000,15000 --filter 'poll 180000 event1 10000$' --duration 70
  sweep "scale$1-30s" --levels 1000,5000,15000 --filter 'event1 30000$' --duration 130
}

scale_open() { # scale_open <pass>: RQ4 (one Node.js process saturated) and RQ2 (a thread per connection)
  # RQ4 asks whether Node.js can use more than one core: node-cluster and one Node.js process each get both
  # cores (the load generator stays on its own)
  local pinned=$PB_SERVER_CPUS
  PB_SERVER_CPUS=0-1
  sweep "scale$1-cluster" --servers node,node-cluster --levels 10000,15000 --filter 'poll 180000 event1 1000$' --duration 40
  PB_SERVER_CPUS=$pinned
  sweep "scale$1-bio" --servers tc6-bio,tc7-bio --levels "$LEVELS" --filter 'comet - event1 1000$|poll 180000 event1 1000$' --duration 40
}

scale_rq4() { # scale_rq4 <pass>: RQ4 at a load one Node.js process cannot answer on its one core
  # (scale-open's 15,000 long polls with 1 s events took 89-100% of it and were all answered)
  local pinned=$PB_SERVER_CPUS
  PB_SERVER_CPUS=0-1
  sweep "scale$1-rq4" --servers node,node-cluster --types poll --levels 10000,15000 --emit-intervals 500 \
    --filter 'poll 180000 event1 500$' --duration 40
  PB_SERVER_CPUS=$pinned
}

scale_rq2() { # scale_rq2 <pass>: RQ2's long-poll rate, NIO against blocking, where both fall short of the load
  sweep "scale$1-rq2" --servers tc6,tc6-bio --levels 10000,15000 --filter 'poll 180000 event1 1000$' --duration 40
}

scale_long() { # scale_long <pass>: the study's 600 s where a finding is about time (spikes, crashes, memory)
  sweep "scale$1-long-tc7-comet" --servers tc7 --levels 5000,15000 --filter 'comet - event1 1000$' --duration 600
  sweep "scale$1-long-tc6-poll" --servers tc6 --levels 5000 --filter 'poll 180000 event1 1000$' --duration 600
  sweep "scale$1-long-tc7-poll" --servers tc7 --levels 15000 --filter 'poll 180000 event1 (10000|30000)$' --duration 600
}

passes=("$@")
[[ ${#passes[@]} -gt 0 ]] || passes=(1 2 3)
for pass in "${passes[@]}"; do
  [[ $pass =~ ^[1-9]$ ]] || { echo "runs.sh: a pass is one digit, not '$pass'" >&2; exit 2; }
  case $set_name in
    pilot) pilot "$pass" ;;
    coverage) coverage "$pass" ;;
    polls) polls "$pass" ;;
    scale-1s) scale_1s "$pass" ;;
    scale-none) scale_none "$pass" ;;
    scale-intervals) scale_intervals "$pass" ;;
    scale-open) scale_open "$pass" ;;
    scale-rq4) scale_rq4 "$pass" ;;
    scale-rq2) scale_rq2 "$pass" ;;
    scale-long) scale_long "$pass" ;;
  esac
done
exit "$status"
