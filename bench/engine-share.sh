#!/usr/bin/env bash
# The engine's share of the server's CPU on every server and transport (issue #48 item 2; docs/engine.md
# "Every server and transport"): one real ./run.sh per (server, transport, level), pinned as the study pins
# unless told otherwise, each run's line from bench/engine-share.js appended to --out, and the table of
# --out at the end.
#
#   bench/engine-share.sh --out <lines.jsonl> [--servers node,tc7,tc6] [--types comet,poll,pull,sse,ws]
#                         [--levels 5000,10000] [--rampup 10] [--duration 60] [--results <dir>]
#
# Each run: `./run.sh <server> <rampup> <duration> <level> <transport> <arg> event1 1000`, 1 s events, where
# <arg> is `-` for a held stream (comet, sse, ws), 180000 for long polls (a poll is held until the next
# event) and 1000 for pull (each client pulls once a second). Pinning: PB_SERVER_CPUS and PB_ENGINE_CPUS
# from the environment, 1 and 0 when unset (set both empty to run unpinned). A line's figures are defined in
# bench/engine-share.js; the line records the pinning, commit and CPU model it was measured under.
#
# Resumable: a (server, transport, level) that --out already holds is not run again, so a sitting cut short
# goes on where it stopped with the same command. A combination run.sh refuses (WebSocket on Tomcat 6) is
# named and skipped. Raw run directories go under --results (default: a new directory under TMPDIR), kept.
# Exit: 0 when every cell has its line, 1 when a run left none (named), 2 on a usage error.
set -euo pipefail
root=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)

# shellcheck source=bench/lib/options.sh
source "$root/bench/lib/options.sh"
usage="usage: bench/engine-share.sh --out <lines.jsonl> [--servers node,tc7,tc6] [--types comet,poll,pull,sse,ws] [--levels 5000,10000] [--rampup 10] [--duration 60] [--results <dir>]"
servers=node,tc7,tc6 types=comet,poll,pull,sse,ws levels=5000,10000 rampup=10 duration=60 out='' results=''
bench_options "$usage" servers types levels rampup duration out results -- "$@"
[[ -n $out ]] || { echo "engine-share: --out <lines.jsonl> is needed (the lines are kept there between sittings)" >&2; exit 2; }
[[ $servers =~ ^(node|tc6|tc7)(,(node|tc6|tc7))*$ ]] || { echo "engine-share: --servers wants node, tc6, tc7 (comma-separated)" >&2; exit 2; }
[[ $types =~ ^(comet|poll|pull|sse|ws)(,(comet|poll|pull|sse|ws))*$ ]] || { echo "engine-share: --types wants comet, poll, pull, sse, ws (comma-separated)" >&2; exit 2; }
[[ $levels =~ ^[1-9][0-9]*(,[1-9][0-9]*)*$ && $rampup =~ ^[0-9]+$ && $duration =~ ^[1-9][0-9]*$ ]] || { echo "$usage" >&2; exit 2; }
((duration >= rampup + 20)) || { echo "engine-share: --duration must be at least --rampup + 20 s (the steady window)" >&2; exit 2; }
IFS=, read -ra server_list <<<"$servers"
IFS=, read -ra type_list <<<"$types"
IFS=, read -ra level_list <<<"$levels"
[[ -n $results ]] || results=$(mktemp -d "${TMPDIR:-/tmp}/pb-engine-share.XXXXXX")
mkdir -p "$results" "$(dirname "$out")"
touch "$out"
export PB_SERVER_CPUS=${PB_SERVER_CPUS-1} PB_ENGINE_CPUS=${PB_ENGINE_CPUS-0}
echo "engine-share: lines to $out, runs under $results, server CPUs '${PB_SERVER_CPUS}', engine CPUs '${PB_ENGINE_CPUS}'"

# has_line <server> <type> <level>: whether --out already holds that cell's line.
has_line() {
  node -e 'const [f, s, t, n] = process.argv.slice(1);
    const hit = require("node:fs").readFileSync(f, "utf8").split("\n").filter(Boolean).map((l) => JSON.parse(l))
      .some((l) => l.server === s && l.type === t && l.connections === Number(n));
    process.exit(hit ? 0 : 1);' "$out" "$1" "$2" "$3"
}

arg_of() { case $1 in poll) echo 180000 ;; pull) echo 1000 ;; *) echo - ;; esac; }

total=$((${#server_list[@]} * ${#type_list[@]} * ${#level_list[@]})) i=0 missing=0
for server in "${server_list[@]}"; do
  for type in "${type_list[@]}"; do
    for level in "${level_list[@]}"; do
      i=$((i + 1))
      if has_line "$server" "$type" "$level"; then echo "engine-share: [$i/$total] $server $type $level: in $out already"; continue; fi
      log=$results/$server-$type-$level.log rc=0
      echo "engine-share: [$i/$total] $server $type $level: running (log $log)"
      PB_RESULTS=$results "$root/run.sh" "$server" "$rampup" "$duration" "$level" "$type" "$(arg_of "$type")" event1 1000 >"$log" 2>&1 || rc=$?
      dir=$(sed -n 's/^run directory: //p' "$log" | tail -n 1)
      if [[ -z $dir ]]; then
        echo "engine-share: [$i/$total] $server $type $level: refused by run.sh (exit $rc): $(head -n 1 "$log")"
        continue
      fi
      if node "$root/bench/engine-share.js" "$dir" >>"$out"; then
        # shellcheck disable=SC2016 # the template literal is JavaScript's
        echo "engine-share: [$i/$total] $server $type $level: $(node -p 'const l = JSON.parse(process.argv[1]);
          `${l.engineOverServer} (engine ${l.engineMicrosPerAnswer} / server ${l.serverMicrosPerAnswer} µs per answer) ${l.verdict}`' "$(tail -n 1 "$out")")"
      else
        missing=$((missing + 1))
        echo "engine-share: [$i/$total] $server $type $level: no line (run.sh exit $rc; $dir)"
      fi
    done
  done
done
node "$root/bench/engine-share.js" --table "$out"
((missing == 0)) || exit 1
