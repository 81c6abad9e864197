#!/usr/bin/env bash
# Installs Tomcat 7 into $TC7_HOME from its distribution tarball in the Maven repository.
# Idempotent: a stamp file holding the version makes a second call return at once.
# The stock web applications are removed: only our WAR (deployed by launch.sh) runs.
set -euo pipefail
here=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
# shellcheck source=lib/config.sh
source "$here/../../lib/config.sh"

stamp=$TC7_HOME/.pushbench-installed
if [[ -f $stamp && $(cat "$stamp") == "$TC7_VERSION" ]]; then
  echo "tomcat7 $TC7_VERSION: already installed in $TC7_HOME"
  exit 0
fi

started=$SECONDS
mkdir -p "$PB_BUILD"
work=$(mktemp -d "$PB_BUILD/tomcat7-install.XXXXXX")
trap 'rm -rf "$work"' EXIT

if ! mvn -B -q -f "$here/pom.xml" -Dtc7.version="$TC7_VERSION" -Dtc7.dest="$work" \
    generate-resources >"$work/mvn.log" 2>&1; then
  tail -n 30 "$work/mvn.log" >&2
  echo "tomcat7 $TC7_VERSION: download with Maven failed (log above)" >&2
  exit 1
fi

tar -xzf "$work/tomcat-$TC7_VERSION.tar.gz" -C "$work"
home=$work/apache-tomcat-$TC7_VERSION
rm -rf "$home/webapps/"{docs,examples,manager,host-manager,ROOT}
echo "$TC7_VERSION" >"$home/.pushbench-installed"

# Swap in the finished home only now, so an interrupted install never leaves a half home behind.
rm -rf "$TC7_HOME"
mv "$home" "$TC7_HOME"
echo "tomcat7 $TC7_VERSION: installed in $TC7_HOME ($((SECONDS - started)) s)"
