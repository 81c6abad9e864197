#!/usr/bin/env bash
# How many held comet-with-event connections fit in a GB of engine heap (issue #22 item 3; the study's
# section 3.2 load, comet with an event): JMeter's HTTP sampler (request.sampler=http) against the push
# sampler (request.sampler=push), side by side in one invocation, repeated.
#
#   bench/engine-heap.sh [--threads <small>,<large>] [--interval <ms>] [--records <r1>,<r2>] [--repeats <n>]
#                        [--heap <size>]
#
# Each run is testplan.jmx in one JMeter JVM (load/controller.sh --local, -Xmx --heap, default 1g)
# holding comet streams against the Node.js server, whose emitter fires every --interval ms (default 50,
# so a stream receives records twenty times faster than the study's fastest interval and a 600 s stream
# at 1 s is reached in 30 s). Once every stream is open (/status), the bench waits until the streams
# have received r records and takes the JVM's live heap: the total of `jcmd <pid> GC.class_histogram`,
# which runs a full collection first. The JVM is then ended (TERM).
#
# Per held connection = (live heap with <large> threads - with <small> threads) / (large - small), at the
# same record count: the JVM and the plan, the same in both runs, cancel out. Per record = the growth of
# that figure between r1 and r2, divided by r2 - r1 (for the HTTP sampler it depends on where its
# doubling response buffer stood at r1 and r2). Connections per GB = 2^30 B / (per held connection at
# r2): the live set only, so a real engine needs headroom above it for the collector, for either sampler.
# Records are counted from the emit cycle at which every stream was open, so a stream may hold up to one
# ramp-up's worth (1 s, 1000 / --interval) more. Defaults: 20,220 threads, records 150,600, 3 repeats.
# Goal (issue #22): the push sampler holds >= 3x as many connections per GB as the HTTP sampler.
set -euo pipefail
root=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
# shellcheck source=lib/config.sh
source "$root/lib/config.sh"
# shellcheck source=bench/lib/options.sh
source "$root/bench/lib/options.sh"

usage="usage: bench/engine-heap.sh [--threads <small>,<large>] [--interval <ms>] [--records <r1>,<r2>] [--repeats <n>] [--heap <size>]"
threads=20,220 interval=50 records=150,600 repeats=3 heap=1g
bench_options "$usage" threads interval records repeats heap -- "$@"
pair() { [[ $1 =~ ^([1-9][0-9]*),([1-9][0-9]*)$ ]] && ((BASH_REMATCH[1] < BASH_REMATCH[2])); }   # <a>,<b> with a < b
pair "$threads" || { echo "engine-heap: --threads wants <small>,<large>, small < large" >&2; exit 2; }
small=${threads%,*} large=${threads#*,}
pair "$records" || { echo "engine-heap: --records wants <r1>,<r2>, r1 < r2" >&2; exit 2; }
r1=${records%,*} r2=${records#*,}
[[ $interval =~ ^[1-9][0-9]{1,6}$ ]] || { echo "engine-heap: --interval wants ms >= 10 (the server's minimum)" >&2; exit 2; }
[[ $repeats =~ ^[1-9]$ ]] || { echo "engine-heap: --repeats wants 1 to 9" >&2; exit 2; }
[[ $heap =~ ^[1-9][0-9]*[mMgG]$ ]] || { echo "engine-heap: --heap wants a size such as 1g or 768m" >&2; exit 2; }
command -v jcmd >/dev/null || { echo "engine-heap: jcmd (the JDK's) is needed" >&2; exit 2; }

"$root/load/install-jmeter.sh" >/dev/null
work=$(mktemp -d "${TMPDIR:-/tmp}/pb-engine-heap.XXXXXX")
export PB_STATE=$work/state PB_JMETER_HEAP=$heap
jvm=''
cleanup() {
  if [[ -n $jvm ]]; then kill "$jvm" 2>/dev/null || true; fi
  "$root/servers/control.sh" stop node >/dev/null 2>&1 || true
  rm -rf "$work"
}
trap cleanup EXIT
trap 'exit 130' INT TERM

base="http://127.0.0.1:$PB_PORT_NODE"
status() { curl -fsS -m 5 "$base/status"; }
open_comet() { status | jq '.requests.comet'; }
cycle() { status | jq '[.events[] | select(.name == "event1") | .cycle] | first // 0'; }
# Seconds the whole measurement may take: ramp-up, r2 records, and margin for a busy machine.
hold=$((2 + (r2 * interval + 999) / 1000 + 60))

# waits (bounded) until <test> holds, one check per 0.1 s; status 1 after <seconds>
wait_until() { # <seconds> <command...>
  local deadline=$((SECONDS + $1))
  shift
  until "$@"; do
    ((SECONDS < deadline)) || return 1
    kill -0 "$jvm" 2>/dev/null || return 1
    sleep 0.1
  done
}
all_open() { (($(open_comet) >= $1)); }
cycle_reached() { (($(cycle) >= $1)); }
live_bytes() { jcmd "$1" GC.class_histogram | awk '$1 == "Total" { print $3 }'; }

# one_run <sampler> <threads> <repeat>: prints "<sampler> <threads> <repeat> <records> <live bytes>" for r1 and r2
one_run() {
  local sampler=$1 n=$2 rep=$3 dir c0 r c_before c_after bytes
  dir=$work/$sampler-$n-$rep
  mkdir -p "$dir"
  printf '%s\n' "server.host=127.0.0.1" "server.port=$PB_PORT_NODE" "rampup.period=1" "test.duration=$hold" \
    "logging.enabled=false" "event.enabled=true" "event.name=event1" "event.frequency=$interval" \
    "request.type=comet" "request.events=event1" "request.sampler=$sampler" "threads.num=$n" >"$dir/plan.properties"
  "$root/load/controller.sh" --local --run-dir "$dir" --props "$dir/plan.properties" >"$dir/controller.out" 2>&1 &
  jvm=$!   # controller.sh execs the JVM
  wait_until 60 all_open "$n" || { echo "engine-heap: $sampler $n threads: the streams never all opened ($dir/controller.out)" >&2; tail -5 "$dir/controller.out" >&2; exit 1; }
  c0=$(cycle)
  for r in "$r1" "$r2"; do
    wait_until "$hold" cycle_reached $((c0 + r)) || { echo "engine-heap: $sampler $n threads: $r records never came" >&2; exit 1; }
    c_before=$(cycle)
    bytes=$(live_bytes "$jvm")
    c_after=$(cycle)
    [[ $bytes =~ ^[0-9]+$ ]] || { echo "engine-heap: jcmd gave no histogram total for $jvm" >&2; exit 1; }
    (($(open_comet) >= n)) || { echo "engine-heap: $sampler $n threads: streams ended before the measurement at $r records" >&2; exit 1; }
    echo "$sampler $n $rep $(((c_before + c_after) / 2 - c0)) $bytes"
  done
  kill "$jvm"
  wait "$jvm" 2>/dev/null || true
  jvm=''
  local deadline=$((SECONDS + 30))   # the server lets the closed streams go before the next run
  while (($(open_comet) > 0)) && ((SECONDS < deadline)); do sleep 0.2; done
}

"$root/servers/control.sh" start node >/dev/null
echo "engine-heap: comet, event every $interval ms, $small and $large threads, live heap at ~$r1 and ~$r2 records, -Xmx$heap, $repeats repeat(s)"
rows=$work/rows
for ((rep = 1; rep <= repeats; rep++)); do
  for sampler in http push; do
    for n in "$small" "$large"; do
      one_run "$sampler" "$n" "$rep" | tee -a "$rows" | awk '{ printf "  run %s %-4s %4d threads: %4d records  live %7.1f MB\n", $3, $1, $2, $4, $5 / 1048576 }'
    done
  done
done

# Per repeat and sampler: per connection at r1 and r2, per record; then median and range over repeats.
awk -v small="$small" -v large="$large" -v repeats="$repeats" '
  { i = ++seen[$1, $2, $3]; live[$1, $2, $3, i] = $5; recs[$1, $2, $3, i] = $4 }   # i: 1 at r1, 2 at r2
  function median(a, n,   i, j, t) { for (i = 1; i <= n; i++) for (j = i + 1; j <= n; j++) if (a[j] < a[i]) { t = a[i]; a[i] = a[j]; a[j] = t }
    return n % 2 ? a[(n + 1) / 2] : (a[n / 2] + a[n / 2 + 1]) / 2 }
  function range(a, n,   i, lo, hi) { lo = hi = a[1]; for (i = 2; i <= n; i++) { if (a[i] < lo) lo = a[i]; if (a[i] > hi) hi = a[i] }
    return sprintf("%.0f-%.0f", lo, hi) }
  END {
    printf "\n%-5s %6s %20s %20s %18s %22s\n", "", "repeat", "KB/conn at r1", "KB/conn at r2", "B/record r1->r2", "conn per GB at r2"
    for (s = 1; s <= 2; s++) {
      sampler = s == 1 ? "http" : "push"
      for (rep = 1; rep <= repeats; rep++) {
        c1 = (live[sampler, large, rep, 1] - live[sampler, small, rep, 1]) / (large - small)
        c2 = (live[sampler, large, rep, 2] - live[sampler, small, rep, 2]) / (large - small)
        dr = recs[sampler, large, rep, 2] - recs[sampler, large, rep, 1]
        k1[sampler, rep] = c1 / 1024; k2[sampler, rep] = c2 / 1024; per[sampler, rep] = int((c2 - c1) / dr + 0.5); gb[sampler, rep] = 2^30 / c2
        printf "%-5s %6d %20.1f %20.1f %18.0f %22.0f   (records %d, %d)\n", sampler, rep, k1[sampler, rep], k2[sampler, rep], per[sampler, rep], gb[sampler, rep], recs[sampler, large, rep, 1], recs[sampler, large, rep, 2]
      }
    }
    print ""
    for (s = 1; s <= 2; s++) {
      sampler = s == 1 ? "http" : "push"
      for (rep = 1; rep <= repeats; rep++) { a[rep] = k2[sampler, rep]; b[rep] = per[sampler, rep]; c[rep] = gb[sampler, rep] }
      printf "%s: %.1f KB per held connection at r2 (range %s), %.0f B more per record from r1 to r2 (range %s), %.0f connections per GB of live heap (range %s)\n", sampler, median(a, repeats), range(a, repeats), median(b, repeats), range(b, repeats), median(c, repeats), range(c, repeats)
    }
    for (rep = 1; rep <= repeats; rep++) ratio[rep] = gb["push", rep] / gb["http", rep]
    printf "push / http connections per GB (same repeat): median %.2fx, range %.2f-%.2fx (goal >= 3x)\n", median(ratio, repeats), min_of(ratio), max_of(ratio)
  }
  function min_of(a,   i, m) { m = a[1]; for (i = 2; i <= repeats; i++) if (a[i] < m) m = a[i]; return m }
  function max_of(a,   i, m) { m = a[1]; for (i = 2; i <= repeats; i++) if (a[i] > m) m = a[i]; return m }
' "$rows"
