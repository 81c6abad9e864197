# shellcheck shell=bash disable=SC2034,SC2154  # reads and sets run.sh's run state (RUN_*, H_*)
# run.sh's undo entries (lib/cleanup.sh's list): each stops or collects what one start step started, given
# as arguments what it acts on. The stop steps run them in the study's order; the EXIT trap runs those not
# yet run. A failed copy keeps the data where it is, noted (lib/keep.sh). Sourced by run.sh.
# An entry given an engine host that ssh no longer reaches (engine_host_lost) registers itself again for
# that host instead of acting: the run state keeps it (forget_run_state) until ./run.sh --stop-stale runs
# it with the host answering.

# Retries of a host found unreachable, before its entries are kept for later (s, lib/remote.sh remote_reach).
ENGINE_HOST_RETRY_S=15

# engine_host_lost <host>: true when ssh does not reach that engine's host: found not answering during
# the wait (H_UNREACHABLE) and still not after ENGINE_HOST_RETRY_S s of retries, or lost before (H_LOST).
# Noted once, naming the host: the run is incomplete and what runs there is recorded, not stopped.
engine_host_lost() {
  local e=$1
  [[ -z ${H_LOST[e]:-} ]] || return 0
  [[ -n ${H_UNREACHABLE[e]:-} ]] || return 1
  say "  engine host ${H_NAME[e]} (${H_ADDR[e]}) does not answer ssh: retrying for up to ${ENGINE_HOST_RETRY_S}s"
  if remote_reach "$e" "$ENGINE_HOST_RETRY_S"; then
    unset 'H_UNREACHABLE[e]'
    say "  engine host ${H_NAME[e]} answers ssh again: stopping and collecting there"
    return 1
  fi
  H_LOST[e]=1 RUN_FAILED=1
  warn "engine host ${H_NAME[e]} (${H_ADDR[e]}) did not answer ssh again within ${ENGINE_HOST_RETRY_S}s: its engine, monitors and files are left there, recorded; ./run.sh --stop-stale stops and collects them once it answers"
  runjson_write
  return 0
}

# lost_hosts: the hosts left unreachable with processes of the run (H_LOST), "<name> (<address>)", comma-separated.
lost_hosts() {
  local i out=''
  for i in "${!H_LOST[@]}"; do [[ -z ${H_LOST[i]} ]] || out+="${out:+, }${H_NAME[i]} (${H_ADDR[i]})"; done
  printf '%s' "$out"
}

# forget_run_state <work dir>: the run state and this run's own files go, unless a host was left with
# processes of the run: then both stay, and this entry with them, for ./run.sh --stop-stale.
forget_run_state() {
  if [[ -n $(lost_hosts) ]]; then
    undo_add work-dir forget_run_state "$1"
    return 0
  fi
  runstate_forget
  keep_remove_work_dir "$1"
}

stop_controller() { # <pid file> <pid>
  procs_stop_recorded "$1" 10
  wait "$2" 2>/dev/null || true
}

# stop_engines <host>...: the engines, and then their JMeter and GC logs.
stop_engines() {
  local e
  # An engine still starting must finish first, or its PID file would appear after the stop below.
  for e; do
    [[ -z ${H_LAUNCH_PID[e]:-} ]] || wait "${H_LAUNCH_PID[e]}" 2>/dev/null || true
    unset 'H_LAUNCH_PID[e]'
  done
  local -a reached=()
  local rc
  for e; do
    # A host that stopped answering ssh after the wait's last check is taken as one found during it.
    if [[ -z ${H_UNREACHABLE[e]:-}${H_LOST[e]:-} ]]; then
      rc=0
      remote_run "$e" true >/dev/null 2>&1 || rc=$?
      ((rc != 255)) || H_UNREACHABLE[e]=1
    fi
    if engine_host_lost "$e"; then undo_add jmeter stop_engines "$e"; else reached+=("$e"); fi
  done
  set -- "${reached[@]}"
  for e; do
    quietly "stop engine ${H_NAME[e]}" remote_run "$e" load/engine.sh stop --pid-dir "$(run_pid_dir "$e")" --name "$(engine_id "$e")" || true
  done
  for e; do
    remote_fetch "$e" "${H_STATE[e]}/engine-$(engine_id "$e").log" "${RUN_DIR}/jmeter/engine-${H_NAME[e]}.log" 2>/dev/null ||
      keep_left_behind "$e" "the JMeter log of engine ${H_NAME[e]}" "${H_STATE[e]}/engine-$(engine_id "$e").log (until that engine starts again)"
    mkdir -p "${RUN_DIR}/engines/${H_NAME[e]}"
    remote_fetch "$e" "${H_WORK[e]}/gc.log" "${RUN_DIR}/engines/${H_NAME[e]}/gc.log" 2>/dev/null ||
      say "  (no GC log from engine ${H_NAME[e]})"
  done
}

# stop_sut_server <server>: the server this run started, and then its log (never an older run's).
stop_sut_server() {
  local server=$1 log=${H_STATE[SUT_IDX]}/$1.log
  quietly "stop $server on ${H_NAME[SUT_IDX]}" remote_run "$SUT_IDX" servers/control.sh --pid-dir "$(run_pid_dir "$SUT_IDX")" stop "$server" || true
  remote_fetch "$SUT_IDX" "$log" "${RUN_DIR}/sut/server.log" 2>/dev/null ||
    keep_left_behind "$SUT_IDX" "the server log" "$log (until $server starts again)"
  # A Tomcat logs its JVM's pauses in its instance (servers/tomcat-common.sh), made afresh at each start.
  if [[ $server == tc* ]]; then
    remote_fetch "$SUT_IDX" "${H_STATE[SUT_IDX]}/$server-base/logs/gc.log" "${RUN_DIR}/sut/gc.log" 2>/dev/null ||
      say "  (no GC log from $server)"
  fi
}

# stop_tls_front <dir> <certs dir>: the TLS front this run started before the server (run.sh --tls), by the
# PID file in its own directory on the server's host (targets/tls/front.sh: only while that PID is an nginx
# master); once stopped, its error log copied to sut/tls-front.log and its directory, the run's CA and
# certificate (keys unencrypted) removed. Not stopped: all kept, for ./run.sh --stop-stale.
stop_tls_front() {
  quietly "stop the TLS front on ${H_NAME[SUT_IDX]}" remote_run "$SUT_IDX" targets/tls/front.sh stop --dir "$1" || return 0
  remote_fetch "$SUT_IDX" "$1/logs/error.log" "${RUN_DIR}/sut/tls-front.log" 2>/dev/null || true
  remote_run "$SUT_IDX" rm -rf -- "$1" "$2" || true
  rm -f -- "${RUN_WORK_DIR}/tls-ca.pem"
}

stop_sut_monitors() {
  quietly "stop the monitors on ${H_NAME[SUT_IDX]}" remote_run "$SUT_IDX" host/monitor.sh stop "${RUN_ID}" || true
}

stop_engine_monitors() { # <host>
  if engine_host_lost "$1"; then undo_add monitors stop_engine_monitors "$1"; return 0; fi
  quietly "stop the monitors on engine ${H_NAME[$1]}" remote_run "$1" host/monitor.sh stop "${RUN_ID}" "engine-${H_NAME[$1]}" || true
}

stop_controller_monitor() {
  host/monitor.sh stop "${RUN_ID}" controller >>"$RUN_LOG" 2>&1 || true
}

# The SUT's monitor files into sut/, then removed there (status: that removal's); a failed copy keeps them.
collect_sut_monitor_files() {
  local src=${H_STATE[SUT_IDX]}/runs/${RUN_ID}/sut f copied=1
  for f in vmstat.log pidstat.log memory.log meminfo.txt netstat.log cpus-allowed.txt; do
    remote_fetch "$SUT_IDX" "$src/$f" "${RUN_DIR}/sut/$f" 2>/dev/null || { say "  (no $f from the sut)"; copied=0; }
  done
  if ((copied == 0)); then
    keep_left_behind "$SUT_IDX" "the SUT's monitor files" "$src"
    return 0
  fi
  quietly "remove the monitor files on ${H_NAME[SUT_IDX]}" remote_run "$SUT_IDX" host/monitor.sh clean "${RUN_ID}"
}

# collect_engine_monitor_files <host>: into engines/<name>/, then removed there; a failed copy keeps them.
collect_engine_monitor_files() {
  local e=$1 f copied=1 src=${H_STATE[$1]}/runs/${RUN_ID}/engine-${H_NAME[$1]}
  if engine_host_lost "$e"; then undo_add monitor-files collect_engine_monitor_files "$e"; return 0; fi
  mkdir -p "${RUN_DIR}/engines/${H_NAME[e]}"
  for f in vmstat.log pidstat.log started-at.txt cpus-allowed.txt; do
    remote_fetch "$e" "$src/$f" "${RUN_DIR}/engines/${H_NAME[e]}/$f" 2>/dev/null ||
      { say "  (no $f from engine ${H_NAME[e]})"; copied=0; }
  done
  ((copied == 0)) || remote_run "$e" host/monitor.sh clean "${RUN_ID}" "engine-${H_NAME[e]}" >>"$RUN_LOG" 2>&1 || true
}

collect_controller_monitor_files() {
  local src
  src=$(host/monitor.sh dir "${RUN_ID}" controller)
  mkdir -p "${RUN_DIR}/controller"
  if cp -- "$src/pidstat.log" "${RUN_DIR}/controller/pidstat.log" 2>/dev/null; then
    host/monitor.sh clean "${RUN_ID}" controller >>"$RUN_LOG" 2>&1 || true
  else
    say "  (no pidstat.log of the controller)"
  fi
}

# collect_responses <host>...: for a run that did not get to copy_responses: archive and copy what each
# engine saved so far, each on its own (one failing leaves the others' archives).
collect_responses() {
  local e dest
  for e; do
    dest=${RUN_DIR}/responses/${H_NAME[e]}.tar.gz
    [[ ! -s $dest ]] || continue
    if engine_host_lost "$e"; then undo_add responses collect_responses "$e"; continue; fi
    if remote_run "$e" host/archive.sh tar "${RUN_ID}" "${H_NAME[e]}" >>"$RUN_LOG" 2>&1 &&
      remote_fetch "$e" "${H_WORK[e]}/${H_NAME[e]}.tar.gz" "$dest" 2>>"$RUN_LOG"; then
      remote_run "$e" host/archive.sh clean "${RUN_ID}" "${H_NAME[e]}" >>"$RUN_LOG" 2>&1 || true
      say "  responses/${H_NAME[e]}.tar.gz: what engine ${H_NAME[e]} saved so far"
    else
      rm -f -- "$dest"
      keep_left_behind "$e" "the responses of engine ${H_NAME[e]}" "${H_WORK[e]}/responses"
    fi
  done
}
