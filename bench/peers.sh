#!/usr/bin/env bash
# pushbench's load engine against its peers, side by side (issue #38 item 6; docs/engine.md "Against the
# peers"): the same SSE and WebSocket load — the same real Node.js server (servers/control.sh, 127.0.0.1 on a
# port of its own, its own state directory), N streams subscribed to event1 fired every --interval ms — from
# each generator in turn, each in its own JVM with the same flags (-Xms1g -Xmx1g -XX:+UseParallelGC):
#   engine        pushbench's mux engine (bench/peers/PeerEngine.java, driven as bench/ws-client-cost.sh
#                 drives it; requestType sse or ws), every record stamped (µs) and written to its stream log
#   gatling       Gatling's Java DSL (bench/peers/PushSimulation.java: sse() / ws() of its HTTP module), every
#                 message awaited by a check, as a Gatling user observes a stream
#   gatling-bare  (not by default) Gatling holding the same streams and awaiting nothing: its floor
# k6 is not here: its AGPL licence bars it from this workplace. Gatling's jars are installed by this bench
# (Maven, into build/peers/, once; later invocations run offline), not by setup.sh.
#
#   bench/peers.sh [--levels 1000,2000] [--repeats 3] [--interval 1000] [--transports sse,ws]
#                  [--generators engine,gatling[,gatling-bare]] [--settle 3] [--warmup 3] [--window 15]
#                  [--out <file>]
#   bench/peers.sh --table <runs.jsonl>      the table of an earlier invocation's runs (its --out)
#   bench/peers.sh --install                 install Gatling into build/peers/ and compile; no load
#
# A run: the generator starts; once it is loaded, its baseline (live heap after a full collection, RSS) is
# taken; it opens all N streams at once (engine: ramp-up 0; Gatling: atOnceUsers); then --settle s, the held
# heap, --warmup s, and a steady --window s; then it is told to stop (a file) and reports.
#   CPU µs/msg     the generator's utime + stime (/proc/<pid>/stat) over the window / the messages the server
#                  sent in it ((emit cycles in the window) x (the last cycle's records), GET /status): one
#                  denominator for every generator. The window starts just after an emit cycle started and
#                  lasts the whole number of intervals nearest --window
#   heap KB/conn   live heap (jstat after jcmd GC.run: a full collection) with the streams held, less its
#                  baseline, / N; RSS KB/conn the same with the process's VmRSS
#   opened/s       N / the time from the server's last /status poll with no stream to its first with all N
#                  (bench/peers/watch-open.js, a poll every 20 ms)
#   p50, p99 ms    as each generator reports, over the whole run: the engine's trip time from its stream log
#                  (arrival − the emit cycle's created, one clock); Gatling's response time of its "record"
#                  check (from arming the check to the message: the wait for the next message, about the
#                  interval, not a trip time); none for gatling-bare
# Ratios (×engine) are the figure over the engine's in the same repeat, level and transport. Within a repeat
# every level runs each transport and each generator one after the other; the table gives the median (min-max)
# over the repeats. Every run's JSON line goes to --out (default under TMPDIR).
# Exit: 0 done, 1 a run or the install failed, 2 usage.
set -euo pipefail
root=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
# shellcheck source=lib/config.sh
source "$root/lib/config.sh"

usage() {
  echo "usage: bench/peers.sh [--levels 1000,2000] [--repeats 3] [--interval 1000] [--transports sse,ws]" \
    "[--generators engine,gatling[,gatling-bare]] [--settle 3] [--warmup 3] [--window 15] [--out <file>]" \
    "| --table <runs.jsonl> | --install" >&2
  exit 2
}
bad() { echo "peers: $*" >&2; exit 2; }
levels=1000,2000 repeats=3 interval=1000 transports=sse,ws generators=engine,gatling settle=3 warmup=3 window=15
out='' table_only='' install_only=false
while [[ $# -gt 0 ]]; do
  case $1 in
    --levels | --repeats | --interval | --transports | --generators | --settle | --warmup | --window | --out | --table)
      [[ $# -ge 2 ]] || bad "$1 needs a value"
      case $1 in
        --levels) levels=$2 ;; --repeats) repeats=$2 ;; --interval) interval=$2 ;; --transports) transports=$2 ;;
        --generators) generators=$2 ;; --settle) settle=$2 ;; --warmup) warmup=$2 ;; --window) window=$2 ;;
        --out) out=$2 ;; --table) table_only=$2 ;;
      esac
      shift 2 ;;
    --install) install_only=true; shift ;;
    -h | --help) sed -n '2,38p' "$0" | sed 's/^# \{0,1\}//'; exit 0 ;;
    *) usage ;;
  esac
done

if [[ -n $table_only ]]; then
  [[ -r $table_only ]] || bad "cannot read $table_only"
  node "$root/bench/peers/table.js" "$table_only"
  exit 0
fi
[[ $levels =~ ^[1-9][0-9]*(,[1-9][0-9]*)*$ ]] || bad "--levels wants connection counts, e.g. 1000,2000"
[[ $repeats =~ ^[1-9]$ ]] || bad "--repeats wants 1-9"
[[ $interval =~ ^[1-9][0-9]{1,6}$ && $interval -ge 10 ]] || bad "--interval wants ms, at least 10"
[[ $transports =~ ^(sse|ws)(,(sse|ws))?$ ]] || bad "--transports wants sse, ws or both"
[[ $generators =~ ^(engine|gatling|gatling-bare)(,(engine|gatling|gatling-bare)){0,2}$ ]] ||
  bad "--generators wants one or more of engine, gatling, gatling-bare"
[[ $settle =~ ^[0-9]+$ && $warmup =~ ^[0-9]+$ && $window =~ ^[1-9][0-9]*$ ]] || bad "--settle, --warmup and --window want whole seconds (window > 0)"
IFS=, read -ra level_list <<<"$levels"
IFS=, read -ra transport_list <<<"$transports"
IFS=, read -ra generator_list <<<"$generators"
for n in "${level_list[@]}"; do
  ((n + 200 < $(ulimit -n))) || bad "$n connections do not fit the open-file limit ($(ulimit -n))"
done
for tool in java javac jcmd jstat node curl jq; do
  command -v "$tool" >/dev/null || { echo "peers: needs $tool on the PATH" >&2; exit 1; }
done

# ---- Gatling, installed by the bench into build/peers/ (cached: the jars of the version bench/peers/pom.xml
# names, and the simulation compiled against them) ------------------------------------------------------------
gatling_version=$(sed -n 's:.*<gatling.version>\(.*\)</gatling.version>.*:\1:p' "$root/bench/peers/pom.xml")
peers_dir=$root/build/peers
gatling_lib=$peers_dir/gatling-$gatling_version/lib
sim_classes=$peers_dir/gatling-$gatling_version/classes
install_gatling() {
  if [[ ! -f $gatling_lib/.complete ]]; then
    command -v mvn >/dev/null || { echo "peers: installing Gatling needs Maven (mvn) on the PATH" >&2; exit 1; }
    echo "peers: installing Gatling $gatling_version into ${gatling_lib#"$root"/} (once)"
    rm -rf "$gatling_lib"
    mkdir -p "$gatling_lib"
    mvn -B -q -f "$root/bench/peers/pom.xml" dependency:copy-dependencies -DincludeScope=runtime \
      -DoutputDirectory="$gatling_lib" >"$peers_dir/install.log" 2>&1 ||
      { echo "peers: the Gatling install failed (${peers_dir#"$root"/}/install.log):" >&2; tail -5 "$peers_dir/install.log" >&2; exit 1; }
    touch "$gatling_lib/.complete"
  fi
  local src=$root/bench/peers/PushSimulation.java
  if [[ ! -f $sim_classes/.complete || $src -nt $sim_classes/.complete || $root/bench/peers/logback.xml -nt $sim_classes/.complete ]]; then
    rm -rf "$sim_classes"
    mkdir -p "$sim_classes"
    javac -nowarn -d "$sim_classes" -cp "$gatling_lib/*" "$src"
    cp "$root/bench/peers/logback.xml" "$sim_classes/"
    touch "$sim_classes/.complete"
  fi
}
needs_gatling=false
[[ ,$generators, == *,gatling* ]] && needs_gatling=true
mkdir -p "$peers_dir"
if $install_only; then
  install_gatling
  echo "peers: Gatling $gatling_version in ${gatling_lib#"$root"/}, the simulation in ${sim_classes#"$root"/}"
  exit 0
fi
if $needs_gatling; then install_gatling; fi

work=$(mktemp -d "${TMPDIR:-/tmp}/pb-peers.XXXXXX")
[[ -n $out ]] || out=$work/runs.jsonl
: >>"$out" || bad "cannot write $out"
# The server on a port and state of its own, reachable on the loopback only.
export PB_STATE=$work/state PB_PORT_NODE=${PB_BENCH_PORT:-19991} PB_SERVER_ADDRESS=127.0.0.1
mkdir -p "$PB_STATE"
gen_pid='' watch_pid='' server_started=false
cleanup() {
  local pid
  for pid in "$gen_pid" "$watch_pid"; do
    if [[ -n $pid ]]; then kill "$pid" 2>/dev/null || true; fi
  done
  if [[ -n $gen_pid ]]; then
    sleep 1
    kill -9 "$gen_pid" 2>/dev/null || true
  fi
  if $server_started; then "$root/servers/control.sh" stop node >/dev/null 2>&1 || true; fi
  rm -rf "$work/classes" "$work/state" "$work/log" "$work/gatling" "$work"/gen.* "$work/stop"   # the runs' JSON lines stay
}
trap cleanup EXIT
trap 'exit 130' INT TERM HUP

javac -nowarn -d "$work/classes" -sourcepath "$root/load/push-sampler/src/main/java" "$root/bench/peers/PeerEngine.java"

base="http://127.0.0.1:$PB_PORT_NODE"
post() { curl -fsS -m 10 -H 'Content-Type: application/json' -d "$2" "$base$1" >/dev/null; }
status() { curl -fsS -m 5 "$base/status"; }
jvm_flags=(-Xms1g -Xmx1g -XX:+UseParallelGC)

"$root/servers/control.sh" start node >/dev/null
server_started=true
read -r server_pid _ <"$PB_STATE/node.pid"
echo "peers: Node.js (pid $server_pid, port $PB_PORT_NODE), event1 every $interval ms, levels $levels, transports" \
  "$transports, generators $generators, $repeats repeat(s); settle $settle s, warm-up $warmup s, window $window s"

# utime + stime of /proc/<pid>/stat in clock ticks (fields 14, 15 after the command's parentheses)
cpu_ticks() {
  local stat rest f
  stat=$(<"/proc/$1/stat")
  rest=${stat##*) }
  read -ra f <<<"$rest"
  echo $((f[11] + f[12]))
}
# live heap KB after a full collection (jstat -gc: S0U + S1U + EU + OU) and VmRSS KB of a JVM
memory_kb() {
  jcmd "$1" GC.run >/dev/null
  sleep 0.3
  local heap rss
  heap=$(jstat -gc "$1" | awk 'NR == 2 { printf "%.0f", $3 + $4 + $6 + $8 }')
  rss=$(awk '/^VmRSS:/ { print $2 }' "/proc/$1/status")
  echo "$heap $rss"
}
# wait_for <file> <text> <s>: until the generator's output holds the text; 1 if it died or the time ran out
wait_for() {
  local deadline=$((SECONDS + $3))
  until grep -q "$2" "$1" 2>/dev/null; do
    kill -0 "$gen_pid" 2>/dev/null && ((SECONDS < deadline)) || return 1
    sleep 0.2
  done
}
ticks_per_s=$(getconf CLK_TCK)
# until event1's next emit cycle has started (its cycle number moves; GET /status every 20 ms, up to 2 intervals)
wait_cycle() {
  local c0 deadline=$((SECONDS + 2 * interval / 1000 + 2))
  c0=$(status | jq '.events[] | select(.name == "event1") | .cycle')
  while (($(status | jq '.events[] | select(.name == "event1") | .cycle') == c0)) && ((SECONDS < deadline)); do sleep 0.02; done
}
# the window: the whole number of intervals nearest --window, in seconds
cycles=$(((window * 1000 + interval / 2) / interval))
((cycles > 0)) || cycles=1
window_s=$(awk -v c="$cycles" -v i="$interval" 'BEGIN { printf "%.3f", c * i / 1000 }')

# one_run <generator> <transport> <connections> <repeat>: one JSON line to $out and a summary line to stdout
one_run() {
  local gen=$1 transport=$2 n=$3 rep=$4 opened heap0 rss0 heap1 rss1 c0 s0 st0 t0 c1 s1 st1 t1 report
  rm -rf "$work/stop" "$work/log" "$work/gatling" "$work"/gen.*
  post /event/set "{\"name\":\"event1\",\"frequency\":$interval}"
  if [[ $gen == engine ]]; then
    java "${jvm_flags[@]}" -cp "$work/classes" pushbench.jmeter.PeerEngine "$transport" "$PB_PORT_NODE" "$n" 6 \
      "$work/stop" "$work/log" >"$work/gen.out" 2>"$work/gen.err" &
  else
    # (--add-opens: what Gatling's own launchers give its JVM; its stats writer needs it on JDK 17)
    java "${jvm_flags[@]}" --add-opens=java.base/java.lang=ALL-UNNAMED -Dpeers.port="$PB_PORT_NODE" -Dpeers.transport="$transport" -Dpeers.connections="$n" \
      -Dpeers.interval="$interval" -Dpeers.maxMessages=$(((settle + warmup + window + 120) * 1000 / interval)) -Dpeers.baseline=6 -Dpeers.stop="$work/stop" -Dgatling.data.enableAnalytics=false \
      -Dpeers.mode="$([[ $gen == gatling-bare ]] && echo bare || echo check)" \
      -cp "$sim_classes:$gatling_lib/*" io.gatling.app.Gatling -s pushbench.peers.PushSimulation \
      -rf "$work/gatling" >"$work/gen.out" 2>"$work/gen.err" &
  fi
  gen_pid=$!
  fail() { echo "peers: $gen $transport $n (repeat $rep): $1" >&2; tail -n 5 "$work/gen.err" "$work/gen.out" >&2; exit 1; }
  wait_for "$work/gen.out" '^ready' 120 || fail "never got ready"
  sleep 1
  read -r heap0 rss0 < <(memory_kb "$gen_pid")
  node "$root/bench/peers/watch-open.js" "$PB_PORT_NODE" "$transport" "$n" 60 >"$work/gen.open" &
  watch_pid=$!
  wait "$watch_pid" || fail "watching the streams open failed"
  watch_pid=''
  opened=$(<"$work/gen.open")
  [[ $(jq '.open' <<<"$opened") -ge $n ]] || fail "only $(jq '.open' <<<"$opened") of $n streams open within 60 s"
  sleep "$settle"
  read -r heap1 rss1 < <(memory_kb "$gen_pid")
  sleep "$warmup"
  # The window runs from just after an emit cycle started to just after the one that starts a whole number
  # of intervals later, so its messages are whole cycles.
  wait_cycle
  c0=$(cpu_ticks "$gen_pid") s0=$(cpu_ticks "$server_pid") st0=$(status) t0=$(date +%s%N)
  sleep "$window_s"
  c1=$(cpu_ticks "$gen_pid") s1=$(cpu_ticks "$server_pid") st1=$(status) t1=$(date +%s%N)
  touch "$work/stop"
  # Gatling's WebSocket users await their checks on the subscription's send: the clear ends them (below)
  if [[ $gen == gatling && $transport == ws ]]; then post /event/clear '{}'; fi
  local waited=0
  while kill -0 "$gen_pid" 2>/dev/null && ((waited < 600)); do sleep 0.2; waited=$((waited + 1)); done
  kill -0 "$gen_pid" 2>/dev/null && fail "still running 120 s after it was told to stop"
  wait "$gen_pid" || fail "the generator failed"
  gen_pid=''
  if [[ $gen == engine ]]; then
    report=$(tail -1 "$work/gen.out")
  else
    # Gatling's own figures of its "record" check, from its report's page of that request
    # (WebSocket: the clear that ends the users fails each one's pending check, N KOs not counted as failed)
    local stats
    stats=$(node "$root/bench/peers/gatling-stats.js" "$work/gatling" record 2>/dev/null) ||
      stats='{"ok":0,"ko":0,"p50":null,"p99":null}'   # gatling-bare checks nothing
    report=$(jq -c --argjson atStop "$([[ $gen == gatling && $transport == ws ]] && echo "$n" || echo 0)" '
      {received: .ok, failed: ([.ko - $atStop, 0] | max), tripP50Ms: .p50, tripP99Ms: .p99, reconnections: null}' <<<"$stats")
  fi
  post /event/clear '{}'
  local deadline=$((SECONDS + 30))   # the server lets the closed streams go before the next run
  while (($(status | jq '.requests.open') > 0)) && ((SECONDS < deadline)); do sleep 0.2; done
  local line
  line=$(jq -nc --arg gen "$gen" --arg transport "$transport" --argjson n "$n" --argjson rep "$rep" --argjson interval "$interval" \
    --argjson opened "$opened" --argjson report "$report" --argjson st0 "$st0" --argjson st1 "$st1" \
    --argjson heap0 "$heap0" --argjson rss0 "$rss0" --argjson heap1 "$heap1" --argjson rss1 "$rss1" \
    --argjson c "$((c1 - c0))" --argjson s "$((s1 - s0))" --argjson ns "$((t1 - t0))" --argjson hz "$ticks_per_s" '
    def ev($st): ($st.events | map(select(.name == "event1")) | .[0]);
    def r1: . * 10 | round / 10;
    def r2: . * 100 | round / 100;
    ($ns / 1e9) as $w
    | ((ev($st1).cycle - ev($st0).cycle) * ev($st1).lastCycle.total) as $msgs
    | ($c / $hz * 1e6) as $cpuUs | ($s / $hz * 1e6) as $serverUs
    | {repeat: $rep, generator: $gen, transport: $transport, connections: $n, interval: $interval,
       open: $opened.open, openSeconds: $opened.openSeconds, openedPerSecond: $opened.openedPerSecond,
       windowS: ($w | r1), messages: $msgs, messagesPerSecond: ($msgs / $w | r1),
       cpuPercent: ($cpuUs / $w / 1e4 | r1),
       usPerMessage: (if $msgs > 0 then $cpuUs / $msgs | r2 else null end),
       serverUsPerMessage: (if $msgs > 0 then $serverUs / $msgs | r2 else null end),
       heapKbPerConnection: (($heap1 - $heap0) / $n | r2), rssKbPerConnection: (($rss1 - $rss0) / $n | r2),
       heapBaselineKb: $heap0, rssBaselineKb: $rss0,
       tripP50Ms: $report.tripP50Ms, tripP99Ms: $report.tripP99Ms,
       tripMeasures: (if $gen == "engine" then "arrival - created" elif $gen == "gatling" then "check wait" else null end),
       received: $report.received, failed: $report.failed, reconnections: $report.reconnections}')
  echo "$line" >>"$out"
  jq -r '"  run \(.repeat) \(.generator) \(.transport) \(.connections): \(.openedPerSecond)/s opened; \(.messages) msgs in \(.windowS) s;" +
    " \(.usPerMessage) µs/msg (\(.cpuPercent)% of a core), heap \(.heapKbPerConnection) KB/conn, RSS \(.rssKbPerConnection) KB/conn;" +
    " p50 \(.tripP50Ms) p99 \(.tripP99Ms) ms; \(.received) received, \(.failed) failed"' <<<"$line"
}

for ((rep = 1; rep <= repeats; rep++)); do
  for n in "${level_list[@]}"; do
    for transport in "${transport_list[@]}"; do
      for gen in "${generator_list[@]}"; do one_run "$gen" "$transport" "$n" "$rep"; done
    done
  done
done

echo
echo "median (min-max) over the repeats; ×engine: the figure / the engine's in the same repeat; runs in $out"
node "$root/bench/peers/table.js" "$out"
