#!/usr/bin/env bash
# Runs the node-cluster server under test in the foreground on $PB_PORT_NODE_CLUSTER with
# $PB_NODE_CLUSTER_WORKERS worker processes ("auto": one per core), servers/control.sh backgrounds it.
# The PID control.sh records is the primary's; host/monitor.sh adds its workers to pidstat.
set -euo pipefail
# shellcheck source=lib/config.sh
source "$(dirname "${BASH_SOURCE[0]}")/../../lib/config.sh"
exec node "$PB_ROOT/instrumentation-node/cluster.js" "$PB_PORT_NODE_CLUSTER" "$PB_NODE_CLUSTER_WORKERS"
