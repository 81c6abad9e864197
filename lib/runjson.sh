# shellcheck shell=bash
# Writes <run-dir>/run.json (docs/run-layout.md) from the run state. Sourced by run.sh.
#
#   runjson_write    rewrite run.json whole, from RUN (its scalars), RUN_STEPS, RUN_NOTES and the host
#                    tables (lib/hosts.sh, H_CONNECTIONS, H_HEAP_MB); a no-op before RUN[dir] exists
#
# run.json is a snapshot of the whole run, rewritten after every step and from the EXIT trap, so it reads
# the one run state run.sh keeps (its "Run state" section) rather than taking two dozen values as arguments.
# Written to a temporary file, its size checked, flushed to disk and only then renamed over the old one,
# so an interrupted run or a full disk leaves the last good version (docs/faults.md); a write that fails
# is reported on stderr and marks the run incomplete (RUN[failed], RUN[runjson_failed], a note). Every
# value except the notes passed a strict pattern already; notes are JSON-escaped here. The provenance
# (lib/provenance.sh) is collected once, at the first write after the hosts were read and checked.
# The parameters carry the run schema's names (lib/run-schema.js, docs/run-layout.md); runs written before
# it used older ones, which lib/run-schema.js still reads.

# shellcheck source=lib/provenance.sh
source "$(dirname "${BASH_SOURCE[0]}")/provenance.sh"

declare -gA RUN   # the run state, declared and described in run.sh

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

runjson_write() {
  [[ -n ${RUN[dir]:-} && -d ${RUN[dir]} ]] || return 0
  local f=${RUN[dir]}/run.json text
  [[ -n ${RUN[provenance]:-} ]] || RUN[provenance]=$(provenance_json)
  text=$(runjson_text)
  runjson_replace "$f" "$text"$'\n' && return 0
  printf 'run.sh: cannot write %s (disk full?); the previous version is kept\n' "$f" >&2
  if ((${RUN[runjson_failed]:-0} == 0)); then
    RUN[runjson_failed]=1 RUN[failed]=1
    RUN_NOTES+=("run.json could not be written at $(date +%T) (disk full?); the run is incomplete")
  fi
  return 0
}

runjson_text() {
  local e k sep
  printf '{\n'
  printf '  "id": %s,\n' "$(json_string "${RUN[id]}")"
  printf '  "server": "%s", "type": "%s", "rampupS": %s, "durationS": %s, "connections": %s,\n' \
    "${RUN[server]}" "${RUN[type]}" "${RUN[rampup_s]}" "${RUN[duration_s]}" "${RUN[connections]}"
  printf '  "maxDurationMs": %s, "event": %s, "emitIntervalMs": %s, "pullIntervalMs": %s,\n' \
    "$(json_or_null "${RUN[max_duration_ms]:-}")" "$(json_or_null "${RUN[event]:-}" s)" \
    "$(json_or_null "${RUN[emit_interval_ms]:-}")" "$(json_or_null "${RUN[pull_interval_ms]:-}")"
  printf '  "port": %s,\n' "${RUN[port]}"
  printf '  "hosts": { "sut": {"name": "%s", "address": "%s", "bind": "%s", "access": "%s"},\n' \
    "${H_NAME[SUT_IDX]}" "${H_ADDR[SUT_IDX]}" "${H_BIND[SUT_IDX]:-${H_ADDR[SUT_IDX]}}" "${H_ACCESS[SUT_IDX]}"
  printf '             "engines": ['
  sep=''
  for e in "${ENGINE_IDX[@]}"; do
    printf '%s{"name": "%s", "address": "%s", "access": "%s", "rmi": %s, "connections": %s, "heapMb": %s}' "$sep" \
      "${H_NAME[e]}" "${H_ADDR[e]}" "${H_ACCESS[e]}" "${H_RMI[e]}" "${H_CONNECTIONS[e]}" "${H_HEAP_MB[e]}"
    sep=', '
  done
  printf '] },\n'
  printf '  "provenance": %s,\n' "${RUN[provenance]//$'\n'/$'\n'  }"
  printf '  "startedAt": %s, "finishedAt": %s,\n' "${RUN[started_at]}" "$(json_or_null "${RUN[finished_at]:-}")"
  printf '  "status": "%s",\n' "${RUN[status]}"
  printf '  "serverCrashed": %s,\n' "$([[ ${RUN[crashed]} == 1 ]] && echo true || echo false)"
  printf '  "steps": {'
  sep=''
  for k in "${RUN_STEPS[@]}"; do   # "<step> <ms>", in the order they ran
    printf '%s\n    "%s": %s' "$sep" "${k% *}" "${k#* }"
    sep=','
  done
  ((${#RUN_STEPS[@]})) && printf '\n  },\n' || printf '},\n'
  printf '  "notes": ['
  sep=''
  for k in "${RUN_NOTES[@]}"; do
    printf '%s\n    %s' "$sep" "$(json_string "$k")"
    sep=','
  done
  ((${#RUN_NOTES[@]})) && printf '\n  ]\n' || printf ']\n'
  printf '}\n'
}
