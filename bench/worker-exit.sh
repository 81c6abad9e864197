#!/usr/bin/env bash
# Does every archive worker end? analysis/test/archive-merge.test.js (which starts some 20 archive workers
# of stage/archives.js, each measuring a real or generated archive) run <n> times in this checkout and,
# with --against, in another one (e.g. a git worktree of an older commit), the two interleaved so both see
# the same load. A run that has not ended <limit> seconds after it started is counted as hung and killed:
# its tests pass, but a worker thread that never ends keeps the process alive (docs/faults.md, "An archive
# worker that never ends").
#
#   bench/worker-exit.sh [--repeat <n>] [--limit <s>] [--against <checkout>]
#
# Prints, per checkout: the runs, how many hung (and their share, with its 95% interval: Wilson), and the
# wall time of the runs that ended, in seconds (median [min-max]).
set -euo pipefail
root=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)

repeat=30 limit=30 against=''
while [[ $# -gt 0 ]]; do
  case $1 in
    --repeat) repeat=${2:?}; shift 2 ;;
    --limit) limit=${2:?}; shift 2 ;;
    --against) against=$(cd "${2:?}" && pwd); shift 2 ;;
    -h | --help) sed -n '2,12p' "$0" | sed 's/^# \{0,1\}//'; exit 0 ;;
    *) echo "usage: bench/worker-exit.sh [--repeat <n>] [--limit <s>] [--against <checkout>]" >&2; exit 2 ;;
  esac
done
[[ $repeat =~ ^[1-9][0-9]*$ ]] || { echo "worker-exit: --repeat wants a whole number >= 1" >&2; exit 2; }
[[ $limit =~ ^[1-9][0-9]*$ ]] || { echo "worker-exit: --limit wants a whole number of seconds >= 1" >&2; exit 2; }

checkouts=("$root")
[[ -z $against ]] || checkouts+=("$against")
out=$(mktemp)
trap 'rm -f "$out"' EXIT

# One line per run: <checkout index> <ended|hung> <seconds>
for ((r = 1; r <= repeat; r++)); do
  for k in "${!checkouts[@]}"; do
    t0=${EPOCHREALTIME/./}
    rc=0
    (cd "${checkouts[k]}" && timeout -s KILL "$limit" node analysis/test/archive-merge.test.js >/dev/null 2>&1) || rc=$?
    t1=${EPOCHREALTIME/./}
    state=ended
    ((rc != 137)) || state=hung
    ((rc == 0 || rc == 137)) || echo "worker-exit: run $r in ${checkouts[k]} failed (exit $rc)" >&2
    printf '%s %s %s\n' "$k" "$state" "$(((t1 - t0) / 1000))" >>"$out"
  done
  printf '\rworker-exit: %d of %d rounds' "$r" "$repeat" >&2
done
echo >&2

node - "$root" "$out" "${checkouts[@]}" <<'JS'
const fs = require('fs');
const [root, file, ...checkouts] = process.argv.slice(2);
const { median } = require(`${root}/bench/engine-cost-table.js`);
const rows = fs.readFileSync(file, 'utf8').trim().split('\n').map((l) => l.split(' '));
// Wilson score interval of a share k/n at 95%.
const wilson = (k, n) => { const z = 1.96, p = k / n, d = 1 + z * z / n, c = (p + z * z / (2 * n)) / d, h = (z / d) * Math.sqrt(p * (1 - p) / n + z * z / (4 * n * n)); return [Math.max(0, c - h), Math.min(1, c + h)]; };
const pct = (x) => `${(100 * x).toFixed(1)}%`;
console.log('archive-merge.test.js runs per checkout: hung (share [95% interval]); wall time of the runs that ended, s (median [min-max])');
checkouts.forEach((c, k) => {
  const mine = rows.filter((r) => r[0] === String(k));
  const hung = mine.filter((r) => r[1] === 'hung').length;
  const ended = mine.filter((r) => r[1] === 'ended').map((r) => Number(r[2]) / 1000);
  const [lo, hi] = wilson(hung, mine.length);
  const t = ended.length ? `${median(ended).toFixed(1)} [${Math.min(...ended).toFixed(1)}-${Math.max(...ended).toFixed(1)}]` : '-';
  console.log(`  ${c}: ${mine.length} runs, ${hung} hung (${pct(hung / mine.length)} [${pct(lo)}-${pct(hi)}]); ended in ${t}`);
});
JS
