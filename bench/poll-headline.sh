#!/usr/bin/env bash
# The study's headline (its section 5.1.3): long poll, no events, 10 s max duration, the same number of
# connections on Node.js, Tomcat 6 and Tomcat 7, one run each, then responses per second in the
# steady state side by side, against the workload's limit (connections / 10 s). The study reached
# 650, 540 and 385 responses/s at 20,000 connections: 33%, 27% and 19% of the limit of 2,000/s.
#
#   bench/poll-headline.sh [--connections <n>] [--rampup <s>] [--duration <s>] [--servers node,tc6,tc7]
#                          [--engines <n>] [--settle <s>]
#
# Defaults: 15,000 connections (one process here holds at most ~19,800 sockets), a ramp-up of one
# second per 200 connections (75 s at 15k), and a duration of rampup + 112 s (187 s at 15k, about eleven
# poll cycles with every connection open). While a Tomcat server takes a core, JMeter starts no more than
# ~200 threads/s here; asked for more (39 s at 15k, as before), it falls behind and starts the rest flat
# out, and one thread in ten then took 3.8-7 s from an answer to its next poll: Tomcat 6 95.8% and
# Tomcat 7 95.3%, against 97.7% and 98.3% with 75 s (docs/limits.md, the JMeter start rate row).
# Hosts from $PB_HOSTS; --engines <n> runs everything on this machine with n JMeter engines instead (a
# hosts.conf of n local engines): one JVM holding 15,000 threads stops them all for each young collection,
# and n smaller ones pause less each and not together (docs/limits.md). Between two servers the machine
# rests --settle seconds (default 150): right after a Node.js run, Tomcat 6 gave 91.8-94.3% in four
# invocations, and 98.5% after 150 s of rest (docs/limits.md). Runs land in $PB_RESULTS.
# Goal: >= 95% of the limit.
set -euo pipefail
root=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)

usage() { echo "usage: bench/poll-headline.sh [--connections <n>] [--rampup <s>] [--duration <s>] [--servers node,tc6,tc7] [--engines <n>] [--settle <s>]" >&2; exit 2; }
connections=15000 rampup='' duration='' servers=node,tc6,tc7 engines='' settle=150
while [[ $# -gt 0 ]]; do
  case $1 in
    --connections) connections=${2:?}; shift 2 ;;
    --rampup) rampup=${2:?}; shift 2 ;;
    --duration) duration=${2:?}; shift 2 ;;
    --servers) servers=${2:?}; shift 2 ;;
    --engines) engines=${2:?}; shift 2 ;;
    --settle) settle=${2:?}; shift 2 ;;
    -h | --help) sed -n '2,21p' "$0" | sed 's/^# \{0,1\}//'; exit 0 ;;
    *) usage ;;
  esac
done
[[ $connections =~ ^[1-9][0-9]*$ ]] || { echo "poll-headline: --connections wants a positive number" >&2; exit 2; }
[[ -n $rampup ]] || rampup=$(((connections + 199) / 200))
[[ $rampup =~ ^[1-9][0-9]*$ ]] || { echo "poll-headline: --rampup wants a positive number" >&2; exit 2; }
[[ -n $duration ]] || duration=$((rampup + 112))
[[ $duration =~ ^[1-9][0-9]*$ ]] || { echo "poll-headline: --duration wants a positive number" >&2; exit 2; }
[[ $settle =~ ^[0-9]{1,4}$ ]] || { echo "poll-headline: --settle wants seconds, 0 to 9999" >&2; exit 2; }

dir_file=$(mktemp) hosts_file=''
figures=()
trap 'rm -f "$dir_file" ${hosts_file:+"$hosts_file"}' EXIT
if [[ -n $engines ]]; then
  [[ $engines =~ ^[1-9]$ ]] || { echo "poll-headline: --engines wants 1 to 9" >&2; exit 2; }
  hosts_file=$(mktemp)
  # shellcheck source=lib/config.sh
  source "$root/lib/config.sh"
  {
    echo "sut local 127.0.0.1 local"
    for ((i = 1; i <= engines; i++)); do
      echo "engine local$i 127.0.0.1 local rmi=$((PB_JMETER_RMI_PORT + 100 * (i - 1)))"
    done
  } >"$hosts_file"
  export PB_HOSTS=$hosts_file
fi
IFS=, read -r -a list <<<"$servers"
first=1
for server in "${list[@]}"; do
  if ((!first && settle > 0)); then
    echo "  resting ${settle} s before the next server (--settle)"
    sleep "$settle"
  fi
  first=0
  echo "=== $server: $connections connections, long poll 10 s, no events, rampup $rampup s, duration $duration s"
  : >"$dir_file"
  rc=0
  PB_RUN_DIR_FILE=$dir_file "$root/run.sh" "$server" "$rampup" "$duration" "$connections" poll 10000 || rc=$?
  run_dir=$(<"$dir_file")
  if [[ -z $run_dir ]]; then
    echo "poll-headline: $server: run.sh made no run (exit $rc)" >&2
    figures+=("{\"server\":\"$server\",\"error\":\"run.sh exit $rc\"}")
    continue
  fi
  if ! f=$(node "$root/bench/run-figures.js" poll "$run_dir"); then
    figures+=("{\"server\":\"$server\",\"error\":\"no figures (run.sh exit $rc)\"}")
    continue
  fi
  figures+=("$f")
done

# shellcheck disable=SC2016  # a JavaScript program
printf '%s\n' "${figures[@]}" | node -e '
const rows = require("fs").readFileSync(0, "utf8").trim().split("\n").map((l) => JSON.parse(l));
console.log("\nlong poll, no events, 10 s max duration, steady state:");
console.log("server  connections  with a poll  responses/s  limit/s  of limit  failed  last start  gap p90  worst 10 s  steal  run");
for (const r of rows) {
  if (r.error) { console.log(`${r.server.padEnd(6)}  ${r.error}`); continue; }
  const flag = r.serverCrashed ? " (server crashed)" : r.status !== "complete" ? ` (${r.status})` : "";
  const steal = r.stealPercent == null ? "    -" : `${r.stealPercent.toFixed(1).padStart(4)}%`;
  const disturbed = r.stealPercent > 2 ? ` (disturbed: the hypervisor took ${r.stealPercent.toFixed(1)}% of the CPU, over 10% in ${r.stealSeconds} s; run it again)` : "";
  const ms = (v) => (v == null ? "-" : `${v} ms`);
  const worst = r.worstGapSecond == null ? "-" : `${ms(r.worstGapP90Ms)} @${r.worstGapSecond}s`;
  const start = r.lastStartSecond == null ? "-" : `${r.lastStartSecond.toFixed(0)} s`;
  console.log(`${r.server.padEnd(6)}  ${String(r.connections).padStart(11)}  ${String(r.connectionsSeen).padStart(11)}  ${r.responsesPerSecond.toFixed(1).padStart(11)}  ${r.limitPerSecond.toFixed(0).padStart(7)}  ${(100 * r.fraction).toFixed(1).padStart(7)}%  ${String(r.failed).padStart(6)}  ${start.padStart(10)}  ${ms(r.gapP90Ms).padStart(7)}  ${worst.padStart(10)}  ${steal}  ${r.id}${flag}${disturbed}`);
}
console.log("(study at 20,000 connections: node 33%, tc6 27%, tc7 19% of 2,000/s; goal here >= 95%)");
console.log("(with a poll: connections that completed at least one poll before the clear; the others add nothing)");
console.log("(last start: when JMeter started its last thread, after the first; gap p90: 90th percentile of the time from an answer");
console.log(" to the next poll of its thread, over the run and in its worst 10 s: seconds there mean JMeter was short of CPU)");
console.log("(steal: mean CPU the hypervisor gave to other guests during the run, vmstat st on the SUT host)");
'
