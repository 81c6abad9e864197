#!/usr/bin/env bash
# The runs behind docs/transports (issue #38 item 5): the five push transports — comet, long poll, pull,
# SSE and WebSocket — with 1 s events at 1,000, 5,000 and 10,000 connections, one sweep per server, the
# server pinned to PB_SERVER_CPUS (default 1) and the load generator, controller, monitors and analysis to
# PB_ENGINE_CPUS (default 0) as in the study's at-scale sitting (docs/study/runs.sh). Each client pulls
# once per emit interval (CHIRON's fair case, docs/pull.md); long polls are held up to 180 s, as the study's
# with events. Raw run directories go to PB_TRANSPORTS_RAW (default /tmp/transports-raw), never into the
# repository; charts/transports.js then keeps one record per run in docs/transports/data/runs.json.
#
#   docs/transports/runs.sh                    node and tc7, pass 1 (~40 min on a quiet 2-core machine)
#   docs/transports/runs.sh --servers tc6 2    tc6 (no WebSocket), pass 2; a cut pass resumes where it was
#   node charts/transports.js docs/transports /tmp/transports-raw/*     the page from every pass
#
# PB_TRANSPORTS_TREE: the checkout whose sweep.sh runs (default: this one). Ports are moved out of the test
# slots' ranges and the study's (docs/study/runs.sh). Exit 1 when the sweep had a run that failed, 2 on a
# usage error.
set -uo pipefail

tree=${PB_TRANSPORTS_TREE:-$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)}
raw=${PB_TRANSPORTS_RAW:-/tmp/transports-raw}
export PB_RESULTS=$raw/results PB_STATE=${PB_STATE:-/tmp/transports-state}
export PB_PORT_NODE=21080 PB_PORT_TC6=21086 PB_PORT_TC7=21087
export PB_JMETER_RMI_PORT=21099 PB_JMETER_RMI_LOCALPORT=21000 PB_JMETER_CLIENT_LOCALPORT=21100
export PB_SERVER_CPUS=${PB_SERVER_CPUS:-1} PB_ENGINE_CPUS=${PB_ENGINE_CPUS:-0}

servers=node,tc7
if [[ ${1:-} == --servers ]]; then
  servers=${2:-}
  shift 2 || true
fi
pass=${1:-1}
[[ $servers =~ ^[a-z0-9-]+(,[a-z0-9-]+)*$ && $pass =~ ^[1-9]$ ]] || {
  echo "usage: docs/transports/runs.sh [--servers node,tc7] [<pass 1-9>]" >&2
  exit 2
}

taskset -c "$PB_ENGINE_CPUS" "$tree/sweep.sh" --yes --quiet --dir "$raw/pass$pass-${servers//,/-}" \
  --servers "$servers" --types comet,poll,pull,sse,ws --levels 1000,5000,10000 --filter 'event1 1000$' \
  --rampup 10 --duration 40
