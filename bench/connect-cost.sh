#!/usr/bin/env bash
# What a TCP connection per answer costs the mux engine's selector thread (issue #48 item 2), the engine's
# connect path before (jdk) and after (dial: load/push-sampler Dial.java) side by side: bench/ConnectCost.java's
# server (pinned to --server-cpus) holds <connections> polls and answers them all each --tick ms with
# Connection: close, as Tomcat 6 answers a long poll an event ended; its client (pinned to --client-cpus), one
# selector thread, reads each answer, closes and connects again. Variants alternate within each repeat, so
# a pair shares the machine's state.
#
#   bench/connect-cost.sh [--connections 5000] [--seconds 30] [--tick 1000] [--repeats 3]
#                         [--server-cpus 1] [--client-cpus 0] [--out <file>]
#
# Per run, one JSON line (--out, default under TMPDIR): variant, answers, cpuMicrosPerAnswer (the client's
# selector thread, user + system CPU from ThreadMXBean, over the second half of the run / the answers in
# it: the kernel's connect, handshake and close work done in that thread's system calls included) and
# otherCpuPercent (the machine's CPU outside both processes over the run, % of one core: /proc/stat less
# the server's /proc/<pid>/stat and the client's own process CPU). At the end, per variant, the median (min-max) and dial / jdk pair by pair.
set -euo pipefail
root=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)

# shellcheck source=bench/lib/options.sh
source "$root/bench/lib/options.sh"

usage="usage: bench/connect-cost.sh [--connections N] [--seconds S] [--tick MS] [--repeats R] [--server-cpus L] [--client-cpus L] [--out FILE]"
connections=5000 seconds=30 tick=1000 repeats=3 server_cpus=1 client_cpus=0 out=''
bench_options "$usage" connections seconds tick repeats server_cpus client_cpus out -- "$@"
[[ $connections =~ ^[1-9][0-9]*$ && $seconds =~ ^[1-9][0-9]*$ && $tick =~ ^[1-9][0-9]*$ && $repeats =~ ^[1-9]$ ]] || { echo "$usage" >&2; exit 2; }
work=$(mktemp -d "${TMPDIR:-/tmp}/pb-connect-cost.XXXXXX")
out=${out:-$work/runs.jsonl}
server_pid=''
cleanup() { [[ -z $server_pid ]] || kill "$server_pid" 2>/dev/null || true; }
trap cleanup EXIT

javac -nowarn -d "$work/classes" -sourcepath "$root/load/push-sampler/src/main/java" "$root/bench/ConnectCost.java"
ulimit -n "$((connections * 2 + 1000))" 2>/dev/null || ulimit -n "$(ulimit -Hn)"

# The machine's busy clock ticks (/proc/stat), and a process's utime + stime (0 once it is gone).
machine_ticks() { local f; read -ra f < <(head -n 1 /proc/stat); echo $((f[1] + f[2] + f[3] + f[6] + f[7] + f[8])); }
process_ticks() { local f; read -ra f < <(sed 's/^.*) //' "/proc/$1/stat" 2>/dev/null || echo); [[ ${#f[@]} -gt 12 ]] && echo $((f[11] + f[12])) || echo 0; }

taskset -c "$server_cpus" java -Xms256m -Xmx256m -cp "$work/classes" pushbench.jmeter.ConnectCost server 0 "$tick" >"$work/server.out" 2>&1 &
server_pid=$!
for _ in $(seq 100); do grep -q '^ready' "$work/server.out" 2>/dev/null && break; sleep 0.1; done
port=$(awk '/^ready/ {print $2}' "$work/server.out")
[[ -n $port ]] || { echo "connect-cost: the server did not start ($work/server.out)" >&2; exit 1; }
hz=$(getconf CLK_TCK)

for ((r = 1; r <= repeats; r++)); do
  for variant in jdk dial; do
    taskset -c "$client_cpus" java -Xms256m -Xmx256m -cp "$work/classes" pushbench.jmeter.ConnectCost client "$port" "$connections" "$seconds" "$variant" >"$work/client.out" 2>&1 &
    client=$!
    t0=$(date +%s.%N) m0=$(machine_ticks) s0=$(process_ticks "$server_pid") c0=$(process_ticks "$client")
    wait "$client" || { cat "$work/client.out" >&2; exit 1; }
    t1=$(date +%s.%N) m1=$(machine_ticks) s1=$(process_ticks "$server_pid")
    client_ms=$(jq '.processCpuMs' "$work/client.out")
    other=$(awk -v m="$((m1 - m0 - (s1 - s0)))" -v c0="$c0" -v cms="$client_ms" -v hz="$hz" -v t0="$t0" -v t1="$t1" \
      'BEGIN { o = (m - (cms / 1000 * hz - c0)) / hz / (t1 - t0) * 100; printf "%.1f", o < 0 ? 0 : o }')
    jq -c --argjson r "$r" --argjson other "$other" '. + {repeat: $r, otherCpuPercent: $other}' "$work/client.out" | tee -a "$out"
  done
done

# shellcheck disable=SC2016  # JavaScript, not shell
node -e '
const runs = require("fs").readFileSync(process.argv[1], "utf8").split("\n").filter(Boolean).map(JSON.parse);
const med = (v) => { const s = [...v].sort((a, b) => a - b); const m = s.length >> 1; return s.length % 2 ? s[m] : (s[m - 1] + s[m]) / 2; };
const fmt = (v) => `${med(v).toFixed(1)} (${Math.min(...v).toFixed(1)}-${Math.max(...v).toFixed(1)})`;
for (const v of ["jdk", "dial"]) {
  const r = runs.filter((x) => x.variant === v);
  console.log(`${v}: ${fmt(r.map((x) => x.cpuMicrosPerAnswer))} us per answer over ${r.length} run(s), answers/s ${fmt(r.map((x) => x.answersMeasured / (x.seconds / 2)))}, other processes ${fmt(r.map((x) => x.otherCpuPercent))}% of a core`);
}
const pairs = runs.filter((x) => x.variant === "dial").map((d) => [d, runs.find((j) => j.variant === "jdk" && j.repeat === d.repeat)]).filter(([, j]) => j);
console.log(`dial / jdk, pair by pair: ${fmt(pairs.map(([d, j]) => d.cpuMicrosPerAnswer / j.cpuMicrosPerAnswer))}`);
' "$out"
echo "connect-cost: runs in $out"
