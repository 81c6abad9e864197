#!/usr/bin/env bash
# What the load engine costs beside the server it measures (issue #34; the study's section 3.2 load at its
# scale): JMeter with a thread per connection (request.sampler=push) against the multiplexing engine
# (request.sampler=mux, docs/engine.md), side by side in one invocation, repeated. Each run is a real
# ./run.sh against the Node.js server on this machine (one engine, the local default), long poll with 1 s
# events (`poll 5000 event1 1000`: every connection is answered once a second; the 5 s max-duration only
# bounds a poll sent after the clear, which a thread-per-connection engine sometimes does) and comet with
# 1 s events (`comet - event1 1000`: every stream gets a record a second).
#
#   bench/engine-cost.sh [--levels 1000,5000,15000] [--types poll,comet] [--samplers push,mux]
#                        [--repeats 3] [--rampup <s>] [--duration <s>] [--out <file>]
#
# Defaults: the three levels, both types, both samplers, 3 repeats, rampup 10 s, duration 60 s. Within a
# repeat every (level, type) runs each sampler one after the other, so a pair shares the machine's state.
# Per run (each figure over the run's steady window, analysis/measure/workload.js):
#   engine µs/answer   the engine JVM's CPU (pidstat, % of a core) / answers per second (a long-poll
#                      answer, or a comet record: the workload's achieved answers) x 10^6
#   server µs/answer   the same for the server process; ratio = engine / server
#   answers %          achieved / expected answers (threads x emit cycles started in the window)
#   KB/conn            (live heap while loaded - live heap of the idle engine) / connections: jcmd
#                      GC.class_histogram's total (a full collection first), taken 3/4 into the window,
#                      in the first repeat only (its full collection stops the engine; the other repeats'
#                      CPU, pauses and verdicts are undisturbed)
#   threads            the engine JVM's most OS threads (/proc/<pid>/status, sampled every second)
#   opened/s engine    the run's workload.rampup.openedPerSecond (analysis/measure/workload.js, docs/engine.md
#                      "Connections opened per second"): connections whose first TCP connect completed (the
#                      stream log's C lines) / the seconds from the first request to the last of them; none
#                      from the push sampler, which writes no C line. With the default 10 s ramp-up at most
#                      level / 10 per second is asked
#   opened/s server    the server's own count: the Node.js server's GET /status polled every 20 ms from
#                      before the run's load (bench/peers/watch-open.js): level / the time from the last poll
#                      that saw no stream open to the first that saw all level (requests.comet, or
#                      requests.poll: held long polls, so a poll just after an answer can see fewer and end
#                      the span late), ±40 ms on the span; none when the server has not held them all by
#                      the ramp-up's end + 5 s (its polls, ~50 a second, stop then at the latest)
#   max pause ms       the engine's longest stop in the steady window: a safepoint or GC pause (its
#                      gc.log), the bench's own histogram left out
#   verdict            the run's validity verdict (docs/validity.md)
# Every run's figures go to --out (JSON lines, default under TMPDIR); the table at the end gives, per
# (level, type, sampler), the median and range over the repeats, and the engine/server ratio.
# Goals (issue #34): engine <= 50 µs per answer and <= half the server's; <= 16 KB per held connection;
# <= 100 OS threads at 15,000; >= 5,000 connections opened per second; no engine pause over 50 ms.
set -euo pipefail
root=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
# shellcheck source=lib/config.sh
source "$root/lib/config.sh"

usage() { echo "usage: bench/engine-cost.sh [--levels 1000,5000,15000] [--types poll,comet] [--samplers push,mux] [--repeats 3] [--rampup <s>] [--duration <s>] [--out <file>]" >&2; exit 2; }
levels=1000,5000,15000 types=poll,comet samplers=push,mux repeats=3 rampup=10 duration=60 out=''
while [[ $# -gt 0 ]]; do
  case $1 in
    --levels) levels=${2:-}; shift 2 || usage ;;
    --types) types=${2:-}; shift 2 || usage ;;
    --samplers) samplers=${2:-}; shift 2 || usage ;;
    --repeats) repeats=${2:-}; shift 2 || usage ;;
    --rampup) rampup=${2:-}; shift 2 || usage ;;
    --duration) duration=${2:-}; shift 2 || usage ;;
    --out) out=${2:-}; shift 2 || usage ;;
    -h | --help) sed -n '2,42p' "$0" | sed 's/^# \{0,1\}//'; exit 0 ;;
    *) usage ;;
  esac
done
[[ $levels =~ ^[1-9][0-9]*(,[1-9][0-9]*)*$ ]] || usage
[[ $types =~ ^(poll|comet)(,(poll|comet))?$ ]] || { echo "engine-cost: --types wants poll, comet or both" >&2; exit 2; }
[[ $samplers =~ ^(push|mux)(,(push|mux))?$ ]] || { echo "engine-cost: --samplers wants push, mux or both" >&2; exit 2; }
[[ $repeats =~ ^[1-9]$ && $rampup =~ ^[0-9]+$ && $duration =~ ^[1-9][0-9]*$ ]] || usage
((duration >= rampup + 20)) || { echo "engine-cost: --duration must be at least --rampup + 20 s" >&2; exit 2; }
command -v jcmd >/dev/null || { echo "engine-cost: jcmd (the JDK's) is needed" >&2; exit 2; }
IFS=, read -ra level_list <<<"$levels"
IFS=, read -ra type_list <<<"$types"
IFS=, read -ra sampler_list <<<"$samplers"

work=$(mktemp -d "${TMPDIR:-/tmp}/pb-engine-cost.XXXXXX")
[[ -n $out ]] || out=$work/runs.jsonl
: >"$out"
echo "engine-cost: work directory $work; runs to $out"
watcher='' server_watcher=''
cleanup() {
  [[ -z $watcher ]] || kill "$watcher" 2>/dev/null || true
  [[ -z $server_watcher ]] || kill "$server_watcher" 2>/dev/null || true
}
trap cleanup EXIT
trap 'exit 130' INT TERM HUP

live_bytes() { jcmd "$1" GC.class_histogram 2>/dev/null | awk '$1 == "Total" { print $3 }'; }

# watch <state dir> <figures file> <heap 0|1> <server watch PID>: while the run lasts, the engine JVM's
# most threads and, with heap 1, its live heap idle (once bound) and loaded (3/4 into the steady window),
# written to <figures file> as key=value lines; and the server's watch ended (no figure) when it has not
# seen every connection open by the ramp-up's end + 5 s, so its polls stay out of most of the window.
watch_engine() {
  local state=$1 file=$2 heap=$3 server_watch=$4 pid='' idle='' loaded='' threads=0 t started='' at pidfile
  while true; do
    if [[ -z $pid ]]; then
      # run.sh keeps the engine's PID file in the run's work directory, $PB_STATE/runs/<id>.
      for pidfile in "$state"/runs/*/engine-local.pid; do [[ -s $pidfile ]] && read -r pid _ <"$pidfile"; done
      sleep 0.5; continue
    fi
    [[ -d /proc/$pid ]] || break
    t=$(awk '$1 == "Threads:" { print $2 }' "/proc/$pid/status" 2>/dev/null || echo 0)
    ((t > threads)) && threads=$t
    if ((heap)) && [[ -z $idle ]] && grep -q 'Bound to RMI' "$state/engine-local.log" 2>/dev/null; then
      idle=$(live_bytes "$pid")
    fi
    if [[ -z $started ]] && grep -q 'threads for group Request' "$state/engine-local.log" 2>/dev/null; then
      started=$SECONDS
    fi
    if [[ -n $started && -n $server_watch ]] && ((SECONDS - started >= rampup + 5)); then
      kill "$server_watch" 2>/dev/null || true
      server_watch=''
    fi
    at=$((rampup + (duration - rampup) * 3 / 4))
    if ((heap)) && [[ -n $started && -z $loaded ]] && ((SECONDS - started >= at)); then
      loaded=$(live_bytes "$pid")
    fi
    printf 'threads=%s\nidle=%s\nloaded=%s\n' "$threads" "$idle" "$loaded" >"$file"
    sleep 1
  done
}

# One run; appends its JSON line to $out.
one_run() { # <repeat> <level> <type> <sampler>
  local repeat=$1 level=$2 type=$3 sampler=$4 id=r$1-$2-$3-$4 figures opened rc=0 dir
  local -a args=(node "$rampup" "$duration" "$level" poll 5000 event1 1000)
  [[ $type == comet ]] && args=(node "$rampup" "$duration" "$level" comet - event1 1000)
  figures=$work/$id.figures opened=$work/$id.opened
  mkdir -p "$work/$id/state"
  # The server's count of open streams, polled from before the server starts (refused polls are tried
  # again) until it holds every connection; watch_engine ends it at the ramp-up's end + 5 s, this limit
  # only when the load never starts.
  node "$root/bench/peers/watch-open.js" "$PB_PORT_NODE" "$type" "$level" "$((duration + 120))" >"$opened" 2>"$opened.err" &
  server_watcher=$!
  watch_engine "$work/$id/state" "$figures" "$((repeat == 1))" "$server_watcher" & watcher=$!
  PB_REQUEST_SAMPLER=$sampler PB_STATE=$work/$id/state PB_RESULTS=$work/$id/results \
    "$root/run.sh" "${args[@]}" >"$work/$id/run.out" 2>&1 || rc=$?
  kill "$watcher" 2>/dev/null || true; wait "$watcher" 2>/dev/null || true; watcher=''
  kill "$server_watcher" 2>/dev/null || true; wait "$server_watcher" 2>/dev/null || true; server_watcher=''
  dir=$(find "$work/$id/results" -mindepth 1 -maxdepth 1 -type d | head -n 1)
  node - "$dir" "$figures" "$opened" "$repeat" "$level" "$type" "$sampler" "$rc" >>"$out" <<'EOF'
const fs = require('node:fs');
const path = require('node:path');
const { runLine } = require(process.env.PB_ROOT + '/bench/engine-cost-table.js');
const [dir, figuresFile, openedFile, repeat, level, type, sampler, rc] = process.argv.slice(2);
const read = (file) => { try { return fs.readFileSync(file, 'utf8'); } catch { return ''; } };   // missing: ''
const figures = Object.fromEntries(read(figuresFile).split('\n').filter(Boolean).map((l) => l.split('=')));
let summary = null;
try { summary = JSON.parse(read(path.join(dir, 'data', 'summary.json'))); } catch { /* reported as null */ }
let serverOpened = null;
try { serverOpened = JSON.parse(read(openedFile)); } catch { /* the watch ended without its line: null */ }
console.log(JSON.stringify(runLine({ summary, gcLogText: read(path.join(dir, 'engines', 'local', 'gc.log')), figures, serverOpened,
  repeat: Number(repeat), level: Number(level), type, sampler, exit: Number(rc), run: dir })));
EOF
  echo "engine-cost: $(tail -n 1 "$out")"
}

for ((r = 1; r <= repeats; r++)); do
  for level in "${level_list[@]}"; do
    for type in "${type_list[@]}"; do
      for sampler in "${sampler_list[@]}"; do one_run "$r" "$level" "$type" "$sampler"; done
    done
  done
done

node "$root/bench/engine-cost-table.js" "$out"
