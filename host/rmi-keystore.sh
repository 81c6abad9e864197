#!/usr/bin/env bash
# shellcheck source-path=SCRIPTDIR
# The keystore JMeter's RMI runs over SSL with (docs/hosts.md, "A closed control plane"): one RSA key and
# certificate, alias rmi, that the controller and every engine hold; each side proves itself with it and
# trusts only it (JMeter asks for client certificates), so nobody without the file can drive an engine.
# Made once by setup.sh (keytool); a second call only checks.
#
#   host/rmi-keystore.sh          create $PB_RMI_KEYSTORE_DIR/{rmi-keystore.p12,rmi-ssl.properties} if missing
#   host/rmi-keystore.sh --force  make a new key (every engine host then needs the new files)
#
# rmi-ssl.properties (mode 600, with the keystore's random password) is what load/engine.sh and
# load/controller.sh give JMeter with -q. Engines on other hosts need the same two files at the same place
# of their checkout (copy the directory; a key made there separately is not trusted).
set -euo pipefail
here=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
# shellcheck source=../lib/config.sh
source "$here/../lib/config.sh"

dir=$PB_RMI_KEYSTORE_DIR store=$PB_RMI_KEYSTORE_DIR/rmi-keystore.p12 props=$PB_RMI_KEYSTORE_DIR/rmi-ssl.properties
[[ ${1:-} == --force ]] && rm -f -- "$store" "$props"
if [[ -s $store && -s $props ]]; then
  echo "RMI keystore present: $store"
  exit 0
fi
command -v keytool >/dev/null || { echo "no keytool (it comes with the JDK)" >&2; exit 1; }
umask 077
mkdir -p "$dir"
rm -f -- "$store" "$props"
pass=$(head -c 18 /dev/urandom | base64 | tr -d '/+=')
keytool -genkeypair -alias rmi -keyalg RSA -keysize 2048 -validity 3650 -dname "CN=pushbench-rmi" \
  -storetype PKCS12 -keystore "$store" -storepass "$pass" -keypass "$pass" >/dev/null 2>&1 ||
  { rm -f -- "$store"; echo "keytool could not create $store" >&2; exit 1; }
cat >"$props" <<PROPS
# JMeter RMI over SSL (host/rmi-keystore.sh): controller and engines share this key
server.rmi.ssl.disable=false
server.rmi.ssl.keystore.type=PKCS12
server.rmi.ssl.keystore.file=$store
server.rmi.ssl.keystore.password=$pass
server.rmi.ssl.keystore.alias=rmi
server.rmi.ssl.truststore.type=PKCS12
server.rmi.ssl.truststore.file=$store
server.rmi.ssl.truststore.password=$pass
PROPS
echo "RMI keystore created: $store"
