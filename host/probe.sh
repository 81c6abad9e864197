#!/usr/bin/env bash
# The service probe (docs/faults.md, issue #36 item 3): run on an engine's host before the load, it asks the
# server under test for GET /timestamp (docs/protocol.md) at the address and port the engines target, the
# way the engines will, so that a server this host cannot reach stops the run before any load instead of
# turning it into a run of failed samples.
#
#   host/probe.sh <address> <port> [<seconds>]
#   host/probe.sh --connect <address> <port> [<seconds>]
#
# --connect (a target run, docs/targets.md: a server pushbench does not know the protocol of) only opens a
# TCP connection and closes it: "connected to <address>:<port>", exit 0, or why not on stderr, exit 1.
#
# Prints "reached <address>:<port>: HTTP/1.1 200 ..." and exits 0 on a 200 within <seconds> (default 5);
# otherwise prints why (refused, timed out, the status line) on stderr and exits 1; 2 for a usage error.
# Needs nothing but bash and coreutils' timeout (the connection is bash's /dev/tcp).
set -euo pipefail

connect_only=0
if [[ ${1:-} == --connect ]]; then connect_only=1; shift; fi
if ! (($# >= 2 && $# <= 3)) || [[ ! $2 =~ ^[0-9]+$ || ! ${3:-5} =~ ^[0-9]+$ ]]; then
  echo "usage: host/probe.sh [--connect] <address> <port> [<seconds>]" >&2
  exit 2
fi
address=$1 port=$2 seconds=${3:-5}

if ((connect_only)); then
  # shellcheck disable=SC2016 # expanded by the inner bash
  if timeout "$seconds" bash -c 'exec 3<>"/dev/tcp/$1/$2"' probe "$address" "$port" 2>/dev/null; then
    echo "connected to $address:$port"
    exit 0
  fi
  echo "cannot connect to $address:$port within $seconds s (refused, unreachable or no answer)" >&2
  exit 1
fi

# One request on a fresh connection; the status line of the answer, or the error.
rc=0
# shellcheck disable=SC2016 # expanded by the inner bash
status=$(timeout "$seconds" bash -c '
  exec 3<>"/dev/tcp/$1/$2" || exit 3
  printf "GET /timestamp HTTP/1.1\r\nHost: %s:%s\r\nConnection: close\r\n\r\n" "$1" "$2" >&3
  IFS= read -r line <&3 || exit 4
  printf "%s" "${line%$'"'"'\r'"'"'}"
' probe "$address" "$port" 2>/dev/null) || rc=$?
if ((rc != 0)); then
  case $rc in
    124) echo "no answer from $address:$port within $seconds s" >&2 ;;
    3) echo "cannot connect to $address:$port (refused or unreachable)" >&2 ;;
    4) echo "$address:$port closed the connection without an answer" >&2 ;;
    *) echo "the probe of $address:$port failed" >&2 ;;
  esac
  exit 1
fi
if [[ $status =~ ^HTTP/1\.[01]\ 200 ]]; then
  echo "reached $address:$port: $status"
  exit 0
fi
echo "$address:$port answered GET /timestamp with '${status:0:100}', not 200" >&2
exit 1
