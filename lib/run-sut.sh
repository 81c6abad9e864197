# shellcheck shell=bash disable=SC2034  # sets run.sh's run state (RUN_*), read through lib/run-get.sh
# The run's steps on the server's side (the study's section 3.1 order: the server starts, then its
# monitors): the built-in server under test and, with --tls, the TLS front before it; the engines' probe
# of the server; for a target run (docs/targets.md) the target file kept, its addresses probed from every
# engine host and its server monitored when hosts.conf names it. Sourced by run.sh; each step reads the run
# state through lib/run-get.sh and sets RUN_STEP_ERROR when it refuses.

# shellcheck source=lib/run-get.sh
source "$(dirname "${BASH_SOURCE[0]}")/run-get.sh"

# step_refuse <what>: the step refuses before any load: <what> is its RUN_STEP_ERROR, said.
step_refuse() {
  RUN_STEP_ERROR=$1
  say "  refused: $1; no load was sent"
}

# run_pid_dir <host>: where this run's PID files are on that host: its work directory there. Another
# run's start, stop or check never reads them.
run_pid_dir() { printf '%s/runs/%s' "$(host_get state "$1")" "$(run_get id)"; }

start_server_under_test() {
  local server out port bind
  server=$(run_get server) port=$(run_get port) bind=$(host_get bind "$SUT_IDX")
  undo_add server stop_sut_server "$server"
  quietly "start $server on $(host_get name "$SUT_IDX")" remote_run "$SUT_IDX" servers/control.sh --pid-dir "$(run_pid_dir "$SUT_IDX")" start "$server"
  out=$(remote_run "$SUT_IDX" servers/control.sh --pid-dir "$(run_pid_dir "$SUT_IDX")" status "$server")
  [[ $out =~ pid\ ([0-9]+) ]] || { RUN_STEP_ERROR="no pid in: $out"; return 1; }
  RUN_SERVER_PID=${BASH_REMATCH[1]}
  say "  $server running on ${PB_SERVER_ADDRESS}:$port (pid $(run_get server_pid))${bind:+; the engines target $(host_get addr "$SUT_IDX"):$port}"
}

# A built-in run over TLS (--tls; docs/engine.md "TLS for the built-in servers"): a CA and a certificate
# naming the server's address made for this run in its directory on the server's host
# (targets/tls/make-certs.sh), and nginx terminating TLS on PB_PORT_TLS there, passing every request to the
# server's plain port (targets/tls/front.sh). Its stop is on the undo list before it starts; the CA's PEM
# comes here, base64, for the engines (tls.ca in run.properties).
start_tls_front() {
  local dir certs upstream=${PB_SERVER_ADDRESS} name addr port tls_port ca
  dir=$(run_pid_dir "$SUT_IDX")/tls-front certs=$(run_pid_dir "$SUT_IDX")/tls-certs
  name=$(host_get name "$SUT_IDX") addr=$(host_get addr "$SUT_IDX") port=$(run_get port) tls_port=$(run_get tls_port)
  ca=$(run_get work_dir)/tls-ca.pem
  [[ $upstream != 0.0.0.0 ]] || upstream=127.0.0.1
  undo_add server stop_tls_front "$dir" "$certs"
  quietly "make the run's CA and certificate on $name" remote_run "$SUT_IDX" targets/tls/make-certs.sh "$certs" "$addr"
  quietly "start the TLS front on $name" remote_run "$SUT_IDX" targets/tls/front.sh start --port "$tls_port" \
    --upstream "$upstream:$port" --tls "$certs/server.pem" "$certs/server.key" --address "${PB_SERVER_ADDRESS}" --dir "$dir"
  remote_fetch "$SUT_IDX" "$certs/ca.pem" "$ca" || { RUN_STEP_ERROR="the run's CA could not be copied from $name"; return 1; }
  RUN_TLS_CA=$(base64 -w0 "$ca")
  say "  TLS front (nginx) on $addr:$tls_port -> $(run_get server) on port $port; the CA made for this run"
}

# Each engine's host asks the server for GET /timestamp at the address and port the engines will target
# (host/probe.sh): a server one of them cannot reach stops the run before the load, naming the host.
probe_service() {
  local e out addr port
  addr=$(host_get addr "$SUT_IDX") port=$(run_get port)
  for e in "${ENGINE_IDX[@]}"; do
    out=$(remote_run "$e" host/probe.sh "$addr" "$port" 2>&1) && continue
    step_refuse "engine $(host_get name "$e") ($(host_get addr "$e")) cannot reach the server under test at $addr:$port: ${out##*$'\n'}"
    return 1
  done
}

# A target run starts nothing on its server (docs/targets.md): its file is kept in the run directory as
# given (run.json records its hash), and each engine host must reach the target's subscribe and publish
# addresses (host/probe.sh --connect), or the run stops before any load, naming the host.
keep_target_file() {
  local file
  file=$(run_get target_file)
  cp -- "$file" "$(run_get dir)/target.json"
  say "  target $file: nothing is started, stopped or configured on its server"
}

probe_target() {
  local e hp out
  local -a addresses=()
  while IFS= read -r -d '' hp; do addresses+=("$hp"); done < <(run_list target_addresses)
  for e in "${ENGINE_IDX[@]}"; do
    for hp in "${addresses[@]}"; do
      out=$(remote_run "$e" host/probe.sh --connect "${hp%:*}" "${hp##*:}" 2>&1) && continue
      step_refuse "engine $(host_get name "$e") ($(host_get addr "$e")) cannot reach the target at $hp: ${out##*$'\n'}"
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
  local monitor what value pid
  monitor=$(run_get target_monitor)
  what=${monitor%%:*} value=${monitor#*:}
  pid=$value
  if [[ $what == process ]]; then
    pid=$(remote_run "$SUT_IDX" host/monitor.sh pid "$value" 2>&1) ||
      { step_refuse "the target server's process: ${pid##*$'\n'}"; return 1; }
  fi
  RUN_SERVER_PID=$pid
  start_monitoring
  say "  monitoring the target's server on $(host_get name "$SUT_IDX"): pid $pid$([[ $what == process ]] && printf ' (process %s)' "$value") and its children"
}
