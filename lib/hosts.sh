# shellcheck shell=bash disable=SC2034  # sets globals for run.sh
# hosts.conf (format: see the header of hosts.conf) as bash arrays. The file is read and checked by
# lib/decide.js, the one place of the run's decisions; this file only names its tables and describes a
# host for messages. Sourced by run.sh.
#
#   hosts_load               the hosts file (PB_HOSTS, else hosts.conf, else the local default: sut and
#                            engine on this machine, 127.0.0.1) into the tables below, through
#                            node lib/decide.js --hosts; on error print "<file>:<line>: <what>" and exit 2
#   read_hosts_file <file>   the same for that file
#   hosts_describe <index>   "role name (address, access)" for messages
#
# The tables, one entry per line of the file that names a host (index 0..n-1), every value checked against
# a strict pattern by lib/decide.js, so later steps can put it in a command line:
#   H_ROLE H_NAME H_ADDR H_ACCESS(local|ssh) H_TARGET(user@host) H_KEY H_PORT H_DIR H_RMI H_LOCALPORT H_LINE
#   H_BIND (the sut only: the address its server listens on, bind=; empty: its address)
#   SUT_IDX (the index of the sut), ENGINE_IDX (the indexes of the engines, in file order), HOSTS_SOURCE
# run.sh gets the same tables, with each engine's share, heap and disk, from its one reading of the
# decisions (lib/decisions.sh). This file and lib/decisions.sh are where the tables are set; every other
# file reads them through lib/run-get.sh (host_get, host_indexes).

# shellcheck source=lib/run-get.sh
source "$(dirname "${BASH_SOURCE[0]}")/run-get.sh"

H_ROLE=() H_NAME=() H_ADDR=() H_ACCESS=() H_TARGET=() H_KEY=() H_PORT=() H_DIR=() H_RMI=() H_LOCALPORT=() H_LINE=() H_BIND=()
SUT_IDX='' ENGINE_IDX=()
HOSTS_SOURCE=''

hosts_load() {
  local out
  out=$(node "$PB_ROOT/lib/decide.js" --hosts) || { echo "run.sh: lib/decide.js --hosts failed" >&2; exit 1; }
  eval "$out"
  if [[ -n $DECISION_REFUSED_STAGE ]]; then
    printf '%s' "$DECISION_REFUSED_TEXT" >&2
    exit "$DECISION_REFUSED_CODE"
  fi
}

read_hosts_file() { # <file>
  PB_HOSTS=$1 hosts_load
}

# hosts_describe <index>: "name (address, access)" for messages.
hosts_describe() {
  local i=$1 access
  access=$(host_get access "$i")
  [[ $access != ssh ]] || access=ssh:$(host_get target "$i")
  printf '%s %s (%s, %s)' "$(host_get role "$i")" "$(host_get name "$i")" "$(host_get addr "$i")" "$access"
}
