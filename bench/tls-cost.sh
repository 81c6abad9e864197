#!/usr/bin/env bash
# What TLS costs the engine (issue #49 item 1, docs/engine.md "TLS"): the same target run over plain TCP and
# over TLS, side by side in one invocation, repeated. Each run is a real ./run.sh --target on this machine
# (one engine, the local default) against nginx + nchan (targets/nchan/nchan.sh, two instances started and
# stopped here on ports of their own, one with --tls and a certificate of targets/tls/make-certs.sh), SSE,
# 10 channels at 1 message/s each, so every stream gets one message a second:
#   plain  nchan-sse over http://
#   tls    nchan-sse over https:// (subscribe and publish), tls.ca the test CA (certificates and names checked)
#
#   bench/tls-cost.sh [--levels 1000,10000] [--repeats 3] [--rampup <s>] [--duration <s>] [--out <file>]
#
# Per run, over its steady window (analysis/measure/workload.js; a target run's ends with its publishers):
#   engine µs/message  the engine JVM's CPU (pidstat, % of a core) / messages received per second x 10^6
#                      (the messages its subscribers received, data/series.json)
#   KB/conn            (live heap while loaded - live heap of the idle engine) / connections: jcmd
#                      GC.class_histogram's total (a full collection first), taken 3/4 into the window, in the
#                      first repeat only (its full collection stops the engine)
#   messages/s, missed, trip p99 ms (target.tripTime), failed subscriptions, the verdict
# Every run's figures go to --out (JSON lines); the table at the end gives per (level, kind) the median and
# range over the repeats, and per level the tls / plain ratio of each repeat's pair (median, range).
# Goal (issue #49): tls <= 2 x plain per message; 10,000 TLS streams valid on one engine.
set -euo pipefail
root=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
# shellcheck source=lib/config.sh
source "$root/lib/config.sh"
# shellcheck source=bench/lib/options.sh
source "$root/bench/lib/options.sh"

usage="usage: bench/tls-cost.sh [--levels 1000,10000] [--repeats 3] [--rampup <s>] [--duration <s>] [--out <file>]"
levels=1000,10000 repeats=3 rampup=10 duration=40 out=''
bench_options "$usage" levels repeats rampup duration out -- "$@"
[[ $levels =~ ^[1-9][0-9]*(,[1-9][0-9]*)*$ && $repeats =~ ^[1-9][0-9]*$ && $rampup =~ ^[0-9]+$ && $duration =~ ^[1-9][0-9]*$ ]] || { echo "$usage" >&2; exit 2; }
((duration >= rampup + 20)) || { echo "tls-cost: --duration must be at least --rampup + 20 s" >&2; exit 2; }
command -v jcmd >/dev/null || { echo "tls-cost: jcmd (the JDK's) is needed" >&2; exit 2; }
IFS=, read -ra level_list <<<"$levels"
work=$(mktemp -d "${TMPDIR:-/tmp}/pb-tls-cost.XXXXXX")
[[ -n $out ]] || out=$work/runs.jsonl
: >"$out"
port=$((PB_PORT_NODE + 120))
watcher=''
cleanup() {
  [[ -z $watcher ]] || kill "$watcher" 2>/dev/null || true
  "$root/targets/nchan/nchan.sh" stop --dir "$work/nchan-plain" >/dev/null 2>&1 || true
  "$root/targets/nchan/nchan.sh" stop --dir "$work/nchan-tls" >/dev/null 2>&1 || true
}
trap cleanup EXIT
trap 'exit 130' INT TERM HUP
"$root/targets/tls/make-certs.sh" "$work/certs"
"$root/targets/nchan/nchan.sh" start --port "$port" --dir "$work/nchan-plain"
"$root/targets/nchan/nchan.sh" start --port "$((port + 1))" --dir "$work/nchan-tls" --tls "$work/certs/server.pem" "$work/certs/server.key"
sed "s/:18480\//:$port\//g" "$root/targets/nchan-sse.json" >"$work/plain.json"
# shellcheck disable=SC2016  # a Node.js program, its template literals its own
node -e '
  const t = JSON.parse(require("node:fs").readFileSync(process.argv[1], "utf8"));
  const s = (u) => u.replace("http://127.0.0.1:18480/", `https://127.0.0.1:${process.argv[2]}/`);
  t.subscribe.url = s(t.subscribe.url); t.publish.url = s(t.publish.url); t.tls = { ca: "certs/ca.pem" };
  process.stdout.write(JSON.stringify(t, null, 2));' "$root/targets/nchan-sse.json" "$((port + 1))" >"$work/tls.json"
echo "tls-cost: runs in $work, figures in $out"

live_bytes() { jcmd "$1" GC.class_histogram 2>/dev/null | awk '$1 == "Total" { print $3 }'; }

# watch <state dir> <figures file>: while the run lasts, the engine JVM's live heap idle (once bound) and
# loaded (3/4 into the steady window), written to <figures file> as key=value lines.
watch_engine() {
  local state=$1 file=$2 pid='' idle='' loaded='' started='' at pidfile
  at=$((rampup + (duration - rampup) * 3 / 4))
  while true; do
    if [[ -z $pid ]]; then
      for pidfile in "$state"/runs/*/engine-local.pid; do [[ -s $pidfile ]] && read -r pid _ <"$pidfile"; done
      sleep 0.5; continue
    fi
    [[ -d /proc/$pid ]] || break
    if [[ -z $idle ]] && grep -q 'Bound to RMI' "$state/engine-local.log" 2>/dev/null; then idle=$(live_bytes "$pid"); fi
    if [[ -z $started ]] && grep -q 'threads for group Request' "$state/engine-local.log" 2>/dev/null; then started=$SECONDS; fi
    if [[ -n $started && -z $loaded ]] && ((SECONDS - started >= at)); then loaded=$(live_bytes "$pid"); fi
    printf 'idle=%s\nloaded=%s\n' "$idle" "$loaded" >"$file"
    sleep 1
  done
}

one_run() { # <repeat> <level> <kind>
  local repeat=$1 level=$2 kind=$3 id=r$1-$2-$3 rc=0 dir figures
  figures=$work/$id.figures
  mkdir -p "$work/$id/state"
  if ((repeat == 1)); then watch_engine "$work/$id/state" "$figures" & watcher=$!; fi
  PB_STATE=$work/$id/state PB_RESULTS=$work/$id/results "$root/run.sh" --target "$work/$kind.json" "$rampup" "$duration" "$level" \
    >"$work/$id/run.out" 2>&1 || rc=$?
  if [[ -n $watcher ]]; then kill "$watcher" 2>/dev/null || true; wait "$watcher" 2>/dev/null || true; watcher=''; fi
  dir=$(find "$work/$id/results" -mindepth 1 -maxdepth 1 -type d | head -n 1)
  node - "$dir" "$figures" "$repeat" "$level" "$kind" "$rc" >>"$out" <<'JS'
const fs = require('node:fs');
const path = require('node:path');
const [dir, figuresFile, repeat, level, kind, rc] = process.argv.slice(2);
const figures = Object.fromEntries((fs.existsSync(figuresFile) ? fs.readFileSync(figuresFile, 'utf8') : '')
  .split('\n').filter(Boolean).map((l) => l.split('=')));
const read = (f) => { try { return JSON.parse(fs.readFileSync(path.join(dir, 'data', f), 'utf8')); } catch { return null; } };
const s = read('summary.json');
const received = read('series.json')?.series?.received ?? [];
const win = s?.steadyWindow;
const inWindow = win ? received.slice(win.fromSecond, win.toSecond) : [];
const perSecond = inWindow.length ? inWindow.reduce((a, b) => a + b, 0) / inWindow.length : null;
const cpu = s?.workload?.engines?.[0]?.jvmCpuMean ?? null;
const micros = cpu === null || !perSecond ? null : Math.round((cpu / 100) * 1e6 / perSecond * 10) / 10;
const kb = figures.idle && figures.loaded ? Math.round((Number(figures.loaded) - Number(figures.idle)) / 1024 / Number(level) * 100) / 100 : null;
const t = s?.target;
console.log(JSON.stringify({ repeat: Number(repeat), level: Number(level), kind, exit: Number(rc), run: dir,
  verdict: s?.validity?.verdict ?? null, messagesPerSecond: perSecond === null ? null : Math.round(perSecond),
  engineCpuPercent: cpu, engineMicrosPerMessage: micros, kbPerConnection: kb, missed: t?.messages?.missed ?? null,
  failedSubscriptions: t?.subscriptions?.failed ?? null, tripP99Ms: t?.tripTime?.p99Ms ?? null }));
JS
  echo "tls-cost: $(tail -n 1 "$out")"
}

for ((r = 1; r <= repeats; r++)); do
  for level in "${level_list[@]}"; do
    for kind in plain tls; do one_run "$r" "$level" "$kind"; done
  done
done

node "$root/bench/pairs.js" "$out" plain tls
