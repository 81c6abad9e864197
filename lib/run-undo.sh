# shellcheck shell=bash disable=SC2034  # sets run.sh's run state (RUN_*, H_*), read through lib/run-get.sh
# run.sh's undo entries (lib/cleanup.sh's list): each stops or collects what one start step started, given
# as arguments what it acts on. The stop steps run them in the study's order; the EXIT trap runs those not
# yet run. A failed copy keeps the data where it is, noted (lib/keep.sh). Sourced by run.sh.
# An entry given an engine host that ssh no longer reaches (engine_host_lost) registers itself again for
# that host instead of acting: the run state keeps it (forget_run_state) until ./run.sh --stop-stale runs
# it with the host answering. The run state is read through lib/run-get.sh.

# shellcheck source=lib/run-get.sh
source "$(dirname "${BASH_SOURCE[0]}")/run-get.sh"

# Retries of a host found unreachable, before its entries are kept for later (s, lib/remote.sh remote_reach).
ENGINE_HOST_RETRY_S=15

# engine_host_lost <host>: true when ssh does not reach that engine's host: found not answering during
# the wait (H_UNREACHABLE) and still not after ENGINE_HOST_RETRY_S s of retries, or lost before (H_LOST).
# Noted once, naming the host: the run is incomplete and what runs there is recorded, not stopped.
engine_host_lost() {
  local e=$1 name addr
  [[ -z $(host_get lost "$e") ]] || return 0
  [[ -n $(host_get unreachable "$e") ]] || return 1
  name=$(host_get name "$e") addr=$(host_get addr "$e")
  say "  engine host $name ($addr) does not answer ssh: retrying for up to ${ENGINE_HOST_RETRY_S}s"
  if remote_reach "$e" "$ENGINE_HOST_RETRY_S"; then
    unset 'H_UNREACHABLE[e]'
    say "  engine host $name answers ssh again: stopping and collecting there"
    return 1
  fi
  H_LOST[e]=1 RUN_FAILED=1
  warn "engine host $name ($addr) did not answer ssh again within ${ENGINE_HOST_RETRY_S}s: its engine, monitors and files are left there, recorded; ./run.sh --stop-stale stops and collects them once it answers"
  runjson_write
  return 0
}

# lost_hosts: the hosts left unreachable with processes of the run (H_LOST), "<name> (<address>)", comma-separated.
lost_hosts() {
  local i out=''
  for i in $(host_indexes); do [[ -z $(host_get lost "$i") ]] || out+="${out:+, }$(host_get name "$i") ($(host_get addr "$i"))"; done
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
  local e pid
  # An engine still starting must finish first, or its PID file would appear after the stop below.
  for e; do
    pid=$(host_get launch_pid "$e")
    [[ -z $pid ]] || wait "$pid" 2>/dev/null || true
    unset 'H_LAUNCH_PID[e]'
  done
  local -a reached=()
  local rc name state dir
  dir=$(run_get dir)
  for e; do
    # A host that stopped answering ssh after the wait's last check is taken as one found during it.
    if [[ -z $(host_get unreachable "$e")$(host_get lost "$e") ]]; then
      rc=0
      remote_run "$e" true >/dev/null 2>&1 || rc=$?
      ((rc != 255)) || H_UNREACHABLE[e]=1
    fi
    if engine_host_lost "$e"; then undo_add jmeter stop_engines "$e"; else reached+=("$e"); fi
  done
  set -- "${reached[@]}"
  for e; do
    quietly "stop engine $(host_get name "$e")" remote_run "$e" load/engine.sh stop --pid-dir "$(run_pid_dir "$e")" --name "$(engine_id "$e")" || true
  done
  for e; do
    name=$(host_get name "$e") state=$(host_get state "$e")
    remote_fetch "$e" "$state/engine-$(engine_id "$e").log" "$dir/jmeter/engine-$name.log" 2>/dev/null ||
      keep_left_behind "$e" "the JMeter log of engine $name" "$state/engine-$(engine_id "$e").log (until that engine starts again)"
    mkdir -p "$dir/engines/$name"
    remote_fetch "$e" "$(host_get work "$e")/gc.log" "$dir/engines/$name/gc.log" 2>/dev/null ||
      say "  (no GC log from engine $name)"
  done
}

# stop_sut_server <server>: the server this run started, and then its log (never an older run's).
stop_sut_server() {
  local server=$1 state dir
  state=$(host_get state "$SUT_IDX") dir=$(run_get dir)
  local log=$state/$server.log
  quietly "stop $server on $(host_get name "$SUT_IDX")" remote_run "$SUT_IDX" servers/control.sh --pid-dir "$(run_pid_dir "$SUT_IDX")" stop "$server" || true
  remote_fetch "$SUT_IDX" "$log" "$dir/sut/server.log" 2>/dev/null ||
    keep_left_behind "$SUT_IDX" "the server log" "$log (until $server starts again)"
  # A Tomcat logs its JVM's pauses in its instance (servers/tomcat-common.sh), made afresh at each start.
  if [[ $server == tc* ]]; then
    remote_fetch "$SUT_IDX" "$state/$server-base/logs/gc.log" "$dir/sut/gc.log" 2>/dev/null ||
      say "  (no GC log from $server)"
  fi
}

# stop_tls_front <dir> <certs dir>: the TLS front this run started before the server (run.sh --tls), by the
# PID file in its own directory on the server's host (targets/tls/front.sh: only while that PID is an nginx
# master); once stopped, its error log copied to sut/tls-front.log and its directory, the run's CA and
# certificate (keys unencrypted) removed. Not stopped: all kept, for ./run.sh --stop-stale.
stop_tls_front() {
  quietly "stop the TLS front on $(host_get name "$SUT_IDX")" remote_run "$SUT_IDX" targets/tls/front.sh stop --dir "$1" || return 0
  remote_fetch "$SUT_IDX" "$1/logs/error.log" "$(run_get dir)/sut/tls-front.log" 2>/dev/null || true
  remote_run "$SUT_IDX" rm -rf -- "$1" "$2" || true
  rm -f -- "$(run_get work_dir)/tls-ca.pem"
}

stop_sut_monitors() {
  quietly "stop the monitors on $(host_get name "$SUT_IDX")" remote_run "$SUT_IDX" host/monitor.sh stop "$(run_get id)" || true
}

stop_engine_monitors() { # <host>
  local name
  if engine_host_lost "$1"; then undo_add monitors stop_engine_monitors "$1"; return 0; fi
  name=$(host_get name "$1")
  quietly "stop the monitors on engine $name" remote_run "$1" host/monitor.sh stop "$(run_get id)" "engine-$name" || true
}

stop_controller_monitor() {
  host/monitor.sh stop "$(run_get id)" controller >>"$(run_get log)" 2>&1 || true
}

# The SUT's monitor files into sut/, then removed there (status: that removal's); a failed copy keeps them.
collect_sut_monitor_files() {
  local id f copied=1 dir src
  id=$(run_get id) dir=$(run_get dir)
  src=$(host_get state "$SUT_IDX")/runs/$id/sut
  for f in vmstat.log pidstat.log memory.log meminfo.txt netstat.log cpus-allowed.txt; do
    remote_fetch "$SUT_IDX" "$src/$f" "$dir/sut/$f" 2>/dev/null || { say "  (no $f from the sut)"; copied=0; }
  done
  if ((copied == 0)); then
    keep_left_behind "$SUT_IDX" "the SUT's monitor files" "$src"
    return 0
  fi
  quietly "remove the monitor files on $(host_get name "$SUT_IDX")" remote_run "$SUT_IDX" host/monitor.sh clean "$id"
}

# collect_engine_monitor_files <host>: into engines/<name>/, then removed there; a failed copy keeps them.
collect_engine_monitor_files() {
  local e=$1 f copied=1 id name dir src
  if engine_host_lost "$e"; then undo_add monitor-files collect_engine_monitor_files "$e"; return 0; fi
  id=$(run_get id) name=$(host_get name "$e") dir=$(run_get dir)
  src=$(host_get state "$e")/runs/$id/engine-$name
  mkdir -p "$dir/engines/$name"
  for f in vmstat.log pidstat.log started-at.txt cpus-allowed.txt; do
    remote_fetch "$e" "$src/$f" "$dir/engines/$name/$f" 2>/dev/null ||
      { say "  (no $f from engine $name)"; copied=0; }
  done
  ((copied == 0)) || remote_run "$e" host/monitor.sh clean "$id" "engine-$name" >>"$(run_get log)" 2>&1 || true
}

collect_controller_monitor_files() {
  local src id dir
  id=$(run_get id) dir=$(run_get dir)
  src=$(host/monitor.sh dir "$id" controller)
  mkdir -p "$dir/controller"
  if cp -- "$src/pidstat.log" "$dir/controller/pidstat.log" 2>/dev/null; then
    host/monitor.sh clean "$id" controller >>"$(run_get log)" 2>&1 || true
  else
    say "  (no pidstat.log of the controller)"
  fi
}

# collect_responses <host>...: for a run that did not get to copy_responses: archive and copy what each
# engine saved so far, each on its own (one failing leaves the others' archives).
collect_responses() {
  local e dest id log name work
  id=$(run_get id) log=$(run_get log)
  for e; do
    name=$(host_get name "$e") work=$(host_get work "$e")
    dest=$(run_get dir)/responses/$name.tar.gz
    [[ ! -s $dest ]] || continue
    if engine_host_lost "$e"; then undo_add responses collect_responses "$e"; continue; fi
    if remote_run "$e" host/archive.sh tar "$id" "$name" >>"$log" 2>&1 &&
      remote_fetch "$e" "$work/$name.tar.gz" "$dest" 2>>"$log"; then
      remote_run "$e" host/archive.sh clean "$id" "$name" >>"$log" 2>&1 || true
      say "  responses/$name.tar.gz: what engine $name saved so far"
    else
      rm -f -- "$dest"
      keep_left_behind "$e" "the responses of engine $name" "$work/responses"
    fi
  done
}
