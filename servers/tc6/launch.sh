#!/usr/bin/env bash
# Runs Tomcat 6 in the foreground on $PB_PORT_TC6 with the pushbench WAR as its ROOT webapp.
# servers/control.sh starts this in the background and stops it with SIGTERM.
# The instance lives in $PB_STATE/tc6-base, made afresh from servers/tc6/conf.
# PB_TC6_WAR may name another WAR to deploy (default: the one instrumentation-java/build.sh makes).
set -euo pipefail
here=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
# shellcheck source=lib/config.sh
source "$here/../../lib/config.sh"
# shellcheck source=servers/tomcat-common.sh
source "$here/../tomcat-common.sh"

pb_tomcat_launch 6 tc6 "$PB_PORT_TC6" "$here/conf"
