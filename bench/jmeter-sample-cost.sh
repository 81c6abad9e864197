#!/usr/bin/env bash
# What does one sample cost the load generator? JMeter runs testplan.jmx against the Node.js server (long
# poll, no event, 1 s max duration: every thread completes about a poll a second) once in one JVM (non-GUI,
# no engines) and once distributed (one engine and the controller on this machine, as run.sh's local
# default does), and the CPU time of the JMeter JVMs is divided by the request samples. On a machine that
# also runs the server under test this is what decides how many samples per second fit: the study's
# headline at 15,000 connections asks for 1,500 a second.
#
#   bench/jmeter-sample-cost.sh [--threads <n>] [--duration <s>] [--warmup <s>] [--plan <file.jmx>]...
#
# Defaults: 1,000 threads for 100 s, the repository's testplan.jmx. With several --plan the plans run one
# after the other (e.g. an older one: git show <rev>:testplan.jmx > /tmp/old.jmx).
# "steady" counts CPU and samples from --warmup seconds (default 50) after the controller starts until 5 s
# before the duration ends: JMeter's JIT compiler is busy for its first ~40 s (a C2 thread took 40% of the
# CPU 20-30 s in) and would otherwise be charged to the samples. "whole run" is every CPU second of the
# JVMs (the engine's from when it is ready, the controller's from its start) over every sample.
set -euo pipefail
root=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
# shellcheck source=lib/config.sh
source "$root/lib/config.sh"

usage() { echo "usage: bench/jmeter-sample-cost.sh [--threads <n>] [--duration <s>] [--warmup <s>] [--plan <file.jmx>]..." >&2; exit 2; }
threads=1000 duration=100 warmup=50 plans=()
while [[ $# -gt 0 ]]; do
  case $1 in
    --threads) threads=${2:-}; shift 2 || usage ;;
    --duration) duration=${2:-}; shift 2 || usage ;;
    --warmup) warmup=${2:-}; shift 2 || usage ;;
    --plan) plans+=("${2:-}"); shift 2 || usage ;;
    -h | --help) sed -n '2,16p' "$0" | sed 's/^# \{0,1\}//'; exit 0 ;;
    *) usage ;;
  esac
done
[[ $threads =~ ^[1-9][0-9]*$ && $duration =~ ^[1-9][0-9]*$ && $warmup =~ ^[0-9]+$ ]] || usage
((duration >= warmup + 20)) || { echo "jmeter-sample-cost: --duration must be at least --warmup + 20 s (a window of 15 s or more)" >&2; exit 2; }
((${#plans[@]})) || plans=("$root/testplan.jmx")
for p in "${plans[@]}"; do [[ -r $p ]] || { echo "jmeter-sample-cost: cannot read plan '$p'" >&2; exit 2; }; done

"$root/load/install-jmeter.sh" >/dev/null
work=$(mktemp -d "${TMPDIR:-/tmp}/pb-sample-cost.XXXXXX")
export PB_STATE=$work/state
engine=pb-sample-cost
controller=''
cleanup() {
  if [[ -n $controller ]]; then kill "$controller" 2>/dev/null || true; fi
  "$root/load/engine.sh" stop --name "$engine" >/dev/null 2>&1 || true
  "$root/servers/control.sh" stop node >/dev/null 2>&1 || true
  rm -rf "$work"
}
trap cleanup EXIT
trap 'exit 130' INT TERM

ticks=$(getconf CLK_TCK)
# CPU ticks (user + system) of the given live processes; fields after the ")" that ends the name.
# Status 1 when one of them is gone (its ticks would otherwise count as 0).
cpu_ticks() {
  local pid total=0 stat
  for pid in "$@"; do
    stat=$(<"/proc/$pid/stat") || return 1
    read -ra f <<<"${stat##*) }"
    total=$((total + f[11] + f[12]))
  done
  echo "$total"
}
props() {
  printf '%s\n' "server.host=127.0.0.1" "server.port=$PB_PORT_NODE" "rampup.period=$((threads / 500 + 2))" \
    "test.duration=$duration" "logging.enabled=false" "event.enabled=false" "request.type=poll" "request.duration=1000"
}
# request samples in a run directory's results.csv so far
samples() { grep -c ',request,' "$1/jmeter/results.csv" 2>/dev/null || true; }
us_per() { echo "1000000 * $1 / $ticks / $2" | bc -l; }   # <ticks> <samples>

"$root/servers/control.sh" start node >/dev/null
printf '%-24s %-12s %8s %11s %14s %14s\n' plan mode samples "steady /s" "µs cpu/sample" "(whole run)"
n=0
for plan in "${plans[@]}"; do
  for mode in one-jvm distributed; do
    n=$((n + 1))
    dir=$work/run-$n
    mkdir -p "$dir"
    props >"$dir/plan.properties"
    jvms=() engine_start=0
    if [[ $mode == one-jvm ]]; then
      PB_PLAN=$plan "$root/load/controller.sh" --local --run-dir "$dir" \
        --props "$dir/plan.properties" --set threads.num="$threads" >"$dir/controller.out" 2>&1 &
    else
      "$root/load/engine.sh" start --name "$engine" --address 127.0.0.1 --port "$PB_JMETER_RMI_PORT" \
        --localport "$PB_JMETER_RMI_LOCALPORT" --threads "$threads" --responses "$dir/responses" >/dev/null
      jvms+=("$(awk '{ print $1 }' "$PB_STATE/engine-$engine.pid")")
      engine_start=$(cpu_ticks "${jvms[0]}")
      PB_PLAN=$plan "$root/load/controller.sh" --run-dir "$dir" \
        --engines "127.0.0.1:$PB_JMETER_RMI_PORT" --address 127.0.0.1 --props "$dir/plan.properties" >"$dir/controller.out" 2>&1 &
    fi
    controller=$!   # controller.sh execs the JVM: $! is its PID
    jvms+=("$controller")
    sleep "$warmup"
    cpu1=$(cpu_ticks "${jvms[@]}") count1=$(samples "$dir")
    sleep $((duration - warmup - 5))
    cpu2=$(cpu_ticks "${jvms[@]}") count2=$(samples "$dir")
    # Whole run: the controller's last reading before it exits, the engine's at the end.
    last=$cpu2
    while kill -0 "$controller" 2>/dev/null; do
      last=$(cpu_ticks "${jvms[@]}" 2>/dev/null || echo "$last")
      sleep 1
    done
    wait "$controller" || { echo "jmeter-sample-cost: the controller failed ($dir/controller.out):" >&2; tail -5 "$dir/controller.out" >&2; exit 1; }
    controller=''
    if [[ $mode == distributed ]]; then
      "$root/load/engine.sh" stop --name "$engine" >/dev/null
    fi
    count=$(samples "$dir") window=$((count2 - count1))
    ((count > 0 && window > 0)) || { echo "jmeter-sample-cost: no request samples in the window ($dir/controller.out):" >&2; tail -5 "$dir/controller.out" >&2; exit 1; }
    printf '%-24s %-12s %8d %11.0f %14.0f %14.0f\n' "$(basename "$plan")" "$mode" "$count" \
      "$(echo "$window / ($duration - $warmup - 5)" | bc -l)" "$(us_per $((cpu2 - cpu1)) "$window")" \
      "$(us_per $((last - engine_start)) "$count")"
  done
done
echo "(steady: from ${warmup} s after the controller starts to 5 s before the end; at 1,500 samples/s, 1,000 µs of CPU per sample is 1.5 of this machine's $(nproc) cores)"
