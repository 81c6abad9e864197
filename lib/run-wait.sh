# shellcheck shell=bash disable=SC2034,SC2154  # sets run.sh's run state (RUN_*, H_*), read through lib/run-get.sh; PROGRESS is lib/progress.sh's
# run.sh's wait (the study's section 3.3.3, "wait for the test to finish"): from the controller's start until
# it exits or a rule ends the test early, with the progress line and the server and engines watched.
# Sourced by run.sh; reads the run state run.sh keeps (its "Run state") through lib/run-get.sh and sets it as its
# steps do.
#
#   wait_for_completion    the wait itself (run.sh's step)
#   the rules it asks: controller_done, controller_finished, engines_check_alive, engines_left,
#   server_check, server_watch, server_gone, sut_unreachable; the progress: wait_progress,
#   server_open_requests, jmeter_log_count, wait_ends

# The wait: until the controller exits, or a rule below ends the test early. JMeter's controller log
# says when the engines really start and end the test (JMeter 5.6.3 wording): the start can lag the
# controller's launch by tens of seconds under load, and a comet run writes almost nothing to
# results.csv until its end, so the clock of the wait starts at the first engine. Its thresholds are
# lib/decide.js's (lib/decide-jmeter.js waitRules), read once: wait_check_every_s, wait_startup_limit_s, wait_s,
# wait_csv_unchanged_checks, wait_crash_stop_s.
wait_for_completion() {
  local csv startup_limit every csv_checks crash_stop wait_s duration start=$SECONDS tick=0 elapsed shown
  csv=$(run_get dir)/jmeter/results.csv startup_limit=$(run_get wait_startup_limit_s) every=$(run_get wait_check_every_s)
  csv_checks=$(run_get wait_csv_unchanged_checks) crash_stop=$(run_get wait_crash_stop_s) wait_s=$(run_get wait_s)
  duration=$(run_get duration_s)
  local note test_start='' deadline=$startup_limit ended=0 stable=0 last_size=-1 crashed_at='' open='?'
  progress_reset
  while true; do
    sleep 1 & wait $! || true   # in the background, so a signal is handled at once
    tick=$((tick + 1)) elapsed=$((SECONDS - start))
    if [[ -z $test_start ]] && (($(jmeter_log_count 'Started remote host') > 0)); then
      test_start=$elapsed deadline=$((elapsed + wait_s))   # lib/decide.js's waitSeconds
    fi
    if ! procs_alive "$(run_get controller_pidfile)" >/dev/null; then
      controller_finished "$elapsed" "$csv"
      break
    fi
    if controller_done "$csv"; then
      procs_stop_recorded "$(run_get controller_pidfile)" 10
      controller_finished "$elapsed" "$csv" --stopped
      break
    fi
    if ((tick % every == 0)); then
      progress_update "$csv"
      [[ $(run_get server) == target ]] || open=$(server_open_requests)
      # An engine that died never ends the test: the wait is for the others, and none left ends it.
      engines_check_alive "$elapsed"
      if (($(engines_left) == 0)); then wait_ends "stopping the test early: no JMeter engine is left"; break; fi
      # The study's rule, once every engine has ended the test: results.csv stopped growing, seen
      # twice: csv_checks checks in a row. (The controller normally exits by itself a
      # few seconds after that.)
      ((ended)) || (($(jmeter_log_count 'Finished remote host') < $(engines_left))) || ended=1
      if ((ended && PROGRESS[size] == last_size)); then stable=$((stable + 1)); else stable=0; fi
      if ((stable >= csv_checks)); then
        wait_ends "every engine ended and results.csv stopped growing, but the controller still runs: stopping it"
        break
      fi
      last_size=${PROGRESS[size]}
      [[ -n $crashed_at || $(run_get server) == target ]] || server_watch "$elapsed" || crashed_at=$elapsed
      runstate_save   # what the wait noted, for ./run.sh --stop-stale
      # Once the server is gone every request fails at once: no point in running on.
      if [[ -n $crashed_at ]] && ((elapsed >= crashed_at + crash_stop)); then
        wait_ends "stopping the test early: the server under test is gone"
        break
      fi
      if ((elapsed >= deadline)); then
        if [[ -z $test_start ]]; then
          note="JMeter had not started the test on any engine ${startup_limit}s after the controller started; stopped"
        else
          note="JMeter was still running at the hard deadline (${deadline}s after the controller started); stopped"
        fi
        RUN_NOTES+=("$note") RUN_FAILED=1
        wait_ends "hard deadline (${deadline}s) reached: $note"
        break
      fi
    fi
    if [[ -z $test_start ]]; then shown="starting"; else shown="$((elapsed - test_start))/${duration}s"; fi
    wait_progress "$tick" "$shown" "$open"
  done
}

# ---------------------------------------------------------------------------------------------------
# What the wait watches


# JMeter's controller log: lines matching <pattern> (0 without the file).
jmeter_log_count() {
  local n
  n=$(grep -c -- "$1" "$(run_get dir)/jmeter/controller.log" 2>/dev/null) || true
  printf '%s' "${n:-0}"
}

# controller_done <results.csv>: true once the controller's work is over: every engine left has ended the
# test (its log's "Finished remote host") and its JVM, seen holding results.csv open before, has closed it.
# JMeter 5.6.3 then sleeps 5 s before it exits (JMeter.ListenToTest.endTest: "Allow listeners to close
# files"), with nothing more to write; the wait does not sit through that sleep. A results.csv never seen
# open (another path to the same file) leaves the controller to exit by itself.
controller_done() {
  local csv held=0
  csv=$(realpath -e -- "$1" 2>/dev/null) || return 1
  # shellcheck disable=SC2010  # the link targets of /proc/<pid>/fd, whatever ls prints around them
  ls -l "/proc/$(run_get controller_pid)/fd" 2>/dev/null | grep -qF -- " -> $csv" && held=1
  if ((held)); then RUN_CSV_SEEN_OPEN=1; return 1; fi
  [[ $(run_get csv_seen_open) == 1 ]] || return 1
  (($(engines_left) > 0)) && (($(jmeter_log_count 'Finished remote host') >= $(engines_left)))
}

# controller_finished <elapsed s> <results.csv> [--stopped]: the controller exited, or was stopped after
# controller_done (its exit code then the signal's); its exit code and JMeter's log say whether the test
# ran on every engine.
controller_finished() {
  local rc=0 how=''
  wait "$(run_get controller_pid)" || rc=$?
  if [[ ${3:-} == --stopped ]]; then rc=0 how=", results.csv closed: stopped in JMeter's closing pause"; fi
  progress_update "$2"
  [[ ! -t 1 ]] || printf '\n' 2>/dev/null || log_output_lost
  say "  controller finished (exit $rc$how) after ${1}s: ${PROGRESS[samples]} samples, $(progress_errors)"
  if ((rc != 0)); then
    warn "the JMeter controller failed (exit $rc, see jmeter/controller.out and controller.log)"
    RUN_FAILED=1
  fi
  # JMeter's controller exits 0 even when an engine refused the plan (JMeter 5.6.3 wording).
  if (($(jmeter_log_count 'remote engines have not started') > 0)); then
    warn "JMeter could not start the test on every engine (see jmeter/controller.log)"
    RUN_FAILED=1
  fi
}

# wait_progress <tick> <how far> <requests open>: the progress line, redrawn every second on a terminal,
# else a line every 5 s: the requests open on the server (a built-in one's GET /status), and with the mux
# engine the connections its threads hold, the messages a second they receive and the trip-time p99 of
# their timed sample (lib/progress.sh progress_trip).
wait_progress() {
  local load="$3 open on the server"
  [[ $(run_get server) != target ]] || load='the server not watched'
  [[ -z ${PROGRESS[open]} ]] || load+=", engines: ${PROGRESS[open]} connections, ${PROGRESS[per_s]:-?} messages/s$(progress_trip)"
  if [[ -t 1 ]]; then
    printf '\r  wait: %s, %s, %d answers, %s   ' "$2" "$load" "${PROGRESS[samples]}" "$(progress_errors)" \
      2>/dev/null || log_output_lost
  elif (($1 % 5 == 0)); then
    say "  wait: $2, $load, ${PROGRESS[samples]} answers, $(progress_errors)"
  fi
}

# wait_ends <why>: the wait stops before the controller exited.
wait_ends() {
  [[ ! -t 1 ]] || printf '\n' 2>/dev/null || log_output_lost
  say "  $1"
}

engine_id() { host_get name "$1"; }   # load/engine.sh's --name: the hosts.conf name

# engines_check_alive <elapsed s>: each engine's status on its host (load/engine.sh status: its PID file
# and process). One found gone for the first time is noted (the run becomes incomplete; what it saved
# until then is archived and copied like any engine's) and marked in H_DEAD. A lost control channel is
# not a dead engine: when ssh to its host fails (ssh's 255) and its RMI port still answers here, the
# controller still drives it, so the load runs on; the host is marked unreachable (H_UNREACHABLE, noted
# once) until ssh answers again, and the teardown retries it (engine_host_lost). Neither ssh nor its RMI
# port answering is a gone engine.
engines_check_alive() {
  local e rc
  for e in "${ENGINE_IDX[@]}"; do
    [[ -z $(host_get dead "$e") ]] || continue
    rc=0
    remote_run "$e" load/engine.sh status --pid-dir "$(run_pid_dir "$e")" --name "$(engine_id "$e")" >/dev/null 2>&1 || rc=$?
    if ((rc == 0)); then
      [[ -z $(host_get unreachable "$e") ]] || engine_reached_again "$e" "$1"
      continue
    fi
    if ((rc == 255)) && engine_rmi_answers "$e"; then
      [[ -n $(host_get unreachable "$e") ]] || engine_unreachable "$e" "$1"
      continue
    fi
    H_DEAD[e]=1 RUN_FAILED=1
    if ((rc == 255)); then
      warn "engine $(host_get name "$e") gone during the test (found at ${1}s): its host ($(host_get addr "$e")) does not answer ssh and its RMI port $(host_get rmi "$e") does not answer; what it saved stays there unless ssh answers again"
    else
      warn "engine $(host_get name "$e") died during the test (found at ${1}s); what it saved until then is collected"
    fi
    runjson_write
  done
}

# engine_rmi_answers <host>: its engine's RMI port accepts a TCP connection from here (2 s at most).
engine_rmi_answers() {
  # shellcheck disable=SC2016  # expanded by the inner bash, from its arguments
  timeout 2 bash -c 'exec 3<>"/dev/tcp/$0/$1"' "$(host_get addr "$1")" "$(host_get rmi "$1")" 2>/dev/null
}

engine_unreachable() { # <host> <elapsed s>
  H_UNREACHABLE[$1]=1
  warn "engine host $(host_get name "$1") ($(host_get addr "$1")) does not answer ssh (found at ${2}s), but its engine answers on RMI port $(host_get rmi "$1"): the load runs on; its files are collected once ssh answers"
  runjson_write
}

engine_reached_again() { # <host> <elapsed s>
  unset 'H_UNREACHABLE[$1]'
  remote_open "$1" >/dev/null 2>&1 || true
  say "  engine host $(host_get name "$1") answers ssh again (at ${2}s)"
}

engines_left() { # the engines not found dead
  local e n=0
  for e in "${ENGINE_IDX[@]}"; do [[ -n $(host_get dead "$e") ]] || n=$((n + 1)); done
  printf '%s' "$n"
}

# server_check: 0 the server runs, 255 the SUT host did not answer (ssh's own failure), else it is gone
# and SERVER_GONE says how: "died" when its PID file is left and its process is not (a crash, or a
# signal from outside pushbench); else it was stopped by someone else: its PID file removed (that is what
# servers/control.sh stop, given this run's --pid-dir, does) or naming another process.
SERVER_GONE=''
server_check() {
  local rc=0 out
  out=$(remote_run "$SUT_IDX" servers/control.sh --pid-dir "$(run_pid_dir "$SUT_IDX")" status "$(run_get server)" 2>&1) || rc=$?
  SERVER_GONE=died
  if ((rc == 0)); then
    [[ $out =~ pid\ ([0-9]+) ]] || return 0
    [[ ${BASH_REMATCH[1]} != "$(run_get server_pid)" ]] || return 0
    SERVER_GONE="its PID file names another process now (pid ${BASH_REMATCH[1]})"
    return 3
  fi
  if ((rc == 3)) && [[ $out != *'stale PID file'* ]]; then
    SERVER_GONE="its PID file was removed (servers/control.sh stop)"
  fi
  return "$rc"
}

# server_gone <when> <how a crash is noted>: the server under test found gone (SERVER_GONE): a crash
# (serverCrashed) if it died; stopped by someone else is no crash, but the run is incomplete.
server_gone() {
  if [[ $SERVER_GONE == died ]]; then
    RUN_CRASHED=1
    warn "the $(run_get server) server $2"
  else
    RUN_FAILED=1 RUN_SERVER_GONE=1
    warn "the $(run_get server) server was stopped by someone else $1: $SERVER_GONE; not a crash, the run is incomplete"
  fi
}

# server_watch <elapsed s>: status 1 when the server under test is found gone (server_gone: died, a
# crash; or stopped by someone else). A SUT host that no longer answers ssh is noted too, but the server
# may well serve on: the test runs its course.
server_watch() {
  local rc=0
  server_check || rc=$?
  if ((rc == 255)); then
    sut_unreachable "found at ${1}s"
  elif ((rc != 0)); then
    [[ ! -t 1 ]] || printf '\n' 2>/dev/null || log_output_lost
    server_gone "during the test (found at ${1}s)" "died during the test (found at ${1}s); collecting what there is"
    runjson_write
    return 1
  fi
}

# sut_unreachable <when>: the SUT host stopped answering ssh; noted once, the run becomes incomplete.
sut_unreachable() {
  RUN_FAILED=1
  [[ $(run_get sut_unreachable) != 1 ]] || return 0
  RUN_SUT_UNREACHABLE=1
  warn "the SUT host $(host_get name "$SUT_IDX") ($(host_get addr "$SUT_IDX")) does not answer ssh ($1); its files stay there"
  runjson_write
}

# The requests open on the server now (its GET /status), for the progress line: a comet run has no
# finished samples until the end, so this is what shows the load building up. '?' if it does not answer.
server_open_requests() {
  local body
  body=$(curl -s --max-time 1 "http://$(host_get addr "$SUT_IDX"):$(run_get port)/status" 2>/dev/null) || body=''
  if [[ $body =~ \"open\":([0-9]+) ]]; then printf '%s' "${BASH_REMATCH[1]}"; else printf '?'; fi
}
