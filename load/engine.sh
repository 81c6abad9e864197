#!/usr/bin/env bash
# Starts or stops one JMeter engine (jmeter-server mode) on this host.
#
#   load/engine.sh start --name <n> --address <ip> --port <rmi port> --localport <rmi local port>
#                        --connections <N> --responses <dir> [--init 0|1] [--cleanup 0|1] [--heap <size>]
#                        [--gc-log <file>] [--sampler mux|push|http] [--pid-dir <dir>] [--target-spec <base64>]
#   load/engine.sh stop --name <n> [--pid-dir <dir>]
#   load/engine.sh status --name <n> [--pid-dir <dir>]
#
# start  runs the engine in the background, in its own session (it outlives an ssh session that started
#        it), with the per-engine plan properties (lib/decide-jmeter.js engineProperties: threads.num=<N>,
#        mux.threads, log.dir.res=<dir>, init.threads, cleanup.threads, target.spec; the controller never
#        sends these with -G). --init 0 sets init.threads=0: this
#        engine's Init group sends neither the logging request nor the event set (in distributed mode
#        only the engine started first does; default 1). --cleanup 0 sets cleanup.threads=0: this
#        engine's Clean Up group sends no clear (in distributed mode only the engine started last
#        clears; default 1). PID file $PB_STATE/engine-<n>.pid ("<pid> <start time>"),
#        JMeter log $PB_STATE/engine-<n>.log, console output $PB_STATE/engine-<n>.out. Waits until the
#        engine is bound in its RMI registry on <ip>:<port> (PB_ENGINE_START_TIMEOUT s) or fails with
#        the logs' tails.
#        Heap: --heap (e.g. 2400m; run.sh sizes it for the run), else lib/jmeter-heap.sh's estimate for
#        <N> connections driven by --sampler (the plan's request.sampler, default PB_REQUEST_SAMPLER),
#        committed at start (-Xms too); the collector decided for the sampler and PB_ENGINE_CPUS
#        (lib/jmeter-heap.sh jmeter_jvm_options); more JVM options: JVM_ARGS. mux.threads: the mux engine's selector
#        threads for <N> on this host's cores (unused by the other samplers).
#        --gc-log: the JVM logs every collection and every safepoint there (-Xlog:gc,safepoint, epoch-ms
#        and uptime decorators, one file never rotated), for the run's pause time per second and the
#        trip times' tail (docs/validity.md "The tail"). PB_ENGINE_CPUS (a taskset CPU list, e.g. 0 or
#        0-3) pins the JVM to those CPUs; empty (the default) leaves it free.
#        --target-spec: a target run's spec for this engine (lib/target.js engineSpec, base64; docs/targets.md
#        "Inside"), its property target.spec: its channels are its own.
# stop   TERM to the recorded PID, up to PB_STOP_TIMEOUT s, then KILL; nothing to do if not running.
# status prints running/stopped; exit 0 if running, else 3.
# --pid-dir  the PID file in <dir> instead of $PB_STATE: run.sh gives each run its own ($PB_STATE/runs/<id>).
# Only the recorded PID (checked against its start time) is ever signalled.
set -euo pipefail

here=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
# shellcheck source=lib/config.sh
source "$here/../lib/config.sh"
# shellcheck source=lib/procs.sh
source "$here/../lib/procs.sh"
# shellcheck source=lib/jmeter-heap.sh
source "$here/../lib/jmeter-heap.sh"
# shellcheck source=lib/jmeter-rmi.sh
source "$here/../lib/jmeter-rmi.sh"

PB_ENGINE_START_TIMEOUT=${PB_ENGINE_START_TIMEOUT:-60}

usage() {
  echo "usage:" >&2
  sed -n '4,8p' "$0" | sed 's/^#//' >&2
  exit 2
}
die() { echo "engine ${name:-?}: $*" >&2; exit 1; }

[[ $# -ge 1 ]] || usage
action=$1
shift
name='' address='' port='' localport='' connections='' responses='' init=1 cleanup=1 heap='' gc_log='' sampler=$PB_REQUEST_SAMPLER target_spec=''
pid_dir=$PB_STATE
while [[ $# -gt 0 ]]; do
  [[ $# -ge 2 ]] || usage
  case $1 in
    --name) name=$2 ;;
    --address) address=$2 ;;
    --port) port=$2 ;;
    --localport) localport=$2 ;;
    --connections) connections=$2 ;;
    --responses) responses=$2 ;;
    --init) init=$2 ;;
    --cleanup) cleanup=$2 ;;
    --heap) heap=$2 ;;
    --sampler) sampler=$2 ;;
    --gc-log) gc_log=$2 ;;
    --pid-dir) pid_dir=$2 ;;
    --target-spec) target_spec=$2 ;;
    *) usage ;;
  esac
  shift 2
done
[[ $name =~ ^[A-Za-z0-9_-]+$ ]] || usage
[[ $target_spec =~ ^[A-Za-z0-9+/=]*$ ]] || die "--target-spec must be base64"

[[ -n $pid_dir ]] || usage
pidfile=$pid_dir/engine-$name.pid
log=$PB_STATE/engine-$name.log
out=$PB_STATE/engine-$name.out

rmi_answers() { # true when something accepts connections on <address>:<port>
  # shellcheck disable=SC2016  # expanded by the inner bash, from its arguments
  timeout 2 bash -c 'exec 3<>"/dev/tcp/$0/$1"' "$address" "$port" 2>/dev/null
}

show_logs() {
  local f
  for f in "$out" "$log"; do
    [[ -s $f ]] || continue
    echo "--- last lines of $f" >&2
    tail -n 15 "$f" >&2
  done
}

start() {
  [[ -n $address && $port =~ ^[0-9]+$ && $localport =~ ^[0-9]+$ && $connections =~ ^[0-9]+$ && -n $responses && $init =~ ^[01]$ && $cleanup =~ ^[01]$ && $sampler =~ ^(mux|push|http)$ ]] || usage
  [[ -f $JMETER_HOME/bin/ApacheJMeter.jar ]] || die "no JMeter in $JMETER_HOME (run load/install-jmeter.sh)"
  if [[ -z $heap ]]; then
    heap=$(jmeter_heap_mb "$connections" "$sampler")m
  else
    jmeter_size_mb "$heap" >/dev/null || usage
  fi
  if pid=$(procs_alive "$pidfile"); then
    die "already running (pid $pid); stop it first"
  fi
  if rmi_answers; then
    die "port $address:$port is already taken by another process"
  fi
  mkdir -p "$PB_STATE" "$pid_dir" "$responses"
  [[ -z $gc_log ]] || mkdir -p "$(dirname "$gc_log")"
  : >"$log"
  local jvm_text; local -a jvm
  # The collector and the CPU count decided for this engine's sampler and pinning (lib/decide-jmeter.js jvmOptions).
  jvm_text=$(jmeter_jvm_options engine "$sampler") || die "no JVM options (above)"
  mapfile -t jvm <<<"$jvm_text"
  jvm=(-Xms"$heap" -Xmx"$heap" "${jvm[@]}")
  [[ -z $gc_log ]] || jvm+=("-Xlog:gc,safepoint:file=$gc_log:timemillis,uptimemillis:filecount=0")
  local -a pin=()
  if [[ -n ${PB_ENGINE_CPUS:-} ]]; then
    [[ $PB_ENGINE_CPUS =~ ^[0-9]+([,-][0-9]+)*$ ]] || die "PB_ENGINE_CPUS=$PB_ENGINE_CPUS is not a CPU list (e.g. 0 or 0-3 or 0,2)"
    pin=(taskset -c "$PB_ENGINE_CPUS")
  fi
  local -a extra=()
  # JVM_ARGS is a list of options, split on spaces like JMeter's own start script does.
  read -ra extra <<<"${JVM_ARGS:-}"
  local rmi_text props_text; local -a rmi props
  rmi_text=$(jmeter_rmi_args) || die "cannot start RMI (above)"
  mapfile -t rmi <<<"$rmi_text"
  # This engine's own plan properties, decided in lib/decide-jmeter.js (engineProperties), given with -J.
  props_text=$(jmeter_engine_properties "$connections" "$responses" "$init" "$cleanup" "$target_spec") || die "no engine properties (above)"
  mapfile -t props <<<"$props_text"
  props=("${props[@]/#/-J}")
  # setsid: its own session, so neither the end of an ssh session nor a Ctrl-C elsewhere reaches it.
  # In a script without job control the background child is no group leader, so setsid (and taskset)
  # exec in place and $! is the JVM's PID.
  setsid "${pin[@]}" java "${jvm[@]}" "${extra[@]}" -Djava.rmi.server.hostname="$address" \
    -jar "$JMETER_HOME/bin/ApacheJMeter.jar" -s -j "$log" \
    "${rmi[@]}" -Jserver_port="$port" -Jserver.rmi.localport="$localport" \
    "${props[@]}" \
    >"$out" 2>&1 </dev/null &
  local pid=$!
  procs_record "$pid" "$pidfile"

  local deadline=$((SECONDS + PB_ENGINE_START_TIMEOUT))
  # Ready when the registry answers and the engine is bound in it (a moment after the registry opens).
  until rmi_answers && grep -q 'Bound to RMI registry' "$log" 2>/dev/null; do
    if ! procs_alive "$pidfile" >/dev/null; then
      rm -f "$pidfile"
      show_logs
      die "exited during start"
    fi
    if ((SECONDS >= deadline)); then
      show_logs
      procs_stop_recorded "$pidfile" "$PB_STOP_TIMEOUT"
      die "RMI port $address:$port did not answer within ${PB_ENGINE_START_TIMEOUT}s; stopped it"
    fi
    sleep 0.3
  done
  echo "engine $name: running (pid $pid, rmi $address:$port, local port $localport, $connections connections, heap $heap, responses $responses, log $log)"
}

stop() {
  if ! procs_alive "$pidfile" >/dev/null; then
    rm -f "$pidfile"
    echo "engine $name: not running"
    return 0
  fi
  procs_stop_recorded "$pidfile" "$PB_STOP_TIMEOUT"
  echo "engine $name: stopped"
}

status() {
  local pid
  if pid=$(procs_alive "$pidfile"); then
    echo "engine $name: running (pid $pid)"
  else
    echo "engine $name: stopped"
    exit 3
  fi
}

case $action in
  start) start ;;
  stop) stop ;;
  status) status ;;
  *) usage ;;
esac
