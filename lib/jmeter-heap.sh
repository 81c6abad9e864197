# shellcheck shell=bash
# How big one JMeter engine is: its heap (-Xmx) and, with the mux engine, its selector threads, from the
# connections it will drive. Sourced after lib/config.sh by load/engine.sh and load/controller.sh. The heap
# is decided in lib/decide.js (heapMb), the one place of the run's decisions, which run.sh reads once;
# these functions ask it for an engine or controller started on its own.
#
#   jmeter_heap_mb <connections> [<sampler>]
#       prints the heap in MB for an engine driving <connections> of this run's connections with <sampler>
#       (testplan.jmx request.sampler; default PB_REQUEST_SAMPLER):
#       mux:        PB_JMETER_MUX_HEAP_BASE_MB + PB_JMETER_MUX_HEAP_PER_CONNECTION_KB per connection: a held
#                   connection's state (~1 KB live, docs/engine.md) and the garbage of its answers between
#                   two young collections, so the collector runs seldom;
#       push, http: PB_JMETER_HEAP_BASE_MB + PB_JMETER_HEAP_PER_THREAD_KB per connection (a JMeter thread
#                   each: its copy of the plan, its connection and buffers, and the old generation's share
#                   of dead polls). The push sampler keeps a held stream's counters and its first and last
#                   record and writes every record to the stream log as it arrives; JMeter's HTTP sampler
#                   keeps a whole stream in heap until it ends: size such an engine yourself with
#                   PB_JMETER_HEAP (docs/limits.md, the JMeter heap row, gives its bytes per record).
#       PB_JMETER_HEAP set to a size (e.g. 3g) overrides the estimate; "auto" (the default) keeps it.
#
#   jmeter_engine_properties <connections> <responses> <init 0|1> <cleanup 0|1> [<target spec>]
#       prints an engine's own plan properties, name=value a line (lib/decide-jmeter.js engineProperties:
#       threads.num, mux.threads for this host's cores, log.dir.res, init.threads, cleanup.threads,
#       target.spec); load/engine.sh gives each with -J. Exit 2 on a bad value.
#
#   jmeter_mux_threads <connections>
#       prints the mux engine's threads (one selector each; testplan.jmx mux.threads): one per
#       PB_MUX_CONNECTIONS_PER_THREAD connections, at least 1, at most one per core of this host.
#
#   jmeter_jvm_options engine <sampler> | jmeter_jvm_options controller
#       prints, one a line, the options a JMeter JVM (an engine driving <sampler>, or the controller and
#       --local) gets besides its heap (lib/decide-jmeter.js jvmOptions): the collector (PB_JMETER_GC, or
#       with auto the one decided for the JVM's shape and PB_ENGINE_CPUS), an engine's CPU count when
#       PB_ENGINE_CPUS pins it, and a fixed entropy source and locale.
#
# Why it matters: an engine out of heap does not fail, it spends its CPU in the garbage collector and
# sends requests late, so the server sees fewer connections than the run asked for (docs/limits.md).

jmeter_heap_mb() { node "$PB_ROOT/lib/decide.js" --heap "$@"; }   # <connections> [<sampler>]

jmeter_engine_properties() {   # <connections> <responses> <init 0|1> <cleanup 0|1> [<target spec>]
  node "$PB_ROOT/lib/decide.js" --engine-properties "$1" "$(nproc 2>/dev/null || echo 1)" "$2" "$3" "$4" ${5:+"$5"}
}

jmeter_mux_threads() { node "$PB_ROOT/lib/decide.js" --mux-threads "$1" "$(nproc 2>/dev/null || echo 1)"; }   # <connections>

# jmeter_size_mb <size>: a JVM size (512m, 3g, 2048 bytes) in MB; exit 1 on anything else.
jmeter_size_mb() { node "$PB_ROOT/lib/decide.js" --size-mb "$1"; }

jmeter_jvm_options() { node "$PB_ROOT/lib/decide.js" --jvm-options "$@"; }   # engine <sampler> | controller
