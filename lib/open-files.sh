# shellcheck shell=bash
# The open-file fit (the study's section 3.3.3, "Pre-flight checks") on a host: does a process that holds
# <connections> sockets fit its open-file limits? Sourced after lib/config.sh by host/host-check.sh (on the
# host, with its own ulimit, at preflight). The run's decisions judge the same fit before the run, in
# lib/decide.js (openFilesProblem, for ./run.sh --plan and the sweep); tests/decide.test.js holds the two
# to the same words.
#
#   open_files_need <connections>
#       prints the open files the process needs: one per connection (a JMeter thread, a held request)
#       plus PB_FD_RESERVE of its own (jars, logs, epoll, ...)
#   open_files_problem <connections> <soft> <hard> <holder> [<all connections> <engines>]
#       prints one line when the process does not fit (status 1), nothing when it does. It gets the
#       soft limit; the hard limit says whether raising the soft one would do; "unlimited" fits anything.
#       <holder>: sut:<server> (one process holds every connection) or engine. For an engine, <all
#       connections> and <engines> (the run's, when known) add how many engines like it would be needed
#       when even its hard limit is too low.

open_files_need() { echo $(($1 + PB_FD_RESERVE)); }

open_files_problem() {
  local conns=$1 soft=$2 hard=$3 holder=$4 need what fix per
  need=$(open_files_need "$conns")
  [[ $soft == unlimited ]] && soft=$need
  [[ $hard == unlimited ]] && hard=$need
  if [[ $holder == sut:* ]]; then
    what="the ${holder#sut:} server (one process holds every connection)"
    fix="raise the open-files limit on the server host (limits.conf nofile) or lower the threads"
  else
    what="this JMeter engine"
    fix="add engines on other hosts to hosts.conf (the threads are split across them) or raise the limit"
    if (($# >= 6 && hard > PB_FD_RESERVE)); then
      per=$((hard - PB_FD_RESERVE))
      fix="$((($5 + per - 1) / per)) engines like this one would hold the $5 connections, hosts.conf has $6: $fix"
    fi
  fi
  if ((hard < need)); then
    echo "open files: $what needs $conns connections + $PB_FD_RESERVE reserve = $need, but a process here may" \
      "open at most $hard (ulimit -Hn). At most $((hard - PB_FD_RESERVE)) connections fit; $fix"
    return 1
  elif ((soft < need)); then
    echo "open files: $what needs $need but the soft limit here is $soft (hard $hard): add 'ulimit -n $hard'" \
      "to the login environment of this host, or lower the threads"
    return 1
  fi
}
