#!/usr/bin/env bash
# Builds the push sampler plugin (load/push-sampler, issue #22) and installs its jar into
# $JMETER_HOME/lib/ext, where JMeter finds plugins. Idempotent: Maven runs only when the pom or a source
# changed since the last build (a hash in target/build.sha256) or the installed jar is missing, so a second
# call takes a second. Offline first, as instrumentation-java/build.sh. Tests are not run here (test.sh
# runs them); PB_JAVA_BUILD_TESTS=1 runs them as well. Prints one line.
set -euo pipefail
here=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
# shellcheck source=lib/config.sh
source "$here/../../lib/config.sh"
cd "$here"

jar=target/pushbench-push-sampler.jar
installed=$JMETER_HOME/lib/ext/pushbench-push-sampler.jar
stamp=target/build.sha256
[[ -d $JMETER_HOME/lib/ext ]] || { echo "push-sampler: no JMeter home at $JMETER_HOME (run load/install-jmeter.sh first)" >&2; exit 1; }

hash=$(find pom.xml src -type f -print0 | LC_ALL=C sort -z | xargs -0 sha256sum | sha256sum | cut -d' ' -f1)
if [[ -f $jar && -f $stamp && $(cat "$stamp") == "$hash" ]] && cmp -s "$jar" "$installed"; then
  echo "push-sampler: up to date: $installed"
  exit 0
fi

maven_args=(-q -B package)
[[ ${PB_JAVA_BUILD_TESTS:-0} == 1 ]] || maven_args+=(-DskipTests)
log=$(mktemp)
trap 'rm -f "$log"' EXIT
if ! mvn -o "${maven_args[@]}" >"$log" 2>&1 && ! mvn "${maven_args[@]}" >"$log" 2>&1; then
  cat "$log" >&2
  echo "push-sampler: build failed (output above)" >&2
  exit 1
fi
[[ -f $jar ]] || { echo "push-sampler: build produced no $jar" >&2; exit 1; }
cp "$jar" "$installed.part"
mv "$installed.part" "$installed"
echo "$hash" >"$stamp"
echo "push-sampler: built and installed: $installed"
