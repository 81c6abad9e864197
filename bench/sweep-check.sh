#!/usr/bin/env bash
# How long does the sweep take to say what it would do? ./sweep.sh --list (the permutations) and
# ./sweep.sh --check (hosts, limits, run.sh --plan per permutation, disk, time) timed side by side in
# this checkout and, with --against, in another one (e.g. a git worktree of an older commit), the two
# interleaved so both see the same load on this machine.
#
#   bench/sweep-check.sh [--repeat <n>] [--against <checkout>] [-- <sweep selection options>]
#
# Prints, per checkout and command, the wall time in seconds over <n> repeats (default 5): median, min
# and max, and the ratio of the medians (this checkout / the other). Nothing is run: --check makes no
# sweep directory. PB_* settings (ports, PB_HOSTS) come from the environment as for ./sweep.sh.
set -euo pipefail
root=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)

repeat=5 against='' selection=()
while [[ $# -gt 0 ]]; do
  case $1 in
    --repeat) repeat=${2:?}; shift 2 ;;
    --against) against=$(cd "${2:?}" && pwd); shift 2 ;;
    --) shift; selection=("$@"); break ;;
    -h | --help) sed -n '2,12p' "$0" | sed 's/^# \{0,1\}//'; exit 0 ;;
    *) echo "usage: bench/sweep-check.sh [--repeat <n>] [--against <checkout>] [-- <sweep options>]" >&2; exit 2 ;;
  esac
done
[[ $repeat =~ ^[1-9][0-9]*$ ]] || { echo "sweep-check: --repeat wants a whole number >= 1" >&2; exit 2; }

checkouts=("$root")
[[ -z $against ]] || checkouts+=("$against")
out=$(mktemp)
trap 'rm -f "$out"' EXIT

# One timing line per run: <checkout index> <command> <seconds>
for ((r = 1; r <= repeat; r++)); do
  for k in "${!checkouts[@]}"; do
    for mode in --list --check; do
      t0=${EPOCHREALTIME/./}
      rc=0
      "${checkouts[k]}/sweep.sh" "$mode" "${selection[@]}" >/dev/null 2>&1 || rc=$?
      t1=${EPOCHREALTIME/./}
      ((rc == 0)) || echo "sweep-check: ${checkouts[k]}/sweep.sh $mode exited $rc" >&2
      printf '%s %s %s\n' "$k" "$mode" "$(((t1 - t0) / 1000))" >>"$out"
    done
  done
done

node - "$root" "$out" "${checkouts[@]}" <<'JS'
const fs = require('fs');
const [root, file, ...checkouts] = process.argv.slice(2);
const { median } = require(`${root}/bench/engine-cost-table.js`);
const rows = fs.readFileSync(file, 'utf8').trim().split('\n').map((l) => l.split(' '));
const stats = {};
for (const [k, mode, ms] of rows) (stats[`${k} ${mode}`] ??= []).push(Number(ms) / 1000);
const f = (s) => s.toFixed(2);
console.log(`wall time of ./sweep.sh, seconds over ${stats['0 --list'].length} repeats (median [min-max])`);
for (const mode of ['--list', '--check']) {
  const line = checkouts.map((c, k) => { const a = stats[`${k} ${mode}`]; return `${c}: ${f(median(a))} [${f(Math.min(...a))}-${f(Math.max(...a))}]`; });
  const ratio = checkouts.length > 1 ? `; ratio ${(median(stats[`0 ${mode}`]) / median(stats[`1 ${mode}`])).toFixed(1)}x` : '';
  console.log(`  ${mode.padEnd(8)} ${line.join('  vs  ')}${ratio}`);
}
JS
