#!/usr/bin/env bash
# What does one sample cost the load generator? JMeter runs testplan.jmx against the Node.js server (long
# poll, no event, 1 s max duration: every thread completes about a poll a second) once in one JVM (non-GUI,
# no engines) and once distributed (one engine and the controller on this machine, as run.sh's local
# default does), and the CPU time of the JMeter JVMs is divided by the request samples. On a machine that
# also runs the server under test this is what decides how many samples per second fit: the study's
# headline at 15,000 connections asks for 1,500 a second.
#
#   bench/jmeter-sample-cost.sh [--threads <n>] [--duration <s>] [--plan <file.jmx>]...
#
# Defaults: 1,000 threads for 60 s, the repository's testplan.jmx. With several --plan the plans run one
# after the other (e.g. an older one: git show <rev>:testplan.jmx > /tmp/old.jmx). The engine's CPU is
# counted from when it is ready; the controller's (and the single JVM's) includes its JVM start.
set -euo pipefail
root=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
# shellcheck source=lib/config.sh
source "$root/lib/config.sh"

usage() { echo "usage: bench/jmeter-sample-cost.sh [--threads <n>] [--duration <s>] [--plan <file.jmx>]..." >&2; exit 2; }
threads=1000 duration=60 plans=()
while [[ $# -gt 0 ]]; do
  case $1 in
    --threads) threads=${2:-}; shift 2 || usage ;;
    --duration) duration=${2:-}; shift 2 || usage ;;
    --plan) plans+=("${2:-}"); shift 2 || usage ;;
    -h | --help) sed -n '2,13p' "$0" | sed 's/^# \{0,1\}//'; exit 0 ;;
    *) usage ;;
  esac
done
[[ $threads =~ ^[1-9][0-9]*$ && $duration =~ ^[1-9][0-9]*$ ]] || usage
((${#plans[@]})) || plans=("$root/testplan.jmx")
for p in "${plans[@]}"; do [[ -r $p ]] || { echo "jmeter-sample-cost: cannot read plan '$p'" >&2; exit 2; }; done

"$root/load/install-jmeter.sh" >/dev/null
work=$(mktemp -d "${TMPDIR:-/tmp}/pb-sample-cost.XXXXXX")
export PB_STATE=$work/state
engine=pb-sample-cost
cleanup() {
  "$root/load/engine.sh" stop --name "$engine" >/dev/null 2>&1 || true
  "$root/servers/control.sh" stop node >/dev/null 2>&1 || true
  rm -rf "$work"
}
trap cleanup EXIT
trap 'exit 130' INT TERM

ticks=$(getconf CLK_TCK)
cpu_seconds() { awk -v t="$ticks" '{ printf "%.2f", ($14 + $15) / t }' "/proc/$1/stat"; }   # user + system
props() {
  printf '%s\n' "server.host=127.0.0.1" "server.port=$PB_PORT_NODE" "rampup.period=$((threads / 500 + 2))" \
    "test.duration=$duration" "logging.enabled=false" "event.enabled=false" "request.type=poll" "request.duration=1000"
}
# request samples in a run directory's results.csv
samples() { grep -c ',request,' "$1/jmeter/results.csv" || true; }

"$root/servers/control.sh" start node >/dev/null
printf '%-28s %-12s %8s %10s %12s %14s %16s\n' plan mode samples samples/s "engine cpu" "controller cpu" "µs cpu / sample"
n=0
for plan in "${plans[@]}"; do
  for mode in one-jvm distributed; do
    n=$((n + 1))
    dir=$work/run-$n
    mkdir -p "$dir"
    props >"$dir/plan.properties"
    started=$SECONDS engine_cpu=0
    if [[ $mode == one-jvm ]]; then
      PB_PLAN=$plan /usr/bin/time -f '%U %S' -o "$dir/time" "$root/load/controller.sh" --local --run-dir "$dir" \
        --props "$dir/plan.properties" --set threads.num="$threads" >"$dir/controller.out" 2>&1
    else
      "$root/load/engine.sh" start --name "$engine" --address 127.0.0.1 --port "$PB_JMETER_RMI_PORT" \
        --localport "$PB_JMETER_RMI_LOCALPORT" --threads "$threads" --responses "$dir/responses" >/dev/null
      pid=$(awk '{ print $1 }' "$PB_STATE/engine-$engine.pid")
      before=$(cpu_seconds "$pid")
      PB_PLAN=$plan /usr/bin/time -f '%U %S' -o "$dir/time" "$root/load/controller.sh" --run-dir "$dir" \
        --engines "127.0.0.1:$PB_JMETER_RMI_PORT" --address 127.0.0.1 --props "$dir/plan.properties" >"$dir/controller.out" 2>&1
      engine_cpu=$(echo "$(cpu_seconds "$pid") - $before" | bc)
      "$root/load/engine.sh" stop --name "$engine" >/dev/null
    fi
    wall=$((SECONDS - started))
    controller_cpu=$(awk '{ printf "%.2f", $1 + $2 }' "$dir/time")
    count=$(samples "$dir")
    ((count > 0)) || { echo "jmeter-sample-cost: no request samples ($dir/controller.out):" >&2; tail -5 "$dir/controller.out" >&2; exit 1; }
    printf '%-28s %-12s %8d %10.0f %10.1f s %12.1f s %16.0f\n' "$(basename "$plan")" "$mode" "$count" \
      "$(echo "$count / $wall" | bc -l)" "$engine_cpu" "$controller_cpu" "$(echo "1000000 * ($engine_cpu + $controller_cpu) / $count" | bc -l)"
  done
done
echo "(at 1,500 samples/s, 1,000 µs of CPU per sample is 1.5 of this machine's $(nproc) cores)"
