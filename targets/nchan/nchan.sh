#!/usr/bin/env bash
# An example third-party push server for target files (issue #47, docs/targets.md): nginx with the nchan
# module, both from Debian (nginx-light, libnginx-mod-nchan), on 127.0.0.1 (or --address: a test
# namespace's). pushbench never starts it
# in a run (a target run starts nothing on the server); the tests and a user trying the target files do:
#
#   targets/nchan/nchan.sh start [--port P] [--address A] [--dir D] [--workers N] [--max-connections N]
#                                [--tls CERT KEY] [--access-log FILE]
#   targets/nchan/nchan.sh stop|status [--dir D]
#
# One channel per path tail; each transport at its own location, so a target file names the one it means:
#   POST /pub/<channel>     publish (the body is the message)     GET /sse/<channel>     Server-Sent Events
#   GET  /ws/<channel>      WebSocket (upgrade)                   GET /lp/<channel>      long poll (Last-Modified/Etag cursor)
#   GET  /stream/<channel>  a held HTTP response, one message a line
# A new subscriber starts at the newest message (nchan_subscriber_first_message newest); a reconnection
# with Last-Event-ID or the long poll's cursor resumes where it was, within the buffer (1,000 messages, 10 min).
# --max-connections sets worker_connections (a server limited on purpose). --tls makes it listen with TLS
# (`listen ... ssl`, https:// and wss:// at the same paths) with that certificate (PEM, its chain) and key,
# sessions resumable (a shared cache and tickets); targets/tls/make-certs.sh makes test ones. Defaults: port
# $PB_PORT_NCHAN (18480), dir $PB_STATE/nchan, 1 worker. The PID file is <dir>/nginx.pid; stop signals only
# the PID it holds, and only while that process is an nginx master. --access-log writes each request's
# method and URI (path and query) to FILE, one a line (a test's evidence of what the clients asked); off by default.
# Exit: 0 done, 1 failed, 2 usage, 3 (status) not running.
set -euo pipefail

here=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
# shellcheck source=lib/config.sh
source "$here/../../lib/config.sh"
# shellcheck source=lib/nginx-master.sh
source "$here/../../lib/nginx-master.sh"

usage() { echo "usage: targets/nchan/nchan.sh {start|stop|status} [--port P] [--address A] [--dir D] [--workers N] [--max-connections N] [--tls CERT KEY] [--access-log FILE]" >&2; exit 2; }

(($# >= 1)) || usage
cmd=$1; shift
port=${PB_PORT_NCHAN:-18480} address=127.0.0.1 dir=$PB_STATE/nchan workers=1 maxconn=19000 cert='' key='' access=''
while (($#)); do
  (($# >= 2)) || usage
  if [[ $1 == --tls ]]; then
    (($# >= 3)) || usage
    cert=$(realpath -- "$2") key=$(realpath -- "$3")
    [[ -r $cert && -r $key ]] || { echo "nchan.sh: --tls needs a readable certificate and key, got '$2' '$3'" >&2; exit 2; }
    shift 3
    continue
  fi
  case $1 in
    --port) port=$2 ;; --address) address=$2 ;; --dir) dir=$2 ;; --workers) workers=$2 ;; --max-connections) maxconn=$2 ;;
    --access-log) access=$(realpath -m -- "$2") ;;
    *) usage ;;
  esac
  shift 2
done
[[ $port =~ ^[1-9][0-9]{0,4}$ && $port -le 65535 ]] || { echo "nchan.sh: --port must be 1-65535, got '$port'" >&2; exit 2; }
[[ $address =~ ^[0-9]{1,3}(\.[0-9]{1,3}){3}$ ]] || { echo "nchan.sh: --address must be an IPv4 address, got '$address'" >&2; exit 2; }
[[ $workers =~ ^[1-9]$ ]] || { echo "nchan.sh: --workers must be 1-9, got '$workers'" >&2; exit 2; }
[[ $maxconn =~ ^[1-9][0-9]{0,5}$ ]] || { echo "nchan.sh: --max-connections must be a whole number, got '$maxconn'" >&2; exit 2; }

module=/usr/lib/nginx/modules/ngx_nchan_module.so
pidfile=$dir/nginx.pid

running_pid() { nginx_master_pid "$pidfile"; }

write_config() {
  local log_conf='  access_log off;'
  # shellcheck disable=SC2016  # nginx's variables, written as they are
  [[ -z $access ]] || log_conf=$(printf '  log_format pb_request "$request_method $request_uri";\n  access_log %s pb_request;' "$access")
  mkdir -p "$dir/logs" "$dir/tmp"
  cat >"$dir/nginx.conf" <<CONF
load_module $module;
daemon on;
worker_processes $workers;
worker_rlimit_nofile 20000;
pid $pidfile;
error_log $dir/logs/error.log warn;
$( ((EUID == 0)) && echo 'user root;')
events { worker_connections $maxconn; }
http {
$log_conf
  client_body_temp_path $dir/tmp/body;
  proxy_temp_path $dir/tmp/proxy;
  fastcgi_temp_path $dir/tmp/fastcgi;
  uwsgi_temp_path $dir/tmp/uwsgi;
  scgi_temp_path $dir/tmp/scgi;
  nchan_message_buffer_length 1000;
  nchan_message_timeout 10m;
  server {
    listen $address:$port${cert:+ ssl};
$( [[ -n $cert ]] && printf '    ssl_certificate %s;\n    ssl_certificate_key %s;\n    ssl_session_cache shared:SSL:10m;\n' "$cert" "$key")
    location ~ ^/pub/([A-Za-z0-9_.-]+)$ { nchan_publisher; nchan_channel_id \$1; }
    location ~ ^/sse/([A-Za-z0-9_.-]+)$ { nchan_subscriber eventsource; nchan_channel_id \$1; nchan_subscriber_first_message newest; }
    location ~ ^/ws/([A-Za-z0-9_.-]+)$ { nchan_subscriber websocket; nchan_channel_id \$1; nchan_subscriber_first_message newest; }
    location ~ ^/lp/([A-Za-z0-9_.-]+)$ { nchan_subscriber longpoll; nchan_channel_id \$1; nchan_subscriber_first_message newest; }
    location ~ ^/stream/([A-Za-z0-9_.-]+)$ { nchan_subscriber http-raw-stream; nchan_channel_id \$1; nchan_subscriber_first_message newest; }
    location = /health { return 200 "ok\n"; }
  }
}
CONF
}

start() {
  local pid
  [[ -r $module ]] || { echo "nchan.sh: $module is missing: apt-get install nginx-light libnginx-mod-nchan (./setup.sh --for-tests does)" >&2; exit 1; }
  if pid=$(running_pid); then echo "nchan: already running (pid $pid, $dir)"; return 0; fi
  write_config
  local scheme=http
  [[ -z $cert ]] || scheme=https   # the probe is the script's own: it checks the port answers, not the certificate
  nginx -p "$dir" -c "$dir/nginx.conf" -t >"$dir/logs/test.out" 2>&1 || { cat "$dir/logs/test.out" >&2; exit 1; }
  nginx -p "$dir" -c "$dir/nginx.conf" 2>>"$dir/logs/error.log" || { tail -n 5 "$dir/logs/error.log" >&2; exit 1; }
  for _ in $(seq 1 50); do
    if pid=$(running_pid) && curl -fsSk -o /dev/null "$scheme://$address:$port/health" 2>/dev/null; then
      echo "nchan: running (pid $pid, $scheme://$address:$port, $dir)"
      return 0
    fi
    sleep 0.1
  done
  echo "nchan: did not answer on $address:$port within 5 s (log: $dir/logs/error.log)" >&2
  stop >/dev/null
  exit 1
}

stop() { nginx_master_stop "$pidfile" 'nchan'; }

case $cmd in
  start) start ;;
  stop) stop ;;
  status) if pid=$(running_pid); then echo "nchan: running (pid $pid)"; else echo "nchan: not running"; exit 3; fi ;;
  *) usage ;;
esac
