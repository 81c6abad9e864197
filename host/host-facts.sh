#!/usr/bin/env bash
# shellcheck source-path=SCRIPTDIR
# Runs ON a host (run.sh calls it there through remote_run, for a run's provenance: lib/provenance.sh)
# and prints what that host is and runs, one "<key><TAB><value>" line each, cheaply (no JVM starts
# except one `java -version`; ~100-300 ms):
#   cores, memoryMB, cpuModel, kernel, node, jdk, jmeter, tomcat6, tomcat7
# A version that cannot be read is printed empty; a version read only from lib/config.sh (no unzip to
# look inside the installed jar) gets " (configured)".
set -uo pipefail
here=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
# shellcheck source=../lib/config.sh
source "$here/../lib/config.sh"

fact() { printf '%s\t%s\n' "$1" "$(tr '\t\n' '  ' <<<"$2" | sed 's/ *$//')"; }

# A version from a file inside an installed jar: <jar> <member> <sed expression> <configured version>
jar_version() {
  [[ -f $1 ]] || return 0
  if command -v unzip >/dev/null 2>&1; then
    unzip -p "$1" "$2" 2>/dev/null | sed -n "$3" | head -n 1
  else
    printf '%s (configured)' "$4"
  fi
}

fact cores "$(nproc 2>/dev/null)"
fact memoryMB "$(awk '/^MemTotal:/ { printf "%d", $2 / 1024 }' /proc/meminfo 2>/dev/null)"
fact cpuModel "$(sed -n 's/^model name[[:space:]]*: *//p' /proc/cpuinfo 2>/dev/null | head -n 1)"
fact kernel "$(uname -r 2>/dev/null)"
fact node "$(node --version 2>/dev/null | sed 's/^v//')"
fact jdk "$(java -version 2>&1 | sed -n 's/.*version "\([^"]*\)".*/\1/p' | head -n 1)"
fact jmeter "$(jar_version "$JMETER_HOME/lib/ext/ApacheJMeter_core.jar" META-INF/MANIFEST.MF \
  's/^Implementation-Version: *\([^[:space:]]*\).*/\1/p' "$JMETER_VERSION")"
fact tomcat6 "$(jar_version "$TC6_HOME/lib/catalina.jar" org/apache/catalina/util/ServerInfo.properties \
  's/^server\.number=\([^[:space:]]*\).*/\1/p' "$TC6_VERSION")"
fact tomcat7 "$(jar_version "$TC7_HOME/lib/catalina.jar" org/apache/catalina/util/ServerInfo.properties \
  's/^server\.number=\([^[:space:]]*\).*/\1/p' "$TC7_VERSION")"
exit 0
