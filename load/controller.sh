#!/usr/bin/env bash
# Runs testplan.jmx (or $PB_PLAN) with the JMeter controller in the foreground, non-GUI, and returns JMeter's exit code.
#
#   load/controller.sh --run-dir <dir> --engines <ip:port>[,<ip:port>...] --props <file>
#                      [--address <ip>] [--exit-engines] [--set <key>=<value>]...
#   load/controller.sh --local --run-dir <dir> [--props <file>] [--set <key>=<value>]...
#
# Distributed (default): the engines (load/engine.sh) run the plan; the plan's properties from <file>
#   and --set go to every engine with -G, except threads.num, mux.threads, log.dir.res, init.threads and
#   cleanup.threads, which are each engine's own (given to load/engine.sh) and are dropped here. The
#   file actually sent is <dir>/jmeter/global.properties. Engines call the controller back on <address>
#   (default: this host's source address towards the first engine) at ports PB_JMETER_CLIENT_LOCALPORT
#   and up.
#   --exit-engines: the engines exit when the test ends (JMeter's -X); otherwise they keep running
#   until load/engine.sh stop.
# --local: the plan runs in this JVM with every property given with -J (a quick check, no engines);
#   responses go to log.dir.res, by default <dir>/responses/local.
#
# Either way the Request Data Writer writes <dir>/jmeter/results.csv (log.dir.base is set to
# <dir>/jmeter) and JMeter logs to <dir>/jmeter/controller.log. Heap: PB_JMETER_CONTROLLER_HEAP
# (distributed) or, with --local, lib/jmeter-heap.sh's for the threads.num given (PB_JMETER_HEAP);
# more JVM options: JVM_ARGS.
set -euo pipefail

here=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
# shellcheck source=lib/config.sh
source "$here/../lib/config.sh"
# shellcheck source=lib/jmeter-heap.sh
source "$here/../lib/jmeter-heap.sh"
# shellcheck source=lib/jmeter-rmi.sh
source "$here/../lib/jmeter-rmi.sh"

usage() {
  echo "usage:" >&2
  sed -n '4,6p' "$0" | sed 's/^#//' >&2
  exit 2
}
die() { echo "controller: $*" >&2; exit 2; }

local_mode=false exit_engines=false run_dir='' engines='' props='' address=''
sets=()
while [[ $# -gt 0 ]]; do
  case $1 in
    --local) local_mode=true; shift; continue ;;
    --exit-engines) exit_engines=true; shift; continue ;;
  esac
  [[ $# -ge 2 ]] || usage
  case $1 in
    --run-dir) run_dir=$2 ;;
    --engines) engines=$2 ;;
    --props) props=$2 ;;
    --address) address=$2 ;;
    --set) [[ $2 == ?*=* ]] || die "--set wants <key>=<value>, got '$2'"; sets+=("$2") ;;
    *) usage ;;
  esac
  shift 2
done
[[ -n $run_dir ]] || usage
[[ -z $props || -r $props ]] || die "cannot read the properties file $props"
[[ -f $JMETER_HOME/bin/ApacheJMeter.jar ]] || die "no JMeter in $JMETER_HOME (run load/install-jmeter.sh)"
plan=$PB_PLAN
[[ -r $plan ]] || die "cannot read the plan $plan"
mkdir -p "$run_dir/jmeter"
run_dir=$(cd "$run_dir" && pwd)
out_dir=$run_dir/jmeter

# given_value <key>: prints its value from --set (the last wins) or else the properties file; status 1
# when neither gives the key.
given_value() {
  local s line value='' found=1
  if [[ -n $props ]] && line=$(grep -E "^[[:space:]]*${1//./\\.}[[:space:]]*[=:]" "$props" | tail -n 1); then
    [[ $line =~ ^[^=:]*[=:][[:space:]]*(.*)$ ]] && value=${BASH_REMATCH[1]}
    found=0
  fi
  for s in "${sets[@]}"; do [[ ${s%%=*} == "$1" ]] && { value=${s#*=}; found=0; }; done
  printf '%s' "$value"
  return "$found"
}
is_given() { given_value "$1" >/dev/null; }

jvm_text=$(jmeter_jvm_options controller) || die "no JVM options (above)"
mapfile -t jvm <<<"$jvm_text"
read -ra extra <<<"${JVM_ARGS:-}"
args=(-n -t "$plan" -j "$out_dir/controller.log")
# No UDP stop port: a non-GUI JMeter listens on UDP 4445-4455 of every interface and ends the test on
# "StopTestNow" or "Shutdown" from any local user (bin/stoptest.sh), so a run could be cut short by
# someone else and still look whole. Port 0 keeps the listener closed (JMeter 5.6.3's startUdpDdaemon
# opens it only for jmeterengine.nongui.port > 1000); the test is stopped by run.sh alone, by signal.
args+=(-Jjmeterengine.nongui.port=0)

if $local_mode; then
  [[ -z $engines ]] || die "--local and --engines exclude each other"
  args+=(-Jserver.rmi.ssl.disable=true)   # one JVM: no RMI
  threads=$(given_value threads.num) || true
  [[ $threads =~ ^[0-9]+$ ]] || threads=0
  sampler=$(given_value request.sampler) || sampler=mux   # the plan's default
  [[ $sampler == push || $sampler == http ]] || sampler=mux
  jvm=(-Xmx"$(jmeter_heap_mb "$threads" "$sampler")m" "${jvm[@]}")
  [[ -z $props ]] || args+=(-q "$props")
  is_given mux.threads || args+=(-Jmux.threads="$(jmeter_mux_threads "$threads")")
  for s in "${sets[@]}"; do args+=(-J"$s"); done
  is_given log.dir.res || args+=(-Jlog.dir.res="$run_dir/responses/local")
else
  [[ -n $engines && -n $props ]] || usage
  [[ $engines =~ ^[^,:]+:[0-9]+(,[^,:]+:[0-9]+)*$ ]] || die "--engines wants ip:port[,ip:port...], got '$engines'"
  if [[ -z $address ]]; then
    first=${engines%%:*}
    address=$(ip -o route get "$first" 2>/dev/null | sed -n 's/.* src \([0-9.]*\).*/\1/p')
    [[ -n $address ]] || die "cannot tell which local address engine $first reaches; give --address"
  fi
  jvm=(-Xmx"$PB_JMETER_CONTROLLER_HEAP" "${jvm[@]}" -Djava.rmi.server.hostname="$address")
  # The global properties, without the per-engine ones (each engine got its own with -J at start: a -G
  # value would override them on every engine; their names: lib/decide-jmeter.js ENGINE_PROPERTY_NAMES).
  names=$(node "$PB_ROOT/lib/decide.js" --engine-property-names) || die "lib/decide.js --engine-property-names failed"
  per_engine=${names//./\\.}
  per_engine="^[[:space:]]*(${per_engine//$'\n'/|})[[:space:]]*[=:]"
  global=$out_dir/global.properties
  {
    echo "# sent to every engine by load/controller.sh (-G)"
    [[ -z $props ]] || grep -Ev "$per_engine" "$props" || true
    ((${#sets[@]} == 0)) || printf '%s\n' "${sets[@]}" | grep -Ev "$per_engine" || true
  } >"$global"
  if { [[ -n $props ]] && grep -Eq "$per_engine" "$props"; } ||
    { ((${#sets[@]} > 0)) && printf '%s\n' "${sets[@]}" | grep -Eq "$per_engine"; }; then
    echo "controller: note: $(paste -sd' ' <<<"$names") are per engine (load/engine.sh); not sent" >&2
  fi
  rmi_text=$(jmeter_rmi_args) || exit 2
  mapfile -t rmi <<<"$rmi_text"
  args+=("${rmi[@]}" -R "$engines" -G"$global")
  # The engines call back at fixed ports only over plain RMI: JMeter's SSL socket factories cannot share
  # one port between its listeners, so over SSL each gets a free port (bound to --address all the same).
  [[ $PB_JMETER_RMI_SSL != 0 ]] || args+=(-Jclient.rmi.localport="$PB_JMETER_CLIENT_LOCALPORT")
  $exit_engines && args+=(-X)
fi
# results.csv always lands in <run-dir>/jmeter, on the controller.
args+=(-Jlog.dir.base="$out_dir")
# The mux engine's threads send one summary sample a second each: results.csv is flushed at every row, so
# run.sh's progress line (lib/progress.sh) sees the load as it runs. A per-answer sampler's thousands of
# rows a second stay buffered.
[[ $(given_value request.sampler || true) != mux ]] || args+=(-Jjmeter.save.saveservice.autoflush=true)

exec java "${jvm[@]}" "${extra[@]}" -jar "$JMETER_HOME/bin/ApacheJMeter.jar" "${args[@]}"
