#!/usr/bin/env bash
# Builds the two instrumentation WARs (tomcat6/target/pushbench-tc6.war, tomcat7/target/pushbench-tc7.war).
# Idempotent: Maven runs only when a pom or a source file changed since the WARs were built (a hash of all
# of them is kept in target/build.sha256), so a second call takes a second. Prints one line.
# Tests are not run here (test.sh runs `mvn test`); set PB_JAVA_BUILD_TESTS=1 to run them as well.
set -euo pipefail
here=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
cd "$here"

wars=(tomcat6/target/pushbench-tc6.war tomcat7/target/pushbench-tc7.war)
stamp=target/build.sha256

sources_hash() {
  find pom.xml core tomcat6 tomcat7 -path '*/target' -prune -o -type f \( -name pom.xml -o -path '*/src/*' \) -print0 \
    | LC_ALL=C sort -z | xargs -0 sha256sum | sha256sum | cut -d' ' -f1
}

hash=$(sources_hash)
if [[ -f ${wars[0]} && -f ${wars[1]} && -f $stamp && $(cat "$stamp") == "$hash" ]]; then
  echo "instrumentation-java: up to date: $here/${wars[0]} $here/${wars[1]}"
  exit 0
fi

maven_args=(-q -B package)
[[ ${PB_JAVA_BUILD_TESTS:-0} == 1 ]] || maven_args+=(-DskipTests)
log=$(mktemp)
trap 'rm -f "$log"' EXIT
# Offline first: once the local Maven repository is warm this avoids any network round trip. The first
# build (or one after a dependency change) falls back to downloading.
if ! mvn -o "${maven_args[@]}" >"$log" 2>&1; then
  if ! mvn "${maven_args[@]}" >"$log" 2>&1; then
    cat "$log" >&2
    echo "instrumentation-java: build failed (output above)" >&2
    exit 1
  fi
fi
for war in "${wars[@]}"; do
  [[ -f $war ]] || { echo "instrumentation-java: build produced no $war" >&2; exit 1; }
done
mkdir -p target
echo "$hash" >"$stamp"
echo "instrumentation-java: built: $here/${wars[0]} $here/${wars[1]}"
