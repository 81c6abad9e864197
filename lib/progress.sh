# shellcheck shell=bash
# Counts the samples and errors in a growing JMeter results.csv, reading only what was added since
# the last call (a long run writes millions of rows). Sourced by run.sh.
#
#   progress_reset                 before a run
#   progress_update <csv>          sets PROGRESS[size] (bytes read), PROGRESS[samples] and PROGRESS[errors]
#                                  (success == false); a row with a SampleCount column (the summaries of
#                                  the mux engine and of the push sampler, whose answers have no row of
#                                  their own) counts SampleCount answers and ErrorCount errors;
#                                  PROGRESS[last_error]: the latest failed row's response code (a summary's:
#                                  its first failure), at most 80 characters
#                                  PROGRESS[open], PROGRESS[per_s]: with summaries, the connections their
#                                  threads held at their latest summary (the push sampler's: its requests
#                                  open) and the records (messages) a second they received over the
#                                  summaries read this time ('' without summaries)
#                                  PROGRESS[p99_us], PROGRESS[p99_basis]: the largest trip-time p99 (µs) of
#                                  the summaries read this time that timed a message, and whose clock its
#                                  stamps were ("engine clock": a target's sentUs; "server clock": a built-in
#                                  record's created, offset uncorrected): the engine's sampled trip time
#                                  (docs/engine.md "Sampled trip time"; a summary's "trip p99 <µs> us of <n>
#                                  timed (<basis>)"); '' until a summary timed one
#   progress_errors                "<n> errors" and, when there are some, "(last: <what>)"
#   progress_trip                  ", trip p99 ~<ms> ms (sampled, <basis>)", or nothing without a timed sample

declare -A PROGRESS=()
progress_reset() { PROGRESS=([offset]=0 [size]=0 [samples]=0 [errors]=0 [columns]='' [last_error]='' [open]='' [per_s]='' [p99_us]='' [p99_basis]=''); }

# awk: count complete rows of a chunk; a last row without its newline is left for the next call.
# The chunk is followed by a line "\001END" so the end is recognisable. Fields are split CSV-style
# (double quotes) only on rows that contain a quote, which in JMeter's output are rare.
# shellcheck disable=SC2016  # an awk program
PROGRESS_AWK='
function field(line, n,    i, c, q, k, f) {
  if (index(line, "\"") == 0) { split(line, parts, ","); return parts[n] }
  k = 1; f = ""; q = 0
  for (i = 1; i <= length(line); i++) {
    c = substr(line, i, 1)
    if (q) { if (c == "\"") { if (substr(line, i + 1, 1) == "\"") { f = f c; i++ } else q = 0 } else f = f c }
    else if (c == "\"") q = 1
    else if (c == ",") { if (k == n) return f; k++; f = "" }
    else f = f c
  }
  return (k == n) ? f : ""
}
# The first failure named in a mux summary sample, else "" (the text after "first failure: ").
function first_failure(line) { return match(line, /first failure: [^"]*/) ? substr(line, RSTART + 15, RLENGTH - 15) : "" }
$0 == "\001END" { next }
/\001END$/ { partial = length($0) - 4; next }
{
  if (cols == "") {   # the header row: find the success, SampleCount, ErrorCount and summary columns
    nh = split($0, h, ",")
    sc = -1; ec = -1; col = -1; rc = -1; tn = -1; tsc = -1; elc = -1
    for (j = 1; j <= nh; j++) {
      if (h[j] == "success") col = j; if (h[j] == "SampleCount") sc = j; if (h[j] == "ErrorCount") ec = j
      if (h[j] == "responseCode") rc = j; if (h[j] == "threadName") tn = j; if (h[j] == "timeStamp") tsc = j
      if (h[j] == "elapsed") elc = j
    }
    cols = col ":" sc ":" ec ":" rc ":" tn ":" tsc ":" elc
    next
  }
  if (match($0, /, open [0-9]+, records [0-9]+/)) {   # a mux summary: the open connections of its thread, its records
    split(substr($0, RSTART + 7, RLENGTH - 7), or, ", records ")
    th = tn > 0 ? field($0, tn) : "?"
    if (!(th in open_of)) threads[++nt] = th
    open_of[th] = or[1] + 0; records += or[2]
    if (tsc > 0 && elc > 0) { t0 = field($0, tsc) + 0; t1 = t0 + field($0, elc); if (!from || t0 < from) from = t0; if (t1 > to) to = t1 }
    summaries++
  }
  if (match($0, /trip p99 -?[0-9]+ us of [1-9][0-9]* timed \([a-z ]+\)/)) {   # a summary that timed messages
    split(substr($0, RSTART + 9, RLENGTH - 9), tp, " ")
    if (p99 == "" || tp[1] + 0 > p99 + 0) p99 = tp[1] + 0
    b = substr($0, RSTART, RLENGTH); sub(/.*\(/, "", b); sub(/\)$/, "", b); gsub(/ /, "_", b); basis = b
  }
  if (sc > 0 && field($0, sc) != "" && field($0, sc) != 1) {   # a summary sample: its answers and failed ones
    rows += field($0, sc)
    if (ec > 0 && field($0, ec) > 0) { errors += field($0, ec); f = first_failure($0); if (f != "") last = f }
    next
  }
  rows++
  if (col > 0 && field($0, col) == "false") {
    errors++
    f = first_failure($0)
    if (f != "") last = f; else if (rc > 0) last = field($0, rc)
  }
}
BEGIN { if (cols != "") { split(cols, c, ":"); col = c[1]; sc = c[2]; ec = c[3]; rc = c[4]; tn = c[5]; tsc = c[6]; elc = c[7] } }
END {
  gsub(/[\r\n\t]/, " ", last)
  open = "-"; per_s = "-"
  if (summaries) { open = 0; for (i = 1; i <= nt; i++) open += open_of[threads[i]] }
  if (summaries && to > from) per_s = sprintf("%d", records * 1000 / (to - from) + 0.5)
  printf "%d %d %d %s %s %s %s %s %s\n", rows + 0, errors + 0, partial + 0, (cols == "" ? "-" : cols), open, per_s, (p99 == "" ? "-" : p99), (basis == "" ? "-" : basis), substr(last, 1, 80)
}'

progress_update() { # <csv>
  local csv=$1 size len rows errors partial col open per_s p99 basis last
  [[ -f $csv ]] || return 0
  size=$(stat -c %s "$csv")
  PROGRESS[size]=$size
  len=$((size - PROGRESS[offset]))
  ((len > 0)) || return 0
  read -r rows errors partial col open per_s p99 basis last < <(
    { tail -c +"$((PROGRESS[offset] + 1))" "$csv" | head -c "$len"; printf '\001END\n'; } |
      LC_ALL=C awk -v cols="${PROGRESS[columns]}" "$PROGRESS_AWK"
  )
  PROGRESS[samples]=$((PROGRESS[samples] + rows))
  PROGRESS[errors]=$((PROGRESS[errors] + errors))
  PROGRESS[offset]=$((PROGRESS[offset] + len - partial))
  [[ $col == - ]] || PROGRESS[columns]=$col
  [[ -z $last ]] || PROGRESS[last_error]=$last
  [[ $open == - ]] || PROGRESS[open]=$open
  [[ $per_s == - ]] || PROGRESS[per_s]=$per_s
  [[ $p99 == - ]] || PROGRESS[p99_us]=$p99
  [[ $basis == - ]] || PROGRESS[p99_basis]=${basis//_/ }
}

# The sampled trip-time p99 for the progress line, in ms (one decimal below 10 ms), with whose clock it is.
progress_trip() {
  [[ -n ${PROGRESS[p99_us]} ]] || return 0
  local how=${PROGRESS[p99_basis]}
  [[ $how != 'server clock' ]] || how='server clock, offset not corrected'
  awk -v us="${PROGRESS[p99_us]}" -v how="$how" 'BEGIN { printf ", trip p99 ~%s ms (sampled, %s)", (us < 10000 ? sprintf("%.1f", us / 1000) : sprintf("%d", us / 1000 + 0.5)), how }'
}

progress_errors() {
  printf '%d errors' "${PROGRESS[errors]}"
  [[ ${PROGRESS[errors]} == 0 || -z ${PROGRESS[last_error]} ]] || printf ' (last: %s)' "${PROGRESS[last_error]}"
}
