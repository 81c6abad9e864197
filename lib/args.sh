# shellcheck shell=bash
# run.sh's command line: usage text and validation. Sourced by run.sh.
#
# Everything the user types is checked here against a strict pattern before it is used anywhere
# (a file name, a JMeter property, a remote command). On any error: a message, the usage line, exit 2.
#
#   args_parse <argument>...              the run's settings as <key>=<value> lines (below)
#   args_server_settings <server> <connections>
#                                         the settings that server type reads, checked; exports
#                                         PB_TOMCAT_BIO_THREADS when it was auto
#   args_type_settings <type> <sampler> <churn>   whether the request sampler (PB_REQUEST_SAMPLER) speaks the type, and churn fits it

PB_USAGE_LINE='usage: ./run.sh <server-type> <rampup> <duration> <threads> <test-type> [<max-duration> [<event-name> <emit-interval>]]
       ./run.sh <server-type> <rampup> <duration> <threads> pull <pull-interval> [<event-name> <emit-interval>]
       ./run.sh <server-type> <rampup> <duration> <threads> sse|ws [- [<event-name> <emit-interval>]]'

# Bounds. The protocol allows poll durations of 1..3600000 ms and emit intervals of 10..3600000 ms.
ARGS_MAX_SECONDS=86400          # rampup and duration: at most a day
ARGS_MAX_THREADS=1000000        # total across all engines; preflight checks what really fits
ARGS_MIN_MAXDUR=1
ARGS_MAX_MAXDUR=3600000
ARGS_MIN_INTERVAL=10
ARGS_MAX_INTERVAL=3600000
ARGS_MIN_PULL=1                 # pull interval, ms: a positive integer
ARGS_MAX_PULL=3600000

usage() {
  cat <<EOF
$PB_USAGE_LINE

One pushbench test run, from start to report.

  server-type    node | tc6 | tc7            (Node.js, Tomcat 6, Tomcat 7)
                 node-cluster               (Node.js on PB_NODE_CLUSTER_WORKERS processes, default one per core)
                 tc6-bio | tc7-bio          (Tomcat 6 / 7 on the blocking connector: a thread per connection)
  rampup         seconds during which all threads are started (0..$ARGS_MAX_SECONDS)
  duration       seconds the test runs, ramp-up included (1..$ARGS_MAX_SECONDS)
  threads        concurrent connections in total, split evenly across the engines in hosts.conf
  test-type      comet | poll | pull | sse | ws
                                            (pull: short polling, each client asks every pull-interval ms;
                                             sse: Server-Sent Events, a held stream as comet's, which
                                             reconnects with Last-Event-ID as EventSource does;
                                             ws: WebSocket, the same held stream, which subscribes again
                                             with the cursor it got; not on tc6, tc6-bio: Tomcat 6 has no
                                             WebSocket API)
  max-duration   ms each long poll is held at most ($ARGS_MIN_MAXDUR..$ARGS_MAX_MAXDUR); required for poll.
                 For comet it is ignored: write - in its place to give an event without it. sse and ws
                 take none: write - there.
  event-name     the event to create and subscribe to: 1-64 of A-Z a-z 0-9 _ -, starting with a
                 letter or digit, not containing "error" or "timeout" (the plan's assertions look
                 for those words). Omit it (or write -) for no event emitter.
  emit-interval  ms between emit cycles ($ARGS_MIN_INTERVAL..$ARGS_MAX_INTERVAL); required with an event name.
  pull-interval  pull only, in max-duration's place: ms between one client's pulls ($ARGS_MIN_PULL..$ARGS_MAX_PULL).
                 A pull is answered at once, so pull takes no max-duration.

Examples:
  ./run.sh tc6 60 900 5000 comet                 15 min comet test, 1 min ramp-up, no events
  ./run.sh node 5 30 500 comet - event1 2000     comet with an event every 2 s (- = no max-duration)
  ./run.sh tc7 30 600 5000 poll 3000 event1 2000 long poll held up to 3 s, event every 2 s
  ./run.sh node 90 1200 5000 poll 3000           long poll, no events: every poll times out after 3 s
  ./run.sh node 5 30 500 pull 1000 event1 2000   each client pulls every 1 s, event every 2 s
  ./run.sh node 5 30 500 sse - event1 2000       Server-Sent Events with an event every 2 s
  ./run.sh tc7 5 30 500 ws - event1 2000         WebSocket with an event every 2 s

The plan only: ./run.sh --plan <the arguments of a run> checks them, the settings and the hosts file as
a run does (exit 2 on the same errors), then prints one JSON object, starting nothing: the server, each
engine's share of the connections (threads), heap and disk, and the open-file fit preflight would judge
(limits read on each host, or given as PB_PLAN_OPEN_FILES="<role>:<name>=<soft>/<hard> ..."). Exit 0, or
3 when a host's limits cannot be read. docs/architecture.md describes the object.

One run at a time per state directory (PB_STATE, default build/state): a second run.sh is refused
before it starts anything (exit 5), naming the run that holds it. A run killed beyond any trap (kill -9,
the OOM killer) is found by the next start, which refuses (exit 6) until it is stopped:
  ./run.sh --stop-stale      stop the processes a killed run recorded, collect what they wrote into its
                             run directory, mark it incomplete with a note
  ./run.sh --stop <run id>   stop that run: a live one (SIGTERM to its run.sh, whose teardown is waited
                             for) or a killed one (as --stop-stale)

Environment: PB_HOSTS (hosts file, default hosts.conf; without one everything runs on this machine),
PB_RESULTS (results base directory, default results/), PB_RUN_DIR_FILE (file to write the run directory to).
Exit codes: 0 complete, 1 run failed (a step failed, or the verdict is failed: docs/validity.md) or
incomplete (results kept), 2 usage or hosts.conf error, 3 preflight failed, 4 complete but the server
under test crashed, 5 another run holds the state directory, 6 a run killed beyond any trap waits for
./run.sh --stop-stale, 130 interrupted.
EOF
}

args_fail() {
  printf 'run.sh: %s\n%s\n(./run.sh --help for details)\n' "$1" "$PB_USAGE_LINE" >&2
  exit 2
}

# args_integer <what> <value> <min> <max>: prints the value in plain decimal (no leading zeros).
args_integer() {
  local what=$1 value=$2 min=$3 max=$4
  [[ $value =~ ^[0-9]{1,9}$ ]] || args_fail "$what must be a whole number, got '$value'"
  value=$((10#$value))
  ((value >= min && value <= max)) || args_fail "$what must be between $min and $max, got $value"
  printf '%s' "$value"
}

args_event_name() {
  local name=$1
  [[ $name =~ ^[A-Za-z0-9][A-Za-z0-9_-]{0,63}$ ]] ||
    args_fail "event-name must be 1-64 of A-Z a-z 0-9 _ - starting with a letter or digit, got '$name'"
  local lower=${name,,}
  [[ $lower != *error* && $lower != *timeout* ]] ||
    args_fail "event-name must not contain 'error' or 'timeout' (the plan's assertions would fail every response), got '$name'"
  printf '%s' "$name"
}

# args_parse "$@": prints the run's settings as <key>=<value> lines (server rampup_s duration_s connections
# type max_duration_ms event emit_interval_ms pull_interval_ms: the run schema's words, lib/run-schema.js;
# each value checked, the optional ones empty when not given), or exits 2.
# The command line's <threads>, the study's name (one JMeter thread per connection), is "connections"
# from here on.
# Call it in $(...) || exit 2: its exit ends only that subshell.
args_parse() {
  if (($# < 5 || $# > 8)); then
    [[ ${5:-} == pull ]] && args_fail "pull takes no max-duration: pull <pull-interval> [<event-name> <emit-interval>]"
    args_fail "expected 5 to 8 arguments, got $#"
  fi
  local server rampup duration connections type maxdur='' event_name='' interval='' pull=''
  case $1 in
    node | tc6 | tc7 | node-cluster | tc6-bio | tc7-bio) server=$1 ;;
    *) args_fail "server-type must be node, node-cluster, tc6, tc7, tc6-bio or tc7-bio, got '$1'" ;;
  esac
  rampup=$(args_integer rampup "$2" 0 "$ARGS_MAX_SECONDS") || exit 2
  duration=$(args_integer duration "$3" 1 "$ARGS_MAX_SECONDS") || exit 2
  connections=$(args_integer threads "$4" 1 "$ARGS_MAX_THREADS") || exit 2
  # The duration includes the ramp-up (the plan's Request group): a ramp-up as long never reaches
  # the full number of threads.
  ((rampup < duration)) || args_fail "rampup ($rampup s) must be shorter than duration ($duration s), which includes it"
  case $5 in
    comet | poll | pull | sse | ws) type=$5 ;;
    *) args_fail "test-type must be comet, poll, pull, sse or ws, got '$5'" ;;
  esac
  if [[ $type == ws && ($server == tc6 || $server == tc6-bio) ]]; then
    args_fail "$server does not speak WebSocket (Tomcat 6 has no WebSocket API; docs/protocol.md): ws runs on node, node-cluster, tc7 and tc7-bio"
  fi

  local sixth=${6:--} event=${7:--} emit=${8:--}
  if [[ $type == pull ]]; then
    pull=$(args_pull_interval "$sixth" "$event" "$emit") || exit 2
  elif [[ ($type == sse || $type == ws) && $sixth != - ]]; then
    args_fail "$type takes no max-duration (a stream is held until the end): write - in its place, e.g. $type - event1 2000"
  elif [[ $sixth != - ]]; then
    maxdur=$(args_integer max-duration "$sixth" "$ARGS_MIN_MAXDUR" "$ARGS_MAX_MAXDUR") || exit 2
  elif [[ $type == poll ]]; then
    args_fail "poll needs a max-duration in ms (e.g. ./run.sh node 5 30 500 poll 3000)"
  fi
  if [[ $event != - ]]; then
    event_name=$(args_event_name "$event") || exit 2
    [[ $emit != - ]] || args_fail "event-name '$event_name' needs an emit-interval in ms after it"
    interval=$(args_integer emit-interval "$emit" "$ARGS_MIN_INTERVAL" "$ARGS_MAX_INTERVAL") || exit 2
  elif [[ $emit != - ]]; then
    args_fail "an emit-interval was given without an event-name"
  fi
  printf '%s\n' "server=$server" "rampup_s=$rampup" "duration_s=$duration" "connections=$connections" "type=$type" \
    "max_duration_ms=$maxdur" "event=$event_name" "emit_interval_ms=$interval" "pull_interval_ms=$pull"
}

# args_pull_interval <sixth argument> <seventh> <eighth>: pull's interval, in max-duration's place (pull
# takes none: a pull is answered at once); prints it or exits 2.
args_pull_interval() {
  local value=$1 event=$2 emit=$3 interval
  [[ $value != - ]] || args_fail "pull needs a pull-interval in ms (e.g. ./run.sh node 5 30 500 pull 1000 event1 2000)"
  if ! [[ $value =~ ^[0-9]{1,9}$ ]] || ((10#$value < ARGS_MIN_PULL)); then
    args_fail "pull-interval must be a positive whole number of ms, got '$value'"
  fi
  interval=$(args_integer pull-interval "$value" "$ARGS_MIN_PULL" "$ARGS_MAX_PULL") || exit 2
  # A seventh argument that is a number with no emit-interval after it: a max-duration given to pull
  # (./run.sh ... pull 1000 3000, or ... pull 1000 3000 event1).
  if [[ $event =~ ^[0-9]+$ && ! $emit =~ ^[0-9]+$ ]]; then
    args_fail "pull takes no max-duration: pull <pull-interval> [<event-name> <emit-interval>]"
  fi
  printf '%s' "$interval"
}

# args_type_settings <test-type> <request sampler> <churn percent>: sse and ws are spoken by the mux engine
# only (the push and HTTP samplers read comet's NDJSON, not text/event-stream or WebSocket frames), and
# churn (PB_CHURN_PERCENT, checked as a number by lib/settings-check.sh) drops their streams only.
args_type_settings() {
  local type=$1 sampler=$2 churn=$3
  [[ ($type != sse && $type != ws) || $sampler == mux ]] ||
    args_fail "$type needs the mux engine (PB_REQUEST_SAMPLER=mux, the default), got PB_REQUEST_SAMPLER=$sampler"
  [[ $churn =~ ^0*(\.0*)?$ || $type == sse || $type == ws ]] ||
    args_fail "PB_CHURN_PERCENT=$churn drops SSE and WebSocket streams only, not $type streams (leave it at 0)"
}

# args_server_settings <server-type> <connections>: the settings a server type reads, checked before
# anything starts. node-cluster: PB_NODE_CLUSTER_WORKERS is auto or 1..1024. tc6-bio / tc7-bio: maxThreads
# for the level (exported as PB_TOMCAT_BIO_THREADS when it is auto) must fit this machine's thread limits
# (servers/bio-limits.sh; the SUT's launch checks its own host again).
args_server_settings() {
  local server=$1 connections=$2 out
  case $server in
    node-cluster)
      local workers=$PB_NODE_CLUSTER_WORKERS
      if [[ $workers != auto ]] && ! { [[ $workers =~ ^[1-9][0-9]{0,3}$ ]] && ((workers <= 1024)); }; then
        args_fail "PB_NODE_CLUSTER_WORKERS (the cluster size) must be auto or a whole number from 1 to 1024, got '$workers'"
      fi
      ;;
    tc6-bio | tc7-bio)
      if [[ $PB_TOMCAT_BIO_THREADS == auto ]]; then
        PB_TOMCAT_BIO_THREADS=$("$PB_ROOT/servers/bio-limits.sh" threads "$connections")
        export PB_TOMCAT_BIO_THREADS
      fi
      [[ $PB_TOMCAT_BIO_THREADS =~ ^[1-9][0-9]{0,8}$ ]] ||
        args_fail "PB_TOMCAT_BIO_THREADS must be auto or a whole number >= 1, got '$PB_TOMCAT_BIO_THREADS'"
      out=$("$PB_ROOT/servers/bio-limits.sh" check "$PB_TOMCAT_BIO_THREADS" 2>&1) || args_fail "$server: $out"
      ;;
  esac
}
