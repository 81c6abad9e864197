#!/usr/bin/env bash
# A TLS front for a plain-HTTP push server (issue #49, docs/targets.md "TLS in front of a plain server"):
# nginx (Debian's nginx-light) listening with TLS on ADDRESS:PORT and proxying every request to UPSTREAM
# (host:port, plain HTTP/1.1), so a server that speaks no TLS itself (pushbench's Node.js server, a Tomcat)
# is reached at https:// and wss:// URLs. A built-in run with --tls starts and stops it itself (run.sh
# start_tls_front, lib/run-undo.sh stop_tls_front); for a target run the tests and a user do:
#
#   targets/tls/front.sh start --port P --upstream HOST:PORT --tls CERT KEY [--address A] [--dir D]
#                              [--max-connections N]
#   targets/tls/front.sh stop|status [--dir D]
#
# How it proxies, for push: no buffering either way (each event is passed on as the server writes it, a
# request body as it comes), HTTP/1.1 upstream with kept-alive connections for plain requests, a WebSocket
# upgrade's Upgrade and Connection headers passed on, the client's Host passed on, read and send timeouts of
# an hour (a held stream or long poll is never cut by the front). Sessions are resumable (a shared cache and
# tickets). Every client connection holds one upstream connection while it waits: --max-connections
# (worker_connections, default 19000) counts both, so the front holds about half that many clients.
# targets/tls/make-certs.sh makes a test CA and certificate. Defaults: address 127.0.0.1, dir
# $PB_STATE/tls-front. The PID file is <dir>/nginx.pid; stop signals only the PID it holds, and only while
# that process is an nginx master.
# Exit: 0 done, 1 failed, 2 usage, 3 (status) not running.
set -euo pipefail

here=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
# shellcheck source=lib/config.sh
source "$here/../../lib/config.sh"
# shellcheck source=lib/nginx-master.sh
source "$here/../../lib/nginx-master.sh"

usage() { echo "usage: targets/tls/front.sh {start|stop|status} [--port P] [--upstream HOST:PORT] [--tls CERT KEY] [--address A] [--dir D] [--max-connections N]" >&2; exit 2; }

(($# >= 1)) || usage
cmd=$1; shift
port='' upstream='' address=127.0.0.1 dir=$PB_STATE/tls-front maxconn=19000 cert='' key=''
while (($#)); do
  (($# >= 2)) || usage
  if [[ $1 == --tls ]]; then
    (($# >= 3)) || usage
    cert=$(realpath -- "$2") key=$(realpath -- "$3")
    [[ -r $cert && -r $key ]] || { echo "front.sh: --tls needs a readable certificate and key, got '$2' '$3'" >&2; exit 2; }
    shift 3
    continue
  fi
  case $1 in
    --port) port=$2 ;; --upstream) upstream=$2 ;; --address) address=$2 ;; --dir) dir=$2 ;; --max-connections) maxconn=$2 ;;
    *) usage ;;
  esac
  shift 2
done

pidfile=$dir/nginx.pid

running_pid() { nginx_master_pid "$pidfile"; }

write_config() {
  mkdir -p "$dir/logs" "$dir/tmp"
  cat >"$dir/nginx.conf" <<CONF
daemon on;
worker_processes 1;
worker_rlimit_nofile $((maxconn + 1000));
pid $pidfile;
error_log $dir/logs/error.log warn;
$( ((EUID == 0)) && echo 'user root;')
events { worker_connections $maxconn; }
http {
  access_log off;
  client_body_temp_path $dir/tmp/body;
  proxy_temp_path $dir/tmp/proxy;
  fastcgi_temp_path $dir/tmp/fastcgi;
  uwsgi_temp_path $dir/tmp/uwsgi;
  scgi_temp_path $dir/tmp/scgi;
  # an upgrade asks the upstream to upgrade; any other request leaves Connection unset (kept alive)
  map \$http_upgrade \$pb_connection { default upgrade; '' ''; }
  upstream pb_upstream { server $upstream; keepalive 64; }
  server {
    listen $address:$port ssl;
    ssl_certificate $cert;
    ssl_certificate_key $key;
    ssl_session_cache shared:SSL:10m;
    location / {
      proxy_pass http://pb_upstream;
      proxy_http_version 1.1;
      proxy_set_header Host \$http_host;
      proxy_set_header Upgrade \$http_upgrade;
      proxy_set_header Connection \$pb_connection;
      proxy_buffering off;
      proxy_request_buffering off;
      proxy_read_timeout 1h;
      proxy_send_timeout 1h;
      proxy_connect_timeout 5s;
    }
  }
}
CONF
}

start() {
  local pid
  [[ $port =~ ^[1-9][0-9]{0,4}$ && $port -le 65535 ]] || { echo "front.sh: --port must be 1-65535, got '$port'" >&2; exit 2; }
  [[ $upstream =~ ^[A-Za-z0-9.-]+:[1-9][0-9]{0,4}$ ]] || { echo "front.sh: --upstream must be HOST:PORT, got '$upstream'" >&2; exit 2; }
  [[ $address =~ ^[0-9]{1,3}(\.[0-9]{1,3}){3}$ ]] || { echo "front.sh: --address must be an IPv4 address, got '$address'" >&2; exit 2; }
  [[ $maxconn =~ ^[1-9][0-9]{0,5}$ ]] || { echo "front.sh: --max-connections must be a whole number, got '$maxconn'" >&2; exit 2; }
  [[ -n $cert ]] || { echo "front.sh: start needs --tls CERT KEY" >&2; exit 2; }
  command -v nginx >/dev/null || { echo "front.sh: nginx is missing: apt-get install nginx-light (./setup.sh --for-tests does)" >&2; exit 1; }
  if pid=$(running_pid); then echo "tls front: already running (pid $pid, $dir)"; return 0; fi
  write_config
  nginx -p "$dir" -c "$dir/nginx.conf" -t >"$dir/logs/test.out" 2>&1 || { cat "$dir/logs/test.out" >&2; exit 1; }
  nginx -p "$dir" -c "$dir/nginx.conf" 2>>"$dir/logs/error.log" || { tail -n 5 "$dir/logs/error.log" >&2; exit 1; }
  for _ in $(seq 1 50); do
    # the front itself answering its port (any HTTP status: the upstream may not be up yet)
    if pid=$(running_pid) && curl -sSk -o /dev/null "https://$address:$port/" 2>/dev/null; then
      echo "tls front: running (pid $pid, https://$address:$port -> http://$upstream, $dir)"
      return 0
    fi
    sleep 0.1
  done
  echo "tls front: did not answer on $address:$port within 5 s (log: $dir/logs/error.log)" >&2
  stop >/dev/null
  exit 1
}

stop() { nginx_master_stop "$pidfile" 'tls front'; }

case $cmd in
  start) start ;;
  stop) stop ;;
  status) if pid=$(running_pid); then echo "tls front: running (pid $pid)"; else echo "tls front: not running"; exit 3; fi ;;
  *) usage ;;
esac
