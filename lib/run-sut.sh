# shellcheck shell=bash disable=SC2034  # sets run.sh's run state (RUN_*)
# The run's steps on the server's side (the study's section 3.1 order: the server starts, then its
# monitors): the built-in server under test and, with --tls, the TLS front before it; the engines' probe
# of the server; for a target run (docs/targets.md) the target file kept, its addresses probed from every
# engine host and its server monitored when hosts.conf names it. Sourced by run.sh; each step reads the run
# state (RUN_*, H_*) and sets RUN_STEP_ERROR when it refuses.

# run_pid_dir <host>: where this run's PID files are on that host: its work directory there. Another
# run's start, stop or check never reads them.
run_pid_dir() { printf '%s/runs/%s' "${H_STATE[$1]}" "${RUN_ID}"; }

start_server_under_test() {
  local server=${RUN_SERVER} out
  undo_add server stop_sut_server "$server"
  quietly "start $server on ${H_NAME[SUT_IDX]}" remote_run "$SUT_IDX" servers/control.sh --pid-dir "$(run_pid_dir "$SUT_IDX")" start "$server"
  out=$(remote_run "$SUT_IDX" servers/control.sh --pid-dir "$(run_pid_dir "$SUT_IDX")" status "$server")
  [[ $out =~ pid\ ([0-9]+) ]] || { RUN_STEP_ERROR="no pid in: $out"; return 1; }
  RUN_SERVER_PID=${BASH_REMATCH[1]}
  say "  $server running on ${PB_SERVER_ADDRESS}:${RUN_PORT} (pid ${RUN_SERVER_PID})${H_BIND[SUT_IDX]:+; the engines target ${H_ADDR[SUT_IDX]}:${RUN_PORT}}"
}

# A built-in run over TLS (--tls; docs/engine.md "TLS for the built-in servers"): a CA and a certificate
# naming the server's address made for this run in its directory on the server's host
# (targets/tls/make-certs.sh), and nginx terminating TLS on PB_PORT_TLS there, passing every request to the
# server's plain port (targets/tls/front.sh). Its stop is on the undo list before it starts; the CA's PEM
# comes here, base64, for the engines (tls.ca in run.properties).
start_tls_front() {
  local dir certs upstream=${PB_SERVER_ADDRESS}
  dir=$(run_pid_dir "$SUT_IDX")/tls-front certs=$(run_pid_dir "$SUT_IDX")/tls-certs
  [[ $upstream != 0.0.0.0 ]] || upstream=127.0.0.1
  undo_add server stop_tls_front "$dir" "$certs"
  quietly "make the run's CA and certificate on ${H_NAME[SUT_IDX]}" remote_run "$SUT_IDX" targets/tls/make-certs.sh "$certs" "${H_ADDR[SUT_IDX]}"
  quietly "start the TLS front on ${H_NAME[SUT_IDX]}" remote_run "$SUT_IDX" targets/tls/front.sh start --port "${RUN_TLS_PORT}" \
    --upstream "$upstream:${RUN_PORT}" --tls "$certs/server.pem" "$certs/server.key" --address "${PB_SERVER_ADDRESS}" --dir "$dir"
  remote_fetch "$SUT_IDX" "$certs/ca.pem" "${RUN_WORK_DIR}/tls-ca.pem" || { RUN_STEP_ERROR="the run's CA could not be copied from ${H_NAME[SUT_IDX]}"; return 1; }
  RUN_TLS_CA=$(base64 -w0 "${RUN_WORK_DIR}/tls-ca.pem")
  say "  TLS front (nginx) on ${H_ADDR[SUT_IDX]}:${RUN_TLS_PORT} -> ${RUN_SERVER} on port ${RUN_PORT}; the CA made for this run"
}

# Each engine's host asks the server for GET /timestamp at the address and port the engines will target
# (host/probe.sh): a server one of them cannot reach stops the run before the load, naming the host.
probe_service() {
  local e out
  for e in "${ENGINE_IDX[@]}"; do
    out=$(remote_run "$e" host/probe.sh "${H_ADDR[SUT_IDX]}" "${RUN_PORT}" 2>&1) && continue
    RUN_STEP_ERROR="engine ${H_NAME[e]} (${H_ADDR[e]}) cannot reach the server under test at ${H_ADDR[SUT_IDX]}:${RUN_PORT}: ${out##*$'\n'}"
    say "  refused: ${RUN_STEP_ERROR}; no load was sent"
    return 1
  done
}

# A target run starts nothing on its server (docs/targets.md): its file is kept in the run directory as
# given (run.json records its hash), and each engine host must reach the target's subscribe and publish
# addresses (host/probe.sh --connect), or the run stops before any load, naming the host.
keep_target_file() {
  cp -- "${RUN_TARGET_FILE}" "${RUN_DIR}/target.json"
  say "  target ${RUN_TARGET_FILE}: nothing is started, stopped or configured on its server"
}

probe_target() {
  local e hp out
  for e in "${ENGINE_IDX[@]}"; do
    for hp in "${RUN_TARGET_ADDRESSES[@]}"; do
      out=$(remote_run "$e" host/probe.sh --connect "${hp%:*}" "${hp##*:}" 2>&1) && continue
      RUN_STEP_ERROR="engine ${H_NAME[e]} (${H_ADDR[e]}) cannot reach the target at $hp: ${out##*$'\n'}"
      say "  refused: ${RUN_STEP_ERROR}; no load was sent"
      return 1
    done
  done
  # The analysis's second 0, where a built-in run starts the SUT's vmstat.
  RUN_STARTED_AT=$(now_ms)
}

# A target's server named in hosts.conf (the sut line's pid= or process=) is monitored on its host as a
# built-in server is: vmstat, pidstat of its process and children, memory (host/monitor.sh); a process name
# is its oldest process there.
monitor_target() {
  local what=${RUN_TARGET_MONITOR%%:*} value=${RUN_TARGET_MONITOR#*:} pid
  pid=$value
  if [[ $what == process ]]; then
    pid=$(remote_run "$SUT_IDX" host/monitor.sh pid "$value" 2>&1) ||
      { RUN_STEP_ERROR="the target server's process: ${pid##*$'\n'}"; say "  refused: ${RUN_STEP_ERROR}; no load was sent"; return 1; }
  fi
  RUN_SERVER_PID=$pid
  start_monitoring
  say "  monitoring the target's server on ${H_NAME[SUT_IDX]}: pid ${RUN_SERVER_PID}$([[ $what == process ]] && printf ' (process %s)' "$value") and its children"
}
