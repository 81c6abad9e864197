#!/usr/bin/env bash
# Installs everything pushbench needs, idempotently: a second call only checks and takes seconds.
#
#   ./setup.sh              what a test run needs (Debian tools, npm deps, JMeter, Tomcat 6/7, WARs)
#   ./setup.sh --for-tests  also what the test suite needs (shellcheck, chromium for the report test,
#                           nginx-light and libnginx-mod-nchan: the third-party push server of targets/nchan)
#   ./setup.sh --quiet      print only what it installs (run.sh calls it this way)
#
# Everything downloaded lands in build/ (git-ignored) or the system's package manager; nothing comes
# from anywhere but the package registries (Debian, npm, Maven Central).
set -euo pipefail

# shellcheck source=lib/config.sh
source "$(dirname "${BASH_SOURCE[0]}")/lib/config.sh"
cd "$PB_ROOT"

for_tests=false
quiet=false
for arg in "$@"; do
  case "$arg" in
    --for-tests) for_tests=true ;;
    --quiet) quiet=true ;;
    -h|--help) sed -n '2,9p' "$0" | sed 's/^# \{0,1\}//'; exit 0 ;;
    *) echo "usage: ./setup.sh [--for-tests] [--quiet]" >&2; exit 2 ;;
  esac
done

say() { $quiet || echo "setup: $*"; }
die() { echo "setup: $*" >&2; exit 1; }

# --- prerequisites the set-up cannot install itself -------------------------------------------------
check_prerequisites() {
  local java_major node_major
  command -v java >/dev/null || die "missing prerequisite: Java 17 or newer (no 'java' on PATH); install a JDK, e.g. openjdk-17-jdk-headless"
  command -v javac >/dev/null || die "missing prerequisite: a JDK with 'javac' (only a JRE was found); install openjdk-17-jdk-headless"
  java_major=$(java -XshowSettings:properties -version 2>&1 | sed -n 's/^ *java.specification.version = //p')
  [[ ${java_major:-0} =~ ^[0-9]+$ && $java_major -ge 17 ]] || die "missing prerequisite: Java 17 or newer (found ${java_major:-unknown})"
  command -v mvn >/dev/null || die "missing prerequisite: Maven 3.8+ (no 'mvn' on PATH); install maven"
  command -v node >/dev/null || die "missing prerequisite: Node.js 18 or newer (no 'node' on PATH)"
  node_major=$(node -p 'process.versions.node.split(".")[0]')
  [[ $node_major -ge 18 ]] || die "missing prerequisite: Node.js 18 or newer (found $(node --version))"
  command -v npm >/dev/null || die "missing prerequisite: npm (it comes with Node.js)"
}

# --- Debian packages ----------------------------------------------------------------------------------
# command that proves the package is there -> package name
declare -A TOOL_PACKAGES=(
  [vmstat]=procps [pidstat]=sysstat [ssh]=openssh-client [sshd]=openssh-server
  [ip]=iproute2 [tar]=tar [curl]=curl [gzip]=gzip [scp]=openssh-client [openssl]=openssl   # openssl: run.sh --tls makes its CA
)
declare -A TEST_PACKAGES=([shellcheck]=shellcheck [chromium]=chromium [nginx]=nginx-light)
# file that proves the package is there -> package name (the tests' third-party push server, targets/nchan)
declare -A TEST_FILES=([/usr/lib/nginx/modules/ngx_nchan_module.so]=libnginx-mod-nchan)

install_debian_packages() {
  local -a missing=()
  local cmd
  for cmd in "${!TOOL_PACKAGES[@]}"; do
    have_command "$cmd" || missing+=("${TOOL_PACKAGES[$cmd]}")
  done
  if $for_tests; then
    for cmd in "${!TEST_PACKAGES[@]}"; do
      have_command "$cmd" || missing+=("${TEST_PACKAGES[$cmd]}")
    done
    for cmd in "${!TEST_FILES[@]}"; do
      [[ -e $cmd ]] || missing+=("${TEST_FILES[$cmd]}")
    done
  fi
  [[ ${#missing[@]} -eq 0 ]] && { say "Debian packages present"; return; }
  mapfile -t missing < <(printf '%s\n' "${missing[@]}" | sort -u)
  command -v apt-get >/dev/null || die "missing packages (${missing[*]}) and no apt-get to install them"
  [[ $(id -u) -eq 0 ]] || die "missing packages (${missing[*]}): run ./setup.sh as root or install them"
  echo "setup: installing Debian packages: ${missing[*]}"
  DEBIAN_FRONTEND=noninteractive apt-get update -qq >/dev/null
  DEBIAN_FRONTEND=noninteractive apt-get install -y -qq --no-install-recommends "${missing[@]}" >/dev/null
}

# sshd and pidstat live in sbin/bin; look in the usual places as well as PATH.
have_command() {
  command -v "$1" >/dev/null || [[ -x /usr/sbin/$1 || -x /sbin/$1 ]]
}

# --- npm dependencies ------------------------------------------------------------------------------------
install_npm_dependencies() {
  local stamp=node_modules/.package-lock.json
  if [[ -f $stamp && ! package-lock.json -nt $stamp ]]; then
    say "npm dependencies present"
    return
  fi
  echo "setup: installing npm dependencies (npm ci)"
  npm ci --no-audit --no-fund --loglevel=error >/dev/null
}

# --- JMeter and its push sampler plugin, Tomcat 6/7, the WARs: each component's own install script ---------
run_component_installs() {
  local script
  for script in load/install-jmeter.sh load/push-sampler/build.sh servers/tc6/install.sh servers/tc7/install.sh instrumentation-java/build.sh host/rmi-keystore.sh; do
    [[ -x $script ]] || die "internal: $script is missing or not executable"
    if $quiet; then
      "$script" >/dev/null
    else
      "$script"
    fi
  done
}

mkdir -p "$PB_BUILD" "$PB_STATE"
check_prerequisites
install_debian_packages
install_npm_dependencies
run_component_installs
say "ready"
