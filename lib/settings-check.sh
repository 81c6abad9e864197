# shellcheck shell=bash
# The one check of lib/config.sh's settings (PB_*, from the environment or their defaults) before any is
# used: a value that would break a command line, a property file or run.json (a newline in a port) or
# that a server would read wrongly is refused here, naming the setting. Sourced by run.sh after
# lib/config.sh and lib/hosts.sh (hosts_is_port, hosts_is_ipv4).
#
#   settings_problems   prints one line per bad setting; returns 1 if there was any

SETTINGS_PORTS=(PB_PORT_NODE PB_PORT_TC6 PB_PORT_TC7 PB_PORT_NODE_CLUSTER PB_PORT_TC6_BIO PB_PORT_TC7_BIO
  PB_JMETER_RMI_PORT PB_JMETER_RMI_LOCALPORT PB_JMETER_CLIENT_LOCALPORT)
# Whole numbers >= 1 (>= 0 for the margin and the reserve).
SETTINGS_COUNTS=(PB_MAX_EMITTERS PB_BODY_DEADLINE_MS PB_STREAM_BACKLOG_BYTES PB_TOMCAT_MAX_THREADS PB_TOMCAT_MAX_CONNECTIONS PB_TOMCAT_ACCEPT_COUNT
  PB_TOMCAT_CONNECTION_TIMEOUT PB_TOMCAT_BIO_JVM_THREADS PB_TOMCAT_BIO_THREAD_KB PB_JMETER_HEAP_BASE_MB
  PB_JMETER_HEAP_PER_THREAD_KB PB_JMETER_MUX_HEAP_BASE_MB PB_JMETER_MUX_HEAP_PER_CONNECTION_KB PB_MUX_CONNECTIONS_PER_THREAD
  PB_START_TIMEOUT_NODE PB_START_TIMEOUT_TOMCAT PB_START_TIMEOUT_TC6
  PB_START_TIMEOUT_TC7 PB_START_TIMEOUT_NODE_CLUSTER PB_START_TIMEOUT_TC6_BIO PB_START_TIMEOUT_TC7_BIO
  PB_STOP_TIMEOUT)
SETTINGS_ZERO_OK=(PB_TOMCAT_BIO_THREAD_MARGIN PB_FD_RESERVE)

settings_problems() {
  local v bad=0
  for v in $(compgen -e | grep '^PB_'); do
    if [[ ${!v} == *[[:cntrl:]]* ]]; then
      printf '%s holds a control character (a newline?): %q\n' "$v" "${!v}"; bad=1
    fi
  done
  for v in "${SETTINGS_PORTS[@]}"; do
    hosts_is_port "${!v}" || { printf '%s must be a port (1-65535), got %q\n' "$v" "${!v}"; bad=1; }
  done
  for v in "${SETTINGS_COUNTS[@]}"; do
    [[ ${!v} =~ ^[1-9][0-9]{0,8}$ ]] || { printf '%s must be a whole number >= 1, got %q\n' "$v" "${!v}"; bad=1; }
  done
  for v in "${SETTINGS_ZERO_OK[@]}"; do
    [[ ${!v} =~ ^(0|[1-9][0-9]{0,8})$ ]] || { printf '%s must be a whole number >= 0, got %q\n' "$v" "${!v}"; bad=1; }
  done
  if [[ ! $PB_REPLAY_CYCLES =~ ^(0|[1-9][0-9]{0,3})$ ]] || ((PB_REPLAY_CYCLES > 1024)); then
    printf 'PB_REPLAY_CYCLES must be a whole number from 0 to 1024, got %q\n' "$PB_REPLAY_CYCLES"; bad=1
  fi
  hosts_is_ipv4 "$PB_SERVER_ADDRESS" ||
    { printf 'PB_SERVER_ADDRESS must be an IPv4 address (0.0.0.0: every interface), got %q\n' "$PB_SERVER_ADDRESS"; bad=1; }
  [[ $PB_REQUEST_SAMPLER == mux || $PB_REQUEST_SAMPLER == push || $PB_REQUEST_SAMPLER == http ]] ||
    { printf 'PB_REQUEST_SAMPLER must be mux, push or http, got %q\n' "$PB_REQUEST_SAMPLER"; bad=1; }
  [[ $PB_CHURN_PERCENT =~ ^(100|[1-9]?[0-9])(\.[0-9]{1,3})?$ && ! $PB_CHURN_PERCENT =~ ^100\.0*[1-9] ]] ||
    { printf 'PB_CHURN_PERCENT must be a percentage from 0 to 100 (up to 3 decimals), got %q\n' "$PB_CHURN_PERCENT"; bad=1; }
  [[ $PB_JMETER_RMI_SSL == [01] ]] || { printf 'PB_JMETER_RMI_SSL must be 1 (SSL) or 0 (plain RMI), got %q\n' "$PB_JMETER_RMI_SSL"; bad=1; }
  [[ $PB_SSH_NEW_HOST_KEYS == refuse || $PB_SSH_NEW_HOST_KEYS == accept ]] ||
    { printf 'PB_SSH_NEW_HOST_KEYS must be refuse or accept, got %q\n' "$PB_SSH_NEW_HOST_KEYS"; bad=1; }
  ((bad == 0))
}
