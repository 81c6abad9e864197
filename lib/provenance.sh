# shellcheck shell=bash
# A run's provenance for run.json (issue #24 item 3; docs/run-layout.md): pushbench's commit and whether
# the working tree was dirty, the versions of JMeter, Tomcat, Node.js, the JDK and the kernel, each host's
# cores, memory and CPU model (host/host-facts.sh on every host of the run, through remote_run), and the
# settings of lib/config.sh whose value differs from its default. Sourced by lib/runjson.sh after
# run.sh has read the hosts; lib/provenance.js turns the facts into JSON.
#
# Left out of the settings, as they say where things live or how hosts are reached, not what is
# measured: paths (PB_ROOT, PB_BUILD, PB_STATE, PB_RESULTS, PB_RMI_KEYSTORE_DIR; PB_PLAN stays, the plan
# is part of the measurement), ports and addresses (every name with PORT, PB_SERVER_ADDRESS) and PB_SSH_OPTS.

provenance_is_location() { # <PB_ name>: true for settings that are not part of the measurement
  [[ $1 =~ ^PB_(ROOT|BUILD|STATE|RESULTS|RMI_KEYSTORE_DIR|SSH_OPTS|SERVER_ADDRESS)$ || $1 =~ PORT ]]
}

# "setting <TAB> NAME <TAB> value" for every lib/config.sh setting that differs from its default here.
# shellcheck disable=SC2016  # the defaults are expanded by the clean shell
provenance_settings() {
  local name value
  while IFS=$'\t' read -r name value; do
    provenance_is_location "$name" && continue
    [[ ${!name-} == "$value" ]] || printf 'setting\t%s\t%s\n' "$name" "${!name-}"
  done < <(env -i PATH="$PATH" HOME="${HOME:-/}" PB_ROOT="$PB_ROOT" bash -c \
    'source "$PB_ROOT/lib/config.sh"; for v in $(compgen -v PB_); do printf "%s\t%s\n" "$v" "${!v}"; done')
}

# The transport the run measured: its test type and the request sampler that spoke it (issue #38 item 4).
provenance_transport() {
  printf 'transport\ttype\t%s\ntransport\tsampler\t%s\n' "$(run_get type)" "${PB_REQUEST_SAMPLER:-}"
}

provenance_pushbench() {
  local commit dirty=''
  commit=$(git -C "$PB_ROOT" rev-parse HEAD 2>/dev/null) || commit=''
  if [[ -n $commit ]]; then
    if [[ -n $(git -C "$PB_ROOT" status --porcelain 2>/dev/null | head -n 1) ]]; then dirty=1; else dirty=0; fi
  fi
  printf 'pushbench\tcommit\t%s\npushbench\tdirty\t%s\n' "$commit" "$dirty"
}

# Prints the provenance object (JSON), or null when it cannot be built (no run.sh around it). Each host
# once, with its roles.
provenance_json() {
  local i role name json order=()
  local -A roles=() first=()
  if [[ -z ${PB_ROOT:-} || -z ${SUT_IDX:-} ]] || ! declare -F remote_run >/dev/null; then
    printf 'null'
    return 0
  fi
  for i in "$SUT_IDX" "${ENGINE_IDX[@]}"; do
    name=$(host_get name "$i")
    [[ $(host_get role "$i") == sut ]] && role=sut || role=engine
    if [[ -z ${roles[$name]:-} ]]; then roles[$name]=$role first[$name]=$i order+=("$name")
    elif [[ ,${roles[$name]}, != *,$role,* ]]; then roles[$name]+=",$role"; fi
  done
  json=$({
    provenance_pushbench
    provenance_transport
    provenance_settings
    for name in "${order[@]}"; do
      remote_run "${first[$name]}" host/host-facts.sh 2>/dev/null |
        sed "s/^/host\t${roles[$name]}\t${name//\//\\/}\t/"
    done
  } | node "$PB_ROOT/lib/provenance.js" 2>/dev/null) || json=''
  printf '%s' "${json:-null}"
}
