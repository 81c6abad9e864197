# shellcheck shell=bash
# The open-file fit (the study's section 3.3.3, "Pre-flight checks") on a host: does a process that holds
# <connections> sockets fit its open-file limits? Sourced after lib/config.sh by host/host-check.sh (on the
# host, with its own ulimit, at preflight). The fit is decided in lib/decide.js (openFilesProblem), which
# the run's decisions use before the run (./run.sh --plan, the sweep) and this file asks on the host.
#
#   open_files_problem <connections> <soft> <hard> <holder> [<all connections> <engines>]
#       prints one line when the process does not fit (status 1), nothing when it does. It needs one file
#       per connection (a JMeter thread, a held request) plus PB_FD_RESERVE of its own. It gets the
#       soft limit; the hard limit says whether raising the soft one would do; "unlimited" fits anything.
#       <holder>: sut:<server> (one process holds every connection) or engine. For an engine, <all
#       connections> and <engines> (the run's, when known) add how many engines like it would be needed
#       when even its hard limit is too low.

open_files_problem() {
  command -v node >/dev/null 2>&1 ||
    { echo "node not found in PATH (setup.sh's prerequisite: Node.js 18+; lib/decide.js judges the open-file fit)"; return 1; }
  node "$PB_ROOT/lib/decide.js" --open-files-problem "$@"
}
