#!/usr/bin/env bash
# Runs the Node.js server under test in the foreground on $PB_PORT_NODE (servers/control.sh backgrounds it).
set -euo pipefail
# shellcheck source=lib/config.sh
source "$(dirname "${BASH_SOURCE[0]}")/../../lib/config.sh"
exec node "$PB_ROOT/instrumentation-node/server.js" "$PB_PORT_NODE"
