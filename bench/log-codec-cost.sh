#!/usr/bin/env bash
# What the stream log's codec costs the engine (issue #48 item 2; docs/engine.md "The stream log's codec"):
# the lines of a real stream log through gzip (BEST_SPEED, as the writer wrote it before) and LZ4 (the
# writer's live codec), side by side in one invocation, on one CPU (bench/LogCodecCost.java says how).
#
#   bench/log-codec-cost.sh --log <push-<n>.tsv.gz> [--bytes 200000000] [--repeats 3] [--cpu 0] [--out <file>]
#
# --log: a stream log from a run (a run's responses/<engine>.tar.gz holds them: tar -xzf it); its first
# --bytes bytes of lines are used. The JVM runs on --cpu (taskset), its heap sized for the lines.
# Prints each measured run's JSON line (also to --out) and then, per codec, the median and range over the
# repeats of ns of CPU per byte of lines and the compression ratio, and lz4's ns per byte over gzip's.
set -euo pipefail
root=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
# shellcheck source=lib/config.sh
source "$root/lib/config.sh"
# shellcheck source=bench/lib/options.sh
source "$root/bench/lib/options.sh"
# shellcheck source=bench/lib/plugin-classpath.sh
source "$root/bench/lib/plugin-classpath.sh"

usage="usage: bench/log-codec-cost.sh --log <push-<n>.tsv.gz> [--bytes 200000000] [--repeats 3] [--cpu 0] [--out <file>]"
log='' bytes=200000000 repeats=3 cpu=0 out=''
bench_options "$usage" log bytes repeats cpu out -- "$@"
[[ -n $log && $bytes =~ ^[1-9][0-9]{3,9}$ && $repeats =~ ^[1-9]$ && $cpu =~ ^[0-9]+$ ]] || { echo "$usage" >&2; exit 2; }
[[ -r $log ]] || { echo "log-codec-cost: cannot read $log" >&2; exit 2; }
plugin_cp=$(plugin_classpath) || exit 1   # lz4-java as the engine has it
work=$(mktemp -d "${TMPDIR:-/tmp}/pb-log-codec.XXXXXX")
trap 'rm -rf "$work"' EXIT
[[ -n $out ]] || out=$work/runs.jsonl

javac -nowarn -cp "$plugin_cp" -d "$work" "$root/bench/LogCodecCost.java"
heap_mb=$((bytes * 2 / 1048576 + 256))
taskset -c "$cpu" java -Xms${heap_mb}m -Xmx${heap_mb}m -cp "$plugin_cp:$work" LogCodecCost "$log" "$bytes" "$repeats" | tee "$out"
node - "$out" <<'JS'
const fs = require('node:fs');
const runs = fs.readFileSync(process.argv[2], 'utf8').split('\n').filter(Boolean).map((l) => JSON.parse(l));
const med = (v) => { const s = [...v].sort((a, b) => a - b); const m = s.length >> 1; return s.length % 2 ? s[m] : (s[m - 1] + s[m]) / 2; };
const by = {};
for (const r of runs) (by[r.codec] ??= []).push(r);
const fig = (v) => `${med(v).toFixed(2)} (${Math.min(...v).toFixed(2)}-${Math.max(...v).toFixed(2)})`;
for (const [codec, rs] of Object.entries(by)) {
  console.log(`${codec}: ${fig(rs.map((r) => r.nsPerByte))} ns/byte, ratio ${fig(rs.map((r) => r.ratio))}, ${rs.length} runs of ${(rs[0].bytesIn / 1e6).toFixed(0)} MB`);
}
if (by.gzip && by.lz4) console.log(`lz4/gzip ns per byte: ${(med(by.lz4.map((r) => r.nsPerByte)) / med(by.gzip.map((r) => r.nsPerByte))).toFixed(2)}`);
JS
