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

pb_tomcat_bio_sizing
pb_tomcat_launch 6 tc6-bio "$PB_PORT_TC6_BIO" "$here/../tc6/conf" "$here/conf"
