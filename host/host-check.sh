#!/usr/bin/env bash
# shellcheck source-path=SCRIPTDIR
# Runs ON a host before a run (run.sh calls it there, locally or over ssh) and prints one line per
# problem that would spoil the run; exit 0 when there is none, 1 otherwise.
#
#   host/host-check.sh sut <server> <connections> <port>
#   host/host-check.sh engine <connections> <rmi port> <rmi local port> [<heap MB> [<disk MB>]]
#   host/host-check.sh controller <client local port> [<disk MB>]
#   host/host-check.sh limits      prints this host's open-file soft and hard limits and the kB free
#                                  under PB_STATE, one a line (unlimited as is); for run.sh --plan and
#                                  the sweep, which judge the fit with lib/open-files.sh
#
# <disk MB>: what the run needs there (run.sh sizes it from the run, lib/disk-need.js); without it
# DEFAULT_DISK_MB.
#
# <connections>: sockets one process on this host must hold (a JVM or Node needs PB_FD_RESERVE more).
set -euo pipefail
here=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
# shellcheck source=../lib/config.sh
source "$here/../lib/config.sh"
# shellcheck source=../lib/open-files.sh
source "$here/../lib/open-files.sh"

problems=0
DEFAULT_DISK_MB=200
problem() { printf '%s\n' "$*"; problems=$((problems + 1)); }

need_command() { # <command> <why>
  command -v "$1" >/dev/null 2>&1 || problem "$1 not found in PATH ($2)"
}

# The limits a process started from here gets (lib/open-files.sh judges them).
check_open_files() { # <connections> <holder: sut:<server> | engine>
  local out
  out=$(open_files_problem "$1" "$(ulimit -Sn)" "$(ulimit -Hn)" "$2") || problem "$out"
}

# A listener, or an open connection whose local end is the port: with no listener there, that is an
# outgoing connection that got the port as its ephemeral port, and the server cannot bind it either.
# (Closing connections of a server stopped moments ago do not block a bind: they are not counted.)
check_port_free() { # <port> <what>
  if ss -Htan "sport = :$1" 2>/dev/null | grep -Eq '^(LISTEN|ESTAB|SYN-SENT)'; then
    problem "port $1 ($2) is already in use here: stop what holds it (ss -tanp 'sport = :$1') or choose another" \
      "port; ports inside $(tr '\t' - </proc/sys/net/ipv4/ip_local_port_range) can be taken by any outgoing connection"
  fi
}

check_disk() { # <dir> <minimum MB>
  local dir=$1 avail
  [[ $2 =~ ^[0-9]{1,9}$ ]] || { problem "disk: '$2' is not a size in MB"; return; }
  while [[ ! -d $dir ]]; do dir=$(dirname "$dir"); done
  avail=$(df -Pm "$dir" | awk 'NR == 2 { print $4 }')
  if [[ -n $avail ]] && ((avail < $2)); then
    problem "disk: only ${avail} MB free under $dir, need at least $2 MB for this run's files (estimated from its threads, duration and intervals)"
  fi
}

# An engine short of heap does not fail: it runs on in its garbage collector and sends its requests late.
check_memory() { # <MB> <what>
  local avail
  avail=$(awk '/^MemAvailable:/ { print int($2 / 1024) }' /proc/meminfo 2>/dev/null)
  if [[ -n $avail ]] && (($1 > avail)); then
    problem "memory: $2 needs a $1 MB heap but only $avail MB are available here: add engines on other" \
      "hosts to hosts.conf (the threads are split across them), lower the threads, or set PB_JMETER_HEAP"
  fi
}

check_jmeter() {
  need_command java "JMeter needs a JDK/JRE"
  [[ -f $JMETER_HOME/bin/ApacheJMeter.jar ]] ||
    problem "JMeter home $JMETER_HOME is missing: run load/install-jmeter.sh on this host"
}

role=${1:-}
case $role in
  sut)
    [[ $# -eq 4 ]] || { echo "usage: $0 sut <server> <connections> <port>" >&2; exit 2; }
    server=$2 conns=$3 port=$4
    need_command vmstat "monitoring; Debian package procps"
    need_command pidstat "monitoring; Debian package sysstat"
    [[ -x servers/control.sh ]] || problem "servers/control.sh is missing in $PWD"
    case $server in
      node | node-cluster)
        need_command node "the Node.js server"
        [[ -f instrumentation-node/server.js ]] || problem "instrumentation-node/server.js is missing in $PWD"
        ;;
      tc6 | tc7 | tc6-bio | tc7-bio)
        need_command java "Tomcat needs a JDK"
        tc=${server%-bio}
        if [[ $tc == tc6 ]]; then home=$TC6_HOME; else home=$TC7_HOME; fi
        [[ -f $home/bin/bootstrap.jar ]] || problem "Tomcat home $home is missing: run servers/$tc/install.sh"
        war=instrumentation-java/tomcat${tc#tc}/target/pushbench-$tc.war
        [[ -f $war ]] || problem "$war is missing: run instrumentation-java/build.sh"
        # The blocking connector's threads must fit this host (servers/bio-limits.sh names the limit).
        if [[ $server == *-bio ]] && ! out=$(servers/bio-limits.sh check "$(servers/bio-limits.sh resolve)" 2>&1); then
          problem "$out"
        fi
        ;;
      *) echo "unknown server '$server'" >&2; exit 2 ;;
    esac
    check_open_files "$conns" "sut:$server"
    # Our own server still running from before is fine: run.sh stops it first.
    if ! servers/control.sh status "$server" >/dev/null 2>&1; then
      check_port_free "$port" "the $server server's port"
    fi
    check_disk "$PB_STATE" 100
    ;;
  engine)
    [[ $# -ge 4 && $# -le 6 ]] || { echo "usage: $0 engine <connections> <rmi port> <rmi local port> [<heap MB> [<disk MB>]]" >&2; exit 2; }
    conns=$2
    check_jmeter
    [[ -z ${5:-} ]] || check_memory "$5" "this JMeter engine ($conns threads)"
    [[ -x load/engine.sh ]] || problem "load/engine.sh is missing in $PWD"
    check_open_files "$conns" engine
    check_port_free "$3" "JMeter engine RMI port"
    check_port_free "$4" "JMeter engine RMI local port"
    check_disk "$PB_STATE" "${6:-$DEFAULT_DISK_MB}"
    ;;
  controller)
    [[ $# -eq 2 || $# -eq 3 ]] || { echo "usage: $0 controller <client local port> [<disk MB>]" >&2; exit 2; }
    check_jmeter
    [[ -x load/controller.sh ]] || problem "load/controller.sh is missing in $PWD"
    [[ -f testplan.jmx ]] || problem "testplan.jmx is missing in $PWD"
    for tool in node tar; do need_command "$tool" "run.sh needs it"; done
    [[ -f analysis/analyze.js ]] || problem "analysis/analyze.js is missing in $PWD"
    [[ -f charts/report.js ]] || problem "charts/report.js is missing in $PWD"
    # Over SSL JMeter picks free callback ports itself (lib/jmeter-rmi.sh); plain RMI binds this one.
    [[ $PB_JMETER_RMI_SSL != 0 ]] || check_port_free "$2" "JMeter controller RMI local port"
    check_disk "$PB_RESULTS" "${3:-$DEFAULT_DISK_MB}"
    ;;
  limits)
    [[ $# -eq 1 ]] || { echo "usage: $0 limits" >&2; exit 2; }
    dir=$PB_STATE
    while [[ ! -d $dir ]]; do dir=$(dirname "$dir"); done
    ulimit -Sn
    ulimit -Hn
    df -Pk "$dir" | awk 'NR == 2 { print $4 }'
    ;;
  *) echo "usage: $0 {sut|engine|controller|limits} ..." >&2; exit 2 ;;
esac
((problems == 0))
