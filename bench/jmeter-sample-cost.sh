#!/usr/bin/env bash
# What does one sample cost the load generator (issue #22 item 6; the study's section 3.2 load)? JMeter
# runs testplan.jmx against the Node.js server (long poll, no event, 1 s max duration: every thread
# completes about a poll a second) with the push sampler (request.sampler=push, what run.sh runs) and with
# JMeter's HTTP sampler (request.sampler=http, a file per sample), at the same load, one after the other in
# each repeat; distributed (one engine and the controller on this machine, as run.sh's local default does)
# and/or in one JVM (non-GUI, no engines). The CPU time of the JMeter JVMs is divided by the request
# samples (the answers; with the push sampler counted by its engine's summary samples, as no push answer
# reaches results.csv or the controller since issue #51: figures from before include sending each one). On a machine that also runs the server under test this is what decides how many samples per
# second fit: the study's headline at 15,000 connections asks for 1,500 a second.
#
#   bench/jmeter-sample-cost.sh [--threads <n>] [--duration <s>] [--warmup <s>] [--repeats <n>]
#                               [--samplers push,http] [--modes distributed,one-jvm] [--plan <file.jmx>]...
#
# Defaults: 1,000 threads for 100 s, 3 repeats, both samplers, distributed only, the repository's
# testplan.jmx. With several --plan the plans run one after the other (e.g. an older one: git show
# <rev>:testplan.jmx > /tmp/old.jmx; a plan without request.sampler runs what it has).
# "steady" counts CPU and samples from --warmup seconds (default 50) after the controller starts until 5 s
# before the duration ends: JMeter's JIT compiler is busy for its first ~40 s (a C2 thread took 40% of the
# CPU 20-30 s in) and would otherwise be charged to the samples. "engine" is the engine JVM's CPU alone
# (in one JVM: that JVM's), "all" adds the controller's; "whole run" is every CPU second of the JVMs (the
# engine's from when it is ready, the controller's from its start) over every sample. The summary gives,
# per mode and sampler, the median and range over the repeats of steady µs per sample, and the ratio
# push / http of each repeat's pair. Goal (issue #22): push <= http. The runs' working directories (the
# engine's responses) are under TMPDIR: with TMPDIR=/dev/shm (tmpfs) the HTTP sampler's file per sample
# waits on no file system and both samplers reach the same load (docs/limits.md).
set -euo pipefail
root=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
# shellcheck source=lib/config.sh
source "$root/lib/config.sh"

usage() { echo "usage: bench/jmeter-sample-cost.sh [--threads <n>] [--duration <s>] [--warmup <s>] [--repeats <n>] [--samplers push,http] [--modes distributed,one-jvm] [--plan <file.jmx>]..." >&2; exit 2; }
threads=1000 duration=100 warmup=50 repeats=3 samplers=push,http modes=distributed plans=()
while [[ $# -gt 0 ]]; do
  case $1 in
    --threads) threads=${2:-}; shift 2 || usage ;;
    --duration) duration=${2:-}; shift 2 || usage ;;
    --warmup) warmup=${2:-}; shift 2 || usage ;;
    --repeats) repeats=${2:-}; shift 2 || usage ;;
    --samplers) samplers=${2:-}; shift 2 || usage ;;
    --modes) modes=${2:-}; shift 2 || usage ;;
    --plan) plans+=("${2:-}"); shift 2 || usage ;;
    -h | --help) sed -n '2,25p' "$0" | sed 's/^# \{0,1\}//'; exit 0 ;;
    *) usage ;;
  esac
done
[[ $threads =~ ^[1-9][0-9]*$ && $duration =~ ^[1-9][0-9]*$ && $warmup =~ ^[0-9]+$ && $repeats =~ ^[1-9]$ ]] || usage
[[ $samplers =~ ^(push|http)(,(push|http))?$ ]] || { echo "jmeter-sample-cost: --samplers wants push, http or both (push,http)" >&2; exit 2; }
[[ $modes =~ ^(distributed|one-jvm)(,(distributed|one-jvm))?$ ]] || { echo "jmeter-sample-cost: --modes wants distributed, one-jvm or both" >&2; exit 2; }
((duration >= warmup + 20)) || { echo "jmeter-sample-cost: --duration must be at least --warmup + 20 s (a window of 15 s or more)" >&2; exit 2; }
((${#plans[@]})) || plans=("$root/testplan.jmx")
for p in "${plans[@]}"; do [[ -r $p ]] || { echo "jmeter-sample-cost: cannot read plan '$p'" >&2; exit 2; }; done
IFS=, read -ra sampler_list <<<"$samplers"
IFS=, read -ra mode_list <<<"$modes"

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
props() { # <sampler>
  printf '%s\n' "server.host=127.0.0.1" "server.port=$PB_PORT_NODE" "rampup.period=$((threads / 500 + 2))" \
    "test.duration=$duration" "logging.enabled=false" "event.enabled=false" "request.type=poll" "request.duration=1000" \
    "request.sampler=$1"
}
# The answers in a run directory's results.csv so far: its request rows (the HTTP sampler's) and the
# SampleCount of its request-summary rows (the push sampler's answers are recorded in the stream logs only
# and counted by these; docs/run-layout.md "Stream logs"). A quoted field (a summary's message) holds commas.
samples() {
  # shellcheck disable=SC2016  # an awk program
  LC_ALL=C awk -F, '
    function unquoted(line,    out, q, i, c) {   # the row, quotes dropped, a comma inside them a space
      out = ""; q = 0
      for (i = 1; i <= length(line); i++) {
        c = substr(line, i, 1)
        if (c == "\"") { q = !q; continue }
        if (c == "," && q) c = " "
        out = out c
      }
      return out
    }
    index($0, "\"") { $0 = unquoted($0) }
    NR == 1 { for (i = 1; i <= NF; i++) { if ($i == "label") l = i; if ($i == "SampleCount") c = i }; next }
    $l == "request" { n++ }
    $l == "request-summary" && c { n += $c }
    END { print n + 0 }' "$1/jmeter/results.csv" 2>/dev/null || echo 0
}
us_per() { echo "1000000 * $1 / $ticks / $2" | bc -l; }   # <ticks> <samples>

# one_run <plan> <mode> <sampler> <dir>: writes "<samples> <steady/s> <engine µs> <all µs> <whole-run µs>" to <dir>/figures
one_run() {
  local plan=$1 mode=$2 sampler=$3 dir=$4 jvms=() engine_start=0 cpu1 cpu2 eng1 eng2 count1 count2 last count window
  mkdir -p "$dir"
  props "$sampler" >"$dir/plan.properties"
  if [[ $mode == one-jvm ]]; then
    PB_PLAN=$plan "$root/load/controller.sh" --local --run-dir "$dir" \
      --props "$dir/plan.properties" --set threads.num="$threads" >"$dir/controller.out" 2>&1 &
  else
    # The previous run's engine lets its RMI port go a moment after it exits (bounded wait).
    # shellcheck disable=SC2016  # expanded by the inner bash, from its argument
    for _ in {1..30}; do timeout 1 bash -c 'exec 3<>"/dev/tcp/127.0.0.1/$0"' "$PB_JMETER_RMI_PORT" 2>/dev/null || break; sleep 1; done
    "$root/load/engine.sh" start --name "$engine" --address 127.0.0.1 --port "$PB_JMETER_RMI_PORT" \
      --localport "$PB_JMETER_RMI_LOCALPORT" --threads "$threads" --responses "$dir/responses" >/dev/null
    jvms+=("$(awk '{ print $1 }' "$PB_STATE/engine-$engine.pid")")
    engine_start=$(cpu_ticks "${jvms[0]}")
    PB_PLAN=$plan "$root/load/controller.sh" --run-dir "$dir" \
      --engines "127.0.0.1:$PB_JMETER_RMI_PORT" --address 127.0.0.1 --props "$dir/plan.properties" >"$dir/controller.out" 2>&1 &
  fi
  controller=$!   # controller.sh execs the JVM: $! is its PID
  jvms+=("$controller")   # jvms[0]: the engine (in one JVM, the only one)
  sleep "$warmup"
  cpu1=$(cpu_ticks "${jvms[@]}") eng1=$(cpu_ticks "${jvms[0]}") count1=$(samples "$dir")
  sleep $((duration - warmup - 5))
  cpu2=$(cpu_ticks "${jvms[@]}") eng2=$(cpu_ticks "${jvms[0]}") count2=$(samples "$dir")
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
  printf '%d %.0f %.0f %.0f %.0f\n' "$count" "$(echo "$window / ($duration - $warmup - 5)" | bc -l)" \
    "$(us_per $((eng2 - eng1)) "$window")" "$(us_per $((cpu2 - cpu1)) "$window")" "$(us_per $((last - engine_start)) "$count")" >"$dir/figures"
}

"$root/servers/control.sh" start node >/dev/null
echo "jmeter-sample-cost: $threads threads, long poll 1 s without an event, ${duration} s a run, $repeats repeat(s)"
printf '%-20s %-12s %-7s %6s %8s %10s %15s %15s %14s\n' plan mode sampler repeat samples "steady /s" "engine µs/smp" "all µs/smp" "(whole run)"
rows=$work/rows n=0
for ((rep = 1; rep <= repeats; rep++)); do
  for plan in "${plans[@]}"; do
    for mode in "${mode_list[@]}"; do
      for sampler in "${sampler_list[@]}"; do
        n=$((n + 1))
        one_run "$plan" "$mode" "$sampler" "$work/run-$n"
        read -r count rate engine_us all_us whole_us <"$work/run-$n/figures"
        printf '%-20s %-12s %-7s %6d %8d %10d %15d %15d %14d\n' "$(basename "$plan")" "$mode" "$sampler" "$rep" "$count" "$rate" "$engine_us" "$all_us" "$whole_us"
        echo "$(basename "$plan") $mode $sampler $rep $engine_us $all_us $rate" >>"$rows"
      done
    done
  done
done

# Median and range over the repeats; the push / http ratio within each repeat (same plan and mode), only
# when both reached the same load: steady rates within 20% of each other (a run the machine held back
# spreads JMeter's fixed costs over fewer samples).
echo
awk '
  function sort(a, n,   i, j, t) { for (i = 1; i <= n; i++) for (j = i + 1; j <= n; j++) if (a[j] < a[i]) { t = a[i]; a[i] = a[j]; a[j] = t } }
  function med(a, n) { sort(a, n); return n % 2 ? a[(n + 1) / 2] : (a[n / 2] + a[n / 2 + 1]) / 2 }
  function show(label, a, n, fmt) { printf "%-48s median " fmt ", range " fmt "-" fmt " (%d repeats)\n", label, med(a, n), a[1], a[n], n }
  { key = $1 " " $2; eng[key, $3, ++n[key, $3]] = $5; all[key, $3, n[key, $3]] = $6; rate[key, $3, $4] = $7; keys[key] = 1; rep[key, $3, $4] = n[key, $3] }
  END {
    for (key in keys) for (s = 1; s <= 2; s++) {
      sampler = s == 1 ? "push" : "http"; m = n[key, sampler]; if (!m) continue
      for (i = 1; i <= m; i++) { a[i] = eng[key, sampler, i]; b[i] = all[key, sampler, i] }
      show(key " " sampler " engine µs/sample", a, m, "%.0f")
      show(key " " sampler " all JVMs µs/sample", b, m, "%.0f")
    }
    for (key in keys) {
      m = 0; apart = 0
      for (r = 1; r <= 9; r++) if ((key, "push", r) in rep && (key, "http", r) in rep) {
        p = rate[key, "push", r]; h = rate[key, "http", r]
        if (p > 1.2 * h || h > 1.2 * p) { apart++; continue }
        m++; a[m] = eng[key, "push", rep[key, "push", r]] / eng[key, "http", rep[key, "http", r]]
        b[m] = all[key, "push", rep[key, "push", r]] / all[key, "http", rep[key, "http", r]]
      }
      if (m) { show(key " push / http, engine", a, m, "%.2f"); show(key " push / http, all JVMs", b, m, "%.2f") }
      if (apart) printf "%s: %d repeat(s) left out of the ratio: steady rates more than 20%% apart (not the same load)\n", key, apart
    }
  }' "$rows"
echo "(steady: from ${warmup} s after the controller starts to 5 s before the end; at 1,500 samples/s, 1,000 µs of CPU per sample is 1.5 of this machine's $(nproc) cores)"
