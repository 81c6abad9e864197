# shellcheck shell=bash
# Shared by servers/{tc6,tc7,tc6-bio,tc7-bio}/launch.sh: prepares one Tomcat instance directory
# (CATALINA_BASE) and execs Tomcat in the foreground with pushbench's JVM options.
# Expects lib/config.sh to be sourced already.

# pb_tomcat_launch <6|7> <instance> <port> <conf-dir>...
# The whole launch: Tomcat <6|7> and its WAR (PB_TC<v>_WAR, default the one instrumentation-java/build.sh
# makes) must be installed; the instance $PB_STATE/<instance>-base is made afresh from the conf
# directories (later ones win) and Tomcat replaces the shell on <port>.
pb_tomcat_launch() {
  local v=$1 instance=$2 port=$3
  shift 3
  local home_var=TC${v}_HOME war_var=PB_TC${v}_WAR
  local home=${!home_var}
  local war=${!war_var:-$PB_ROOT/instrumentation-java/tomcat$v/target/pushbench-tc$v.war}
  pb_tomcat_require "tomcat$v" "$home/.pushbench-installed" "run servers/tc$v/install.sh"
  pb_tomcat_require "tomcat$v WAR" "$war" "run instrumentation-java/build.sh"
  pb_tomcat_prepare_base "$PB_STATE/$instance-base" "$war" "$@"
  pb_tomcat_exec "$home" "$PB_STATE/$instance-base" "$port"
}

# pb_tomcat_bio_sizing: the blocking connector's thread pool and stack for the level (servers/bio-limits.sh
# resolves the count and refuses, before Tomcat starts, one this machine cannot hold).
pb_tomcat_bio_sizing() {
  local limits=$PB_ROOT/servers/bio-limits.sh threads
  threads=$("$limits" resolve)
  "$limits" check "$threads"
  export PB_TOMCAT_MAX_THREADS=$threads PB_TOMCAT_XSS=$PB_TOMCAT_BIO_XSS
}

# pb_tomcat_prepare_base <base> <war> <conf-dir>...
# Makes a fresh instance: conf from the given directories (later ones win), the WAR as the ROOT webapp,
# empty logs/ temp/ work/. Each launch starts from clean state, so nothing of a previous run lingers.
pb_tomcat_prepare_base() {
  local base=$1 war=$2
  shift 2
  rm -rf "$base"
  mkdir -p "$base"/{conf,logs,temp,webapps,work}
  local dir
  for dir in "$@"; do
    cp "$dir"/* "$base/conf/"
  done
  cp "$war" "$base/webapps/ROOT.war"
}

# pb_tomcat_exec <home> <base> <port>
# Replaces the shell with Tomcat in the foreground. Console output (Tomcat's log, see conf/logging.properties)
# and the JVM's own messages go to stdout.
pb_tomcat_exec() {
  local home=$1 base=$2 port=$3
  local -a opts=(
    # -Xss: the study's 64k is below what JDK 17 accepts (136k) and what Tomcat 7 needs to start (144k);
    # config.sh sets 256k for headroom. servers/README.md has the measurements.
    "-Xmx$PB_TOMCAT_HEAP" "-Xss$PB_TOMCAT_XSS"
    # An OutOfMemoryError (heap, or "unable to create new native thread") leaves a server that answers
    # some requests and not others. Exit instead: the JVM prints "Terminating due to
    # java.lang.OutOfMemoryError: ..." to the log and the harness sees a crashed server.
    -XX:+ExitOnOutOfMemoryError
    # Tomcat clears JDK-internal caches on stop by reflection; JDK 17 allows it only with these.
    --add-opens=java.base/java.lang=ALL-UNNAMED
    --add-opens=java.base/java.io=ALL-UNNAMED
    --add-opens=java.base/java.util=ALL-UNNAMED
    --add-opens=java.base/java.util.concurrent=ALL-UNNAMED
    --add-opens=java.rmi/sun.rmi.transport=ALL-UNNAMED
    -Djava.awt.headless=true
    -Djava.util.logging.manager=org.apache.juli.ClassLoaderLogManager
    "-Djava.util.logging.config.file=$base/conf/logging.properties"
    "-Djava.io.tmpdir=$base/temp"
    "-Dcatalina.home=$home" "-Dcatalina.base=$base"
    # A connector that cannot bind its port must end the process, not leave a Tomcat without one.
    -Dorg.apache.catalina.startup.EXIT_ON_INIT_FAILURE=true
    # Read by conf/server.xml as ${pb.*}.
    "-Dpb.port=$port"
    "-Dpb.address=$PB_SERVER_ADDRESS"
    "-Dpb.maxEmitters=$PB_MAX_EMITTERS"
    "-Dpb.maxThreads=$PB_TOMCAT_MAX_THREADS"
    "-Dpb.maxConnections=$PB_TOMCAT_MAX_CONNECTIONS"
    "-Dpb.acceptCount=$PB_TOMCAT_ACCEPT_COUNT"
    "-Dpb.connectionTimeout=$PB_TOMCAT_CONNECTION_TIMEOUT"
    # The JVM's collections and safepoints (its pauses), one file never rotated: run.sh brings it back as
    # sut/gc.log (docs/run-layout.md).
    "-Xlog:gc,safepoint:file=$base/logs/gc.log:timemillis,uptimemillis:filecount=0"
    # At an OutOfMemoryError: a thread dump and a class histogram of the heap into the server's log (SIGQUIT
    # with PrintClassHistogram), what it held when it ran out (analysis/read/server-log.js). A thread dump
    # asked for by hand (kill -3) prints the histogram too.
    -XX:+PrintClassHistogram "-XX:OnOutOfMemoryError=kill -3 %p"
    # Read by the WAR (pushbench.core.Bodies): a request body must arrive whole within this many ms
    # (docs/protocol.md, "Request bodies"); empty or not a whole number: its default, 10000.
    "-Dpb.bodyDeadlineMs=${PB_BODY_DEADLINE_MS:-}"
    # Read by the WAR (pushbench.core.Streams): the SSE and WebSocket streams' replay bound and backlog bound
    # (docs/protocol.md, "Replay and gaps", "Clients that do not read"); anything else: their defaults.
    "-Dpb.replayCycles=${PB_REPLAY_CYCLES:-}"
    "-Dpb.streamBacklogBytes=${PB_STREAM_BACKLOG_BYTES:-}"
  )
  local -a extra=()
  # Word splitting is the point: PB_TOMCAT_EXTRA_OPTS holds several options.
  # shellcheck disable=SC2206
  [[ -n ${PB_TOMCAT_EXTRA_OPTS:-} ]] && extra=($PB_TOMCAT_EXTRA_OPTS)
  cd "$base" || return 1
  exec java "${opts[@]}" "${extra[@]}" \
    -cp "$home/bin/bootstrap.jar:$home/bin/tomcat-juli.jar" \
    org.apache.catalina.startup.Bootstrap start 2>&1
}

# pb_tomcat_require <what> <file> <hint>: fail with one clear line when an input is missing.
pb_tomcat_require() {
  if [[ ! -f $2 ]]; then
    echo "$1 missing: $2 ($3)" >&2
    exit 1
  fi
}
