#!/usr/bin/env bash
# How much time does run.sh itself add to a test? One real run (node, comet, an event every 2 s) on
# the hosts of $PB_HOSTS (default: this machine), then set-up, teardown, collection and analysis
# time from run.json's "steps", and their total as a fraction of the test duration (goal: <= 10%).
#
#   bench/run-overhead.sh [--duration <s>] [--threads <n>] [--server node|tc6|tc7]
#
# Defaults: 60 s, 500 threads, node. The run lands in $PB_RESULTS (default results/) like any other.
# The wait step is not overhead, but JMeter's own start-up and shut-down inside it are shown too.
set -euo pipefail
root=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)

duration=60 threads=500 server=node
while [[ $# -gt 0 ]]; do
  case $1 in
    --duration) duration=${2:?}; shift 2 ;;
    --threads) threads=${2:?}; shift 2 ;;
    --server) server=${2:?}; shift 2 ;;
    -h | --help) sed -n '2,10p' "$0" | sed 's/^# \{0,1\}//'; exit 0 ;;
    *) echo "usage: bench/run-overhead.sh [--duration <s>] [--threads <n>] [--server node|tc6|tc7]" >&2; exit 2 ;;
  esac
done
rampup=$((threads / 500 + 2))   # JMeter starts ~500 threads/s here

dir_file=$(mktemp)
trap 'rm -f "$dir_file"' EXIT
rc=0
PB_RUN_DIR_FILE=$dir_file "$root/run.sh" "$server" "$rampup" "$duration" "$threads" comet - event1 2000 || rc=$?
run_dir=$(<"$dir_file")
[[ -n $run_dir ]] || { echo "run-overhead: run.sh made no run (exit $rc)" >&2; exit 1; }
((rc == 0)) || echo "run-overhead: note: run.sh exited $rc" >&2

node - "$root/bench/run-figures.js" "$run_dir" <<'EOF'
const [figures, runDir] = process.argv.slice(2);
const f = require(figures).overhead(JSON.parse(require('fs').readFileSync(`${runDir}/run.json`, 'utf8')));
const s = (ms) => `${(ms / 1000).toFixed(1).padStart(6)} s`;
console.log(`\nrun.sh overhead for ${f.id} (${f.status}), test duration ${f.durationMs / 1000} s:`);
console.log(`  set-up      ${s(f.setup)}`);
console.log(`  teardown    ${s(f.teardown)}`);
console.log(`  collection  ${s(f.collection)}`);
console.log(`  analysis    ${s(f.analysis)}`);
console.log(`  total       ${s(f.totalMs)}  = ${(100 * f.fraction).toFixed(1)}% of the test duration (goal <= 10%: ${f.fraction <= 0.1 ? 'met' : 'NOT met'})`);
console.log(`  (inside the wait, JMeter took ${s(f.jmeterExtraMs)} beyond the test duration: its start-up, the clean-up group, shut-down)`);
EOF
