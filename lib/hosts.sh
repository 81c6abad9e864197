# shellcheck shell=bash disable=SC2034  # sets globals for run.sh
# Reads hosts.conf (format: see the header of hosts.conf) into arrays. Sourced by run.sh.
#
#   read_hosts_file <file>   parse and check; on error print "<file>:<line>: <what>" and exit 2
#   hosts_use_default        the local default: sut and engine on this machine, 127.0.0.1
#   hosts_check_ports <server port>
#                            no engine's RMI port on a port its host already gives the server, another
#                            engine's RMI local port or (on this machine) the controller's callback port
#
# Results, one entry per line of the file that names a host (index 0..n-1):
#   H_ROLE H_NAME H_ADDR H_ACCESS(local|ssh) H_TARGET(user@host) H_KEY H_PORT H_DIR H_RMI H_LOCALPORT H_LINE
#   H_BIND (the sut only: the address its server listens on, bind=; empty: its address)
#   SUT_IDX (the index of the sut), ENGINE_IDX (the indexes of the engines, in file order)
# Every value is checked against a strict pattern here, so later steps can put it in a command line.

H_ROLE=() H_NAME=() H_ADDR=() H_ACCESS=() H_TARGET=() H_KEY=() H_PORT=() H_DIR=() H_RMI=() H_LOCALPORT=() H_LINE=() H_BIND=()
SUT_IDX='' ENGINE_IDX=()
HOSTS_SOURCE=''

hosts_fail() { # <line> <message>
  printf 'run.sh: %s:%s: %s\n' "$HOSTS_SOURCE" "$1" "$2" >&2
  exit 2
}

hosts_is_ipv4() {
  local a=$1 part
  [[ $a =~ ^([0-9]{1,3})\.([0-9]{1,3})\.([0-9]{1,3})\.([0-9]{1,3})$ ]] || return 1
  for part in "${BASH_REMATCH[@]:1}"; do
    [[ $part == 0 || $part != 0* ]] || return 1
    ((10#$part <= 255)) || return 1
  done
}

hosts_is_port() { [[ $1 =~ ^[1-9][0-9]{0,4}$ ]] && (($1 <= 65535)); }

# One host line; appends to the arrays.
hosts_add_line() { # <line number> <fields...>
  local ln=$1; shift
  (($# >= 4)) || hosts_fail "$ln" "expected '<role> <name> <address> <access> [option=value ...]', got $# field(s)"
  local role=$1 name=$2 addr=$3 access=$4; shift 4

  case $role in sut | engine) ;; *) hosts_fail "$ln" "unknown role '$role' (expected sut or engine)" ;; esac
  [[ $name =~ ^[A-Za-z0-9][A-Za-z0-9_-]{0,31}$ ]] ||
    hosts_fail "$ln" "bad name '$name' (1-32 of letters, digits, - and _, starting with a letter or digit)"
  hosts_is_ipv4 "$addr" || hosts_fail "$ln" "bad address '$addr' (expected an IPv4 address such as 192.0.2.10)"

  local kind target=''
  if [[ $access == local ]]; then
    kind=local
  elif [[ $access =~ ^ssh:([A-Za-z_][A-Za-z0-9._-]{0,31})@([A-Za-z0-9][A-Za-z0-9.-]{0,252})$ ]]; then
    kind=ssh target="${BASH_REMATCH[1]}@${BASH_REMATCH[2]}"
  else
    hosts_fail "$ln" "bad access '$access' (expected local or ssh:<user>@<host>)"
  fi

  local options key port dir rmi bind
  options=$(hosts_options "$ln" "$role" "$kind" "$@") || exit 2
  IFS=$'\x1f' read -r key port dir rmi bind <<<"$options"
  hosts_check_clashes "$ln" "$role" "$name" "$addr"

  local i=${#H_NAME[@]}
  H_ROLE[i]=$role H_NAME[i]=$name H_ADDR[i]=$addr H_ACCESS[i]=$kind H_TARGET[i]=$target
  H_KEY[i]=$key H_PORT[i]=$port H_DIR[i]=${dir:-$PB_ROOT} H_RMI[i]='' H_LOCALPORT[i]='' H_LINE[i]=$ln H_BIND[i]=$bind
  if [[ $role == sut ]]; then
    SUT_IDX=$i
  else
    # Each engine needs its own RMI local port too when several share a host: number them in file order.
    H_RMI[i]=${rmi:-$PB_JMETER_RMI_PORT}
    H_LOCALPORT[i]=$((PB_JMETER_RMI_LOCALPORT + ${#ENGINE_IDX[@]}))
    local e
    for e in "${ENGINE_IDX[@]}"; do
      if [[ ${H_ADDR[e]} == "$addr" && ${H_RMI[e]} == "${H_RMI[i]}" ]]; then
        hosts_fail "$ln" "engine '$name' uses $addr rmi port ${H_RMI[i]} like engine '${H_NAME[e]}' on line ${H_LINE[e]} (give one of them rmi=<another port>)"
      fi
    done
    ENGINE_IDX+=("$i")
  fi
}

# hosts_options <line number> <role> <access kind> <option=value>...: prints the line's key, port, dir,
# rmi and bind (empty when not given), separated by \x1f, or fails the file. Call it in $(...) || exit 2.
hosts_options() {
  local ln=$1 role=$2 kind=$3; shift 3
  local key='' port='' dir='' rmi='' bind='' opt k v seen=' '
  for opt in "$@"; do
    [[ $opt == *=* ]] || hosts_fail "$ln" "bad option '$opt' (expected key=, port=, dir=, rmi= or bind=)"
    k=${opt%%=*} v=${opt#*=}
    [[ $seen != *" $k "* ]] || hosts_fail "$ln" "option '$k' given twice"
    seen+="$k "
    case $k in
      key)
        [[ $kind == ssh ]] || hosts_fail "$ln" "key= is only for ssh access"
        [[ $v =~ ^~?/?[A-Za-z0-9._/+-]+$ && $v != *..* ]] || hosts_fail "$ln" "bad key file '$v'"
        [[ $v == \~/* ]] && v="$HOME/${v:2}"   # ~ is not expanded inside a file
        [[ -f $v && -r $v ]] || hosts_fail "$ln" "key file '$v' is not a readable file"
        key=$v ;;
      port)
        [[ $kind == ssh ]] || hosts_fail "$ln" "port= is only for ssh access"
        hosts_is_port "$v" || hosts_fail "$ln" "bad ssh port '$v' (1-65535)"
        port=$v ;;
      dir)
        [[ $v =~ ^/[A-Za-z0-9._/+-]*$ && $v != *..* ]] ||
          hosts_fail "$ln" "bad dir '$v' (an absolute path of letters, digits and . _ / + -)"
        dir=${v%/}; [[ -n $dir ]] || dir=/ ;;
      rmi)
        [[ $role == engine ]] || hosts_fail "$ln" "rmi= is only for engines"
        hosts_is_port "$v" || hosts_fail "$ln" "bad rmi port '$v' (1-65535)"
        rmi=$v ;;
      bind)
        [[ $role == sut ]] || hosts_fail "$ln" "bind= is only for the sut (the address its server listens on)"
        hosts_is_ipv4 "$v" || hosts_fail "$ln" "bad bind address '$v' (an IPv4 address, or 0.0.0.0 for every interface)"
        bind=$v ;;
      *) hosts_fail "$ln" "unknown option '$k' (expected key, port, dir, rmi or bind)" ;;
    esac
  done
  printf '%s\x1f%s\x1f%s\x1f%s\x1f%s' "$key" "$port" "$dir" "$rmi" "$bind"
}

# hosts_check_clashes <line number> <role> <name> <address>: a name once per role and for one address
# only, and one sut.
hosts_check_clashes() {
  local ln=$1 role=$2 name=$3 addr=$4 i
  for i in "${!H_NAME[@]}"; do
    if [[ ${H_ROLE[i]} == "$role" && ${H_NAME[i]} == "$name" ]]; then
      hosts_fail "$ln" "duplicate $role name '$name' (first on line ${H_LINE[i]})"
    fi
    if [[ ${H_NAME[i]} == "$name" && ${H_ADDR[i]} != "$addr" ]]; then
      hosts_fail "$ln" "name '$name' is used on line ${H_LINE[i]} for another address (${H_ADDR[i]})"
    fi
  done
  if [[ $role == sut && -n $SUT_IDX ]]; then
    hosts_fail "$ln" "a second sut '$name' (the first is '${H_NAME[SUT_IDX]}' on line ${H_LINE[SUT_IDX]}; exactly one is allowed)"
  fi
}

read_hosts_file() { # <file>
  HOSTS_SOURCE=$1
  [[ -f $1 && -r $1 ]] || { printf 'run.sh: hosts file %s: not found or not readable\n' "$1" >&2; exit 2; }
  local line ln=0 fields
  while IFS= read -r line || [[ -n $line ]]; do
    ln=$((ln + 1))
    line=${line%%#*}
    read -r -a fields <<<"$line"
    ((${#fields[@]} > 0)) || continue
    hosts_add_line "$ln" "${fields[@]}"
  done <"$1"
  [[ -n $SUT_IDX ]] || hosts_fail "$ln" "no sut line (exactly one host must have the role sut)"
  ((${#ENGINE_IDX[@]} > 0)) || hosts_fail "$ln" "no engine line (at least one host must have the role engine)"
}

hosts_use_default() {
  HOSTS_SOURCE='(local default)'
  hosts_add_line 0 sut local 127.0.0.1 local
  hosts_add_line 0 engine local 127.0.0.1 local
}

# The address is the host: two entries with one address share its ports. The controller runs here, so
# its callback port clashes on a local engine or one on 127.0.0.0/8.
hosts_check_ports() { # <server port>
  local e o port=$1
  for e in "${ENGINE_IDX[@]}"; do
    if [[ ${H_ADDR[e]} == "${H_ADDR[SUT_IDX]}" && ${H_RMI[e]} == "$port" ]]; then
      hosts_fail "${H_LINE[e]}" "engine '${H_NAME[e]}' rmi port ${H_RMI[e]} is the server's port on ${H_ADDR[e]} (give it rmi=<another port>)"
    fi
    if [[ (${H_ACCESS[e]} == local || ${H_ADDR[e]} == 127.*) && ${H_RMI[e]} == "$PB_JMETER_CLIENT_LOCALPORT" ]]; then
      hosts_fail "${H_LINE[e]}" "engine '${H_NAME[e]}' rmi port ${H_RMI[e]} is the controller's callback port on this machine (PB_JMETER_CLIENT_LOCALPORT; give it rmi=<another port>)"
    fi
    for o in "${ENGINE_IDX[@]}"; do
      if [[ ${H_ADDR[o]} == "${H_ADDR[e]}" && ${H_LOCALPORT[o]} == "${H_RMI[e]}" ]]; then
        hosts_fail "${H_LINE[e]}" "engine '${H_NAME[e]}' rmi port ${H_RMI[e]} is the RMI local port of engine '${H_NAME[o]}' on ${H_ADDR[e]} (PB_JMETER_RMI_LOCALPORT and up, one per engine; give it rmi=<another port>)"
      fi
    done
  done
}

# hosts_describe <index>: "name (address, access)" for messages.
hosts_describe() {
  local i=$1
  if [[ ${H_ACCESS[i]} == ssh ]]; then
    printf '%s %s (%s, ssh:%s)' "${H_ROLE[i]}" "${H_NAME[i]}" "${H_ADDR[i]}" "${H_TARGET[i]}"
  else
    printf '%s %s (%s, local)' "${H_ROLE[i]}" "${H_NAME[i]}" "${H_ADDR[i]}"
  fi
}

# hosts_split_connections <total>: sets H_CONNECTIONS[engine index], each engine's share of the run's
# connections (its JMeter threads), so the shares differ by at most one.
hosts_split_connections() {
  local total=$1 n=${#ENGINE_IDX[@]} k e
  H_CONNECTIONS=()
  for k in "${!ENGINE_IDX[@]}"; do
    e=${ENGINE_IDX[k]}
    H_CONNECTIONS[e]=$((total / n + (k < total % n ? 1 : 0)))
  done
}
