# shellcheck shell=bash disable=SC2034  # sets run.sh's RUN_FAILED
# Writes <run-dir>/run.json (docs/run-layout.md) from run.sh's globals. Sourced by run.sh.
# Rewritten whole after every step: written to a temporary file, its size checked, flushed to disk and
# only then renamed over the old one, so an interrupted run or a full disk leaves the last good version
# (docs/faults.md); a write that fails is reported on stderr and marks the run incomplete. Every value
# except the notes passed a strict pattern already; notes are JSON-escaped here. The provenance
# (lib/provenance.sh) is collected once, at the first write after the hosts were read and checked.

# shellcheck source=lib/provenance.sh
source "$(dirname "${BASH_SOURCE[0]}")/provenance.sh"
PROVENANCE_JSON=''

json_string() { # <text> -> a JSON string literal
  local s=$1
  s=${s//\\/\\\\}
  s=${s//\"/\\\"}
  s=${s//$'\n'/\\n}
  s=${s//$'\t'/\\t}
  s=${s//$'\r'/\\r}
  s=${s//[[:cntrl:]]/}   # any other control character: our notes never need one
  printf '"%s"' "$s"
}

json_or_null() { # <value> [string]: null when empty; quoted when a second argument is given
  if [[ -z $1 ]]; then printf 'null'
  elif [[ $# -gt 1 ]]; then json_string "$1"
  else printf '%s' "$1"; fi
}

# runjson_replace <file> <text>: <file> gets exactly <text> or stays as it was (status 1).
runjson_replace() {
  local LC_ALL=C f=$1 tmp=$1.tmp   # C: ${#2} counts bytes
  if printf '%s' "$2" 2>/dev/null >"$tmp" && [[ $(stat -c %s -- "$tmp" 2>/dev/null) == "${#2}" ]] &&
    sync -d -- "$tmp" 2>/dev/null && mv -f -- "$tmp" "$f" 2>/dev/null; then
    return 0
  fi
  rm -f -- "$tmp"
  return 1
}

RUNJSON_FAILED=0   # a write of run.json failed at least once
runjson_write() {
  [[ -n ${RUN_DIR:-} && -d $RUN_DIR ]] || return 0
  local f=$RUN_DIR/run.json text
  [[ -n $PROVENANCE_JSON ]] || PROVENANCE_JSON=$(provenance_json)
  text=$(runjson_text)
  runjson_replace "$f" "$text"$'\n' && return 0
  printf 'run.sh: cannot write %s (disk full?); the previous version is kept\n' "$f" >&2
  if ((RUNJSON_FAILED == 0)); then
    RUNJSON_FAILED=1 RUN_FAILED=1
    RUN_NOTES+=("run.json could not be written at $(date +%T) (disk full?); the run is incomplete")
  fi
  return 0
}

runjson_text() {
  local e k first sep
  {
    printf '{\n'
    printf '  "id": %s,\n' "$(json_string "$RUN_ID")"
    printf '  "server": "%s", "rampup": %s, "duration": %s, "threads": %s, "type": "%s",\n' \
      "$RUN_SERVER" "$RUN_RAMPUP" "$RUN_DURATION" "$RUN_THREADS" "$RUN_TYPE"
    printf '  "maxDuration": %s, "event": %s, "interval": %s, "pullInterval": %s,\n' \
      "$(json_or_null "$RUN_MAXDUR")" "$(json_or_null "$RUN_EVENT" s)" "$(json_or_null "$RUN_INTERVAL")" \
      "$(json_or_null "${RUN_PULL:-}")"
    printf '  "port": %s,\n' "$SERVER_PORT"
    printf '  "hosts": { "sut": {"name": "%s", "address": "%s", "access": "%s"},\n' \
      "${H_NAME[SUT_IDX]}" "${H_ADDR[SUT_IDX]}" "${H_ACCESS[SUT_IDX]}"
    printf '             "engines": ['
    sep=''
    for e in "${ENGINE_IDX[@]}"; do
      printf '%s{"name": "%s", "address": "%s", "access": "%s", "rmi": %s, "threads": %s, "heapMb": %s}' "$sep" \
        "${H_NAME[e]}" "${H_ADDR[e]}" "${H_ACCESS[e]}" "${H_RMI[e]}" "${H_THREADS[e]}" "${H_HEAP_MB[e]}"
      sep=', '
    done
    printf '] },\n'
    printf '  "provenance": %s,\n' "${PROVENANCE_JSON//$'\n'/$'\n'  }"
    printf '  "startedAt": %s, "finishedAt": %s,\n' "$RUN_STARTED_AT" "$(json_or_null "${RUN_FINISHED_AT:-}")"
    printf '  "status": "%s",\n' "$RUN_STATUS"
    printf '  "serverCrashed": %s,\n' "$([[ $SERVER_CRASHED == 1 ]] && echo true || echo false)"
    printf '  "steps": {'
    first=1
    for k in "${STEP_ORDER[@]}"; do
      ((first)) || printf ','
      printf '\n    "%s": %s' "$k" "${STEP_MS[$k]}"
      first=0
    done
    ((first)) && printf '},\n' || printf '\n  },\n'
    printf '  "notes": ['
    sep=''
    for k in "${RUN_NOTES[@]}"; do
      printf '%s\n    %s' "$sep" "$(json_string "$k")"
      sep=','
    done
    ((${#RUN_NOTES[@]})) && printf '\n  ]\n' || printf ']\n'
    printf '}\n'
  }
}
