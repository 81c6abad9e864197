#!/usr/bin/env bash
# Which WebSocket client the load engine should use (issue #38 item 3: the JDK's java.net.http WebSocket
# client unless it costs more engine CPU per record than the server spends; docs/engine.md "WebSocket"):
# the two side by side in one invocation, repeated, against the real Node.js server (servers/control.sh,
# 127.0.0.1 on a test port of its own, its own state directory). Each run is one JVM (bench/WsClientCost.java,
# compiled here with the push sampler's sources, no Maven or JMeter) holding N WebSocket streams subscribed
# to event1, fired every --interval ms:
#   jdk   java.net.http.WebSocket, one shared HttpClient (each message stamped and taken as UTF-8 bytes;
#         no stream log: its figure leaves the logging out, so it is the lower bound of what it would cost)
#   mux   the mux engine (MuxEngine, requestType ws: RFC 6455 framing on its own selector), stream log on
#   mux-nolog  the same without the stream log: like for like with jdk
#
#   bench/ws-client-cost.sh [--levels 2000,5000] [--repeats 3] [--interval 1000] [--warmup 5] [--window 20]
#                           [--clients jdk,mux[,mux-nolog]] [--out <file>]
#   bench/ws-client-cost.sh --table <runs.jsonl>     the table of an earlier invocation's runs (its --out)
#
# Per run, over a steady window (--window s, after the streams are open and --warmup s more):
#   client µs/record   the client JVM's CPU time (utime + stime, /proc/self/stat) / records it received
#   server µs/record   the Node.js process's CPU time in the same window (/proc/<pid>/stat) / the same records
#   KB/conn            the client's live heap after full collections with the streams held (after the window),
#                      less the same once the client and its streams are gone, / connections
#   records/s          received in the window / its seconds (N x 1000 / interval asked)
# Within a repeat every level runs each client one after the other, so a pair shares the machine's state;
# the table gives the median (min-max) over the repeats. Every run's JSON line goes to --out (default under
# TMPDIR). On a shared machine the spread says how far to trust a median.
set -euo pipefail
root=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
# shellcheck source=lib/config.sh
source "$root/lib/config.sh"
# shellcheck source=bench/lib/options.sh
source "$root/bench/lib/options.sh"
# shellcheck source=bench/lib/plugin-classpath.sh
source "$root/bench/lib/plugin-classpath.sh"

usage="usage: bench/ws-client-cost.sh [--levels 2000,5000] [--repeats 3] [--interval 1000] [--warmup 5] [--window 20] [--clients jdk,mux[,mux-nolog]] [--out <file>]"
levels=2000,5000 repeats=3 interval=1000 warmup=5 window=20 clients=jdk,mux out='' table=''
bench_options "$usage" levels repeats interval warmup window clients out table -- "$@"
[[ $levels =~ ^[1-9][0-9]*(,[1-9][0-9]*)*$ ]] || { echo "$usage" >&2; exit 2; }
[[ $clients =~ ^(jdk|mux|mux-nolog)(,(jdk|mux|mux-nolog)){0,2}$ ]] || { echo "ws-client-cost: --clients wants one or more of jdk, mux, mux-nolog" >&2; exit 2; }
[[ $repeats =~ ^[1-9]$ && $interval =~ ^[1-9][0-9]{1,6}$ && $warmup =~ ^[0-9]+$ && $window =~ ^[1-9][0-9]*$ ]] || { echo "$usage" >&2; exit 2; }
# table <runs.jsonl>: per (level, client) the median (min-max) over the repeats, then jdk/mux pair by pair
table() {
  node - "$1" <<'EOF'
const fs = require('node:fs');
const runs = fs.readFileSync(process.argv[2], 'utf8').trim().split('\n').map((l) => JSON.parse(l));
const stat = (xs) => {
  const s = [...xs].sort((a, b) => a - b);
  const m = s.length % 2 ? s[(s.length - 1) / 2] : (s[s.length / 2 - 1] + s[s.length / 2]) / 2;
  const r = (v) => (Math.abs(v) >= 100 ? v.toFixed(0) : v.toFixed(2));
  return `${r(m)} (${r(s[0])}-${r(s[s.length - 1])})`;
};
const rows = [['level', 'client', 'runs', 'client µs/record', 'server µs/record', 'client/server', 'KB/conn', 'records/s']];
const keys = [...new Set(runs.map((r) => `${r.connections}\t${r.client}`))];
for (const k of keys) {
  const [n, c] = k.split('\t');
  const rs = runs.filter((r) => `${r.connections}\t${r.client}` === k);
  rows.push([n, c, String(rs.length), stat(rs.map((r) => r.clientUsPerRecord)), stat(rs.map((r) => r.serverUsPerRecord)),
    stat(rs.map((r) => r.clientUsPerRecord / r.serverUsPerRecord)), stat(rs.map((r) => r.kbPerConnection)),
    stat(rs.map((r) => r.records / r.windowS))]);
}
const w = rows[0].map((_, i) => Math.max(...rows.map((r) => r[i].length)));
for (const r of rows) console.log(r.map((v, i) => v.padEnd(w[i])).join('  '));
// Pair by pair within a repeat: jdk's client µs per record over mux's.
for (const n of [...new Set(runs.map((r) => r.connections))]) {
  const ratios = [];
  const bareRatios = [];
  for (const rep of [...new Set(runs.map((r) => r.repeat))]) {
    const j = runs.find((r) => r.connections === n && r.repeat === rep && r.client === 'jdk');
    const m = runs.find((r) => r.connections === n && r.repeat === rep && r.client === 'mux');
    const bare = runs.find((r) => r.connections === n && r.repeat === rep && r.client === 'mux-nolog');
    if (j && bare) bareRatios.push(j.clientUsPerRecord / bare.clientUsPerRecord);
    if (j && m) ratios.push(j.clientUsPerRecord / m.clientUsPerRecord);
  }
  if (ratios.length) console.log(`client µs per record at ${n}, jdk / mux pair by pair: ${stat(ratios)} over ${ratios.length} pair(s)`);
  if (bareRatios.length) console.log(`client µs per record at ${n}, jdk / mux-nolog pair by pair: ${stat(bareRatios)} over ${bareRatios.length} pair(s)`);
}
EOF
}

if [[ -n $table ]]; then
  [[ -r $table ]] || { echo "ws-client-cost: cannot read $table" >&2; exit 2; }
  table "$table"
  exit 0
fi
IFS=, read -ra level_list <<<"$levels"
IFS=, read -ra client_list <<<"$clients"
for n in "${level_list[@]}"; do
  ((n + 100 < $(ulimit -n))) || { echo "ws-client-cost: $n connections do not fit the open-file limit ($(ulimit -n))" >&2; exit 2; }
done

work=$(mktemp -d "${TMPDIR:-/tmp}/pb-ws-client-cost.XXXXXX")
[[ -n $out ]] || out=$work/runs.jsonl
# The server on a port and state of its own, reachable on the loopback only.
export PB_STATE=$work/state PB_PORT_NODE=${PB_BENCH_PORT:-19990} PB_SERVER_ADDRESS=127.0.0.1
mkdir -p "$PB_STATE"
client=''
cleanup() {
  if [[ -n $client ]]; then kill "$client" 2>/dev/null || true; fi
  "$root/servers/control.sh" stop node >/dev/null 2>&1 || true
  rm -rf "$work/classes" "$work/state" "$work"/log-* "$work/out" "$work/err"   # the runs' JSON lines stay
}
trap cleanup EXIT
trap 'exit 130' INT TERM

plugin_cp=$(plugin_classpath)   # the push sampler's own jars (lz4-java, slf4j-api)
javac -nowarn -d "$work/classes" -cp "$plugin_cp" -sourcepath "$root/load/push-sampler/src/main/java" "$root/bench/WsClientCost.java"

base="http://127.0.0.1:$PB_PORT_NODE"
post() { curl -fsS -m 10 -H 'Content-Type: application/json' -d "$2" "$base$1" >/dev/null; }
open_ws() { curl -fsS -m 5 "$base/status" | jq '.requests.ws'; }

"$root/servers/control.sh" start node >/dev/null
read -r server_pid _ <"$PB_STATE/node.pid"
echo "ws-client-cost: Node.js (pid $server_pid, port $PB_PORT_NODE), event1 every $interval ms, levels $levels," \
  "clients $clients, $repeats repeat(s), warm-up $warmup s, window $window s"

# one_run <client> <connections> <repeat>: one JSON line (with the repeat) to $out and stdout
one_run() {
  local kind=$1 n=$2 rep=$3 line deadline
  post /event/set "{\"name\":\"event1\",\"frequency\":$interval}"
  java -Xms1g -Xmx1g -XX:+UseParallelGC -cp "$work/classes:$plugin_cp" pushbench.jmeter.WsClientCost \
    "$kind" "$PB_PORT_NODE" "$n" "$server_pid" "$warmup" "$window" "$work/log-$kind-$n-$rep" >"$work/out" 2>"$work/err" &
  client=$!
  wait "$client" || { echo "ws-client-cost: $kind $n failed:" >&2; tail -5 "$work/err" >&2; exit 1; }
  client=''
  line=$(sed 's/}$/,"repeat":'"$rep"'}/' "$work/out")
  echo "$line" >>"$out"
  echo "$line" | jq -r '"  run \(.repeat) \(.client) \(.connections): \(.open) open, \(.records) records in \(.windowS) s;" +
    " client \(.clientUsPerRecord) µs/record (\(.clientCpuPct)% of a core), server \(.serverUsPerRecord) µs/record, \(.kbPerConnection) KB/conn"'
  post /event/clear '{}'
  deadline=$((SECONDS + 30))   # the server lets the closed streams go before the next run
  while (($(open_ws) > 0)) && ((SECONDS < deadline)); do sleep 0.2; done
  rm -rf "$work/log-$kind-$n-$rep"
}

for ((rep = 1; rep <= repeats; rep++)); do
  for n in "${level_list[@]}"; do
    for kind in "${client_list[@]}"; do one_run "$kind" "$n" "$rep"; done
  done
done

echo
echo "median (min-max) over the repeats; runs in $out"
table "$out"
