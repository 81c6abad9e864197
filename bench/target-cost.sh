#!/usr/bin/env bash
# What the generic target path costs the engine (issue #47 item 5, docs/targets.md "What the engine
# costs"): a target run's framing, its messages' log lines and its publisher, against the native comet
# record, side by side in one invocation, repeated. Each run is a real ./run.sh on this machine (one
# engine, the local default), every connection getting one message a second:
#   native   ./run.sh node <rampup> <duration> <level> comet - event1 1000   (the protocol's records)
#   target   ./run.sh --target <nchan-sse, 10 channels, 1 message/s each> <rampup> <duration> <level>
#            against nginx + nchan (targets/nchan/nchan.sh, started and stopped here on a port of its own)
#
#   bench/target-cost.sh [--levels 1000,10000] [--repeats 3] [--rampup <s>] [--duration <s>] [--out <file>]
#
# Per run, over its steady window (analysis/measure/workload.js; a target run's ends with its publishers):
#   engine µs/message  the engine JVM's CPU (pidstat, % of a core) / messages received per second x 10^6
#                      (native: the workload's achieved answers, a comet record each; target: the
#                      messages its subscribers received, data/series.json)
#   messages/s, missed, trip p99 ms (native: tripTime.comet; target: target.tripTime), the verdict
# Every run's figures go to --out (JSON lines); the table at the end gives per (level, kind) the median and
# range over the repeats, and per level the target / native ratio of each repeat's pair (median, range).
# Goal (issue #47): target <= 1.5 x native per message. PB_ENGINE_CPUS / PB_SERVER_CPUS pin as for any run.
set -euo pipefail
root=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
# shellcheck source=lib/config.sh
source "$root/lib/config.sh"
# shellcheck source=bench/lib/options.sh
source "$root/bench/lib/options.sh"

usage="usage: bench/target-cost.sh [--levels 1000,10000] [--repeats 3] [--rampup <s>] [--duration <s>] [--out <file>]"
levels=1000,10000 repeats=3 rampup=10 duration=60 out=''
bench_options "$usage" levels repeats rampup duration out -- "$@"
[[ $levels =~ ^[1-9][0-9]*(,[1-9][0-9]*)*$ && $repeats =~ ^[1-9][0-9]*$ && $rampup =~ ^[0-9]+$ && $duration =~ ^[1-9][0-9]*$ ]] || { echo "$usage" >&2; exit 2; }
IFS=, read -ra level_list <<<"$levels"
work=$(mktemp -d "${TMPDIR:-/tmp}/pb-target-cost.XXXXXX")
[[ -n $out ]] || out=$work/runs.jsonl
: >"$out"
port=$((PB_PORT_NODE + 110))
nchan_dir=$work/nchan
stop_nchan() { "$root/targets/nchan/nchan.sh" stop --dir "$nchan_dir" >/dev/null 2>&1 || true; }
trap stop_nchan EXIT
trap 'exit 130' INT TERM
"$root/targets/nchan/nchan.sh" start --port "$port" --dir "$nchan_dir"
target=$work/nchan-sse.json
sed "s/:18480\//:$port\//g" "$root/targets/nchan-sse.json" >"$target"
echo "target-cost: runs in $work, figures in $out"

one_run() { # <repeat> <level> <kind>
  local repeat=$1 level=$2 kind=$3 id=r$1-$2-$3 rc=0 dir
  local -a args=(node "$rampup" "$duration" "$level" comet - event1 1000)
  [[ $kind == target ]] && args=(--target "$target" "$rampup" "$duration" "$level")
  mkdir -p "$work/$id/state"
  PB_STATE=$work/$id/state PB_RESULTS=$work/$id/results "$root/run.sh" "${args[@]}" >"$work/$id/run.out" 2>&1 || rc=$?
  dir=$(find "$work/$id/results" -mindepth 1 -maxdepth 1 -type d 2>/dev/null | head -n 1) || dir=""   # none: refused before it made one
  node - "$dir" "$repeat" "$level" "$kind" "$rc" >>"$out" <<'EOF'
const fs = require('node:fs');
const path = require('node:path');
const [dir, repeat, level, kind, rc] = process.argv.slice(2);
const read = (f) => { try { return JSON.parse(fs.readFileSync(path.join(dir, 'data', f), 'utf8')); } catch { return null; } };
const s = read('summary.json');
const w = s?.workload;
let perSecond = null;
if (kind === 'native') perSecond = w?.answers?.achievedPerSecond ?? null;
else {
  const received = read('series.json')?.series?.received ?? [];
  const win = s?.steadyWindow;
  const inWindow = win ? received.slice(win.fromSecond, win.toSecond) : [];
  perSecond = inWindow.length ? inWindow.reduce((a, b) => a + b, 0) / inWindow.length : null;
}
const cpu = w?.engines?.[0]?.jvmCpuMean ?? null;
const micros = cpu === null || !perSecond ? null : Math.round((cpu / 100) * 1e6 / perSecond * 10) / 10;
const trip = kind === 'native' ? s?.tripTime?.comet : s?.target?.tripTime;
const missed = kind === 'native' ? s?.messages?.comet?.missed : s?.target?.messages?.missed;
console.log(JSON.stringify({ repeat: Number(repeat), level: Number(level), kind, exit: Number(rc), run: dir,
  verdict: s?.validity?.verdict ?? null, messagesPerSecond: perSecond === null ? null : Math.round(perSecond),
  engineCpuPercent: cpu, engineMicrosPerMessage: micros, missed: missed ?? null, tripP99Ms: trip?.p99Ms ?? null }));
EOF
  echo "target-cost: $(tail -n 1 "$out")"
}

for ((r = 1; r <= repeats; r++)); do
  for level in "${level_list[@]}"; do
    for kind in native target; do one_run "$r" "$level" "$kind"; done
  done
done

node "$root/bench/pairs.js" "$out" native target
