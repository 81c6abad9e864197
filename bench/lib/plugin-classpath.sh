# shellcheck shell=bash
# The jars the push sampler's sources need besides the JDK when a bench compiles and runs them outside
# JMeter (javac -sourcepath load/push-sampler/src/main/java): its runtime dependency as
# load/push-sampler/build.sh installs it into $JMETER_HOME/lib/ext (lz4-java, the stream log's live codec),
# and from JMeter's lib/ the Jackson jars (a target run's spec) and slf4j-api (StreamLog's messages; without
# a binding, outside JMeter, they are dropped). Sourced after lib/config.sh by the benches that compile
# those sources.
#
#   plugin_classpath    prints them, ':'-separated; exit 1 naming what is missing (./setup.sh installs them)
plugin_classpath() {
  local lz4 slf4j jackson
  lz4=$(compgen -G "$JMETER_HOME/lib/ext/lz4-java-*.jar" | head -n 1) || true
  slf4j=$(compgen -G "$JMETER_HOME/lib/slf4j-api-*.jar" | head -n 1) || true
  jackson=$(find "$JMETER_HOME/lib" -maxdepth 1 -name 'jackson-*.jar' 2>/dev/null | LC_ALL=C sort | paste -sd:)
  if [[ -z $lz4 || -z $slf4j || -z $jackson ]]; then
    echo "no lz4-java jar in $JMETER_HOME/lib/ext, or no slf4j-api or Jackson jars in $JMETER_HOME/lib (run ./setup.sh)" >&2
    return 1
  fi
  printf '%s:%s:%s\n' "$lz4" "$slf4j" "$jackson"
}
