#!/usr/bin/env bash
# Runs ON the SUT host, started by host/monitor.sh: the host's memory once a second, from /proc/meminfo,
# until it is stopped or <max seconds> (default 48 h) have passed. One line per sample on stdout:
#
#   <epoch ms> <MemTotal> <MemFree> <MemAvailable> <Active> <Inactive>      (kB, as /proc/meminfo)
#
# vmstat's memory columns are not enough: procps-ng 4.0.2 (Debian 12) reads /proc/meminfo once and prints
# that first sample's memory on every line (docs/limits.md). Samples keep the phase of the first one
# (start + n seconds), so they do not drift against vmstat's and pidstat's.
set -euo pipefail

max=${1:-172800}
[[ $max =~ ^[1-9][0-9]{0,6}$ ]] || { echo "usage: host/meminfo-log.sh [<max seconds>]" >&2; exit 2; }

micros() { local t=${EPOCHREALTIME/[.,]/}; echo $((10#$t)); }

start=$(micros)
for ((n = 0; n < max; n++)); do
  total='' free='' available='' active='' inactive=''
  while read -r key value _; do
    case $key in
      MemTotal:) total=$value ;;
      MemFree:) free=$value ;;
      MemAvailable:) available=$value ;;
      Active:) active=$value ;;
      Inactive:) inactive=$value ;;
    esac
  done </proc/meminfo
  now=$(micros)
  echo "$((now / 1000)) ${total:--} ${free:--} ${available:--} ${active:--} ${inactive:--}"
  wait_us=$((start + (n + 1) * 1000000 - now))
  if ((wait_us > 0)); then
    sleep "$((wait_us / 1000000)).$(printf '%06d' $((wait_us % 1000000)))"
  fi
done
