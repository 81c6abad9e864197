# shellcheck shell=bash
# The order in which JMeter 5.6's controller starts its engines (sourced by run.sh; tests call it through
# `bash -c`). The controller does not start them in the order given with -R: DistributedRunner keeps them
# in a java.util.HashMap keyed by "<address>:<port>" and starts them in that map's iteration order (its
# log's "Starting distributed test with remote engines: [...]"), one after the other, each a few hundred
# ms to a few seconds after the previous one. Which engine sets the event (the first to start) and which
# clears (the last to start) follows from this order, never from the order of hosts.conf.

# jmeter_start_order <address:port>...: prints the engines one per line in the order JMeter starts them:
# HashMap buckets in ascending order, (h ^ (h >>> 16)) & (capacity - 1) of Java's String.hashCode, the
# capacity the smallest power of two from 16 up that holds them at a load factor of 0.75; engines in one
# bucket in the order given.
jmeter_start_order() {
  local capacity=16 key i h n=$# bucket
  while ((n * 4 > capacity * 3)); do capacity=$((capacity * 2)); done
  local -a order=()
  for key in "$@"; do
    h=0
    for ((i = 0; i < ${#key}; i++)); do
      h=$(((h * 31 + $(printf '%d' "'${key:i:1}")) & 0xFFFFFFFF))
    done
    bucket=$(((h ^ (h >> 16)) & (capacity - 1)))
    order+=("$(printf '%08d %04d %s' "$bucket" "${#order[@]}" "$key")")
  done
  printf '%s\n' "${order[@]}" | sort | cut -d' ' -f3-
}
