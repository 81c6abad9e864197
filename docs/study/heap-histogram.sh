#!/usr/bin/env bash
# What a Tomcat's heap holds while it runs (issue #35 item 4: the study's Tomcat 7 died of OutOfMemoryError,
# section 5): waits for the next run whose id matches <pattern> to start its load, then, <at> seconds
# later, takes the server's class histogram (`jcmd <pid> GC.class_histogram`: live objects, after the full
# collection it makes; one stop of the server, logged in its sut/gc.log like any other) into
# <out>/<run id>.txt, its first line "# taken at epoch ms <n>". Run it on the SUT host beside a sweep
# (docs/study/runs.sh); once the run is done, give the histogram to the run and analyse it again:
#
#   cp <out>/<run id>.txt <run dir>/sut/class-histogram.txt && node analysis/analyze.js <run dir>
#
# data/summary.json then has serverHeapHistogram (analysis/read/server-log.js), and docs/study's page shows it.
#
#   docs/study/heap-histogram.sh --run <pattern> [--at <s>] [--out <dir>] [--wait <s>]
#
#   --run   the run id's shape, e.g. '*-tc7-comet-15000-600' (a glob on run ids)
#   --at    seconds after the run's load controller started (default 300)
#   --out   where the histogram goes (default $PB_STUDY_RAW/heap-histograms, else /tmp/study-raw/heap-histograms)
#   --wait  how long to wait for such a run to start, in seconds (default 7200)
#
# The run's state is read from $PB_STATE (default /tmp/study-state), as run.sh writes it: runs/<id>/ holds
# <server>.pid while the server runs ("<pid> <start time>": lib/procs.sh) and controller.pid once the load
# started. jcmd is the server JVM's own, pinned to PB_ENGINE_CPUS (default 0) so that it takes nothing from
# the server's core.
# Exit codes: 0 taken, 1 no such run started in time or its server ended first, 2 usage.
set -euo pipefail
# shellcheck source=lib/procs.sh
source "$(dirname "${BASH_SOURCE[0]}")/../../lib/procs.sh"

pattern='' at=300 wait=7200
out=${PB_STUDY_RAW:-/tmp/study-raw}/heap-histograms
state=${PB_STATE:-/tmp/study-state}
usage() { echo "usage: docs/study/heap-histogram.sh --run <pattern> [--at <s>] [--out <dir>] [--wait <s>]" >&2; exit 2; }
while [[ $# -gt 0 ]]; do
  case $1 in
    --run) pattern=${2:-}; shift 2 || usage ;;
    --at) at=${2:-}; shift 2 || usage ;;
    --out) out=${2:-}; shift 2 || usage ;;
    --wait) wait=${2:-}; shift 2 || usage ;;
    -h | --help) sed -n '2,24p' "$0" | sed 's/^# \{0,1\}//'; exit 0 ;;
    *) usage ;;
  esac
done
[[ -n $pattern ]] || usage
[[ $at =~ ^[0-9]+$ ]] || { echo "heap-histogram: --at wants whole seconds, not '$at'" >&2; exit 2; }
[[ $wait =~ ^[1-9][0-9]*$ ]] || { echo "heap-histogram: --wait wants whole seconds >= 1, not '$wait'" >&2; exit 2; }

# the next run of that shape: one whose directory is newer than this call
since=$(date +%s)
run=''
while [[ -z $run ]]; do
  for d in "$state"/runs/$pattern; do
    [[ -d $d && $(stat -c %Y "$d") -ge $since ]] && run=$d && break
  done
  [[ -n $run ]] && break
  (($(date +%s) - since < wait)) || { echo "heap-histogram: no run like '$pattern' started under $state/runs in ${wait} s" >&2; exit 1; }
  sleep 2
done
id=$(basename "$run")
echo "heap-histogram: run $id started; waiting for its load" >&2
until [[ -s $run/controller.pid ]]; do
  [[ -d $run ]] || { echo "heap-histogram: run $id ended before its load started" >&2; exit 1; }
  sleep 1
done
sleep "$at"

pidfile=$(find "$run" -maxdepth 1 -name '*.pid' ! -name controller.pid ! -name run.pid ! -name 'engine-*.pid' | head -1)
if ! pid=$(procs_alive "${pidfile:-/nonexistent}"); then
  echo "heap-histogram: the server of $id is gone (${pidfile:-no pid file})" >&2
  exit 1
fi
jcmd=$(dirname "$(readlink "/proc/$pid/exe")")/jcmd
mkdir -p "$out"
tmp=$out/.$id.txt
printf '# taken at epoch ms %s by docs/study/heap-histogram.sh, %s s after the load controller started\n' "$(date +%s%3N)" "$at" >"$tmp"
taskset -c "${PB_ENGINE_CPUS:-0}" "$jcmd" "$pid" GC.class_histogram >>"$tmp"
mv "$tmp" "$out/$id.txt"
echo "heap-histogram: $out/$id.txt" >&2
