#!/usr/bin/env bash
# Assembles $JMETER_HOME (default build/jmeter) from Maven Central jars with load/jmeter-home/pom.xml,
# then installs load/user.properties as its bin/user.properties.
# Idempotent: a stamp file records what the home was built from; a second call only checks it.
# Prints one line.
set -euo pipefail

here=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
# shellcheck source=lib/config.sh
source "$here/../lib/config.sh"

pom=$here/jmeter-home/pom.xml
props=$here/user.properties
stamp=$JMETER_HOME/.pushbench-stamp
# The home is up to date when it was built for this version from this pom and user.properties.
want="$JMETER_VERSION $(cat "$pom" "$props" | sha256sum | cut -d' ' -f1)"

if [[ -f $stamp && $(cat "$stamp") == "$want" && -f $JMETER_HOME/bin/ApacheJMeter.jar ]]; then
  echo "jmeter: $JMETER_VERSION up to date in $JMETER_HOME"
  exit 0
fi

log=$PB_BUILD/jmeter-install.log
mkdir -p "$PB_BUILD"
# Start from an empty home so no jar of an earlier version lingers on the class path.
[[ -n $JMETER_HOME && $JMETER_HOME != / ]] || { echo "jmeter: refusing JMETER_HOME='$JMETER_HOME'" >&2; exit 1; }
rm -rf "$JMETER_HOME"
if ! mvn -B -f "$pom" -Djmeter.version="$JMETER_VERSION" -Djmeter.home="$JMETER_HOME" \
  -Djmeter.work="$PB_BUILD/jmeter-maven" package >"$log" 2>&1; then
  echo "jmeter: install FAILED (maven), see $log" >&2
  tail -n 20 "$log" >&2
  exit 1
fi
# The launcher adds lib/junit to the class path and complains when it is missing.
mkdir -p "$JMETER_HOME/lib/junit"
cp "$props" "$JMETER_HOME/bin/user.properties"

# A home that cannot even print its version is not installed.
if ! version=$(java -jar "$JMETER_HOME/bin/ApacheJMeter.jar" --version -j /dev/null 2>&1 | grep -o "$JMETER_VERSION" | head -n 1) \
  || [[ $version != "$JMETER_VERSION" ]]; then
  echo "jmeter: install FAILED: $JMETER_HOME/bin/ApacheJMeter.jar --version does not report $JMETER_VERSION" >&2
  exit 1
fi
printf '%s\n' "$want" >"$stamp"
echo "jmeter: $JMETER_VERSION installed in $JMETER_HOME ($(find "$JMETER_HOME/lib" -name '*.jar' | wc -l) jars)"
