#!/usr/bin/env bash
# The floor of reading comet streams and of pulling (issue #48 item 2; docs/engine.md "The floor: what
# reading the streams costs" and "The floor for pull"): what the kernel's per-message work alone costs a
# client, measured with a bare Java NIO client (one selector thread, non-blocking SocketChannels, one
# direct read buffer) against a server under test (servers/control.sh, on its port PB_PORT_<SERVER> + 130,
# started and stopped here) with one event at a 1 s emit interval, as in `./run.sh <server> ... event1 1000`.
# Pinned as the study pins: the client on --reader-cpus (taskset), the server on --server-cpus
# (PB_SERVER_CPUS).
#
#   bench/engine-floor.sh [--server node] [--levels 1000,5000,15000] [--modes count] [--repeats 3]
#                         [--warmup 5] [--window 20] [--interval 1000] [--ramp 5] [--reader-cpus 0]
#                         [--server-cpus 1] [--coalesce 0] [--out <file>]
#
# Modes:
#   count  bench/StreamFloor.java holding N comet streams, counting their "}\n"-ended records and nothing
#          else (Node.js only: its chunked framing never holds that pair), as `... comet - event1 1000`;
#   log    the same, also writing every byte read to a file under the work directory through one
#          BufferedOutputStream: a stream log's floor (Node.js only);
#   pull   bench/PullFloor.java: N keep-alive connections, each sending the engine's built-in pull with the
#          last answer's cursor, reading the answer to its end, waiting --interval ms and pulling again,
#          the connections opened over --ramp s, as `... pull <interval> event1 1000` (any server).
# --coalesce <µs>[,<µs>...]: count and log runs once per value, the reader coalescing its reads as the engine
# does (StreamFloor's floor.coalesceMicros; 0 reads at each wake-up), side by side within a repeat; a
# coalesced run's line carries "coalesceMicros" and the table a row of its own.
# Within a repeat every level runs each mode one after the other, one client JVM per run, the server kept.
# Per run, over a steady window (--window s, after every stream or connection answered 200 and --warmup s
# more); a record is a comet record or one pull answer:
#   floor µs/record    the client JVM's CPU time (utime + stime, /proc/<pid>/stat) / records it counted
#   server µs/record   the server process's CPU time over the same window / the same records
#   floor/server       their ratio
#   other %            the host's busy time (/proc/stat) taken by neither, in % of the host (the machine is
#                      shared: over 30% the figures are of a disturbed machine)
# Every run's line is appended to --out (JSON lines, default a new file under TMPDIR; the server and the
# repeat added): a sitting never overwrites an earlier one's lines, so sittings alternated with other
# benches share one file. The table at the end (bench/engine-floor-table.js) gives per (server, level,
# mode) the median and range over every line of --out.
set -euo pipefail
root=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
# shellcheck source=lib/config.sh
source "$root/lib/config.sh"
# shellcheck source=bench/lib/options.sh
source "$root/bench/lib/options.sh"

usage="usage: bench/engine-floor.sh [--server node|tc6|tc7] [--levels 1000,5000,15000] [--modes count,log,pull] [--repeats 3] [--warmup 5] [--window 20] [--interval 1000] [--ramp 5] [--reader-cpus 0] [--server-cpus 1] [--coalesce 0] [--out <file>]"
server=node levels=1000,5000,15000 modes=count repeats=3 warmup=5 window=20 interval=1000 ramp=5 reader_cpus=0
server_cpus=1 coalesce=0 out=''
bench_options "$usage" server levels modes repeats warmup window interval ramp reader_cpus server_cpus coalesce out -- "$@"
[[ $server =~ ^(node|tc6|tc7)$ && $levels =~ ^[1-9][0-9]*(,[1-9][0-9]*)*$ &&
  $modes =~ ^(count|log|pull)(,(count|log|pull))*$ && $repeats =~ ^[1-9]$ && $warmup =~ ^[0-9]+$ &&
  $window =~ ^[1-9][0-9]*$ && $interval =~ ^[1-9][0-9]*$ && $ramp =~ ^[0-9]+$ &&
  $reader_cpus =~ ^[0-9]+([,-][0-9]+)*$ && $server_cpus =~ ^[0-9]+([,-][0-9]+)*$ && $coalesce =~ ^[0-9]+(,[0-9]+)*$ ]] ||
  { echo "$usage" >&2; exit 2; }
# The comet modes count Node.js's records only (their "}\n" end).
[[ $server == node || ! $modes =~ (count|log) ]] || { echo "engine-floor: modes count and log are for --server node only" >&2; exit 2; }
IFS=, read -ra level_list <<<"$levels"
IFS=, read -ra mode_list <<<"$modes"
IFS=, read -ra coalesce_list <<<"$coalesce"
work=$(mktemp -d "${TMPDIR:-/tmp}/pb-engine-floor.XXXXXX")
[[ -n $out ]] || out=$work/runs.jsonl
touch "$out"   # appended to: sittings side by side share one file
port_var=PB_PORT_${server^^}
port=$(($(pb_server_port "$server") + 130))
export PB_STATE=$work/state "$port_var=$port" PB_SERVER_CPUS=$server_cpus
reader=''
cleanup() {
  [[ -z $reader ]] || kill "$reader" 2>/dev/null || true
  "$root/servers/control.sh" stop "$server" >/dev/null 2>&1 || true
}
trap cleanup EXIT
trap 'exit 130' INT TERM HUP

javac -nowarn -d "$work/classes" "$root/bench/StreamFloor.java" "$root/bench/PullFloor.java"
"$root/servers/control.sh" start "$server"
read -r server_pid _ <"$PB_STATE/$server.pid"
curl -fsS -m 5 -H 'Content-Type: application/json' -d '{"name":"event1","frequency":1000}' \
  "http://$PB_SERVER_ADDRESS:$port/event/set" >/dev/null
echo "engine-floor: $server on port $port, levels $levels, modes $modes, $repeats repeat(s), warm-up $warmup s," \
  "window $window s (pull: every $interval ms, ramp $ramp s); client on CPU $reader_cpus, server (pid $server_pid)" \
  "on CPU $server_cpus; runs in $out"

for ((rep = 1; rep <= repeats; rep++)); do
  for n in "${level_list[@]}"; do
    for mode in "${mode_list[@]}"; do
      for c in "${coalesce_list[@]}"; do
        if [[ $mode == pull ]]; then
          [[ $c == "${coalesce_list[0]}" ]] || continue   # a puller is not coalesced: one run per level
          client=(PullFloor "$PB_SERVER_ADDRESS" "$port" "$n" event1 "$interval" "$ramp" "$server_pid" "$warmup" "$window")
        else
          client=(StreamFloor "$mode" "$PB_SERVER_ADDRESS" "$port" "$n" event1 "$server_pid" "$warmup" "$window" "$work/stream.log")
        fi
        taskset -c "$reader_cpus" java -XX:+UseSerialGC -Xms128m -Xmx128m "-Dfloor.coalesceMicros=$c" -cp "$work/classes" \
          "${client[@]}" >"$work/run.out" 2>"$work/run.err" &
        reader=$!
        status=0
        wait "$reader" || status=$?
        reader=''
        # A run whose connections failed still prints its line (its "failed" says how many): kept, and said.
        [[ $status -eq 0 || $(tail -1 "$work/run.out") == '{'*'}' ]] ||
          { echo "engine-floor: $mode $n failed:" >&2; tail -5 "$work/run.err" "$work/run.out" >&2; exit 1; }
        [[ $status -eq 0 ]] || echo "engine-floor: $mode $n: some connections failed (its line's \"failed\")" >&2
        rm -f "$work/stream.log"
        line=$(sed 's/}$/,"server":"'"$server"'","repeat":'"$rep"'}/' "$work/run.out")
        echo "$line" >>"$out"
        echo "  $line"
        sleep 2   # the server drops the closed connections before the next run opens its own
      done
    done
  done
done

node "$root/bench/engine-floor-table.js" "$out"
