# shellcheck shell=bash
# pushbench configuration: the one place for versions, ports, paths and JVM settings.
# Sourced by every script. Each value can be overridden from the environment.

PB_ROOT=${PB_ROOT:-$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)}
PB_BUILD=${PB_BUILD:-$PB_ROOT/build}                 # everything downloaded or built (git-ignored)
PB_STATE=${PB_STATE:-$PB_BUILD/state}               # PID files and logs of running servers/engines
PB_RESULTS=${PB_RESULTS:-$PB_ROOT/results}          # one directory per test run

# Versions (all from Maven Central).
JMETER_VERSION=${JMETER_VERSION:-5.6.3}
TC6_VERSION=${TC6_VERSION:-6.0.53}
TC7_VERSION=${TC7_VERSION:-7.0.109}

# Homes assembled by setup.sh.
JMETER_HOME=${JMETER_HOME:-$PB_BUILD/jmeter}
TC6_HOME=${TC6_HOME:-$PB_BUILD/tomcat6}
TC7_HOME=${TC7_HOME:-$PB_BUILD/tomcat7}

# Ports of the servers under test.
PB_PORT_NODE=${PB_PORT_NODE:-8080}
PB_PORT_TC6=${PB_PORT_TC6:-8086}
PB_PORT_TC7=${PB_PORT_TC7:-8087}
# The address the servers under test listen on (docs/hosts.md): run.sh sets the sut's hosts.conf
# address; 0.0.0.0 (every interface) only on a trusted lab network.
PB_SERVER_ADDRESS=${PB_SERVER_ADDRESS:-127.0.0.1}
PB_PORT_NODE_CLUSTER=${PB_PORT_NODE_CLUSTER:-8081}
# Event emitters a server under test holds at once; a set of one more is answered 409 (docs/protocol.md).
PB_MAX_EMITTERS=${PB_MAX_EMITTERS:-16}
# A request body must arrive whole within this many ms of its head, else 408 (docs/protocol.md "Request bodies").
PB_BODY_DEADLINE_MS=${PB_BODY_DEADLINE_MS:-10000}
# SSE and WebSocket streams (docs/protocol.md "Replay and gaps", "Clients that do not read"): the cycles per
# event a resumed stream gets again (0-1024; beyond them one gap record), and the unsent bytes at which a
# stream whose client does not read is cut (counted in /status streams.dropped). Node reads both from the
# environment, the Tomcats as -Dpb.replayCycles and -Dpb.streamBacklogBytes (servers/tomcat-common.sh).
PB_REPLAY_CYCLES=${PB_REPLAY_CYCLES:-100}
PB_STREAM_BACKLOG_BYTES=${PB_STREAM_BACKLOG_BYTES:-1048576}
PB_PORT_TC6_BIO=${PB_PORT_TC6_BIO:-8096}
PB_PORT_TC7_BIO=${PB_PORT_TC7_BIO:-8097}
# The TLS front's port on the server's host in a built-in run over TLS (./run.sh ... --tls: nginx terminating
# TLS, passing every request to the server's plain port; docs/engine.md "TLS for the built-in servers").
PB_PORT_TLS=${PB_PORT_TLS:-8443}

# pb_server_port <server type>: the port that server type listens on, PB_PORT_<TYPE> (- as _), as
# servers/control.sh reads it; empty for an unknown type.
pb_server_port() { local v=PB_PORT_${1^^}; v=${v//-/_}; printf '%s' "${!v:-}"; }

# node-cluster: worker processes, "auto" (one per core of the SUT host) or a whole number >= 1.
PB_NODE_CLUSTER_WORKERS=${PB_NODE_CLUSTER_WORKERS:-auto}

# Tomcat JVM: the study used -Xmx2400m -Xss64k (its section 4.1). See servers/README.md for the
# smallest -Xss JDK 17 accepts and why.
PB_TOMCAT_HEAP=${PB_TOMCAT_HEAP:-2400m}
PB_TOMCAT_XSS=${PB_TOMCAT_XSS:-256k}                 # study: 64k; JDK 17 accepts >= 136k, Tomcat 7 starts >= 144k
PB_TOMCAT_MAX_THREADS=${PB_TOMCAT_MAX_THREADS:-400}  # study: ~400 request processing threads
PB_TOMCAT_MAX_CONNECTIONS=${PB_TOMCAT_MAX_CONNECTIONS:-50000}
PB_TOMCAT_ACCEPT_COUNT=${PB_TOMCAT_ACCEPT_COUNT:-1024}      # listen backlog: thousands of clients connect at once
PB_TOMCAT_CONNECTION_TIMEOUT=${PB_TOMCAT_CONNECTION_TIMEOUT:-60000}  # ms to wait for a request / between keep-alive requests
PB_TOMCAT_EXTRA_OPTS=${PB_TOMCAT_EXTRA_OPTS:-}       # more JVM options, e.g. -XX:+HeapDumpOnOutOfMemoryError
# The blocking connectors (tc6-bio, tc7-bio): one thread per held connection (servers/bio-limits.sh).
PB_TOMCAT_BIO_THREADS=${PB_TOMCAT_BIO_THREADS:-auto}            # maxThreads; auto: run.sh sizes it for the level
PB_TOMCAT_BIO_THREAD_MARGIN=${PB_TOMCAT_BIO_THREAD_MARGIN:-50}  # threads past the level: control requests, reconnects
PB_TOMCAT_BIO_XSS=${PB_TOMCAT_BIO_XSS:-256k}                    # -Xss of the blocking Tomcats (reserved, committed as touched)
PB_TOMCAT_BIO_JVM_THREADS=${PB_TOMCAT_BIO_JVM_THREADS:-60}      # the JVM's own threads, for the limit check
PB_TOMCAT_BIO_THREAD_KB=${PB_TOMCAT_BIO_THREAD_KB:-128}         # resident memory per held connection (docs/limits.md)

# JMeter engines.
# The engine's request sampler (testplan.jmx request.sampler): mux, many connections per JMeter thread
# through one selector each (docs/engine.md); push, a JMeter thread per connection (the plan's push
# sampler); http, JMeter's own HTTP sampler, a thread per connection and a file per answer.
PB_REQUEST_SAMPLER=${PB_REQUEST_SAMPLER:-mux}
# sse and ws: percent of the open streams the clients drop each second, each requested again as a broken
# stream is (after the retry, resuming where it was), to measure loss across reconnections; 0: none
# (docs/engine.md "Churn", issue #38).
PB_CHURN_PERCENT=${PB_CHURN_PERCENT:-0}
PB_MUX_CONNECTIONS_PER_THREAD=${PB_MUX_CONNECTIONS_PER_THREAD:-20000}  # a mux thread (selector) per this many, at most one per core (docs/engine.md)
# Engine heap: "auto" sizes each engine's -Xmx from its connections (lib/jmeter-heap.sh); or a fixed size
# such as 3g for every engine.
PB_JMETER_HEAP=${PB_JMETER_HEAP:-auto}
PB_JMETER_HEAP_BASE_MB=${PB_JMETER_HEAP_BASE_MB:-512}            # the JVM and the plan, a thread per connection
PB_JMETER_HEAP_PER_THREAD_KB=${PB_JMETER_HEAP_PER_THREAD_KB:-512}  # a held poll thread (docs/limits.md)
PB_JMETER_MUX_HEAP_BASE_MB=${PB_JMETER_MUX_HEAP_BASE_MB:-256}     # the JVM and the plan, mux
PB_JMETER_MUX_HEAP_PER_CONNECTION_KB=${PB_JMETER_MUX_HEAP_PER_CONNECTION_KB:-16}  # a held mux connection with its garbage (docs/engine.md)
# The collector of every JMeter JVM (engines, controller, --local), split on spaces; auto (the default):
# decided for each JVM's shape in lib/decide-jmeter.js (jvmOptions): ZGC for a mux engine pinned with
# PB_ENGINE_CPUS (docs/engine.md "Stops under pinning"), else Parallel (docs/limits.md).
PB_JMETER_GC=${PB_JMETER_GC:-auto}
# The engines' stream logs while the load runs (load/push-sampler StreamLog, docs/run-layout.md "Stream logs"):
# lz4, written as LZ4 and recoded to push-<n>.tsv.gz when the test ends (a quarter of gzip's CPU per byte
# during the load); gzip, push-<n>.tsv.gz from the start, for a reader that follows the growing file
# (bench/capacity.js sets it). Every JMeter JVM gets it as -Dpushbench.streamLog.codec (jvmOptions).
PB_JMETER_STREAM_LOG_CODEC=${PB_JMETER_STREAM_LOG_CODEC:-lz4}
PB_JMETER_RMI_PORT=${PB_JMETER_RMI_PORT:-1099}
PB_JMETER_RMI_LOCALPORT=${PB_JMETER_RMI_LOCALPORT:-4000}
PB_JMETER_CLIENT_LOCALPORT=${PB_JMETER_CLIENT_LOCALPORT:-4100}
# RMI between controller and engines over SSL with the keystore setup.sh makes (host/rmi-keystore.sh),
# bound to the hosts.conf addresses; 0 only on a trusted lab network: plain RMI on every interface,
# where whoever reaches the ports can run a plan (code) on the engines (docs/hosts.md).
PB_JMETER_RMI_SSL=${PB_JMETER_RMI_SSL:-1}
PB_RMI_KEYSTORE_DIR=${PB_RMI_KEYSTORE_DIR:-$PB_BUILD/rmi}   # each host's own path (not forwarded)
PB_JMETER_CONTROLLER_HEAP=${PB_JMETER_CONTROLLER_HEAP:-512m}   # the controller holds no connections
PB_PLAN=${PB_PLAN:-$PB_ROOT/testplan.jmx}            # the plan the controller runs (a bench may compare others)
PB_ENGINE_CPUS=${PB_ENGINE_CPUS:-}                   # pin each engine JVM to these CPUs (taskset list, e.g. 0-1); empty: free
PB_SERVER_CPUS=${PB_SERVER_CPUS:-}                   # pin the server under test to these CPUs (taskset list, e.g. 1); empty: free.
                                                     # With PB_ENGINE_CPUS on the other CPUs, server and load generator never share a core
# The run-validity rules' thresholds (PB_VALIDITY_*) are read by analysis/measure/validity.js, where each is
# defined and documented (docs/validity.md).

# servers/control.sh: seconds to wait for GET /timestamp after start (per server: PB_START_TIMEOUT_<NAME>),
# and for a server to exit after TERM before it is killed.
PB_START_TIMEOUT_NODE=${PB_START_TIMEOUT_NODE:-15}
PB_START_TIMEOUT_TOMCAT=${PB_START_TIMEOUT_TOMCAT:-90}
PB_START_TIMEOUT_TC6=${PB_START_TIMEOUT_TC6:-$PB_START_TIMEOUT_TOMCAT}
PB_START_TIMEOUT_TC7=${PB_START_TIMEOUT_TC7:-$PB_START_TIMEOUT_TOMCAT}
PB_START_TIMEOUT_NODE_CLUSTER=${PB_START_TIMEOUT_NODE_CLUSTER:-$PB_START_TIMEOUT_NODE}
PB_START_TIMEOUT_TC6_BIO=${PB_START_TIMEOUT_TC6_BIO:-$PB_START_TIMEOUT_TOMCAT}
PB_START_TIMEOUT_TC7_BIO=${PB_START_TIMEOUT_TC7_BIO:-$PB_START_TIMEOUT_TOMCAT}
PB_STOP_TIMEOUT=${PB_STOP_TIMEOUT:-20}

# Extra ssh options for every connection run.sh makes, word-split, given before run.sh's own (so they
# win: ssh keeps the first value of an option), e.g. a private known_hosts file for test hosts:
# PB_SSH_OPTS="-o UserKnownHostsFile=/path/known_hosts -o StrictHostKeyChecking=yes" (tests/lib/netns.sh).
PB_SSH_OPTS=${PB_SSH_OPTS:-}
# A host whose key is not in known_hosts: refuse (the default; add the key by hand, ssh-keyscan) or accept
# (recorded at the first connection, ssh's accept-new; only on a network you trust). A changed key is refused.
PB_SSH_NEW_HOST_KEYS=${PB_SSH_NEW_HOST_KEYS:-refuse}

# Limits: a process here may hold at most this many open files (see docs/limits.md).
PB_FD_RESERVE=${PB_FD_RESERVE:-200}                  # files a JVM needs besides its sockets

export PB_ROOT PB_BUILD PB_STATE PB_RESULTS JMETER_VERSION TC6_VERSION TC7_VERSION \
  JMETER_HOME TC6_HOME TC7_HOME PB_PORT_NODE PB_PORT_TC6 PB_PORT_TC7 PB_SERVER_ADDRESS \
  PB_TOMCAT_HEAP PB_TOMCAT_XSS PB_TOMCAT_MAX_THREADS PB_TOMCAT_MAX_CONNECTIONS \
  PB_TOMCAT_ACCEPT_COUNT PB_TOMCAT_CONNECTION_TIMEOUT PB_TOMCAT_EXTRA_OPTS \
  PB_REQUEST_SAMPLER PB_CHURN_PERCENT PB_MUX_CONNECTIONS_PER_THREAD PB_JMETER_HEAP PB_JMETER_HEAP_BASE_MB PB_JMETER_HEAP_PER_THREAD_KB PB_JMETER_MUX_HEAP_BASE_MB PB_JMETER_MUX_HEAP_PER_CONNECTION_KB PB_JMETER_GC PB_JMETER_STREAM_LOG_CODEC PB_JMETER_RMI_PORT PB_JMETER_RMI_LOCALPORT PB_JMETER_CLIENT_LOCALPORT PB_JMETER_RMI_SSL PB_RMI_KEYSTORE_DIR PB_JMETER_CONTROLLER_HEAP PB_PLAN PB_ENGINE_CPUS PB_SERVER_CPUS PB_FD_RESERVE PB_SSH_OPTS PB_SSH_NEW_HOST_KEYS \
  PB_START_TIMEOUT_NODE PB_START_TIMEOUT_TOMCAT PB_START_TIMEOUT_TC6 PB_START_TIMEOUT_TC7 PB_STOP_TIMEOUT \
  PB_PORT_NODE_CLUSTER PB_PORT_TC6_BIO PB_PORT_TC7_BIO PB_PORT_TLS PB_NODE_CLUSTER_WORKERS PB_MAX_EMITTERS PB_BODY_DEADLINE_MS \
  PB_REPLAY_CYCLES PB_STREAM_BACKLOG_BYTES \
  PB_TOMCAT_BIO_THREADS PB_TOMCAT_BIO_THREAD_MARGIN PB_TOMCAT_BIO_XSS PB_TOMCAT_BIO_JVM_THREADS PB_TOMCAT_BIO_THREAD_KB \
  PB_START_TIMEOUT_NODE_CLUSTER PB_START_TIMEOUT_TC6_BIO PB_START_TIMEOUT_TC7_BIO
