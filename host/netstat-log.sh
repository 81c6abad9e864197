#!/usr/bin/env bash
# Runs ON the SUT host, started by host/monitor.sh: the host's TCP and IP counters once a second, for the
# network cost per delivered message (issue #26: CHIRON's traffic of push against pull). One line per sample:
#
#   <epoch ms> <ActiveOpens> <PassiveOpens> <InSegs> <OutSegs> <RetransSegs> <InOctets> <OutOctets>
#
# Tcp: of /proc/net/snmp (connections opened by this host / accepted by it, segments) and IpExt: of
# /proc/net/netstat (IP bytes, headers included). Both count the network namespace the script runs in: a
# namespace host has its own. --once prints one sample and exits. Samples keep the phase of the first one.
set -euo pipefail

# The values of one "<Section>:" of a /proc/net file, named by its header line: prints the fields asked.
proc_fields() { # <file> <section> <field>...
  local file=$1 section=$2; shift 2
  local -a header=() values=()
  local key rest
  while read -r key rest; do
    [[ $key == "$section:" ]] || continue
    if ((${#header[@]} == 0)); then read -ra header <<<"$rest"; else read -ra values <<<"$rest"; break; fi
  done <"$file"
  local want i out=()
  for want in "$@"; do
    local found=-
    for i in "${!header[@]}"; do [[ ${header[i]} == "$want" ]] && found=${values[i]:--}; done
    out+=("$found")
  done
  echo "${out[*]}"
}

sample() {
  local t=${EPOCHREALTIME/[.,]/}
  echo "$((10#$t / 1000)) $(proc_fields /proc/net/snmp Tcp ActiveOpens PassiveOpens InSegs OutSegs RetransSegs)" \
    "$(proc_fields /proc/net/netstat IpExt InOctets OutOctets)"
}

if [[ ${1:-} == --once ]]; then
  sample
  exit 0
fi
max=${1:-172800}
[[ $max =~ ^[1-9][0-9]{0,6}$ ]] || { echo "usage: host/netstat-log.sh [--once | <max seconds>]" >&2; exit 2; }

micros() { local t=${EPOCHREALTIME/[.,]/}; echo $((10#$t)); }

start=$(micros)
for ((n = 0; n < max; n++)); do
  sample
  now=$(micros)
  wait_us=$((start + (n + 1) * 1000000 - now))
  if ((wait_us > 0)); then
    sleep "$((wait_us / 1000000)).$(printf '%06d' $((wait_us % 1000000)))"
  fi
done
