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

# The stock catalina.properties (jar scanning) and web.xml, then ours (server, context, logging) on top.
pb_tomcat_launch 7 tc7 "$PB_PORT_TC7" "$TC7_HOME/conf" "$here/conf"
