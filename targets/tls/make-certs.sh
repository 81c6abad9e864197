#!/usr/bin/env bash
# Test certificates for TLS target runs (issue #49; docs/targets.md "TLS"): a CA made here and server
# certificates for 127.0.0.1 and localhost, made with openssl into DIR, for the engine's JUnit
# (TlsLinkTest) and tests/run-target-tls.test.js. Never for a real server: the keys are unencrypted.
#   DIR/ca.pem, ca.key            the test CA (what tls.ca names)
#   DIR/server.pem, server.key    signed by the CA, names DNS:localhost and IP:127.0.0.1, valid for 2 days
#   DIR/expired.pem               the same key and names, signed by the CA, expired (its notAfter is past)
#   DIR/self.pem, self.key        self-signed, the same names: untrusted unless tls.insecure
# Usage: targets/tls/make-certs.sh DIR   (prints nothing; exit 1 with openssl's message on a failure)
set -euo pipefail
[[ $# -eq 1 ]] || { echo "usage: $0 DIR" >&2; exit 2; }
dir=$1
mkdir -p "$dir"
cd "$dir"
log=$(mktemp)
trap 'rm -f "$log" server.csr names.ext' EXIT
run() { "$@" >"$log" 2>&1 || { cat "$log" >&2; exit 1; }; }
key=(-newkey ec -pkeyopt ec_paramgen_curve:P-256 -nodes)
printf 'subjectAltName=DNS:localhost,IP:127.0.0.1\nbasicConstraints=CA:FALSE\n' >names.ext
run openssl req -x509 "${key[@]}" -keyout ca.key -out ca.pem -days 2 -subj /CN=pushbench-test-ca \
  -addext basicConstraints=critical,CA:TRUE -addext keyUsage=critical,keyCertSign,cRLSign
run openssl req "${key[@]}" -keyout server.key -out server.csr -subj /CN=localhost
run openssl x509 -req -in server.csr -CA ca.pem -CAkey ca.key -CAcreateserial -days 2 -extfile names.ext -out server.pem
run openssl x509 -req -in server.csr -CA ca.pem -CAkey ca.key -days -1 -extfile names.ext -out expired.pem
run openssl req -x509 "${key[@]}" -keyout self.key -out self.pem -days 2 -subj /CN=localhost \
  -addext subjectAltName=DNS:localhost,IP:127.0.0.1
rm -f ca.srl
