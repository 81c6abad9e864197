# shellcheck shell=bash
# Counts the samples and errors in a growing JMeter results.csv, reading only what was added since
# the last call (a long run writes millions of rows). Sourced by run.sh.
#
#   progress_reset                 before a run
#   progress_update <csv>          sets PROGRESS[size] (bytes read), PROGRESS[samples] and PROGRESS[errors]
#                                  (success == false)

declare -A PROGRESS=()
progress_reset() { PROGRESS=([offset]=0 [size]=0 [samples]=0 [errors]=0 [success_col]=0); }

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
$0 == "\001END" { next }
/\001END$/ { partial = length($0) - 4; next }
{
  if (col == 0) {   # the header row: find the success column
    nh = split($0, h, ",")
    for (j = 1; j <= nh; j++) if (h[j] == "success") col = j
    if (col == 0) col = -1
    next
  }
  rows++
  if (col > 0 && field($0, col) == "false") errors++
}
END { printf "%d %d %d %d\n", rows + 0, errors + 0, partial + 0, col }'

progress_update() { # <csv>
  local csv=$1 size len rows errors partial col
  [[ -f $csv ]] || return 0
  size=$(stat -c %s "$csv")
  PROGRESS[size]=$size
  len=$((size - PROGRESS[offset]))
  ((len > 0)) || return 0
  read -r rows errors partial col < <(
    { tail -c +"$((PROGRESS[offset] + 1))" "$csv" | head -c "$len"; printf '\001END\n'; } |
      LC_ALL=C awk -v col="${PROGRESS[success_col]}" "$PROGRESS_AWK"
  )
  PROGRESS[samples]=$((PROGRESS[samples] + rows))
  PROGRESS[errors]=$((PROGRESS[errors] + errors))
  PROGRESS[offset]=$((PROGRESS[offset] + len - partial))
  PROGRESS[success_col]=$col
}
