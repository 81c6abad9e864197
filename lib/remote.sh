# shellcheck shell=bash disable=SC2034  # sets H_STATE (remote_init), read through lib/run-get.sh
# Run a command on a host from hosts.conf: locally with bash, or over ssh with a key. Sourced by run.sh
# after lib/hosts.sh.
#
#   remote_open <i>                 open the ssh master connection (ssh hosts; a no-op for local ones)
#   remote_run <i> <cmd> [args...]  run <cmd args> in the host's pushbench directory (dir=); each
#                                   argument is quoted with printf %q, so it arrives as one word
#   remote_fetch <i> <path> <dest>  copy one file from the host (path absolute on that host) to <dest>
#   remote_close_all                close every ssh master connection this run opened
#   remote_reach <i> <budget s>     ssh to host i answers (retried, 1 s doubling, up to <budget> s); its
#                                   master connection reopened. Status 1 if it never answered
#
# The remote side gets the settings of lib/config.sh that this run uses (ports, PB_STATE, ...) as
# exported variables, so both ends agree even when only one was overridden from the environment.
# Every ssh connection of a run goes through one master connection per target (ControlMaster), whose
# socket lives in $PB_STATE/ssh (or, when that path is too long for a socket, ${TMPDIR:-/tmp}/pushbench-ssh-<uid>,
# used only if it is a directory of ours, mode 700, not a link) and which remote_close_all ends.
# Host keys: a host whose key is not in known_hosts is refused (PB_SSH_NEW_HOST_KEYS=refuse, the default);
# accept records it at the first connection (ssh's accept-new; a changed key is refused either way).
# Nothing started on a host holds run.sh's lock on its state directory (descriptor 9, lib/runlock.sh).
# A host's fields (access, target, key, port, dir, state) are read through lib/run-get.sh host_get.

# shellcheck source=lib/run-get.sh
source "$(dirname "${BASH_SOURCE[0]}")/run-get.sh"

REMOTE_SSH_DIR=''
REMOTE_OPENED=()      # indexes whose master connection this run opened

# Settings forwarded to every host (config.sh reads each from the environment first): the ports,
# server, JMeter and timeout settings, never paths of this machine (each host has its own checkout).
# sweep/hosts.js reads the pattern from the grep -E below: keep it one quoted pattern on one line.
remote_forwarded_settings() {
  compgen -v PB_ | grep -E '^PB_(PORT|SERVER_ADDRESS|SERVER_CPUS|TOMCAT|JMETER|ENGINE|START_TIMEOUT|STOP_TIMEOUT|FD_RESERVE|NODE_CLUSTER|NODE_REQUEST_TIMEOUT_MS|MAX_EMITTERS|BODY_DEADLINE_MS|REPLAY_CYCLES|STREAM_BACKLOG_BYTES|TEST_CLOCK_OFFSET_MS)' || true
}

# H_STATE[i]: the PB_STATE directory on host i. Local hosts and hosts sharing this file system (the
# same dir= as here) use ours; another checkout uses its own build/state unless PB_STATE was set
# explicitly in the environment (then every host uses that path).
remote_init() { # <pb_state_was_explicit: 0|1>
  local i dir
  H_STATE=()
  for i in $(host_indexes); do
    dir=$(host_get dir "$i")
    if [[ $(host_get access "$i") == local || $dir == "$PB_ROOT" || $1 == 1 ]]; then
      H_STATE[i]=$PB_STATE
    else
      H_STATE[i]=$dir/build/state
    fi
  done
  # A unix socket path must stay under ~100 bytes; %C (a hash) keeps the name short.
  REMOTE_SSH_DIR=$PB_STATE/ssh
  if ((${#REMOTE_SSH_DIR} > 60)); then
    REMOTE_SSH_DIR=${TMPDIR:-/tmp}/pushbench-ssh-$EUID
  fi
}

# The ssh options of every connection (sweep/hosts.js sshArgs gives its one command per host the same).
remote_ssh_opts() { # <i> -> REPLY_OPTS array
  local i=$1 key port
  local extra=()
  read -r -a extra <<<"${PB_SSH_OPTS:-}"   # first, so they override the defaults below
  local strict=yes
  [[ $PB_SSH_NEW_HOST_KEYS != accept ]] || strict=accept-new
  REPLY_OPTS=("${extra[@]}" -o BatchMode=yes -o StrictHostKeyChecking="$strict" -o ConnectTimeout=5
    -o ServerAliveInterval=15 -o ServerAliveCountMax=4
    -o ControlPath="$REMOTE_SSH_DIR/cm-%C")
  key=$(host_get key "$i") port=$(host_get port "$i")
  [[ -z $key ]] || REPLY_OPTS+=(-i "$key" -o IdentitiesOnly=yes)
  [[ -z $port ]] || REPLY_OPTS+=(-p "$port")
}

# remote_open <i>: start the master connection in the background (-f -N), its output to a file, so no
# later command substitution waits on a pipe the master holds open. Prints ssh's error on failure.
remote_open() {
  local i=$1 target
  [[ $(host_get access "$i") == ssh ]] || return 0
  remote_socket_dir "$REMOTE_SSH_DIR" || return 1
  remote_ssh_opts "$i"
  local err
  target=$(host_get target "$i")
  if ssh "${REPLY_OPTS[@]}" -O check "$target" >/dev/null 2>&1; then
    return 0   # a master for this target is already up (another role of the same host)
  fi
  if ! err=$(ssh "${REPLY_OPTS[@]}" -o ControlMaster=yes -o ControlPersist=600 -f -N "$target" \
    </dev/null 2>&1 >/dev/null 9>&-); then
    printf '%s\n' "${err:-ssh failed}"
    [[ $err != *'Host key verification failed'* ]] ||
      printf 'its host key is not in known_hosts: add it (ssh-keyscan, checked by hand) or set PB_SSH_NEW_HOST_KEYS=accept\n'
    return 1
  fi
  REMOTE_OPENED+=("$i")
}

# remote_socket_dir <dir>: make the control-socket directory, or accept an existing one only if it is a
# real directory owned by this user (mode set to 700): a socket in a directory another user controls
# could be theirs. Prints the problem and returns 1 otherwise.
remote_socket_dir() {
  local dir=$1 owner
  mkdir -p -- "${dir%/*}" 2>/dev/null || true
  mkdir -m 700 -- "$dir" 2>/dev/null || true
  if [[ -L $dir || ! -d $dir ]]; then
    printf 'ssh control-socket directory %s is not a directory of its own (a link?): remove it\n' "$dir"
    return 1
  fi
  owner=$(stat -c %u -- "$dir")
  if [[ $owner != "$EUID" ]]; then
    printf 'ssh control-socket directory %s belongs to uid %s, not to this user (%s): remove it or set a shorter PB_STATE\n' \
      "$dir" "$owner" "$EUID"
    return 1
  fi
  chmod 700 -- "$dir"
}

# The command line the host runs: cd to its directory, export the settings, run the quoted words.
remote_command_line() { # <i> <cmd> [args...]
  local i=$1; shift
  local line v dir
  dir=$(host_get dir "$i")
  printf -v line 'cd %q || { echo "no pushbench checkout at %q on this host (dir= in hosts.conf)" >&2; exit 97; };' \
    "$dir" "$dir"
  line+=" export PB_STATE=$(printf '%q' "$(host_get state "$i")");"
  for v in $(remote_forwarded_settings); do
    [[ -z ${!v:-} ]] || line+=" export $v=$(printf '%q' "${!v}");"
  done
  local words
  printf -v words ' %q' "$@"
  printf '%s%s' "$line" "$words"
}

remote_run() { # <i> <cmd> [args...]
  local i=$1; shift
  local line
  line=$(remote_command_line "$i" "$@")
  if [[ $(host_get access "$i") == local ]]; then
    bash -c "$line" 9>&-
  else
    remote_ssh_opts "$i"
    ssh "${REPLY_OPTS[@]}" -o ControlMaster=no "$(host_get target "$i")" "$line" 9>&-
  fi
}

remote_fetch() { # <i> <absolute path on host> <local destination>: nothing is left at <dest> on failure
  local i=$1 src=$2 dest=$3
  if [[ $(host_get access "$i") == local ]]; then
    cp -- "$src" "$dest.part"
  else
    remote_ssh_opts "$i"
    # cat over the existing master connection: one round trip, no scp protocol differences.
    ssh "${REPLY_OPTS[@]}" -o ControlMaster=no "$(host_get target "$i")" "cat $(printf '%q' "$src")" >"$dest.part"
  fi || { rm -f -- "$dest.part"; return 1; }
  mv -- "$dest.part" "$dest"
}

# remote_reach <i> <budget s>: true once a command runs on host i; tried again after 1, 2, 4 ... s while
# the next try still starts within <budget> s of the first.
remote_reach() {
  local i=$1 budget=$2 delay=1 start=$SECONDS
  until remote_run "$i" true >/dev/null 2>&1; do
    ((SECONDS - start + delay <= budget)) || return 1
    sleep "$delay"
    delay=$((delay * 2))
  done
  remote_open "$i" >/dev/null 2>&1 || true
}

remote_close_all() {
  local i
  for i in "${REMOTE_OPENED[@]}"; do
    remote_ssh_opts "$i"
    ssh "${REPLY_OPTS[@]}" -O exit "$(host_get target "$i")" >/dev/null 2>&1 || true
  done
  REMOTE_OPENED=()
}
