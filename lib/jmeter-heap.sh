# shellcheck shell=bash
# How much heap one JMeter engine gets (-Xmx), from what it will hold. Sourced after lib/config.sh.
#
#   jmeter_heap_mb <threads> <test type> <duration s> [<emit interval ms>]
#       prints the heap in MB for an engine running <threads> of this run's Request threads:
#       PB_JMETER_HEAP_BASE_MB for the JVM and the plan, PB_JMETER_HEAP_PER_THREAD_KB per thread (its
#       copy of the plan, its HTTP connection and buffers), and for a comet run with an event the
#       records each open stream piles up: JMeter keeps a whole response in memory until it ends, so a
#       stream holds up to duration / interval records, and its growing buffer up to twice that.
#       PB_JMETER_HEAP set to a size (e.g. 3g) overrides the estimate; "auto" (the default) keeps it.
#
#   jmeter_jvm_options
#       prints, one a line, the options every JMeter JVM (engine, controller, --local) gets besides its
#       heap: the collector (PB_JMETER_GC, split on spaces) and a fixed entropy source and locale.
#
# Why it matters: an engine out of heap does not fail, it spends its CPU in the garbage collector and
# sends requests late, so the server sees fewer connections than the run asked for (docs/limits.md).

# Bytes of one comet record as JMeter receives it (a JSON line and its chunk framing; docs/protocol.md).
PB_COMET_RECORD_BYTES=${PB_COMET_RECORD_BYTES:-450}

jmeter_heap_mb() { # <threads> <type> <duration s> [<interval ms>]
  local threads=$1 type=$2 duration=$3 interval=${4:-} per_thread_kb records
  if [[ $PB_JMETER_HEAP != auto ]]; then
    jmeter_size_mb "$PB_JMETER_HEAP"
    return
  fi
  per_thread_kb=$PB_JMETER_HEAP_PER_THREAD_KB
  if [[ $type == comet && -n $interval ]] && ((interval > 0)); then
    records=$((duration * 1000 / interval + 2))          # one per interval, the first at once, the clear's
    per_thread_kb=$((per_thread_kb + 2 * records * PB_COMET_RECORD_BYTES / 1024))
  fi
  echo $((PB_JMETER_HEAP_BASE_MB + (threads * per_thread_kb + 1023) / 1024))
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
