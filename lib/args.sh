# shellcheck shell=bash
# run.sh's command line: its usage text and how it refuses one. Sourced by run.sh. The arguments
# themselves are checked by lib/decide.js (the run's decisions, lib/decisions.sh), which owns the usage
# text and its bounds too: every user-typed value against a strict pattern before it is used anywhere (a
# file name, a JMeter property, a remote command); on any error a message, the usage line, exit EXIT_REFUSED.
#
#   usage              the usage text (./run.sh --help)
#   args_fail <what>   the message, the usage line, exit EXIT_REFUSED (run.sh's own options: --stop, --stop-stale)

usage() { node "$PB_ROOT/lib/decide.js" --usage; }

args_fail() {
  printf 'run.sh: %s\n%s\n(./run.sh --help for details)\n' "$1" "$(node "$PB_ROOT/lib/decide.js" --usage-line)" >&2
  exit "$EXIT_REFUSED"
}
