# shellcheck shell=bash
# Writes <run-dir>/run.json (docs/run-layout.md) from run.sh's globals. Sourced by run.sh.
# Rewritten whole after every step (write to a temporary file, then rename), so an interrupted run
# still leaves a valid file. Every value except the notes passed a strict pattern already; notes are
# JSON-escaped here.

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

runjson_write() {
  [[ -n ${RUN_DIR:-} && -d $RUN_DIR ]] || return 0
  local f=$RUN_DIR/run.json e k first sep
  {
    printf '{\n'
    printf '  "id": %s,\n' "$(json_string "$RUN_ID")"
    printf '  "server": "%s", "rampup": %s, "duration": %s, "threads": %s, "type": "%s",\n' \
      "$RUN_SERVER" "$RUN_RAMPUP" "$RUN_DURATION" "$RUN_THREADS" "$RUN_TYPE"
    printf '  "maxDuration": %s, "event": %s, "interval": %s,\n' \
      "$(json_or_null "$RUN_MAXDUR")" "$(json_or_null "$RUN_EVENT" s)" "$(json_or_null "$RUN_INTERVAL")"
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
  } >"$f.tmp"
  mv "$f.tmp" "$f"
}
