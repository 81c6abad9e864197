#!/usr/bin/env bash
# Builds the push sampler plugin (load/push-sampler, issue #22) and installs its jar into
# $JMETER_HOME/lib/ext, where JMeter finds plugins, with its runtime dependencies beside it (target/lib, the
# pom's copy-dependencies: lz4-java); an installed jar of another version of such a dependency is removed.
# Idempotent: Maven runs only when the pom or a source changed since the last build (a hash in
# target/build.sha256) or an installed jar is missing or differs, so a second call takes a second. Offline first, as instrumentation-java/build.sh. Tests are not run here (test.sh
# runs them); PB_JAVA_BUILD_TESTS=1 runs them as well. Prints one line.
set -euo pipefail
here=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
# shellcheck source=lib/config.sh
source "$here/../../lib/config.sh"
cd "$here"

jar=target/pushbench-push-sampler.jar
ext=$JMETER_HOME/lib/ext
installed=$ext/pushbench-push-sampler.jar
stamp=target/build.sha256
[[ -d $ext ]] || { echo "push-sampler: no JMeter home at $JMETER_HOME (run load/install-jmeter.sh first)" >&2; exit 1; }

# other_versions <dep jar>: the jars in lib/ext of the same dependency at another version (a dependency's
# name is its file name less -<version>.jar), one a line.
other_versions() {
  local file=${1##*/} other
  for other in "$ext/${file%-[0-9]*.jar}"-[0-9]*.jar; do
    [[ ! -e $other || ${other##*/} == "$file" ]] || echo "$other"
  done
}

# installed_all: the plugin's jar and each dependency of target/lib installed as built, none of another
# version beside it.
installed_all() {
  cmp -s "$jar" "$installed" || return 1
  compgen -G 'target/lib/*.jar' >/dev/null || return 1
  local dep
  for dep in target/lib/*.jar; do
    cmp -s "$dep" "$ext/${dep##*/}" && [[ -z $(other_versions "$dep") ]] || return 1
  done
}

hash=$(find pom.xml src -type f -print0 | LC_ALL=C sort -z | xargs -0 sha256sum | sha256sum | cut -d' ' -f1)
if [[ -f $jar && -f $stamp && $(cat "$stamp") == "$hash" ]] && installed_all; then
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
compgen -G 'target/lib/*.jar' >/dev/null || { echo "push-sampler: build produced no target/lib/*.jar (lz4-java)" >&2; exit 1; }
for dep in target/lib/*.jar; do
  while IFS= read -r other; do rm -f -- "$other"; done < <(other_versions "$dep")
  cp "$dep" "$ext/${dep##*/}.part"
  mv "$ext/${dep##*/}.part" "$ext/${dep##*/}"
done
cp "$jar" "$installed.part"
mv "$installed.part" "$installed"
echo "$hash" >"$stamp"
echo "push-sampler: built and installed: $installed (with $(cd target/lib && echo *.jar))"
