# shellcheck shell=bash
# How JMeter's controller and engines talk (docs/hosts.md, "A closed control plane"). Sourced by
# load/engine.sh and load/controller.sh after lib/config.sh.
#
#   jmeter_rmi_args   prints the JMeter options, one per line: RMI over SSL with the keystore of
#                     host/rmi-keystore.sh (JMeter then binds its RMI ports to java.rmi.server.hostname,
#                     the address hosts.conf gives), or with PB_JMETER_RMI_SSL=0 (a trusted lab network
#                     only) plain RMI, which JMeter binds to every interface. Fails naming what is missing.

jmeter_rmi_args() {
  if [[ $PB_JMETER_RMI_SSL == 0 ]]; then
    printf '%s\n' -Jserver.rmi.ssl.disable=true
    return 0
  fi
  local props=$PB_RMI_KEYSTORE_DIR/rmi-ssl.properties
  if [[ ! -r $props ]]; then
    echo "no RMI keystore in $PB_RMI_KEYSTORE_DIR: run ./setup.sh (host/rmi-keystore.sh), or set PB_JMETER_RMI_SSL=0 on a trusted network (docs/hosts.md)" >&2
    return 1
  fi
  printf '%s\n' -q "$props"
}
