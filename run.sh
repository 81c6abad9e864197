#!/usr/bin/env bash
# shellcheck disable=SC2317,SC2034  # the steps are called through step(), the undo entries through lib/cleanup.sh; the run
# state is read by key through lib/run-get.sh, which shellcheck cannot follow
# pushbench: one test run from start to report (the study's section 3.3).
#
#   ./run.sh <server-type> <rampup> <duration> <threads> <test-type> [<max-duration> [<event-name> <emit-interval>]]
#   ./run.sh --stop-stale | --stop <run id>
#   ./run.sh --help
#
# The steps below run in the order of the study's section 3.3.3; each is a function of this file (the wait's
# rules are lib/run-wait.sh, the undo entries lib/run-undo.sh) and
# its duration is recorded in run.json ("steps", ms). Each step that starts something registers its undo
# (stop it, collect what it wrote) on the undo list (lib/cleanup.sh); the stop steps run those entries,
# and the EXIT trap runs whatever is left. Which host does what comes from hosts.conf ($PB_HOSTS); what
# a run leaves on disk is docs/run-layout.md; how the parts fit, docs/architecture.md. Helpers live in
# lib/, scripts that run on the hosts in host/, JMeter's engines and controller in load/. One run at a
# time per state directory ($PB_STATE): a second is refused before it starts anything, and a run killed
# beyond any trap is stopped by ./run.sh --stop-stale (lib/state-dir.sh).
set -euo pipefail

PB_ROOT=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
# PB_STATE set by the caller is shared with every host; otherwise each checkout uses its own.
PB_STATE_EXPLICIT=0
[[ -n ${PB_STATE:-} ]] && PB_STATE_EXPLICIT=1
# shellcheck source=lib/config.sh
source "$PB_ROOT/lib/config.sh"
# shellcheck source=lib/log.sh
source "$PB_ROOT/lib/log.sh"
# shellcheck source=lib/run-get.sh
source "$PB_ROOT/lib/run-get.sh"
# shellcheck source=lib/args.sh
source "$PB_ROOT/lib/args.sh"
# shellcheck source=lib/hosts.sh
source "$PB_ROOT/lib/hosts.sh"
# shellcheck source=lib/remote.sh
source "$PB_ROOT/lib/remote.sh"
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
# shellcheck source=lib/decisions.sh
source "$PB_ROOT/lib/decisions.sh"
# shellcheck source=lib/runlock.sh
source "$PB_ROOT/lib/runlock.sh"
# shellcheck source=lib/runstate.sh
source "$PB_ROOT/lib/runstate.sh"
# shellcheck source=lib/state-dir.sh
source "$PB_ROOT/lib/state-dir.sh"
# shellcheck source=lib/run-wait.sh
source "$PB_ROOT/lib/run-wait.sh"
# shellcheck source=lib/run-undo.sh
source "$PB_ROOT/lib/run-undo.sh"
# shellcheck source=lib/run-sut.sh
source "$PB_ROOT/lib/run-sut.sh"
cd "$PB_ROOT"
decisions_exit_codes   # EXIT_*: the exit codes by name (lib/decide-exit.js), before anything can exit

# ---------------------------------------------------------------------------------------------------
# Run state: the one place it is kept, RUN_* (lib/runstate.sh saves every RUN_* for --stop-stale).
# lib/runjson.sh writes run.json from it after every step.

# The run's parameters and the disk it needs here, decided once by lib/decide.js (validate_arguments; the
# run schema's names in snake case, lib/run-schema.js: the command line's <threads> is the run's connections)
RUN_SERVER='' RUN_RAMPUP_S='' RUN_DURATION_S='' RUN_CONNECTIONS='' RUN_TYPE='' RUN_MAX_DURATION_MS='' RUN_EVENT=''
RUN_EMIT_INTERVAL_MS='' RUN_PULL_INTERVAL_MS='' RUN_PORT='' RUN_RESULTS_DISK_MB=''
RUN_WAIT_S='' RUN_JMETER_PROPERTIES=''   # when the wait gives up (s after the test started), run.properties
# the wait's other rules (lib/run-wait.sh; lib/decide-jmeter.js waitRules): how often it checks, when it gives up on
# a test never started, how many checks results.csv stays the same size, how long after a crash it stops (s)
RUN_WAIT_CHECK_EVERY_S='' RUN_WAIT_STARTUP_LIMIT_S='' RUN_WAIT_CSV_UNCHANGED_CHECKS='' RUN_WAIT_CRASH_STOP_S=''
RUN_NAME=''          # the run directory's name after its time stamp
# A target run (docs/targets.md): the target file given, run.json's record of it, and the host:port of its
# subscribe and publish URLs; all empty for the built-in servers
RUN_TARGET_FILE='' RUN_TARGET_JSON='' RUN_TARGET_ADDRESSES=() RUN_TARGET_MONITOR=''   # pid:<n> or process:<name>, or ''
RUN_THRESHOLDS=()    # the run's thresholds (lib/thresholds.js): the target file's, then --threshold's
# A built-in run over TLS (--tls): the front's port, run.json's record of it, and the run's CA (base64 of
# its PEM, the engines' tls.ca); all empty otherwise
RUN_TLS_PORT='' RUN_TLS_JSON='' RUN_TLS_CA=''
# What the run does: the run directory (its name is the id), this run's state directory here
# ($PB_STATE/runs/<id>), the PIDs it started
RUN_ID='' RUN_DIR='' RUN_WORK_DIR=''
RUN_CSV_SEEN_OPEN=0   # 1 once the controller's JVM was seen holding results.csv open (controller_done)
RUN_SERVER_PID='' RUN_CONTROLLER_PID='' RUN_CONTROLLER_PIDFILE=''
RUN_STARTED_AT=''    # epoch ms when the SUT's vmstat started (its line n is second n of the run)
RUN_FINISHED_AT=''   # epoch ms when the monitors were stopped
RUN_STATUS=running   # then complete or incomplete
RUN_CRASHED=0        # 1: the server under test was found dead before run.sh stopped it
RUN_SERVER_GONE=0    # 1: it was stopped by someone else before run.sh stopped it (no crash)
RUN_FAILED=0         # 1: JMeter failed or overran, or data stayed on a host: collected and analysed, but incomplete
RUN_SUT_UNREACHABLE=0   # 1 once the SUT host stopped answering ssh (noted once)
RUN_RUNJSON_FAILED=0 RUN_PROVENANCE=''   # lib/runjson.sh's
RUN_REPORT=''        # the report's path
RUN_VERDICT=''       # the validity verdict (docs/validity.md); failed: the run exits 1
RUN_THRESHOLDS_FAILED=0   # 1: a threshold failed (lib/thresholds.js); the run exits 7
RUN_STEP='' RUN_STEP_ERROR=''   # the step running, and what in it failed (quietly)
RUN_INTERRUPTED=''   # the signal that ended the run (or its output lost: lib/log.sh)
RUN_FINISHED=0       # 1 once every step ran: the EXIT trap then only closes what is left
RUN_EXITING=0        # 1 once the EXIT trap runs
RUN_NOTES=()   # run.json's notes, in the order noted
RUN_STEPS=()   # "<step> <ms>", in the order run
# Per host (index as in lib/hosts.sh): its share of the connections (its JMeter threads), its JMeter heap and disk need, 1 for
# the engine that sets the event (H_INIT) and the one that clears it (H_CLEANUP), its work directory there, the PID of its engine's launch while it runs, and 1 once its engine was found dead;
# 1 while ssh does not reach an engine's host whose engine answers on RMI (H_UNREACHABLE), and 1 once the run left it so (H_LOST: lib/run-undo.sh engine_host_lost).
H_CONNECTIONS=() H_HEAP_MB=() H_DISK_MB=() H_INIT=() H_CLEANUP=() H_WORK=() H_LAUNCH_PID=() H_DEAD=() H_UNREACHABLE=() H_LOST=()

# The teardown's phases, in the order they run: the study's stop steps (section 3.3.3: stop JMeter, stop
# the server under test, stop monitoring, archive and copy the responses), then this run's own files
# and connections. Not the start order reversed: the engines start early, in the background, and the
# monitors outlive what they watch. Within a phase, the last registered is undone first.
undo_phases jmeter server monitors monitor-files responses work-dir ssh
# The undo list and the run state are kept on disk as they change, for ./run.sh --stop-stale.
undo_on_change runstate_save
LOG_ON_LOST=output_lost

warn() { say "warning: $*"; RUN_NOTES+=("$*"); }

# quietly <what> <command...>: the command's output goes to run.log; on failure its last lines are
# shown and RUN_STEP_ERROR says what failed. What it starts does not hold the run's lock (fd 9).
quietly() {
  local what=$1 out rc=0; shift
  out=$("$@" 2>&1 9>&-) || rc=$?
  [[ -z $RUN_LOG || -z $out ]] || printf '%s\n' "$out" | sed 's/^/    | /' >>"$RUN_LOG"
  if ((rc != 0)); then
    RUN_STEP_ERROR="$what (exit $rc)"
    say "  failed: $what (exit $rc)"
    printf '%s\n' "$out" | tail -n 25 | sed 's/^/    | /' >&2
  fi
  return "$rc"
}

# step <function> [args]: run one step, timing it.
step() {
  local name=$1 t0; shift
  RUN_STEP=$name RUN_STEP_ERROR=''
  runstate_save
  t0=$(now_ms)
  "$name" "$@"
  RUN_STEPS+=("$name $(($(now_ms) - t0))")
  runjson_write
  runstate_save
}

# output_lost: stdout can no longer be written (lib/log.sh; SIGPIPE sets OUTPUT_LOST_BY): the reader of
# a pipe or the terminal is gone. Before the analysis that stops the run like a SIGHUP; once it is
# analysed, only its closing lines are lost (run.log has them) and it ends as it would have.
OUTPUT_LOST_BY=''
output_lost() {
  ((RUN_EXITING)) && return 0
  [[ ${RUN_STATUS} == running ]] || return 0
  RUN_INTERRUPTED=${OUTPUT_LOST_BY:-'a lost output (a write to a closed pipe or a vanished terminal failed)'}
  exit "$EXIT_INTERRUPTED"
}

# ---------------------------------------------------------------------------------------------------
# The steps

# The run's decisions, read once (lib/decisions.sh, lib/decide.js): the RUN_* parameters, the hosts tables
# with each engine's share of the connections, heap and disk. Bad settings or arguments are refused here,
# before the state directory is claimed; a bad hosts file in read_hosts, after it.
validate_arguments() {
  decisions_load "$@"
  decisions_refuse_at settings arguments
}

read_hosts() {
  local e
  decisions_refuse_at hosts heap
  remote_init "$PB_STATE_EXPLICIT"
  say "hosts ($HOSTS_SOURCE): $(hosts_describe "$SUT_IDX")"
  for e in "${ENGINE_IDX[@]}"; do
    say "  $(hosts_describe "$e"): ${H_CONNECTIONS[e]} connections, heap ${H_HEAP_MB[e]} MB, rmi ${H_RMI[e]}"
  done
}

# One run at a time per state directory (lib/runlock.sh): taken before anything is started, held until
# run.sh exits. Refused at once while another run holds it (EXIT_BUSY), or while a run killed beyond any
# trap waits for ./run.sh --stop-stale (EXIT_STALE; lib/state-dir.sh names it and what it left).
claim_state_dir() {
  local owned
  local -a stale
  if ! runlock_take run; then
    runlock_owner_alive && statedir_refuse_busy "nothing was started"
    owned=$PB_STATE/runs/$(runlock_owner id)/run-state.sh
    [[ -f $owned ]] || owned=''
    statedir_refuse_stale "$owned"
  fi
  mapfile -t stale < <(runstate_stale)
  ((${#stale[@]} == 0)) || statedir_refuse_stale "${stale[0]}"
}

preflight() {
  undo_add ssh remote_close_all
  if ! preflight_all "${RUN_SERVER}" "${RUN_CONNECTIONS}" "${RUN_PORT}" "${RUN_RESULTS_DISK_MB}"; then
    echo "run.sh: preflight failed (problems above); nothing was started" >&2
    exit "$EXIT_PREFLIGHT_FAILED"
  fi
  say "preflight: every host reachable, everything fits"
}

create_log_directories() {
  local base=$PB_RESULTS stamp name id n=1 e
  printf -v stamp '%(%Y%m%d-%H%M%S)T' -1
  name="$stamp-${RUN_NAME}"
  mkdir -p "$base"
  # mkdir without -p fails if the directory exists, so two runs can never share one.
  id=$name
  until mkdir "$base/$id" 2>/dev/null; do
    [[ -d $base/$id && $n -lt 1000 ]] || { echo "run.sh: cannot create a run directory in $base" >&2; exit 1; }
    n=$((n + 1)); id="$name-$n"
  done
  RUN_ID=$id RUN_DIR=$(cd "$base/$id" && pwd)
  mkdir -p "${RUN_DIR}"/{sut,jmeter,responses}
  log_open "${RUN_DIR}/run.log"
  [[ -z ${PB_RUN_DIR_FILE:-} ]] || printf '%s\n' "${RUN_DIR}" >"$PB_RUN_DIR_FILE"
  RUN_WORK_DIR=$PB_STATE/runs/$id
  mkdir -p "${RUN_WORK_DIR}"
  runlock_own_set id "$id"
  runlock_own_set dir "${RUN_DIR}"
  undo_add work-dir forget_run_state "${RUN_WORK_DIR}"   # from then on nothing of the run is left to stop
  runstate_begin
  RUN_STARTED_AT=$(now_ms)
  runjson_write
  say "run directory: ${RUN_DIR}"
  # The responses folder of each engine, on its own host.
  for e in "${ENGINE_IDX[@]}"; do
    quietly "create the responses directory on engine ${H_NAME[e]}" \
      remote_run "$e" host/archive.sh dir "$id" "${H_NAME[e]}"
    H_WORK[e]=${H_STATE[e]}/runs/$id/${H_NAME[e]}
  done
}

stop_all_servers() {
  quietly "stop every server under test on ${H_NAME[SUT_IDX]}" remote_run "$SUT_IDX" servers/control.sh stop all
}

start_monitoring() {
  undo_add monitors stop_sut_monitors
  undo_add monitor-files collect_sut_monitor_files
  # The analyzer counts vmstat's lines as seconds from startedAt: make it the moment vmstat starts.
  RUN_STARTED_AT=$(now_ms)
  quietly "start vmstat and pidstat on ${H_NAME[SUT_IDX]}" \
    remote_run "$SUT_IDX" host/monitor.sh start "${RUN_ID}" "${RUN_SERVER_PID}"
}

# The engines need nothing from the server, and a JVM takes seconds to start: they start in the
# background right after the directories exist, while the server starts; start_engines, in its place in
# the study's order, then waits until every one is ready.
# Roles follow the order in which JMeter's controller starts the engines (decided in lib/decide.js:
# H_INIT, H_CLEANUP; not the order of hosts.conf), a few hundred ms to seconds apart. Only the engine
# started first runs Init: each event set restarts the server's emitter, so n engines would set it n
# times, and set first, the event exists before the other engines' first requests. Only the engine started
# last runs the Clean Up clear, and with several engines it waits clear.margin.ms more (lib/decide.js
# CLEAR_MARGIN_MS): the engines' loads start up to seconds apart, in either order, and a clear before
# another engine's duration is over would end its streams or leave its next polls waiting.
launch_engines() {
  local e
  local -a spec=()
  undo_add jmeter stop_engines "${ENGINE_IDX[@]}"
  undo_add responses collect_responses "${ENGINE_IDX[@]}"
  local offset=0
  for e in "${ENGINE_IDX[@]}"; do
    # A target run: each engine publishes and subscribes on channels of its own, <run id>-<engine>-<n>, and
    # its connections are the run's offset..offset+count-1 (the lines of their {{token}}s).
    [[ ${RUN_SERVER} != target ]] ||
      spec=(--target-spec "$(node lib/target.js spec "${RUN_TARGET_FILE}" "${RUN_ID}-${H_NAME[e]}-" "$offset" "${H_CONNECTIONS[e]}")")
    offset=$((offset + H_CONNECTIONS[e]))
    remote_run "$e" load/engine.sh start --pid-dir "$(run_pid_dir "$e")" --name "$(engine_id "$e")" --address "${H_ADDR[e]}" \
      --port "${H_RMI[e]}" --localport "${H_LOCALPORT[e]}" --connections "${H_CONNECTIONS[e]}" --heap "${H_HEAP_MB[e]}m" --sampler "$PB_REQUEST_SAMPLER" \
      --responses "${H_WORK[e]}/responses" --gc-log "${H_WORK[e]}/gc.log" --init "${H_INIT[e]}" --cleanup "${H_CLEANUP[e]}" \
      "${spec[@]}" >"${RUN_WORK_DIR}/engine-start-${H_NAME[e]}.out" 2>&1 &
    H_LAUNCH_PID[e]=$!
  done
}

start_engines() {
  local e out failed=0
  for e in "${ENGINE_IDX[@]}"; do
    out=${RUN_WORK_DIR}/engine-start-${H_NAME[e]}.out
    if ! wait "${H_LAUNCH_PID[e]}"; then
      failed=$((failed + 1))
      say "  engine ${H_NAME[e]} did not start:"
      tail -n 20 "$out" | sed 's/^/    | /' >&2
    fi
    unset 'H_LAUNCH_PID[e]'
    sed 's/^/    | /' "$out" >>"$RUN_LOG"
  done
  ((failed == 0)) || { RUN_STEP_ERROR="$failed engine(s) did not start"; return 1; }
  say "  ${#ENGINE_IDX[@]} engine(s) ready"
}

# vmstat and pidstat of each engine's JVM on its host, as on the SUT: whether the load generator kept up
# is part of every run's result (docs/validity.md). A monitor that does not start is noted, not fatal:
# the verdict then says the engine's CPU is unknown.
start_engine_monitoring() {
  local e out pid
  for e in "${ENGINE_IDX[@]}"; do
    out=$(remote_run "$e" load/engine.sh status --pid-dir "$(run_pid_dir "$e")" --name "$(engine_id "$e")" 2>&1) || true
    if [[ ! $out =~ pid\ ([0-9]+) ]]; then
      warn "engine ${H_NAME[e]}: no pid to monitor ($out); its CPU will be unknown"
      continue
    fi
    pid=${BASH_REMATCH[1]}
    undo_add monitors stop_engine_monitors "$e"
    undo_add monitor-files collect_engine_monitor_files "$e"
    quietly "start vmstat and pidstat on engine ${H_NAME[e]}" \
      remote_run "$e" host/monitor.sh start "${RUN_ID}" "$pid" "engine-${H_NAME[e]}" ||
      warn "engine ${H_NAME[e]}: monitors did not start; its CPU will be unknown"
  done
}

# engine_keys: every engine as the controller names it, <address>:<rmi port>, one a line.
engine_keys() {
  local e
  for e in "${ENGINE_IDX[@]}"; do printf '%s:%s\n' "${H_ADDR[e]}" "${H_RMI[e]}"; done
}

run_controller() {
  local props=${RUN_DIR}/jmeter/run.properties pidfile=${RUN_WORK_DIR}/controller.pid engines
  engines=$(engine_keys | paste -sd,)
  write_properties >"$props"
  # Its own session: a Ctrl-C on the terminal reaches run.sh, which then stops it in order.
  setsid load/controller.sh --run-dir "${RUN_DIR}" --engines "$engines" --props "$props" \
    >"${RUN_DIR}/jmeter/controller.out" 2>&1 </dev/null 9>&- &
  RUN_CONTROLLER_PID=$! RUN_CONTROLLER_PIDFILE=$pidfile
  procs_record "${RUN_CONTROLLER_PID}" "$pidfile"
  undo_add jmeter stop_controller "$pidfile" "${RUN_CONTROLLER_PID}"
  say "  controller started (pid ${RUN_CONTROLLER_PID}), engines $engines"
  # Its CPU is the load generator's too (docs/validity.md): pidstat of its JVM, here.
  undo_add monitors stop_controller_monitor
  undo_add monitor-files collect_controller_monitor_files
  quietly "start pidstat of the controller" host/monitor.sh start "${RUN_ID}" "${RUN_CONTROLLER_PID}" controller ||
    warn "the controller's pidstat did not start; its CPU counts among other processes"
}

# The global properties of the plan, the one table where the run's parameters get JMeter's names, as
# lib/decide.js wrote it (jmeterProperties; load/controller.sh sends them to every engine with -G and sets
# log.dir.base itself; each engine's own, threads.num among them, load/engine.sh gives: engineProperties).
write_properties() {
  printf '%s' "$RUN_JMETER_PROPERTIES"
  [[ -z ${RUN_TLS_CA} ]] || printf 'tls.ca=%s\n' "${RUN_TLS_CA}"   # the run's CA (start_tls_front)
}

stop_jmeter() { undo_run jmeter; }

stop_server() {
  # Checked once more: a server that died in the last seconds is a crash too.
  local rc=0
  ((RUN_CRASHED || RUN_SERVER_GONE)) || server_check || rc=$?
  if ((rc == 255)); then
    sut_unreachable "at the end of the test; the ${RUN_SERVER} server could not be stopped and may still run there"
  elif ((rc != 0)); then
    server_gone "at the end of the test" "was found dead at the end of the test"
  fi
  undo_run server
}

stop_monitoring() {
  undo_run monitors
  RUN_FINISHED_AT=$(now_ms)
  undo_run monitor-files
}

archive_responses() {
  local e
  for e in "${ENGINE_IDX[@]}"; do
    ! engine_host_lost "$e" || continue   # kept there, with collect_responses for --stop-stale
    quietly "archive the responses on engine ${H_NAME[e]}" remote_run "$e" host/archive.sh tar "${RUN_ID}" "${H_NAME[e]}"
  done
}

# Each engine's archive, copied here and then removed there. Done, the undo list's collect_responses is
# dropped: that one is for a run that did not get this far, or (kept) for a host ssh no longer reaches.
copy_responses() {
  local e dest
  local -a lost=()
  for e in "${ENGINE_IDX[@]}"; do
    if engine_host_lost "$e"; then lost+=("$e"); continue; fi
    dest=${RUN_DIR}/responses/${H_NAME[e]}.tar.gz
    quietly "copy the responses of engine ${H_NAME[e]}" \
      remote_fetch "$e" "${H_WORK[e]}/${H_NAME[e]}.tar.gz" "$dest"
    say "  responses/${H_NAME[e]}.tar.gz: $(stat -c %s "$dest") bytes"
    quietly "remove the copied files on engine ${H_NAME[e]}" remote_run "$e" host/archive.sh clean "${RUN_ID}" "${H_NAME[e]}"
  done
  undo_drop responses
  ((${#lost[@]} == 0)) || undo_add responses collect_responses "${lost[@]}"
}

analyze() {
  # The test is over and everything is collected; a failing analysis turns this into incomplete.
  RUN_STATUS=complete
  ((RUN_FAILED == 0)) || RUN_STATUS=incomplete
  runjson_write
  quietly "node analysis/analyze.js" node analysis/analyze.js "${RUN_DIR}"
  local out
  out=$(node charts/report.js "${RUN_DIR}" 2>>"$RUN_LOG") || { RUN_STEP_ERROR="node charts/report.js failed"; return 1; }
  printf '%s\n' "$out" | sed 's/^/    | /' >>"$RUN_LOG"
  RUN_REPORT=$(printf '%s\n' "$out" | tail -n 1)
}

print_report_path() {
  local line
  # The validity verdict (docs/validity.md): whether the figures measured the server or the load generator.
  while IFS= read -r line; do
    [[ -n ${RUN_VERDICT} || ! $line =~ ^validity:\ ([a-z-]+) ]] || RUN_VERDICT=${BASH_REMATCH[1]}
    [[ ! $line =~ ^thresholds:\ [0-9]+\ of\ [0-9]+\ failed ]] || RUN_THRESHOLDS_FAILED=1
    say "$line"
  done < <(node analysis/verdict.js "${RUN_DIR}" 2>&1)
  say "report: ${RUN_REPORT}"
}

# ---------------------------------------------------------------------------------------------------

# First use on this machine: install what is missing (Debian tools, npm packages, JMeter, Tomcats, WARs).
# Remote hosts are checked by preflight, which names the install command to run there.
install_missing() {
  "$PB_ROOT/setup.sh" --quiet || { echo "run.sh: set-up failed (above); nothing was started" >&2; exit "$EXIT_PREFLIGHT_FAILED"; }
}

# ./run.sh --plan <arguments of a run>: the arguments, settings and hosts file checked as for a run (the
# same EXIT_REFUSED), then the run's decisions as one JSON object (lib/decisions.sh); nothing starts, no run directory is made.
print_decisions() { decisions_print "$@"; }

trap_signals() {
  trap 'RUN_INTERRUPTED=SIGINT; exit "$EXIT_INTERRUPTED"' INT
  trap 'RUN_INTERRUPTED=SIGTERM; exit "$EXIT_INTERRUPTED"' TERM
  trap 'RUN_INTERRUPTED=SIGHUP; exit "$EXIT_INTERRUPTED"' HUP     # the terminal closed
  trap 'OUTPUT_LOST_BY=SIGPIPE; log_output_lost' PIPE   # its output's reader went away (./run.sh ... | head)
  trap on_exit EXIT
}

# The EXIT trap, however run.sh ends: whatever is left on the undo list is undone. A run that did not
# get to its end is marked incomplete, with a note saying where it stopped, and exits EXIT_INTERRUPTED
# or EXIT_INCOMPLETE (a step failed); before the run directory exists exit codes (EXIT_REFUSED,
# EXIT_PREFLIGHT_FAILED, EXIT_BUSY, EXIT_STALE: nothing started) pass through. The state directory's lock goes last, when nothing of the run is left.
on_exit() {
  local rc=$?
  set +eu                     # the clean-up must run to its end, whatever state the run was in
  trap '' INT TERM HUP PIPE   # a second Ctrl-C must not cut it short
  RUN_EXITING=1
  if ((RUN_FINISHED == 0)) && [[ -n ${RUN_DIR} ]]; then
    on_exit_unfinished "$rc"
    rc=$?
  else
    [[ -z ${RUN_INTERRUPTED} || -n ${RUN_DIR} ]] || rc=$EXIT_INTERRUPTED
    undo_run_all
  fi
  runlock_release
  exit "$rc"
}

# on_exit_unfinished <exit code>: the teardown of a run that did not get to its end; status: the exit
# code (EXIT_INTERRUPTED, or EXIT_INCOMPLETE: a step failed). run.json says incomplete before the teardown begins, so a
# kill during it leaves no run that claims to be running without its state (lib/runstate.sh).
on_exit_unfinished() {
  local rc
  [[ ! -t 1 ]] || printf '\n' 2>/dev/null   # end a progress line
  if [[ -n ${RUN_INTERRUPTED} ]]; then
    say "interrupted (${RUN_INTERRUPTED}) during ${RUN_STEP:-start-up}: stopping everything this run started"
    RUN_NOTES+=("interrupted by ${RUN_INTERRUPTED} during ${RUN_STEP:-start-up}")
    rc=$EXIT_INTERRUPTED
  else
    say "step ${RUN_STEP:-?} failed (exit $1): stopping everything this run started"
    RUN_NOTES+=("step ${RUN_STEP:-?} failed (exit $1)${RUN_STEP_ERROR:+: ${RUN_STEP_ERROR}}")
    rc=$EXIT_INCOMPLETE
  fi
  RUN_STATUS=incomplete
  runjson_write
  undo_run_all
  RUN_FINISHED_AT=$(now_ms)
  runjson_write
  say "run incomplete; what was collected is in ${RUN_DIR}"
  return "$rc"
}

main() {
  local a
  # A capacity search (capacity/search.js) runs this script once per level; it is not a run itself.
  for a; do [[ $a != --capacity ]] || exec node "$PB_ROOT/capacity/search.js" "$@"; done
  case ${1:-} in
    -h | --help) usage; exit 0 ;;
    --plan) shift; print_decisions "$@"; exit 0 ;;
    --stop-stale) (($# == 1)) || args_fail "--stop-stale takes no argument"; statedir_stop ;;
    --stop)
      [[ $# -eq 2 && $2 =~ ^[A-Za-z0-9_-]{1,100}$ ]] || args_fail "--stop takes one run id (its run directory's name)"
      statedir_stop "$2" ;;
  esac
  trap_signals
  step validate_arguments "$@"
  step claim_state_dir
  step read_hosts
  step install_missing
  step preflight
  step create_log_directories
  step launch_engines
  if [[ ${RUN_SERVER} == target ]]; then
    step keep_target_file
    step probe_target
    [[ -z ${RUN_TARGET_MONITOR} ]] || step monitor_target
  else
    step stop_all_servers
    step start_server_under_test
    [[ -z ${RUN_TLS_PORT} ]] || step start_tls_front
    step probe_service
    step start_monitoring
  fi
  step start_engines
  step start_engine_monitoring
  step run_controller
  step wait_for_completion
  step stop_jmeter
  [[ ${RUN_SERVER} == target ]] || step stop_server
  step stop_monitoring
  step archive_responses
  step copy_responses
  step analyze
  step print_report_path
  RUN_FINISHED=1
  runjson_write
  runstate_save
  undo_run work-dir
  run_exit
}

# The exit of a run that ran every step, decided in lib/decide-exit.js (runExit; README's exit codes): its
# line, if any, printed, and its code. EXIT_INCOMPLETE if the module gave no code.
run_exit() {
  local out code=$EXIT_INCOMPLETE message=''
  out=$(node lib/decide.js --exit "status=${RUN_STATUS}" "runjson_failed=${RUN_RUNJSON_FAILED}" "crashed=${RUN_CRASHED}" \
    "verdict=${RUN_VERDICT}" "thresholds_failed=${RUN_THRESHOLDS_FAILED}") || out=''
  [[ $out =~ ^([0-9]+)\ (.*)$ ]] && code=${BASH_REMATCH[1]} message=${BASH_REMATCH[2]}
  [[ -z $message ]] || say "$message"
  exit "$code"
}

main "$@"
