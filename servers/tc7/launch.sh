#!/usr/bin/env bash
# Runs Tomcat 7 in the foreground on $PB_PORT_TC7 with the pushbench WAR as its ROOT webapp.
# servers/control.sh starts this in the background and stops it with SIGTERM.
# The instance lives in $PB_STATE/tc7-base, made afresh from $TC7_HOME/conf and servers/tc7/conf.
# PB_TC7_WAR may name another WAR to deploy (default: the one instrumentation-java/build.sh makes).
set -euo pipefail
here=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
# shellcheck source=lib/config.sh
source "$here/../../lib/config.sh"
# shellcheck source=servers/tomcat-common.sh
source "$here/../tomcat-common.sh"

war=${PB_TC7_WAR:-$PB_ROOT/instrumentation-java/tomcat7/target/pushbench-tc7.war}
pb_tomcat_require "tomcat7" "$TC7_HOME/.pushbench-installed" "run servers/tc7/install.sh"
pb_tomcat_require "tomcat7 WAR" "$war" "run instrumentation-java/build.sh"

base=$PB_STATE/tc7-base
# The stock catalina.properties (jar scanning) and web.xml, then ours (server, context, logging) on top.
pb_tomcat_prepare_base "$base" "$war" "$TC7_HOME/conf" "$here/conf"
pb_tomcat_exec "$TC7_HOME" "$base" "$PB_PORT_TC7"
