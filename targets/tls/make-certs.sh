#!/usr/bin/env bash
# Test certificates for TLS target runs (issue #49; docs/targets.md "TLS"): a CA made here and server
# certificates for 127.0.0.1 and localhost, made with openssl into DIR, for the engine's JUnit
# (TlsLinkTest) and tests/run-target-tls.test.js, and per run for run.sh --tls (the front's, naming also
# the server's address ADDRESS when given). Never for a real server: the keys are unencrypted.
#   DIR/ca.pem, ca.key            the test CA (what tls.ca names)
#   DIR/server.pem, server.key    signed by the CA, names DNS:localhost and IP:127.0.0.1, valid for 2 days
#   DIR/expired.pem               the same key and names, signed by the CA, expired (its notAfter is past)
#   DIR/self.pem, self.key        self-signed, the same names: untrusted unless tls.insecure
# Usage: targets/tls/make-certs.sh DIR [ADDRESS]   (prints nothing; exit 1 with openssl's message on a failure)
set -euo pipefail
[[ $# -eq 1 || $# -eq 2 ]] || { echo "usage: $0 DIR [ADDRESS]" >&2; exit 2; }
dir=$1 names=DNS:localhost,IP:127.0.0.1
if (($# == 2)) && [[ $2 != 127.0.0.1 ]]; then
  [[ $2 =~ ^[0-9]{1,3}(\.[0-9]{1,3}){3}$ ]] || { echo "make-certs.sh: ADDRESS must be an IPv4 address, got '$2'" >&2; exit 2; }
  names+=,IP:$2
fi
mkdir -p "$dir"
cd "$dir"
log=$(mktemp)
trap 'rm -f "$log" server.csr names.ext' EXIT
run() { "$@" >"$log" 2>&1 || { cat "$log" >&2; exit 1; }; }
key=(-newkey ec -pkeyopt ec_paramgen_curve:P-256 -nodes)
printf 'subjectAltName=%s\nbasicConstraints=CA:FALSE\n' "$names" >names.ext
run openssl req -x509 "${key[@]}" -keyout ca.key -out ca.pem -days 2 -subj /CN=pushbench-test-ca \
  -addext basicConstraints=critical,CA:TRUE -addext keyUsage=critical,keyCertSign,cRLSign
run openssl req "${key[@]}" -keyout server.key -out server.csr -subj /CN=localhost
run openssl x509 -req -in server.csr -CA ca.pem -CAkey ca.key -CAcreateserial -days 2 -extfile names.ext -out server.pem
run openssl x509 -req -in server.csr -CA ca.pem -CAkey ca.key -days -1 -extfile names.ext -out expired.pem
run openssl req -x509 "${key[@]}" -keyout self.key -out self.pem -days 2 -subj /CN=localhost \
  -addext "subjectAltName=$names"
rm -f ca.srl
