# shellcheck shell=bash
# Counts the samples and errors in a growing JMeter results.csv, reading only what was added since
# the last call (a long run writes millions of rows). Sourced by run.sh.
#
#   progress_reset                 before a run
#   progress_update <csv>          sets PROGRESS[size] (bytes read), PROGRESS[samples] and PROGRESS[errors]
#                                  (success == false); a row with a SampleCount column (the mux engine's
#                                  summaries) counts SampleCount answers and ErrorCount errors;
#                                  PROGRESS[last_error]: the latest failed row's response code (the mux
#                                  engine's: its summary's first failure), at most 80 characters
#   progress_errors                "<n> errors" and, when there are some, "(last: <what>)"

declare -A PROGRESS=()
progress_reset() { PROGRESS=([offset]=0 [size]=0 [samples]=0 [errors]=0 [columns]='' [last_error]=''); }

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
  if (cols == "") {   # the header row: find the success, SampleCount and ErrorCount columns
    nh = split($0, h, ",")
    sc = -1; ec = -1; col = -1; rc = -1
    for (j = 1; j <= nh; j++) {
      if (h[j] == "success") col = j; if (h[j] == "SampleCount") sc = j; if (h[j] == "ErrorCount") ec = j
      if (h[j] == "responseCode") rc = j
    }
    cols = col ":" sc ":" ec ":" rc
    next
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
BEGIN { if (cols != "") { split(cols, c, ":"); col = c[1]; sc = c[2]; ec = c[3]; rc = c[4] } }
END { gsub(/[\r\n\t]/, " ", last); printf "%d %d %d %s %s\n", rows + 0, errors + 0, partial + 0, (cols == "" ? "-" : cols), substr(last, 1, 80) }'

progress_update() { # <csv>
  local csv=$1 size len rows errors partial col last
  [[ -f $csv ]] || return 0
  size=$(stat -c %s "$csv")
  PROGRESS[size]=$size
  len=$((size - PROGRESS[offset]))
  ((len > 0)) || return 0
  read -r rows errors partial col last < <(
    { tail -c +"$((PROGRESS[offset] + 1))" "$csv" | head -c "$len"; printf '\001END\n'; } |
      LC_ALL=C awk -v cols="${PROGRESS[columns]}" "$PROGRESS_AWK"
  )
  PROGRESS[samples]=$((PROGRESS[samples] + rows))
  PROGRESS[errors]=$((PROGRESS[errors] + errors))
  PROGRESS[offset]=$((PROGRESS[offset] + len - partial))
  [[ $col == - ]] || PROGRESS[columns]=$col
  [[ -z $last ]] || PROGRESS[last_error]=$last
}

progress_errors() {
  printf '%d errors' "${PROGRESS[errors]}"
  [[ ${PROGRESS[errors]} == 0 || -z ${PROGRESS[last_error]} ]] || printf ' (last: %s)' "${PROGRESS[last_error]}"
}
