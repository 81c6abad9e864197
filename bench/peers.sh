#!/usr/bin/env bash
# pushbench's load engine against its peers, side by side (issues #38 item 6, #48 item 4; docs/engine.md
# "Against the peers"): the same SSE and WebSocket load — the same real Node.js server (servers/control.sh,
# 127.0.0.1 on a port of its own, its own state directory), N streams subscribed to event1 fired every
# --interval ms — from each generator in turn:
#   engine        pushbench's mux engine alone (bench/peers/PeerEngine.java, driven as bench/ws-client-cost.sh
#                 drives it; requestType sse or ws), every record stamped (µs) and written to its stream log;
#                 its own JVM (-Xms1g -Xmx1g -XX:+UseParallelGC)
#   jmeter        pushbench as users run it, the whole tool: a real JMeter engine (load/engine.sh start, its
#                 heap and JVM options as lib/decide.js decides them for the run ./run.sh node 0 <duration> N
#                 sse|ws - event1 <interval> would make) and the JMeter controller running testplan.jmx against
#                 it (load/controller.sh with that run's properties): CPU counted over both JVMs
#   gatling       Gatling's Java DSL (bench/peers/PushSimulation.java: sse() / ws() of its HTTP module), every
#                 message awaited by a check, as a Gatling user observes a stream; -Xms1g -Xmx1g ParallelGC
#   locust        Locust (bench/peers/locustfile.py: its HttpUser streaming SSE, websocket-client for
#                 WebSocket), every event record reported to Locust's stats with its trip time
#   gatling-bare  (not by default) Gatling holding the same streams and awaiting nothing: its floor
# The second peer is Locust because it measures the same thing for both transports: it holds the N streams,
# and counts and times every message (trip time from the server's stamp, as the engine does). Tsung (Debian's
# tsung 1.7) was the other candidate: it has no SSE client, and its WebSocket plugin (ts_websocket) hands
# messages that arrive while a user holds a stream (think time) to ts_plugin:parse_bidi, which drops them:
# it counts received bytes, not messages, and times none. k6 is not here: its AGPL licence bars it from
# this workplace. Gatling's jars (Maven) and Locust (PyPI, a virtualenv) are installed by this bench into
# build/peers/, once (later invocations run offline), not by setup.sh.
#
#   bench/peers.sh [--levels 1000,2000] [--repeats 3] [--interval 1000] [--transports sse,ws]
#                  [--generators engine,jmeter,gatling,locust[,gatling-bare]] [--settle 3] [--warmup 3]
#                  [--window 15] [--out <file>]
#   bench/peers.sh --table <runs.jsonl>      the table of an earlier invocation's runs (its --out)
#   bench/peers.sh --install                 install Gatling and Locust into build/peers/; no load
#
# Pinning: PB_SERVER_CPUS (servers/control.sh: taskset of the server) and PB_ENGINE_CPUS (taskset of every
# generator process: the engine, JMeter's engine (load/engine.sh) and controller, Gatling, Locust), as run.sh
# uses them; e.g. PB_SERVER_CPUS=1 PB_ENGINE_CPUS=0. Each run records the CPUs its server and generator
# processes were allowed (/proc/<pid>/status Cpus_allowed_list) and pinned: true when both variables are set.
# The jmeter generator's ports: PB_JMETER_RMI_PORT, PB_JMETER_RMI_LOCALPORT, PB_JMETER_CLIENT_LOCALPORT.
#
# A run: the generator starts; once it is ready (loaded, no stream), 1 s later its idle window: its CPU over
# the same length as the steady window below, no stream open (checked at the server); then its baseline
# (live heap after a full collection, RSS); it opens all N streams at once (engine: ramp-up 0; jmeter:
# the controller starts, ramp-up 0; Gatling: atOnceUsers; Locust: spawn rate N/s); then --settle s, the held
# heap, --warmup s, and a steady --window s; then it is stopped and reports.
#   CPU µs/msg     raw: the generator's utime + stime (/proc/<pid>/stat; jmeter: its engine's and controller's
#                  JVMs summed) over the window / the messages the server sent in it ((emit cycles in the
#                  window) x (the last cycle's records), GET /status): one denominator for every generator. The
#                  window starts just after an emit cycle started and lasts the whole number of intervals
#                  nearest --window
#   idle CPU %     the generator's CPU over its idle window (the same length), % of one core (jmeter: its
#                  engine JVM bound and waiting; the controller exists only while a test runs, so it has no
#                  idle share)
#   net CPU µs/msg the raw CPU less the idle CPU over the same length, / the same messages: what the streams
#                  cost the generator beyond it running at all
#   heap KB/conn   live heap (jstat after jcmd GC.run: a full collection) with the streams held, less its
#                  baseline, / N (jmeter: its engine JVM; Locust: none, not a JVM); RSS KB/conn the same with
#                  the process's VmRSS
#   opened/s       N / the time from the server's last /status poll with no stream to its first with all N
#                  (bench/peers/watch-open.js, a poll every 20 ms)
#   p50, p99 ms    as each generator reports, over the whole run: the engine's and jmeter's trip time from
#                  their stream log (arrival − the emit cycle's created, one clock; jmeter's log is read as far
#                  as its stopped engine wrote it); Locust's the same trip time as its stats give it; Gatling's
#                  response time of its "record" check (from arming the check to the message: the wait for the
#                  next message, about the interval, not a trip time); none for gatling-bare
# Ratios (×engine) are the figure over the engine's in the same repeat, level, transport and pinning. Within
# a repeat every level runs each transport and each generator one after the other; the table gives the
# median (min-max) over the repeats. Every run's JSON line goes to --out (default under TMPDIR), the
# counters it was derived from (bench/peers/run-line.js) to <out without .jsonl>.measured.jsonl.
# Exit: 0 done, 1 a run or the install failed, 2 usage.
set -euo pipefail
root=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
# shellcheck source=lib/config.sh
source "$root/lib/config.sh"
# shellcheck source=bench/lib/plugin-classpath.sh
source "$root/bench/lib/plugin-classpath.sh"

usage() {
  echo "usage: bench/peers.sh [--levels 1000,2000] [--repeats 3] [--interval 1000] [--transports sse,ws]" \
    "[--generators engine,jmeter,gatling,locust[,gatling-bare]] [--settle 3] [--warmup 3] [--window 15] [--out <file>]" \
    "| --table <runs.jsonl> | --install" >&2
  exit 2
}
bad() { echo "peers: $*" >&2; exit 2; }
levels=1000,2000 repeats=3 interval=1000 transports=sse,ws generators=engine,jmeter,gatling,locust settle=3 warmup=3 window=15
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
    -h | --help) sed -n "2,$(($(grep -n '^set -euo' "$0" | cut -d: -f1) - 1))p" "$0" | sed 's/^# \{0,1\}//'; exit 0 ;;
    *) usage ;;
  esac
done

if [[ -n $table_only ]]; then
  [[ -r $table_only ]] || bad "cannot read $table_only"
  node "$root/bench/peers/table.js" "$table_only"
  exit 0
fi
gen_names='engine|jmeter|gatling|gatling-bare|locust'
[[ $levels =~ ^[1-9][0-9]*(,[1-9][0-9]*)*$ ]] || bad "--levels wants connection counts, e.g. 1000,2000"
[[ $repeats =~ ^[1-9]$ ]] || bad "--repeats wants 1-9"
[[ $interval =~ ^[1-9][0-9]{1,6}$ && $interval -ge 10 ]] || bad "--interval wants ms, at least 10"
[[ $transports =~ ^(sse|ws)(,(sse|ws))?$ ]] || bad "--transports wants sse, ws or both"
[[ $generators =~ ^($gen_names)(,($gen_names)){0,4}$ ]] ||
  bad "--generators wants one or more of engine, jmeter, gatling, locust, gatling-bare"
[[ $settle =~ ^[0-9]+$ && $warmup =~ ^[0-9]+$ && $window =~ ^[1-9][0-9]*$ ]] || bad "--settle, --warmup and --window want whole seconds (window > 0)"
for cpus in "${PB_SERVER_CPUS:-}" "${PB_ENGINE_CPUS:-}"; do
  [[ -z $cpus || $cpus =~ ^[0-9]+([,-][0-9]+)*$ ]] || bad "PB_SERVER_CPUS / PB_ENGINE_CPUS want a CPU list (e.g. 0 or 0-3), got '$cpus'"
done
IFS=, read -ra level_list <<<"$levels"
IFS=, read -ra transport_list <<<"$transports"
IFS=, read -ra generator_list <<<"$generators"
for n in "${level_list[@]}"; do
  ((n + 200 < $(ulimit -n))) || bad "$n connections do not fit the open-file limit ($(ulimit -n))"
done
for tool in java javac jcmd jstat node curl jq; do
  command -v "$tool" >/dev/null || { echo "peers: needs $tool on the PATH" >&2; exit 1; }
done

# ---- the peers, installed by the bench into build/peers/ (cached: Gatling's jars of the version
# bench/peers/pom.xml names and the simulation compiled against them; Locust of locust_version in a
# virtualenv of its own) -------------------------------------------------------------------------------------
gatling_version=$(sed -n 's:.*<gatling.version>\(.*\)</gatling.version>.*:\1:p' "$root/bench/peers/pom.xml")
locust_version=2.47.0 websocket_client_version=1.9.2
peers_dir=$root/build/peers
gatling_lib=$peers_dir/gatling-$gatling_version/lib
sim_classes=$peers_dir/gatling-$gatling_version/classes
locust_env=$peers_dir/locust-$locust_version
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
install_locust() {
  [[ ! -f $locust_env/.complete ]] || return 0
  command -v python3 >/dev/null || { echo "peers: installing Locust needs python3 on the PATH" >&2; exit 1; }
  echo "peers: installing Locust $locust_version into ${locust_env#"$root"/} (once)"
  rm -rf "$locust_env"
  { python3 -m venv "$locust_env" &&
    "$locust_env/bin/pip" install -q "locust==$locust_version" "websocket-client==$websocket_client_version"; } \
    >"$peers_dir/locust-install.log" 2>&1 ||
    { echo "peers: the Locust install failed (${peers_dir#"$root"/}/locust-install.log):" >&2; tail -5 "$peers_dir/locust-install.log" >&2; exit 1; }
  touch "$locust_env/.complete"
}
mkdir -p "$peers_dir"
if $install_only; then
  install_gatling
  install_locust
  echo "peers: Gatling $gatling_version in ${gatling_lib#"$root"/}, the simulation in ${sim_classes#"$root"/}; Locust $locust_version in ${locust_env#"$root"/}"
  exit 0
fi
[[ ,$generators, != *,gatling* ]] || install_gatling
[[ ,$generators, != *,locust,* ]] || install_locust
if [[ ,$generators, == *,jmeter,* ]]; then
  [[ -f $JMETER_HOME/bin/ApacheJMeter.jar ]] || { echo "peers: the jmeter generator needs JMeter in $JMETER_HOME (./setup.sh)" >&2; exit 1; }
fi

work=$(mktemp -d "${TMPDIR:-/tmp}/pb-peers.XXXXXX")
[[ -n $out ]] || out=$work/runs.jsonl
: >>"$out" || bad "cannot write $out"
measured_out=${out%.jsonl}.measured.jsonl   # what each line was derived from (bench/peers/run-line.js)
# The server on a port and state of its own, reachable on the loopback only.
export PB_STATE=$work/state PB_PORT_NODE=${PB_BENCH_PORT:-19991} PB_SERVER_ADDRESS=127.0.0.1
mkdir -p "$PB_STATE"
# Every generator process on PB_ENGINE_CPUS when it is set (load/engine.sh pins JMeter's engine itself).
gen_pin=()
[[ -z ${PB_ENGINE_CPUS:-} ]] || gen_pin=(taskset -c "$PB_ENGINE_CPUS")
pinned=false
[[ -z ${PB_SERVER_CPUS:-} || -z ${PB_ENGINE_CPUS:-} ]] || pinned=true
gen_pid='' controller_pid='' watch_pid='' jmeter_engine=false server_started=false
stop_jmeter_engine() {
  if $jmeter_engine; then "$root/load/engine.sh" stop --name peers >/dev/null 2>&1 || true; fi
  jmeter_engine=false
}
cleanup() {
  local pid
  for pid in "$gen_pid" "$controller_pid" "$watch_pid"; do
    if [[ -n $pid ]]; then kill "$pid" 2>/dev/null || true; fi
  done
  stop_jmeter_engine
  if [[ -n $gen_pid$controller_pid ]]; then
    sleep 1
    for pid in "$gen_pid" "$controller_pid"; do
      if [[ -n $pid ]]; then kill -9 "$pid" 2>/dev/null || true; fi
    done
  fi
  if $server_started; then "$root/servers/control.sh" stop node >/dev/null 2>&1 || true; fi
  rm -rf "$work/classes" "$work/state" "$work/log" "$work/gatling" "$work/responses" "$work"/gen.* "$work/stop"   # the runs' JSON lines stay
}
trap cleanup EXIT
trap 'exit 130' INT TERM HUP

# the push sampler's sources need JMeter's jars (Jackson among them) and their own (lz4-java) to compile and to run
plugin_cp=$(plugin_classpath)
engine_cp="$work/classes:$JMETER_HOME/lib/*:$plugin_cp"
javac -nowarn -d "$work/classes" -cp "$JMETER_HOME/lib/*:$plugin_cp" -sourcepath "$root/load/push-sampler/src/main/java" "$root/bench/peers/PeerEngine.java"

base="http://127.0.0.1:$PB_PORT_NODE"
post() { curl -fsS -m 10 -H 'Content-Type: application/json' -d "$2" "$base$1" >/dev/null; }
status() { curl -fsS -m 5 "$base/status"; }
jvm_flags=(-Xms1g -Xmx1g -XX:+UseParallelGC)

"$root/servers/control.sh" start node >/dev/null
server_started=true
read -r server_pid _ <"$PB_STATE/node.pid"
cpus_of() { awk '/^Cpus_allowed_list:/ { print $2 }' "/proc/$1/status"; }
echo "peers: Node.js (pid $server_pid, port $PB_PORT_NODE, CPUs $(cpus_of "$server_pid")), event1 every $interval ms," \
  "levels $levels, transports $transports, generators $generators, $repeats repeat(s); settle $settle s, warm-up" \
  "$warmup s, window $window s; generators on CPUs ${PB_ENGINE_CPUS:-(any)}"

# utime + stime of /proc/<pid>/stat in clock ticks (fields 14, 15 after the command's parentheses), summed
# over the pids given
cpu_ticks() {
  local stat rest f pid sum=0
  for pid in "$@"; do
    stat=$(<"/proc/$pid/stat")
    rest=${stat##*) }
    read -ra f <<<"$rest"
    sum=$((sum + f[11] + f[12]))
  done
  echo "$sum"
}
# memory_kb <pid> <jvm true|false>: live heap KB after a full collection (jstat -gc: S0U + S1U + EU + OU;
# "null" for a process that is no JVM) and VmRSS KB
memory_kb() {
  local heap=null rss
  if [[ $2 == true ]]; then
    jcmd "$1" GC.run >/dev/null
    sleep 0.3
    heap=$(jstat -gc "$1" | awk 'NR == 2 { printf "%.0f", $3 + $4 + $6 + $8 }')
  fi
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
# The generators that open on their own after a pause (engine, Gatling, Locust) wait this long after they
# are ready: 1 s, the idle window, the baseline's collection and a margin, so nothing opens before the bench
# watches for it.
open_after_s=$(awk -v w="$window_s" 'BEGIN { printf "%d", w + 6.999 }')

# start_jmeter_engine <transport> <connections>: JMeter's engine as run.sh starts it for the run
# `./run.sh node 0 3600 <connections> <transport> - event1 <interval>` (its heap from lib/decide.js), bound
# and waiting; writes that run's plan properties to $work/gen.props. Sets gen_pid.
start_jmeter_engine() {
  local plan
  plan=$(node "$root/lib/decide.js" --json node 0 3600 "$2" "$1" - event1 "$interval") || return 1
  jq -r '.jmeterProperties' <<<"$plan" >"$work/gen.props"
  "$root/load/engine.sh" start --name peers --address 127.0.0.1 --port "$PB_JMETER_RMI_PORT" \
    --localport "$PB_JMETER_RMI_LOCALPORT" --connections "$2" --heap "$(jq -r '.engines[0].heapMb' <<<"$plan")m" \
    --sampler mux --responses "$work/responses" --gc-log "$work/gen.gc.log" --init 1 --cleanup 1 >"$work/gen.out" 2>"$work/gen.err" || return 1
  jmeter_engine=true
  [[ $(<"$work/gen.out") =~ pid\ ([0-9]+) ]] || return 1
  gen_pid=${BASH_REMATCH[1]}
  echo ready >>"$work/gen.out"
}

# one_run <generator> <transport> <connections> <repeat>: one JSON line to $out and a summary line to stdout
one_run() {
  local gen=$1 transport=$2 n=$3 rep=$4 opened heap0 rss0 heap1 rss1 c0 s0 st0 t0 c1 s1 st1 t1 i0 i1 it0 it1 report
  local jvm=true watch_limit=60
  local -a pids
  rm -rf "$work/stop" "$work/log" "$work/gatling" "$work/responses" "$work"/gen.*
  post /event/set "{\"name\":\"event1\",\"frequency\":$interval}"
  fail() { echo "peers: $gen $transport $n (repeat $rep): $1" >&2; tail -n 5 "$work/gen.err" "$work/gen.out" >&2; exit 1; }
  case $gen in
    engine)
      "${gen_pin[@]}" java "${jvm_flags[@]}" -cp "$engine_cp" pushbench.jmeter.PeerEngine "$transport" "$PB_PORT_NODE" "$n" \
        "$open_after_s" "$work/stop" "$work/log" >"$work/gen.out" 2>"$work/gen.err" &
      gen_pid=$! ;;
    jmeter)
      start_jmeter_engine "$transport" "$n" || fail "JMeter's engine did not start"
      watch_limit=120 ;;
    locust)
      jvm=false
      (cd "$work" && exec env PYTHONDONTWRITEBYTECODE=1 PEERS_PORT="$PB_PORT_NODE" PEERS_TRANSPORT="$transport" PEERS_CONNECTIONS="$n" PEERS_BASELINE="$open_after_s" \
        PEERS_STOP="$work/stop" PEERS_REPORT="$work/gen.report" "${gen_pin[@]}" "$locust_env/bin/locust" \
        -f "$root/bench/peers/locustfile.py" --headless --only-summary --exit-code-on-error 0) >"$work/gen.out" 2>"$work/gen.err" &
      gen_pid=$! ;;
    *)
      # (--add-opens: what Gatling's own launchers give its JVM; its stats writer needs it on JDK 17)
      "${gen_pin[@]}" java "${jvm_flags[@]}" --add-opens=java.base/java.lang=ALL-UNNAMED -Dpeers.port="$PB_PORT_NODE" -Dpeers.transport="$transport" -Dpeers.connections="$n" \
        -Dpeers.interval="$interval" -Dpeers.maxMessages=$(((open_after_s + settle + warmup + window + 120) * 1000 / interval)) -Dpeers.baseline="$open_after_s" -Dpeers.stop="$work/stop" -Dgatling.data.enableAnalytics=false \
        -Dpeers.mode="$([[ $gen == gatling-bare ]] && echo bare || echo check)" \
        -cp "$sim_classes:$gatling_lib/*" io.gatling.app.Gatling -s pushbench.peers.PushSimulation \
        -rf "$work/gatling" >"$work/gen.out" 2>"$work/gen.err" &
      gen_pid=$! ;;
  esac
  wait_for "$work/gen.out" '^ready' 120 || fail "never got ready"
  sleep 1
  # The idle window: the generator started and holding nothing, as long as the steady window.
  i0=$(cpu_ticks "$gen_pid") it0=$(date +%s%N)
  sleep "$window_s"
  i1=$(cpu_ticks "$gen_pid") it1=$(date +%s%N)
  (($(status | jq '.requests.open') == 0)) || fail "streams opened during the idle window"
  read -r heap0 rss0 < <(memory_kb "$gen_pid" "$jvm")
  node "$root/bench/peers/watch-open.js" "$PB_PORT_NODE" "$transport" "$n" "$watch_limit" >"$work/gen.open" &
  watch_pid=$!
  pids=("$gen_pid")
  if [[ $gen == jmeter ]]; then
    sleep 0.2
    # The controller as run.sh starts it (the run's properties; the engine started first and last: Init
    # sets event1, Clean Up would clear it), on the generator's CPUs too.
    "${gen_pin[@]}" "$root/load/controller.sh" --run-dir "$work/gen.run" --engines "127.0.0.1:$PB_JMETER_RMI_PORT" \
      --props "$work/gen.props" --address 127.0.0.1 >"$work/gen.controller.out" 2>&1 </dev/null &
    controller_pid=$!
    pids+=("$controller_pid")
  fi
  wait "$watch_pid" || fail "watching the streams open failed"
  watch_pid=''
  opened=$(<"$work/gen.open")
  [[ $(jq '.open' <<<"$opened") -ge $n ]] || fail "only $(jq '.open' <<<"$opened") of $n streams open within $watch_limit s"
  sleep "$settle"
  read -r heap1 rss1 < <(memory_kb "$gen_pid" "$jvm")
  sleep "$warmup"
  # The window runs from just after an emit cycle started to just after the one that starts a whole number
  # of intervals later, so its messages are whole cycles.
  wait_cycle
  c0=$(cpu_ticks "${pids[@]}") s0=$(cpu_ticks "$server_pid") st0=$(status) t0=$(date +%s%N)
  sleep "$window_s"
  c1=$(cpu_ticks "${pids[@]}") s1=$(cpu_ticks "$server_pid") st1=$(status) t1=$(date +%s%N)
  local gen_cpus server_cpus pid
  server_cpus=$(cpus_of "$server_pid")
  gen_cpus=$(for pid in "${pids[@]}"; do cpus_of "$pid"; done | sort -u | paste -sd' ')
  touch "$work/stop"
  local waited=0
  if [[ $gen == jmeter ]]; then
    # JMeter is stopped as run.sh stops a run it ends early: the controller, then the engine (TERM, then KILL)
    kill "$controller_pid" 2>/dev/null || true
    while kill -0 "$controller_pid" 2>/dev/null && ((waited < 150)); do sleep 0.2; waited=$((waited + 1)); done
    kill -9 "$controller_pid" 2>/dev/null || true
    wait "$controller_pid" 2>/dev/null || true
    controller_pid=''
    stop_jmeter_engine
    gen_pid=''
    report=$(java -cp "$engine_cp" pushbench.jmeter.PeerEngine report "$work/responses" "$n") || fail "its stream log could not be read"
  else
    # Gatling's WebSocket users await their checks on the subscription's send: the clear ends them (below)
    if [[ $gen == gatling && $transport == ws ]]; then post /event/clear '{}'; fi
    while kill -0 "$gen_pid" 2>/dev/null && ((waited < 600)); do sleep 0.2; waited=$((waited + 1)); done
    kill -0 "$gen_pid" 2>/dev/null && fail "still running 120 s after it was told to stop"
    wait "$gen_pid" || fail "the generator failed"
    gen_pid=''
    if [[ $gen == engine ]]; then
      report=$(tail -1 "$work/gen.out")
    elif [[ $gen == locust ]]; then
      report=$(<"$work/gen.report") || fail "Locust wrote no report"
    else
      # Gatling's own figures of its "record" check, from its report's page of that request
      # (WebSocket: the clear that ends the users fails each one's pending check, N KOs not counted as failed)
      local stats
      stats=$(node "$root/bench/peers/gatling-stats.js" "$work/gatling" record 2>/dev/null) ||
        stats='{"ok":0,"ko":0,"p50":null,"p99":null}'   # gatling-bare checks nothing
      report=$(jq -c --argjson atStop "$([[ $gen == gatling && $transport == ws ]] && echo "$n" || echo 0)" '
        {received: .ok, failed: ([.ko - $atStop, 0] | max), tripP50Ms: .p50, tripP99Ms: .p99, reconnections: null}' <<<"$stats")
    fi
  fi
  post /event/clear '{}'
  local deadline=$((SECONDS + 30))   # the server lets the closed streams go before the next run
  while (($(status | jq '.requests.open') > 0)) && ((SECONDS < deadline)); do sleep 0.2; done
  local line
  jq -nc --arg gen "$gen" --arg transport "$transport" --argjson n "$n" --argjson rep "$rep" --argjson interval "$interval" \
    --argjson opened "$opened" --argjson report "$report" --argjson st0 "$st0" --argjson st1 "$st1" \
    --argjson heap0 "$heap0" --argjson rss0 "$rss0" --argjson heap1 "$heap1" --argjson rss1 "$rss1" \
    --argjson c "$((c1 - c0))" --argjson s "$((s1 - s0))" --argjson ns "$((t1 - t0))" --argjson hz "$ticks_per_s" \
    --argjson idle "$((i1 - i0))" --argjson idleNs "$((it1 - it0))" --argjson processes "${#pids[@]}" \
    --argjson pinned "$pinned" --arg serverCpus "$server_cpus" --arg generatorCpus "$gen_cpus" '
    {repeat: $rep, generator: $gen, transport: $transport, connections: $n, interval: $interval, pinned: $pinned,
     serverCpus: $serverCpus, generatorCpus: $generatorCpus, processes: $processes, opened: $opened, report: $report,
     statusBefore: $st0, statusAfter: $st1, heap0: $heap0, rss0: $rss0, heap1: $heap1, rss1: $rss1,
     cpuTicks: $c, serverTicks: $s, windowNs: $ns, idleTicks: $idle, idleNs: $idleNs, hz: $hz}' >"$work/gen.measured.json"
  jq -c . "$work/gen.measured.json" >>"$measured_out"
  line=$(node "$root/bench/peers/run-line.js" "$work/gen.measured.json")
  echo "$line" >>"$out"
  jq -r '"  run \(.repeat) \(.generator) \(.transport) \(.connections): \(.openedPerSecond)/s opened; \(.messages) msgs in \(.windowS) s;" +
    " \(.usPerMessage) µs/msg raw, \(.netUsPerMessage) net (\(.cpuPercent)% of a core, idle \(.idleCpuPercent)%), heap \(.heapKbPerConnection) KB/conn, RSS \(.rssKbPerConnection) KB/conn;" +
    " p50 \(.tripP50Ms) p99 \(.tripP99Ms) ms; \(.received) received, \(.failed) failed; CPUs server \(.serverCpus) generator \(.generatorCpus)"' <<<"$line"
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
