#!/usr/bin/env bash
# Runs Tomcat 7 on the blocking connector (tc7-bio) in the foreground on $PB_PORT_TC7_BIO with the
# tc7 WAR as its ROOT webapp: maxThreads $PB_TOMCAT_BIO_THREADS (run.sh sizes it for the level),
# -Xss $PB_TOMCAT_BIO_XSS. It refuses, before Tomcat starts, a thread count this machine cannot hold
# (servers/bio-limits.sh). servers/control.sh starts this in the background and stops it with SIGTERM.
# The instance lives in $PB_STATE/tc7-bio-base.
set -euo pipefail
here=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
# shellcheck source=lib/config.sh
source "$here/../../lib/config.sh"
# shellcheck source=servers/tomcat-common.sh
source "$here/../tomcat-common.sh"

pb_tomcat_bio_sizing
# The stock catalina.properties (jar scanning) and web.xml, then tc7's (context, logging), then ours.
pb_tomcat_launch 7 tc7-bio "$PB_PORT_TC7_BIO" "$TC7_HOME/conf" "$here/../tc7/conf" "$here/conf"
