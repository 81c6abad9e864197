# shellcheck shell=bash
# How much heap one JMeter engine gets (-Xmx), from the threads it will run. Sourced after lib/config.sh.
#
#   jmeter_heap_mb <threads>
#       prints the heap in MB for an engine running <threads> of this run's Request threads:
#       PB_JMETER_HEAP_BASE_MB for the JVM and the plan, PB_JMETER_HEAP_PER_THREAD_KB per thread (its
#       copy of the plan, its connection and buffers, and the old generation's share of dead polls).
#       Nothing grows with a stream's records: the push sampler (what run.sh runs) keeps a held stream's
#       counters and its first and last record, and writes every record to the stream log as it arrives
#       (bench/engine-heap.sh: the same ~100 KB live per held comet connection after 150 and after 600
#       records). JMeter's HTTP sampler (request.sampler=http, only when the plan is run by hand) keeps a
#       whole stream in heap until it ends: size such an engine yourself with PB_JMETER_HEAP
#       (docs/limits.md, the JMeter heap row, gives its bytes per record).
#       PB_JMETER_HEAP set to a size (e.g. 3g) overrides the estimate; "auto" (the default) keeps it.
#
#   jmeter_jvm_options
#       prints, one a line, the options every JMeter JVM (engine, controller, --local) gets besides its
#       heap: the collector (PB_JMETER_GC, split on spaces) and a fixed entropy source and locale.
#
# Why it matters: an engine out of heap does not fail, it spends its CPU in the garbage collector and
# sends requests late, so the server sees fewer connections than the run asked for (docs/limits.md).

jmeter_heap_mb() { # <threads>
  [[ $# == 1 && $1 =~ ^[0-9]+$ ]] || { echo "usage: jmeter_heap_mb <threads> (got: $*)" >&2; return 2; }
  local threads=$1
  if [[ $PB_JMETER_HEAP != auto ]]; then
    jmeter_size_mb "$PB_JMETER_HEAP"
    return
  fi
  echo $((PB_JMETER_HEAP_BASE_MB + (threads * PB_JMETER_HEAP_PER_THREAD_KB + 1023) / 1024))
}

# jmeter_size_mb <size>: a JVM size (512m, 3g, 2048) in MB; exit 1 on anything else.
jmeter_size_mb() {
  local size=${1,,}
  [[ $size =~ ^([1-9][0-9]*)([mg]?)$ ]] || { echo "not a heap size: '$1' (want e.g. 512m or 3g)" >&2; return 1; }
  case ${BASH_REMATCH[2]} in
    g) echo $((BASH_REMATCH[1] * 1024)) ;;
    m) echo "${BASH_REMATCH[1]}" ;;
    *) echo $((BASH_REMATCH[1] / 1048576)) ;;   # bytes, as -Xmx takes them
  esac
}

jmeter_jvm_options() {
  local -a gc
  read -ra gc <<<"$PB_JMETER_GC"
  printf '%s\n' "${gc[@]}" -Djava.security.egd=file:/dev/urandom -Duser.language=en -Duser.region=EN
}
