#!/usr/bin/env bash
# Runs Tomcat 6 on the blocking connector (tc6-bio) in the foreground on $PB_PORT_TC6_BIO with the
# tc6 WAR as its ROOT webapp: maxThreads $PB_TOMCAT_BIO_THREADS (run.sh sizes it for the level),
# -Xss $PB_TOMCAT_BIO_XSS. It refuses, before Tomcat starts, a thread count this machine cannot hold
# (servers/bio-limits.sh). servers/control.sh starts this in the background and stops it with SIGTERM.
# The instance lives in $PB_STATE/tc6-bio-base.
set -euo pipefail
here=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
# shellcheck source=lib/config.sh
source "$here/../../lib/config.sh"
# shellcheck source=servers/tomcat-common.sh
source "$here/../tomcat-common.sh"

war=${PB_TC6_WAR:-$PB_ROOT/instrumentation-java/tomcat6/target/pushbench-tc6.war}
pb_tomcat_require "tomcat6" "$TC6_HOME/.pushbench-installed" "run servers/tc6/install.sh"
pb_tomcat_require "tomcat6 WAR" "$war" "run instrumentation-java/build.sh"

threads=$("$here/../bio-limits.sh" resolve)
"$here/../bio-limits.sh" check "$threads"
export PB_TOMCAT_MAX_THREADS=$threads PB_TOMCAT_XSS=$PB_TOMCAT_BIO_XSS

base=$PB_STATE/tc6-bio-base
pb_tomcat_prepare_base "$base" "$war" "$here/../tc6/conf" "$here/conf"
pb_tomcat_exec "$TC6_HOME" "$base" "$PB_PORT_TC6_BIO"
