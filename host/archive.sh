#!/usr/bin/env bash
# shellcheck source-path=SCRIPTDIR
# Runs ON an engine host: the per-run working directory of one engine, and the archive of its responses.
#
#   host/archive.sh dir <run-id> <engine>       create (if needed) and print the engine's directory;
#                                              JMeter saves responses to its responses/ folder
#   host/archive.sh tar <run-id> <engine>       recode any LZ4 stream log left in responses/, then tar
#                                              responses/ to <engine>.tar.gz there; prints its path
#   host/archive.sh clean <run-id> <engine>     remove the engine's directory (after run.sh copied it)
#
# Directory: $PB_STATE/runs/<run-id>/<engine>/. Archive members are named relative to responses/, i.e.
# exactly the names JMeter gave them: the push sampler's stream logs (push-<n>.tsv.gz, every request's
# records) and the few responses saved one file per sample ("logging_1.json"; with request.sampler=http
# every request is such a file). Stream logs are compressed already: the tar around them is gzipped at
# the fastest level, which costs the engine little and keeps the archive's name. An engine writes its
# stream logs as LZ4 during the load (push-<n>.tsv.lz4) and recodes them to gzip when its test ends; one
# that never got there (killed, crashed) leaves .lz4 files, which tar recodes first (StreamLogRecode of
# load/push-sampler, from $JMETER_HOME/lib/ext: every whole block kept, a line per file on stderr). A file it
# cannot recode goes into the archive as it is (.lz4), and stderr says so.
set -euo pipefail
here=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
# shellcheck source=../lib/config.sh
source "$here/../lib/config.sh"

usage() { echo "usage: host/archive.sh {dir|tar|clean} <run-id> <engine>" >&2; exit 2; }
[[ $# -eq 3 ]] || usage
[[ $2 =~ ^[A-Za-z0-9_-]{1,100}$ && $3 =~ ^[A-Za-z0-9_-]{1,32}$ ]] || { echo "bad run id or engine name" >&2; exit 2; }
run_dir=$PB_STATE/runs/$2
dir=$run_dir/$3

case $1 in
  dir)
    mkdir -p "$dir/responses"
    echo "$dir"
    ;;
  tar)
    [[ -d $dir/responses ]] || { echo "no responses directory $dir/responses" >&2; exit 1; }
    # A file list from find, not a glob: a long run saves hundreds of thousands of files.
    # A failed tar (a full disk) leaves no partial archive taking space; the responses stay.
    mapfile -t lz4 < <(find "$dir/responses" -maxdepth 1 -type f -name 'push-*.tsv.lz4' | LC_ALL=C sort)
    if ((${#lz4[@]} > 0)) && ! java -cp "$JMETER_HOME/lib/ext/*" pushbench.jmeter.StreamLogRecode "${lz4[@]}" >&2; then
      echo "could not recode every LZ4 stream log in $dir/responses to gzip (above): what was not recoded goes into the archive as it is (.lz4)" >&2
    fi
    gzip=gzip
    if compgen -G "$dir/responses/push-*.tsv.*" >/dev/null; then gzip='gzip -1'; fi
    if ! (cd "$dir/responses" && find . -type f -printf '%P\n' | LC_ALL=C sort |
      tar -c --use-compress-program="$gzip" -f "$dir/$3.tar.gz.part" --no-recursion -T -); then
      rm -f -- "$dir/$3.tar.gz.part"
      echo "could not archive $dir/responses; the responses stay there" >&2
      exit 1
    fi
    mv "$dir/$3.tar.gz.part" "$dir/$3.tar.gz"
    echo "$dir/$3.tar.gz"
    ;;
  clean)
    rm -rf -- "$dir"
    rmdir -- "$run_dir" 2>/dev/null || true
    ;;
  *) usage ;;
esac
