#!/usr/bin/env bash
# The hand-written SSLEngine on the engine's selector against Netty (issue #49 item 1: "weigh it against the
# hand-written path by measurement (CPU per message, heap per connection)"; docs/engine.md "Why a
# hand-written SSLEngine"): bench/TlsClientCost.java's two clients side by side in one invocation, repeated,
# each run one JVM holding N SSE streams over TLS on nginx + nchan (targets/nchan/nchan.sh --tls with a
# certificate of targets/tls/make-certs.sh, started and stopped here on a port of its own), 10 channels at 1
# message/s each, published by the engine's own publisher in the same JVM:
#   mux    the mux engine (MuxEngine, TlsLink), no stream log
#   netty  Netty 4.1.115 (Maven Central, fetched here by Maven), one event-loop thread, SslHandler on the
#          JDK's SSLEngine, events counted only (its lower bound)
#
#   bench/tls-netty-cost.sh [--levels 1000,10000] [--repeats 3] [--warmup 5] [--window 20] [--out <file>]
#
# Per run, over a steady window (--window s, after the streams are open and --warmup s more):
#   µs/message   the JVM's CPU time (utime + stime, /proc/self/stat) / messages received in the window
#   KB/conn      the live heap after full collections with the streams held, less the same once the client
#                and its streams are gone, / connections
# Within a repeat every level runs each client one after the other; the table gives the median (min-max).
set -euo pipefail
root=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
# shellcheck source=lib/config.sh
source "$root/lib/config.sh"
# shellcheck source=bench/lib/options.sh
source "$root/bench/lib/options.sh"
# shellcheck source=bench/lib/plugin-classpath.sh
source "$root/bench/lib/plugin-classpath.sh"

usage="usage: bench/tls-netty-cost.sh [--levels 1000,10000] [--repeats 3] [--warmup 5] [--window 20] [--out <file>]"
levels=1000,10000 repeats=3 warmup=5 window=20 out=''
bench_options "$usage" levels repeats warmup window out -- "$@"
[[ $levels =~ ^[1-9][0-9]*(,[1-9][0-9]*)*$ && $repeats =~ ^[1-9]$ && $warmup =~ ^[0-9]+$ && $window =~ ^[1-9][0-9]*$ ]] || { echo "$usage" >&2; exit 2; }
IFS=, read -ra level_list <<<"$levels"
work=$(mktemp -d "${TMPDIR:-/tmp}/pb-tls-netty-cost.XXXXXX")
[[ -n $out ]] || out=$work/runs.jsonl
: >"$out"
port=$((PB_PORT_NODE + 122))
client=''
cleanup() {
  [[ -z $client ]] || kill "$client" 2>/dev/null || true
  "$root/targets/nchan/nchan.sh" stop --dir "$work/nchan" >/dev/null 2>&1 || true
}
trap cleanup EXIT
trap 'exit 130' INT TERM HUP

# Netty from Maven Central (the local repository first), into $work/lib.
cat >"$work/pom.xml" <<'POM'
<project xmlns="http://maven.apache.org/POM/4.0.0"><modelVersion>4.0.0</modelVersion>
  <groupId>pushbench</groupId><artifactId>tls-netty-cost</artifactId><version>1</version>
  <dependencies>
    <dependency><groupId>io.netty</groupId><artifactId>netty-handler</artifactId><version>4.1.115.Final</version></dependency>
  </dependencies>
</project>
POM
(cd "$work" && { mvn -o -q -B dependency:copy-dependencies -DoutputDirectory="$work/lib" >/dev/null 2>&1 ||
  mvn -q -B dependency:copy-dependencies -DoutputDirectory="$work/lib"; })
cp=$(find "$work/lib" "$JMETER_HOME/lib" -maxdepth 1 -name '*.jar' \( -name 'netty-*' -o -name 'jackson-*' \) | paste -sd:)
cp=$cp:$(plugin_classpath)   # the push sampler's own jars (lz4-java, slf4j-api)
javac -nowarn -d "$work/classes" -cp "$cp" -sourcepath "$root/load/push-sampler/src/main/java" \
  "$root/bench/TlsClientCost.java" "$root/bench/WsClientCost.java"

"$root/targets/tls/make-certs.sh" "$work/certs"
"$root/targets/nchan/nchan.sh" start --port "$port" --dir "$work/nchan" --tls "$work/certs/server.pem" "$work/certs/server.key"
echo "tls-netty-cost: levels $levels, $repeats repeat(s), warm-up $warmup s, window $window s; runs in $out"

for ((rep = 1; rep <= repeats; rep++)); do
  for n in "${level_list[@]}"; do
    for kind in mux netty; do
      java -Xms1g -Xmx1g -XX:+UseParallelGC -cp "$work/classes:$cp" pushbench.jmeter.TlsClientCost \
        "$kind" "$port" "$n" "$work/certs/ca.pem" "$warmup" "$window" >"$work/run.out" 2>"$work/run.err" &
      client=$!
      wait "$client" || { echo "tls-netty-cost: $kind $n failed:" >&2; tail -5 "$work/run.err" >&2; exit 1; }
      client=''
      line=$(sed 's/}$/,"repeat":'"$rep"'}/' "$work/run.out")
      echo "$line" >>"$out"
      echo "  $line"
    done
  done
done

node - "$out" <<'JS'
const fs = require('node:fs');
const rows = fs.readFileSync(process.argv[2], 'utf8').split('\n').filter(Boolean).map((l) => JSON.parse(l));
const med = (v) => { const s = [...v].sort((a, b) => a - b); return s[Math.floor((s.length - 1) / 2)]; };
const mm = (v) => `${med(v)} (${Math.min(...v)}-${Math.max(...v)})`;
console.log('\n| level | client | runs | µs/message | CPU % of a core | KB/conn | open | messages in window |');
console.log('|---|---|---|---|---|---|---|---|');
for (const n of [...new Set(rows.map((r) => r.connections))]) for (const c of ['mux', 'netty']) {
  const g = rows.filter((r) => r.connections === n && r.client === c);
  if (!g.length) continue;
  console.log(`| ${n} | ${c} | ${g.length} | ${mm(g.map((r) => r.clientUsPerRecord))} | ${mm(g.map((r) => r.clientCpuPct))} | ${mm(g.map((r) => r.kbPerConnection))} | ${g.map((r) => r.open).join(', ')} | ${g.map((r) => r.records).join(', ')} |`);
}
JS
