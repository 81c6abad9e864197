#!/usr/bin/env bash
# shellcheck disable=SC2317  # the steps are called through step() and the clean-up through a trap
# pushbench: one test run from start to report (the study's section 3.3).
#
#   ./run.sh <server-type> <rampup> <duration> <threads> <test-type> [<max-duration> [<event-name> <emit-interval>]]
#   ./run.sh --help
#
# The steps below run in the order of the study's section 3.3.3; each is a function of this file and
# its duration is recorded in run.json ("steps", ms). Which host does what comes from hosts.conf
# ($PB_HOSTS); what a run leaves on disk is docs/run-layout.md. Helpers live in lib/.
set -euo pipefail

PB_ROOT=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
# PB_STATE set by the caller is shared with every host; otherwise each checkout uses its own.
PB_STATE_EXPLICIT=0
[[ -n ${PB_STATE:-} ]] && PB_STATE_EXPLICIT=1
# shellcheck source=lib/config.sh
source "$PB_ROOT/lib/config.sh"
# shellcheck source=lib/args.sh
source "$PB_ROOT/lib/args.sh"
# shellcheck source=lib/hosts.sh
source "$PB_ROOT/lib/hosts.sh"
# shellcheck source=lib/remote.sh
source "$PB_ROOT/lib/remote.sh"
# shellcheck source=lib/settings-check.sh
source "$PB_ROOT/lib/settings-check.sh"
# shellcheck source=lib/preflight.sh
source "$PB_ROOT/lib/preflight.sh"
# shellcheck source=lib/procs.sh
source "$PB_ROOT/lib/procs.sh"
# shellcheck source=lib/progress.sh
source "$PB_ROOT/lib/progress.sh"
# shellcheck source=lib/runjson.sh
source "$PB_ROOT/lib/runjson.sh"
# shellcheck source=lib/cleanup.sh
source "$PB_ROOT/lib/cleanup.sh"
# shellcheck source=lib/keep.sh
source "$PB_ROOT/lib/keep.sh"
# shellcheck source=lib/jmeter-heap.sh
source "$PB_ROOT/lib/jmeter-heap.sh"
# shellcheck source=lib/jmeter-order.sh
source "$PB_ROOT/lib/jmeter-order.sh"
cd "$PB_ROOT"

# ---------------------------------------------------------------------------------------------------
# Output: every line run.sh prints also goes to run.log (lines from before the run directory existed
# are kept and written there once it does).

RUN_DIR='' RUN_LOG='' RUN_ID='' PENDING_LOG=()
now_ms() { local t=${EPOCHREALTIME/./}; printf '%s' "${t:0:13}"; }
say() {
  printf '%s\n' "$*"
  local line
  printf -v line '%(%H:%M:%S)T %s' -1 "$*"
  if [[ -n $RUN_LOG ]]; then printf '%s\n' "$line" >>"$RUN_LOG"; else PENDING_LOG+=("$line"); fi
}
warn() { say "warning: $*"; RUN_NOTES+=("$*"); }

# quietly <what> <command...>: the command's output goes to run.log; on failure its last lines are
# shown and STEP_ERROR says what failed.
quietly() {
  local what=$1 out rc=0; shift
  out=$("$@" 2>&1) || rc=$?
  [[ -z $RUN_LOG || -z $out ]] || printf '%s\n' "$out" | sed 's/^/    | /' >>"$RUN_LOG"
  if ((rc != 0)); then
    STEP_ERROR="$what (exit $rc)"
    say "  failed: $what (exit $rc)"
    printf '%s\n' "$out" | tail -n 25 | sed 's/^/    | /' >&2
  fi
  return "$rc"
}

# step <function> [args]: run one step, timing it.
declare -A STEP_MS=()
STEP_ORDER=() CURRENT_STEP='' STEP_ERROR=''
step() {
  local name=$1 t0; shift
  CURRENT_STEP=$name STEP_ERROR=''
  t0=$(now_ms)
  "$name" "$@"
  STEP_MS[$name]=$(($(now_ms) - t0))
  STEP_ORDER+=("$name")
  runjson_write
}

# ---------------------------------------------------------------------------------------------------
# Run state (run.json)

RUN_STATUS=running SERVER_CRASHED=0 RUN_NOTES=() RUN_STARTED_AT='' RUN_FINISHED_AT=''
SERVER_PORT='' SERVER_PID='' H_THREADS=() H_HEAP_MB=() H_DISK_MB=() RESULTS_DISK_MB='' H_WORK=() ENGINE_START_PIDS=() REPORT_PATH='' CONTROLLER_PID=''
RUN_FAILED=0   # JMeter failed or overran: the run is collected and analysed, but incomplete
SERVER_STARTED=0 MONITOR_STARTED=0 ENGINES_STARTED=() CONTROLLER_PIDFILE='' CONTROLLER_RC=''
ENGINE_MONITORS=()   # engines whose monitors this run started (their host indexes)
ENGINES_DEAD=()      # engines found gone while the test ran (their host indexes)
SUT_UNREACHABLE=0    # 1 once the SUT host stopped answering ssh
CONTROLLER_MONITOR=0 # 1 once the controller's pidstat was started (here, where run.sh runs)
MONITOR_FILES_COPIED=0 MONITOR_FILES_WANTED=0 SERVER_LOG_WANTED=0
WORK_DIR=''   # this run's state directory on this machine: $PB_STATE/runs/<id>

# ---------------------------------------------------------------------------------------------------
# The steps

validate_arguments() {
  local bad
  bad=$(settings_problems) || args_fail "bad settings (lib/config.sh; nothing was started):"$'\n'"$bad"
  validate_args "$@"
  case $RUN_SERVER in
    node) SERVER_PORT=$PB_PORT_NODE ;;
    tc6) SERVER_PORT=$PB_PORT_TC6 ;;
    tc7) SERVER_PORT=$PB_PORT_TC7 ;;
    node-cluster) SERVER_PORT=$PB_PORT_NODE_CLUSTER ;;
    tc6-bio) SERVER_PORT=$PB_PORT_TC6_BIO ;;
    tc7-bio) SERVER_PORT=$PB_PORT_TC7_BIO ;;
  esac
  args_server_settings "$RUN_SERVER" "$RUN_THREADS"
}

read_hosts() {
  local file=${PB_HOSTS:-$PB_ROOT/hosts.conf}
  if [[ -z ${PB_HOSTS:-} && ! -e $file ]]; then
    hosts_use_default
  else
    read_hosts_file "$file"
  fi
  hosts_check_ports "$SERVER_PORT"
  if ((RUN_THREADS < ${#ENGINE_IDX[@]})); then
    args_fail "threads ($RUN_THREADS) must be at least the number of engines in $HOSTS_SOURCE (${#ENGINE_IDX[@]})"
  fi
  hosts_split_threads "$RUN_THREADS"
  run_disk_need
  PB_SERVER_ADDRESS=${H_ADDR[SUT_IDX]}   # the server listens there only (forwarded to the sut)
  remote_init "$PB_STATE_EXPLICIT"
  local e
  say "hosts ($HOSTS_SOURCE): $(hosts_describe "$SUT_IDX")"
  for e in "${ENGINE_IDX[@]}"; do
    H_HEAP_MB[e]=$(jmeter_heap_mb "${H_THREADS[e]}") ||
      args_fail "PB_JMETER_HEAP=$PB_JMETER_HEAP is not a heap size (want auto, or e.g. 512m or 3g)"
    say "  $(hosts_describe "$e"): ${H_THREADS[e]} threads, heap ${H_HEAP_MB[e]} MB, rmi ${H_RMI[e]}"
  done
}

# H_DISK_MB[engine] and RESULTS_DISK_MB: the disk this run needs on each engine and here, from its type,
# duration, intervals and threads (lib/disk-need.js), for preflight.
run_disk_need() {
  local e k out=() threads=()
  for e in "${ENGINE_IDX[@]}"; do threads+=("${H_THREADS[e]}"); done
  mapfile -t out < <(node lib/disk-need.js "$RUN_TYPE" "$RUN_DURATION" "${RUN_MAXDUR:-${RUN_PULL:--}}" \
    "${RUN_INTERVAL:--}" "${threads[@]}")
  ((${#out[@]} == ${#ENGINE_IDX[@]} + 1)) || { echo "run.sh: lib/disk-need.js failed" >&2; exit 1; }
  for k in "${!ENGINE_IDX[@]}"; do H_DISK_MB[ENGINE_IDX[k]]=${out[k]}; done
  RESULTS_DISK_MB=${out[-1]}
}

preflight() {
  if ! preflight_all; then
    echo "run.sh: preflight failed (problems above); nothing was started" >&2
    exit 3
  fi
  say "preflight: every host reachable, everything fits"
}

create_log_directories() {
  local base=$PB_RESULTS stamp name n=1 e
  printf -v stamp '%(%Y%m%d-%H%M%S)T' -1
  name="$stamp-$RUN_SERVER-$RUN_TYPE-$RUN_THREADS-$RUN_DURATION"
  mkdir -p "$base"
  # mkdir without -p fails if the directory exists, so two runs can never share one.
  RUN_ID=$name
  until mkdir "$base/$RUN_ID" 2>/dev/null; do
    [[ -d $base/$RUN_ID && $n -lt 1000 ]] || { echo "run.sh: cannot create a run directory in $base" >&2; exit 1; }
    n=$((n + 1)); RUN_ID="$name-$n"
  done
  RUN_DIR=$(cd "$base/$RUN_ID" && pwd)
  mkdir -p "$RUN_DIR"/{sut,jmeter,responses}
  RUN_LOG=$RUN_DIR/run.log
  : >"$RUN_LOG"
  ((${#PENDING_LOG[@]} == 0)) || printf '%s\n' "${PENDING_LOG[@]}" >>"$RUN_LOG"
  PENDING_LOG=()
  [[ -z ${PB_RUN_DIR_FILE:-} ]] || printf '%s\n' "$RUN_DIR" >"$PB_RUN_DIR_FILE"
  WORK_DIR=$PB_STATE/runs/$RUN_ID
  mkdir -p "$WORK_DIR"
  RUN_STARTED_AT=$(now_ms)
  runjson_write
  say "run directory: $RUN_DIR"
  # The responses folder of each engine, on its own host.
  for e in "${ENGINE_IDX[@]}"; do
    quietly "create the responses directory on engine ${H_NAME[e]}" \
      remote_run "$e" host/archive.sh dir "$RUN_ID" "${H_NAME[e]}"
    H_WORK[e]=${H_STATE[e]}/runs/$RUN_ID/${H_NAME[e]}
  done
}

stop_all_servers() {
  quietly "stop every server under test on ${H_NAME[SUT_IDX]}" remote_run "$SUT_IDX" servers/control.sh stop all
}

start_server_under_test() {
  local out
  SERVER_STARTED=1 SERVER_LOG_WANTED=1
  quietly "start $RUN_SERVER on ${H_NAME[SUT_IDX]}" remote_run "$SUT_IDX" servers/control.sh start "$RUN_SERVER"
  out=$(remote_run "$SUT_IDX" servers/control.sh status "$RUN_SERVER")
  [[ $out =~ pid\ ([0-9]+) ]] || { STEP_ERROR="no pid in: $out"; return 1; }
  SERVER_PID=${BASH_REMATCH[1]}
  say "  $RUN_SERVER running on ${H_ADDR[SUT_IDX]}:$SERVER_PORT (pid $SERVER_PID)"
}

start_monitoring() {
  MONITOR_STARTED=1 MONITOR_FILES_WANTED=1
  # The analyzer counts vmstat's lines as seconds from startedAt: make it the moment vmstat starts.
  RUN_STARTED_AT=$(now_ms)
  quietly "start vmstat and pidstat on ${H_NAME[SUT_IDX]}" \
    remote_run "$SUT_IDX" host/monitor.sh start "$RUN_ID" "$SERVER_PID"
}

# The engines need nothing from the server, and a JVM takes seconds to start: they start in the
# background right after the directories exist, while the server starts; start_engines, in its place in
# the study's order, then waits until every one is ready.
# Roles follow the order in which JMeter's controller starts the engines (lib/jmeter-order.sh; not the
# order of hosts.conf), a few hundred ms to seconds apart. Only the engine started first runs Init: each
# event set restarts the server's emitter, so n engines would set it n times, and set first, the event
# exists before the other engines' first requests. Only the engine started last runs the Clean Up clear:
# an earlier engine's clear would end a later engine's streams before that engine's duration is over.
launch_engines() {
  local e init cleanup first last
  local -a keys order
  mapfile -t keys < <(engine_keys)
  mapfile -t order < <(jmeter_start_order "${keys[@]}")
  for e in "${ENGINE_IDX[@]}"; do
    [[ ${H_ADDR[e]}:${H_RMI[e]} == "${order[0]}" ]] && first=$e
    [[ ${H_ADDR[e]}:${H_RMI[e]} == "${order[-1]}" ]] && last=$e
  done
  for e in "${ENGINE_IDX[@]}"; do
    ENGINES_STARTED+=("$e")
    init=0 cleanup=0
    [[ $e == "$first" ]] && init=1
    [[ $e == "$last" ]] && cleanup=1
    remote_run "$e" load/engine.sh start --name "$(engine_id "$e")" --address "${H_ADDR[e]}" \
      --port "${H_RMI[e]}" --localport "${H_LOCALPORT[e]}" --threads "${H_THREADS[e]}" --heap "${H_HEAP_MB[e]}m" \
      --responses "${H_WORK[e]}/responses" --gc-log "${H_WORK[e]}/gc.log" --init "$init" --cleanup "$cleanup" \
      >"$WORK_DIR/engine-start-${H_NAME[e]}.out" 2>&1 &
    ENGINE_START_PIDS+=("$!")
  done
}

start_engines() {
  local e k failed=0
  for k in "${!ENGINE_START_PIDS[@]}"; do
    e=${ENGINES_STARTED[k]}
    if ! wait "${ENGINE_START_PIDS[k]}"; then
      failed=$((failed + 1))
      say "  engine ${H_NAME[e]} did not start:"
      tail -n 20 "$WORK_DIR/engine-start-${H_NAME[e]}.out" | sed 's/^/    | /' >&2
    fi
    sed 's/^/    | /' "$WORK_DIR/engine-start-${H_NAME[e]}.out" >>"$RUN_LOG"
  done
  ENGINE_START_PIDS=()
  ((failed == 0)) || { STEP_ERROR="$failed engine(s) did not start"; return 1; }
  say "  ${#ENGINE_IDX[@]} engine(s) ready"
}

# vmstat and pidstat of each engine's JVM on its host, as on the SUT: whether the load generator kept up
# is part of every run's result (docs/validity.md). A monitor that does not start is noted, not fatal:
# the verdict then says the engine's CPU is unknown.
start_engine_monitoring() {
  local e out pid
  for e in "${ENGINE_IDX[@]}"; do
    out=$(remote_run "$e" load/engine.sh status --name "$(engine_id "$e")" 2>&1) || true
    if [[ ! $out =~ pid\ ([0-9]+) ]]; then
      warn "engine ${H_NAME[e]}: no pid to monitor ($out); its CPU will be unknown"
      continue
    fi
    pid=${BASH_REMATCH[1]}
    ENGINE_MONITORS+=("$e")
    quietly "start vmstat and pidstat on engine ${H_NAME[e]}" \
      remote_run "$e" host/monitor.sh start "$RUN_ID" "$pid" "engine-${H_NAME[e]}" ||
      warn "engine ${H_NAME[e]}: monitors did not start; its CPU will be unknown"
  done
}

# engine_keys: every engine as the controller names it, <address>:<rmi port>, one a line.
engine_keys() {
  local e
  for e in "${ENGINE_IDX[@]}"; do printf '%s:%s\n' "${H_ADDR[e]}" "${H_RMI[e]}"; done
}

run_controller() {
  local props=$RUN_DIR/jmeter/run.properties engines
  engines=$(engine_keys | paste -sd,)
  write_properties >"$props"
  CONTROLLER_PIDFILE=$WORK_DIR/controller.pid
  # Its own session: a Ctrl-C on the terminal reaches run.sh, which then stops it in order.
  setsid load/controller.sh --run-dir "$RUN_DIR" --engines "$engines" --props "$props" \
    >"$RUN_DIR/jmeter/controller.out" 2>&1 </dev/null &
  CONTROLLER_PID=$!
  procs_record "$CONTROLLER_PID" "$CONTROLLER_PIDFILE"
  say "  controller started (pid $CONTROLLER_PID), engines $engines"
  # Its CPU is the load generator's too (docs/validity.md): pidstat of its JVM, here.
  CONTROLLER_MONITOR=1
  quietly "start pidstat of the controller" host/monitor.sh start "$RUN_ID" "$CONTROLLER_PID" controller ||
    warn "the controller's pidstat did not start; its CPU counts among other processes"
}

# The global properties of the plan (load/controller.sh sends them to every engine with -G and sets
# log.dir.base itself; threads.num and log.dir.res are each engine's own, given to load/engine.sh).
write_properties() {
  # request.timeout is left to the plan, which derives it from the type, duration and interval
  # (load/README.md).
  cat <<EOF
server.host=${H_ADDR[SUT_IDX]}
server.port=$SERVER_PORT
rampup.period=$RUN_RAMPUP
test.duration=$RUN_DURATION
logging.enabled=false
event.enabled=$([[ -n $RUN_EVENT ]] && echo true || echo false)
event.name=${RUN_EVENT:-none}
event.frequency=${RUN_INTERVAL:-0}
request.type=$RUN_TYPE
request.events=${RUN_EVENT}
request.duration=${RUN_MAXDUR:-0}
pull.interval=${RUN_PULL:-0}
EOF
}

# JMeter's controller log says when the engines really start and end the test (JMeter 5.6.3 wording).
# Under load the start can lag the controller's launch by tens of seconds, and a comet run writes
# almost nothing to results.csv until its end, so the clock of the wait starts at the first engine.
jmeter_log_count() { # <pattern>: lines of jmeter/controller.log matching it (0 without the file)
  local n
  n=$(grep -c -- "$1" "$RUN_DIR/jmeter/controller.log" 2>/dev/null) || true
  printf '%s' "${n:-0}"
}

wait_for_completion() {
  local csv=$RUN_DIR/jmeter/results.csv start expected tail elapsed last_size=-1 stable=0
  local tick=0 tty=0 crashed_at='' test_start='' ended=0 deadline startup_limit=180 shown open='?' sut_rc
  [[ -t 1 ]] && tty=1
  start=$SECONDS
  expected=$RUN_DURATION   # the plan's Request group runs this long, ramp-up included
  # After the test: the last polls or emit cycle, the clean-up group, the engines' final batch.
  tail=$((($(max "${RUN_MAXDUR:-0}" "${RUN_INTERVAL:-0}") + 999) / 1000 + 10))
  deadline=$startup_limit
  progress_reset
  while true; do
    # sleep in the background so a signal is handled at once
    sleep 1 & wait $! || true
    tick=$((tick + 1))
    elapsed=$((SECONDS - start))
    if [[ -z $test_start ]] && (($(jmeter_log_count 'Started remote host') > 0)); then
      test_start=$elapsed
      deadline=$((test_start + expected + tail + 60 + expected / 5))
    fi
    if ((tick % 5 == 0)) || ! procs_alive "$CONTROLLER_PIDFILE" >/dev/null; then
      progress_update "$csv"
      open=$(server_open_requests)
      if ! procs_alive "$CONTROLLER_PIDFILE" >/dev/null; then
        wait "$CONTROLLER_PID" && CONTROLLER_RC=0 || CONTROLLER_RC=$?
        progress_update "$csv"
        ((tty)) && printf '\n'
        say "  controller finished (exit $CONTROLLER_RC) after ${elapsed}s: $PROG_SAMPLES samples, $PROG_ERRORS errors"
        if ((CONTROLLER_RC != 0)); then
          warn "the JMeter controller failed (exit $CONTROLLER_RC, see jmeter/controller.out and controller.log)"
          RUN_FAILED=1
        fi
        # JMeter's controller exits 0 even when an engine refused the plan (JMeter 5.6.3 wording).
        if (($(jmeter_log_count 'remote engines have not started') > 0)); then
          warn "JMeter could not start the test on every engine (see jmeter/controller.log)"
          RUN_FAILED=1
        fi
        break
      fi
      # An engine that died never ends the test: the wait is for the others, and none left ends it.
      engines_check_alive "$elapsed"
      if ((${#ENGINES_DEAD[@]} == ${#ENGINE_IDX[@]})); then
        ((tty)) && printf '\n'
        say "  stopping the test early: no JMeter engine is left"
        break
      fi
      # The study's rule, once every engine has ended the test: results.csv stopped growing, seen
      # twice. (The controller normally exits by itself a few seconds after that.)
      ((ended)) || (($(jmeter_log_count 'Finished remote host') < ${#ENGINE_IDX[@]} - ${#ENGINES_DEAD[@]})) || ended=1
      if ((ended)); then
        if ((PROG_SIZE == last_size)); then stable=$((stable + 1)); else stable=0; fi
        if ((stable >= 2)); then
          ((tty)) && printf '\n'
          say "  every engine ended and results.csv stopped growing, but the controller still runs: stopping it"
          break
        fi
      fi
      last_size=$PROG_SIZE
      sut_rc=0
      [[ -n $crashed_at ]] || server_check || sut_rc=$?
      if ((sut_rc == 255)); then
        # The SUT host no longer answers ssh: the server may well serve on, so the test runs its course.
        sut_unreachable "found at ${elapsed}s"
      elif ((sut_rc != 0)); then
        ((tty)) && printf '\n'
        SERVER_CRASHED=1 crashed_at=$elapsed
        warn "the $RUN_SERVER server died during the test (found at ${elapsed}s); collecting what there is"
        runjson_write
      fi
      # Once the server is gone every request fails at once: no point in running on.
      if [[ -n $crashed_at ]] && ((elapsed >= crashed_at + 5)); then
        say "  stopping the test early: the server under test is gone"
        break
      fi
      if ((elapsed >= deadline)); then
        ((tty)) && printf '\n'
        if [[ -z $test_start ]]; then
          RUN_NOTES+=("JMeter had not started the test on any engine ${startup_limit}s after the controller started; stopped")
        else
          RUN_NOTES+=("JMeter was still running at the hard deadline (${deadline}s after the controller started); stopped")
        fi
        say "  hard deadline (${deadline}s) reached: ${RUN_NOTES[-1]}"
        RUN_FAILED=1
        break
      fi
    fi
    if [[ -z $test_start ]]; then shown="starting"; else shown="$((elapsed - test_start))/${expected}s"; fi
    if ((tty)); then
      printf '\r  wait: %s, %s open on the server, %d samples, %d errors   ' "$shown" "$open" "$PROG_SAMPLES" "$PROG_ERRORS"
    elif ((tick % 5 == 0)); then
      say "  wait: $shown, $open open on the server, $PROG_SAMPLES samples, $PROG_ERRORS errors"
    fi
  done
}

stop_jmeter() {
  stop_controller
  stop_engines
  collect_engine_logs
}

stop_server() {
  # Checked once more: a server that died in the last seconds is a crash too.
  local rc=0
  ((SERVER_CRASHED)) || server_check || rc=$?
  if ((rc == 255)); then
    sut_unreachable "at the end of the test; the $RUN_SERVER server could not be stopped and may still run there"
  elif ((rc != 0)); then
    SERVER_CRASHED=1
    warn "the $RUN_SERVER server was found dead at the end of the test"
  fi
  stop_the_server
  collect_server_log
}

stop_monitoring() {
  stop_monitors
  RUN_FINISHED_AT=$(now_ms)
  collect_monitor_files
  ((MONITOR_FILES_COPIED)) || return 0   # kept on the SUT host, noted
  quietly "remove the monitor files on ${H_NAME[SUT_IDX]}" remote_run "$SUT_IDX" host/monitor.sh clean "$RUN_ID"
}

archive_responses() {
  local e
  for e in "${ENGINE_IDX[@]}"; do
    quietly "archive the responses on engine ${H_NAME[e]}" remote_run "$e" host/archive.sh tar "$RUN_ID" "${H_NAME[e]}"
  done
}

copy_responses() {
  local e dest
  for e in "${ENGINE_IDX[@]}"; do
    dest=$RUN_DIR/responses/${H_NAME[e]}.tar.gz
    quietly "copy the responses of engine ${H_NAME[e]}" \
      remote_fetch "$e" "${H_WORK[e]}/${H_NAME[e]}.tar.gz" "$dest"
    say "  responses/${H_NAME[e]}.tar.gz: $(stat -c %s "$dest") bytes"
    quietly "remove the copied files on engine ${H_NAME[e]}" remote_run "$e" host/archive.sh clean "$RUN_ID" "${H_NAME[e]}"
  done
}

analyze() {
  # The test is over and everything is collected; a failing analysis turns this into incomplete.
  RUN_STATUS=complete
  ((RUN_FAILED == 0)) || RUN_STATUS=incomplete
  runjson_write
  quietly "node analysis/analyze.js" node analysis/analyze.js "$RUN_DIR"
  local out
  out=$(node charts/report.js "$RUN_DIR" 2>>"$RUN_LOG") || { STEP_ERROR="node charts/report.js failed"; return 1; }
  printf '%s\n' "$out" | sed 's/^/    | /' >>"$RUN_LOG"
  REPORT_PATH=$(printf '%s\n' "$out" | tail -n 1)
}

print_report_path() {
  local line
  # The validity verdict (docs/validity.md): whether the figures measured the server or the load generator.
  while IFS= read -r line; do say "$line"; done < <(node analysis/verdict.js "$RUN_DIR" 2>&1)
  say "report: $REPORT_PATH"
}

# ---------------------------------------------------------------------------------------------------
# Stopping and collecting: used by the steps above and by the clean-up (lib/cleanup.sh). Each one is
# idempotent and acts only on what this run recorded starting.

max() { if (($1 > $2)); then printf '%s' "$1"; else printf '%s' "$2"; fi; }

engine_id() { printf '%s' "${H_NAME[$1]}"; }   # load/engine.sh's --name: the hosts.conf name

# engines_check_alive <elapsed s>: each engine found gone for the first time is noted (the run becomes
# incomplete; what it saved until then is archived and copied like any engine's) and added to ENGINES_DEAD.
engines_check_alive() {
  local e d known
  for e in "${ENGINE_IDX[@]}"; do
    known=0
    for d in "${ENGINES_DEAD[@]}"; do [[ $d != "$e" ]] || known=1; done
    ((known == 0)) || continue
    remote_run "$e" load/engine.sh status --name "$(engine_id "$e")" >/dev/null 2>&1 && continue
    ENGINES_DEAD+=("$e")
    RUN_FAILED=1
    warn "engine ${H_NAME[e]} died during the test (found at ${1}s); what it saved until then is collected"
    runjson_write
  done
}

# server_check: 0 the server runs, 255 the SUT host did not answer (ssh's own failure), else it is gone.
server_check() {
  local rc=0
  remote_run "$SUT_IDX" servers/control.sh status "$RUN_SERVER" >/dev/null 2>&1 || rc=$?
  return "$rc"
}

# sut_unreachable <when>: the SUT host stopped answering ssh; noted once, the run becomes incomplete.
sut_unreachable() {
  RUN_FAILED=1
  ((SUT_UNREACHABLE)) && return 0
  SUT_UNREACHABLE=1
  warn "the SUT host ${H_NAME[SUT_IDX]} (${H_ADDR[SUT_IDX]}) does not answer ssh ($1); its files stay there"
  runjson_write
}

# The requests open on the server now (its GET /status), for the progress line: a comet run has no
# finished samples until the end, so this is what shows the load building up. '?' if it does not answer.
server_open_requests() {
  local body
  body=$(curl -s --max-time 1 "http://${H_ADDR[SUT_IDX]}:$SERVER_PORT/status" 2>/dev/null) || body=''
  if [[ $body =~ \"open\":([0-9]+) ]]; then printf '%s' "${BASH_REMATCH[1]}"; else printf '?'; fi
}

stop_controller() {
  [[ -n $CONTROLLER_PIDFILE ]] || return 0
  procs_stop_recorded "$CONTROLLER_PIDFILE" 10
  wait "$CONTROLLER_PID" 2>/dev/null || true
}

stop_engines() {
  local e p
  # An engine still starting (interrupted in start_engines) must finish first, or its PID file would
  # appear after the stop below.
  for p in "${ENGINE_START_PIDS[@]}"; do wait "$p" 2>/dev/null || true; done
  ENGINE_START_PIDS=()
  for e in "${ENGINES_STARTED[@]}"; do
    quietly "stop engine ${H_NAME[e]}" remote_run "$e" load/engine.sh stop --name "$(engine_id "$e")" || true
  done
}

collect_engine_logs() {
  local e
  for e in "${ENGINES_STARTED[@]}"; do
    remote_fetch "$e" "${H_STATE[e]}/engine-$(engine_id "$e").log" "$RUN_DIR/jmeter/engine-${H_NAME[e]}.log" 2>/dev/null ||
      keep_left_behind "$e" "the JMeter log of engine ${H_NAME[e]}" "${H_STATE[e]}/engine-$(engine_id "$e").log (until that engine starts again)"
    mkdir -p "$RUN_DIR/engines/${H_NAME[e]}"
    remote_fetch "$e" "${H_WORK[e]}/gc.log" "$RUN_DIR/engines/${H_NAME[e]}/gc.log" 2>/dev/null ||
      say "  (no GC log from engine ${H_NAME[e]})"
  done
}

stop_the_server() {
  ((SERVER_STARTED)) || return 0
  quietly "stop $RUN_SERVER on ${H_NAME[SUT_IDX]}" remote_run "$SUT_IDX" servers/control.sh stop "$RUN_SERVER" || true
  SERVER_STARTED=0
}

collect_server_log() {
  ((SERVER_LOG_WANTED)) || return 0   # not started by this run: the log is an older run's
  remote_fetch "$SUT_IDX" "${H_STATE[SUT_IDX]}/$RUN_SERVER.log" "$RUN_DIR/sut/server.log" 2>/dev/null ||
    keep_left_behind "$SUT_IDX" "the server log" "${H_STATE[SUT_IDX]}/$RUN_SERVER.log (until $RUN_SERVER starts again)"
}

stop_monitors() {
  local e
  ((CONTROLLER_MONITOR == 0)) || host/monitor.sh stop "$RUN_ID" controller >>"$RUN_LOG" 2>&1 || true
  for e in "${ENGINE_MONITORS[@]}"; do
    quietly "stop the monitors on engine ${H_NAME[e]}" remote_run "$e" host/monitor.sh stop "$RUN_ID" "engine-${H_NAME[e]}" || true
  done
  ((MONITOR_STARTED)) || return 0
  quietly "stop the monitors on ${H_NAME[SUT_IDX]}" remote_run "$SUT_IDX" host/monitor.sh stop "$RUN_ID" || true
  MONITOR_STARTED=0
}

# After an interrupt or a failure: archive and copy what each started engine saved, each engine on its
# own (one failing leaves the others' archives); a failure leaves its files on the engine, noted.
collect_responses_anyway() {
  local e dest
  for e in "${ENGINES_STARTED[@]}"; do
    dest=$RUN_DIR/responses/${H_NAME[e]}.tar.gz
    [[ ! -s $dest ]] || continue
    if remote_run "$e" host/archive.sh tar "$RUN_ID" "${H_NAME[e]}" >>"$RUN_LOG" 2>&1 &&
      remote_fetch "$e" "${H_WORK[e]}/${H_NAME[e]}.tar.gz" "$dest" 2>>"$RUN_LOG"; then
      remote_run "$e" host/archive.sh clean "$RUN_ID" "${H_NAME[e]}" >>"$RUN_LOG" 2>&1 || true
      say "  responses/${H_NAME[e]}.tar.gz: what engine ${H_NAME[e]} saved so far"
    else
      rm -f -- "$dest"
      keep_left_behind "$e" "the responses of engine ${H_NAME[e]}" "${H_WORK[e]}/responses"
    fi
  done
  ((MONITOR_FILES_COPIED == 0)) ||
    remote_run "$SUT_IDX" host/monitor.sh clean "$RUN_ID" >>"$RUN_LOG" 2>&1 || true
}

collect_monitor_files() {
  local e f src
  # Each engine's monitors: copied into engines/<name>/, then removed there; a failed copy keeps them.
  for e in "${ENGINE_MONITORS[@]}"; do
    src=${H_STATE[e]}/runs/$RUN_ID/engine-${H_NAME[e]}
    mkdir -p "$RUN_DIR/engines/${H_NAME[e]}"
    local copied=1
    for f in vmstat.log pidstat.log started-at.txt cpus-allowed.txt; do
      remote_fetch "$e" "$src/$f" "$RUN_DIR/engines/${H_NAME[e]}/$f" 2>/dev/null ||
        { say "  (no $f from engine ${H_NAME[e]})"; copied=0; }
    done
    ((copied == 0)) || remote_run "$e" host/monitor.sh clean "$RUN_ID" "engine-${H_NAME[e]}" >>"$RUN_LOG" 2>&1 || true
  done
  ENGINE_MONITORS=()
  if ((CONTROLLER_MONITOR)); then
    src=$(host/monitor.sh dir "$RUN_ID" controller)
    mkdir -p "$RUN_DIR/controller"
    if cp -- "$src/pidstat.log" "$RUN_DIR/controller/pidstat.log" 2>/dev/null; then
      host/monitor.sh clean "$RUN_ID" controller >>"$RUN_LOG" 2>&1 || true
    else
      say "  (no pidstat.log of the controller)"
    fi
    CONTROLLER_MONITOR=0
  fi
  ((MONITOR_FILES_WANTED)) || return 0
  ((MONITOR_FILES_COPIED == 0)) || return 0   # copied (and removed there) already
  src=${H_STATE[SUT_IDX]}/runs/$RUN_ID/sut
  MONITOR_FILES_COPIED=1
  for f in vmstat.log pidstat.log memory.log meminfo.txt netstat.log; do
    remote_fetch "$SUT_IDX" "$src/$f" "$RUN_DIR/sut/$f" 2>/dev/null || { say "  (no $f from the sut)"; MONITOR_FILES_COPIED=0; }
  done
  ((MONITOR_FILES_COPIED)) || keep_left_behind "$SUT_IDX" "the SUT's monitor files" "$src"
}

# ---------------------------------------------------------------------------------------------------

# First use on this machine: install what is missing (Debian tools, npm packages, JMeter, Tomcats, WARs).
# Remote hosts are checked by preflight, which names the install command to run there.
install_missing() {
  "$PB_ROOT/setup.sh" --quiet || { echo "run.sh: set-up failed (above); nothing was started" >&2; exit 3; }
}

main() {
  case ${1:-} in -h | --help) usage; exit 0 ;; esac
  cleanup_install_traps
  step validate_arguments "$@"
  step read_hosts
  step install_missing
  step preflight
  step create_log_directories
  step launch_engines
  step stop_all_servers
  step start_server_under_test
  step start_monitoring
  step start_engines
  step start_engine_monitoring
  step run_controller
  step wait_for_completion
  step stop_jmeter
  step stop_server
  step stop_monitoring
  step archive_responses
  step copy_responses
  step analyze
  step print_report_path
  RUN_FINISHED=1
  runjson_write
  keep_remove_work_dir "$WORK_DIR"
  [[ $RUN_STATUS == complete && $RUNJSON_FAILED == 0 ]] || exit 1
  ((SERVER_CRASHED == 0)) || exit 4
  exit 0
}

main "$@"
