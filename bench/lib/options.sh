# shellcheck shell=bash
# The benches' command line: `--<name> <value>` options over variables the bench has set to their
# defaults, and -h/--help printing the bench's opening comment. Sourced by bench/*.sh; each bench keeps
# its own checks of the values it was given.
#
#   bench_options <usage line> <name>... -- "$@"
#       sets each named variable from its --<name> option (an underscore in a name is a dash in its
#       option); an unknown option, an option without its value or a stray word prints the usage line
#       on stderr and exits 2
#   bench_help <script>     the script's opening comment (line 2 to the first line that is not one)

bench_help() {
  awk 'NR == 1 { next } /^#/ { sub(/^# ?/, ""); print; next } { exit }' "$1"
}

bench_options() {
  local usage=$1 name found
  shift
  local -a names=()
  while [[ $# -gt 0 && $1 != -- ]]; do names+=("$1"); shift; done
  [[ $# -gt 0 ]] || { echo "bench_options: the option names end with --" >&2; exit 2; }
  shift
  while [[ $# -gt 0 ]]; do
    [[ $1 == -h || $1 == --help ]] && { bench_help "$0"; exit 0; }
    found=''
    for name in "${names[@]}"; do
      [[ $1 == "--${name//_/-}" ]] && { found=$name; break; }
    done
    [[ -n $found && $# -ge 2 ]] || { echo "$usage" >&2; exit 2; }
    printf -v "$found" '%s' "$2"
    shift 2
  done
}
