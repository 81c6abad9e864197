#!/usr/bin/env bash
# The floor of reading comet streams (issue #48 item 2; docs/engine.md "The floor: what reading the streams
# costs"): what the kernel's per-record work alone costs a reader, measured with bench/StreamFloor.java, a
# bare Java NIO reader (one selector thread, non-blocking SocketChannels, one direct read buffer, counting
# "}\n"-ended records and nothing else), against the Node.js server (servers/control.sh, on the port
# PB_PORT_NODE + 130, started and stopped here) with one event at a 1 s emit interval, so every stream
# gets a record a second, as in `./run.sh node ... comet - event1 1000`. Pinned as the study pins: the
# reader on --reader-cpus (taskset), the server on --server-cpus (PB_SERVER_CPUS).
#
#   bench/engine-floor.sh [--levels 1000,5000,15000] [--modes count] [--repeats 3] [--warmup 5]
#                         [--window 20] [--reader-cpus 0] [--server-cpus 1] [--out <file>]
#
# Modes: count (the reader above); log (the same, also writing every byte read to a file under the work
# directory through one BufferedOutputStream: a stream log's floor). Within a repeat every level runs each
# mode one after the other, one reader JVM per run, the server kept.
# Per run, over a steady window (--window s, after every stream answered 200 and --warmup s more):
#   floor µs/record    the reader JVM's CPU time (utime + stime, /proc/<pid>/stat) / records it counted
#   server µs/record   the server process's CPU time over the same window / the same records
#   floor/server       their ratio
#   other %            the host's busy time (/proc/stat) taken by neither, in % of the host (the machine is
#                      shared: over 30% the figures are of a disturbed machine)
# Every run's line goes to --out (JSON lines, default under TMPDIR); the table at the end
# (bench/engine-floor-table.js) gives per (level, mode) the median and range over the repeats.
set -euo pipefail
root=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
# shellcheck source=lib/config.sh
source "$root/lib/config.sh"
# shellcheck source=bench/lib/options.sh
source "$root/bench/lib/options.sh"

usage="usage: bench/engine-floor.sh [--levels 1000,5000,15000] [--modes count] [--repeats 3] [--warmup 5] [--window 20] [--reader-cpus 0] [--server-cpus 1] [--out <file>]"
levels=1000,5000,15000 modes=count repeats=3 warmup=5 window=20 reader_cpus=0 server_cpus=1 out=''
bench_options "$usage" levels modes repeats warmup window reader_cpus server_cpus out -- "$@"
[[ $levels =~ ^[1-9][0-9]*(,[1-9][0-9]*)*$ && $modes =~ ^(count|log)(,(count|log))?$ && $repeats =~ ^[1-9]$ &&
  $warmup =~ ^[0-9]+$ && $window =~ ^[1-9][0-9]*$ && $reader_cpus =~ ^[0-9]+([,-][0-9]+)*$ &&
  $server_cpus =~ ^[0-9]+([,-][0-9]+)*$ ]] || { echo "$usage" >&2; exit 2; }
IFS=, read -ra level_list <<<"$levels"
IFS=, read -ra mode_list <<<"$modes"
work=$(mktemp -d "${TMPDIR:-/tmp}/pb-engine-floor.XXXXXX")
[[ -n $out ]] || out=$work/runs.jsonl
: >"$out"
export PB_STATE=$work/state PB_PORT_NODE=$((PB_PORT_NODE + 130)) PB_SERVER_CPUS=$server_cpus
reader=''
cleanup() {
  [[ -z $reader ]] || kill "$reader" 2>/dev/null || true
  "$root/servers/control.sh" stop node >/dev/null 2>&1 || true
}
trap cleanup EXIT
trap 'exit 130' INT TERM HUP

javac -nowarn -d "$work/classes" "$root/bench/StreamFloor.java"
"$root/servers/control.sh" start node
read -r server_pid _ <"$PB_STATE/node.pid"
curl -fsS -m 5 -H 'Content-Type: application/json' -d '{"name":"event1","frequency":1000}' \
  "http://$PB_SERVER_ADDRESS:$PB_PORT_NODE/event/set" >/dev/null
echo "engine-floor: levels $levels, modes $modes, $repeats repeat(s), warm-up $warmup s, window $window s;" \
  "reader on CPU $reader_cpus, server (pid $server_pid) on CPU $server_cpus; runs in $out"

for ((rep = 1; rep <= repeats; rep++)); do
  for n in "${level_list[@]}"; do
    for mode in "${mode_list[@]}"; do
      taskset -c "$reader_cpus" java -XX:+UseSerialGC -Xms128m -Xmx128m -cp "$work/classes" StreamFloor \
        "$mode" "$PB_SERVER_ADDRESS" "$PB_PORT_NODE" "$n" event1 "$server_pid" "$warmup" "$window" \
        "$work/stream.log" >"$work/run.out" 2>"$work/run.err" &
      reader=$!
      wait "$reader" || { echo "engine-floor: $mode $n failed:" >&2; tail -5 "$work/run.err" "$work/run.out" >&2; exit 1; }
      reader=''
      rm -f "$work/stream.log"
      line=$(sed 's/}$/,"repeat":'"$rep"'}/' "$work/run.out")
      echo "$line" >>"$out"
      echo "  $line"
      sleep 2   # the server drops the closed streams before the next run opens its own
    done
  done
done

node "$root/bench/engine-floor-table.js" "$out"
