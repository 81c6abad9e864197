#!/usr/bin/env bash
# Assembles a Tomcat 6 CATALINA_HOME in $TC6_HOME. The repository has no Tomcat 6 distribution tarball,
# only its jars, so this builds what the tarball would hold for our use:
#   bin/bootstrap.jar    the launcher classes out of catalina.jar, Class-Path: tomcat-juli.jar
#   bin/tomcat-juli.jar  logging
#   lib/                 catalina, tomcat-coyote, servlet-api, annotations-api (javax.annotation left the
#                        JDK in 11; Catalina needs it). No Jasper: conf/web.xml maps no JSP servlet.
#   conf/                servers/tc6/conf (launch.sh copies it afresh into each instance)
#   logs/ temp/ webapps/ work/
# Idempotent: a stamp file holding the version makes a second call return at once.
set -euo pipefail
here=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
# shellcheck source=lib/config.sh
source "$here/../../lib/config.sh"

stamp=$TC6_HOME/.pushbench-installed
if [[ -f $stamp && $(cat "$stamp") == "$TC6_VERSION" ]]; then
  echo "tomcat6 $TC6_VERSION: already installed in $TC6_HOME"
  exit 0
fi

started=$SECONDS
mkdir -p "$PB_BUILD"
work=$(mktemp -d "$PB_BUILD/tomcat6-install.XXXXXX")
trap 'rm -rf "$work"' EXIT

jars=$work/jars
if ! mvn -B -q -f "$here/pom.xml" -Dtc6.version="$TC6_VERSION" -Dtc6.dest="$jars" \
    generate-resources >"$work/mvn.log" 2>&1; then
  tail -n 30 "$work/mvn.log" >&2
  echo "tomcat6 $TC6_VERSION: download with Maven failed (log above)" >&2
  exit 1
fi

home=$work/home
mkdir -p "$home"/{bin,lib,conf,logs,temp,webapps,work}
cp "$jars"/{catalina,tomcat-coyote,servlet-api,annotations-api}.jar "$home/lib/"
cp "$jars/tomcat-juli.jar" "$home/bin/"
cp "$here"/conf/* "$home/conf/"

# bootstrap.jar: the classes the system class loader needs before the common loader (lib/) exists.
# The same set a Tomcat 6 distribution's bootstrap.jar holds.
classes=$work/bootstrap
mkdir -p "$classes"
(
  cd "$classes"
  jar xf "$jars/catalina.jar" \
    org/apache/catalina/startup/catalina.properties \
    org/apache/naming/JndiPermission.class \
    org/apache/catalina/loader/Reloader.class
  # jar xf takes no wildcards: pick the Bootstrap*, ClassLoaderFactory*, ... entries from the listing.
  jar tf "$jars/catalina.jar" |
    grep -E '^org/apache/catalina/(startup/(Bootstrap|CatalinaProperties|ClassLoaderFactory|Tool)|security/SecurityClassLoad|loader/StandardClassLoader)[^/]*\.class$' |
    xargs jar xf "$jars/catalina.jar"
)
printf 'Main-Class: org.apache.catalina.startup.Bootstrap\nClass-Path: tomcat-juli.jar\n' >"$work/manifest.txt"
jar cfm "$home/bin/bootstrap.jar" "$work/manifest.txt" -C "$classes" .

echo "$TC6_VERSION" >"$home/.pushbench-installed"
# Swap in the finished home only now, so an interrupted install never leaves a half home behind.
rm -rf "$TC6_HOME"
mv "$home" "$TC6_HOME"
echo "tomcat6 $TC6_VERSION: installed in $TC6_HOME ($((SECONDS - started)) s)"
