#!/usr/bin/env bash
# Runs the whole pushbench test suite, installing what it needs first.
#
#   ./test.sh               everything: shellcheck, JUnit (Maven), every Node test (unit, conformance,
#                           end-to-end runs, multi-host, sweep, browser)
#   ./test.sh <word>...     only Node test files whose path contains one of the words (and no JUnit/shellcheck
#                           unless the words include "java" / "shellcheck")
#
# Ends with one line "N passed, N failed" counting every test of every suite; exits non-zero if any failed.
set -euo pipefail

# shellcheck source=lib/config.sh
source "$(dirname "${BASH_SOURCE[0]}")/lib/config.sh"
cd "$PB_ROOT"

# Test servers use their own ports and state, so a test run never touches servers a user started.
# PB_TEST_SLOT=<0-9> moves every port by slot x 200 and the state to its own folders, so two suites
# can run side by side on one machine (default 0).
slot=${PB_TEST_SLOT:-0}
[[ $slot =~ ^[0-9]$ ]] || { echo "test.sh: PB_TEST_SLOT must be one digit, not '$slot'" >&2; exit 2; }
shift_by=$((slot * 200)) suffix=${slot/#0/}
export PB_PORT_NODE=$((18080 + shift_by)) PB_PORT_TC6=$((18086 + shift_by)) PB_PORT_TC7=$((18087 + shift_by))
export PB_PORT_NODE_CLUSTER=$((18081 + shift_by)) PB_PORT_TC6_BIO=$((18096 + shift_by)) PB_PORT_TC7_BIO=$((18097 + shift_by))
export PB_PORT_TLS=$((18143 + shift_by))
export PB_STATE=$PB_BUILD/test-state$suffix PB_RESULTS=$PB_BUILD/test-results$suffix
export PB_JMETER_RMI_PORT=$((11099 + shift_by)) PB_JMETER_RMI_LOCALPORT=$((11000 + shift_by)) \
  PB_JMETER_CLIENT_LOCALPORT=$((11100 + shift_by))

passed=0
failed=0
failures=()

count() { # count <suite> <passed> <failed>
  passed=$((passed + $2))
  failed=$((failed + $3))
  [[ $3 -eq 0 ]] || failures+=("$1: $3 failed")
}

wants() { # wants <suite-word>: true when that word was asked for
  local f
  for f in "${filters[@]}"; do [[ $f == "$1" ]] && return 0; done
  return 1
}

run_shellcheck() {
  echo "== shellcheck"
  local script ok=0 bad=0
  while IFS= read -r script; do
    if shellcheck -x "$script"; then ok=$((ok + 1)); else bad=$((bad + 1)); fi
  done < <(git ls-files --cached --others --exclude-standard -- '*.sh' .ci/run | sort -u |
    while IFS= read -r f; do [[ $(head -c 19 "$f") == '#!/usr/bin/env node' ]] || echo "$f"; done)   # sweep.sh is Node.js
  echo "shellcheck: $ok clean, $bad with findings"
  count shellcheck "$ok" "$bad"
}

run_junit() {
  echo "== JUnit (instrumentation-java, load/push-sampler)"
  local log=$PB_BUILD/junit.log line
  mvn -B -q -f instrumentation-java/pom.xml test >"$log" 2>&1 || true
  mvn -B -q -f load/push-sampler/pom.xml test >>"$log" 2>&1 || true
  local -a reports=(instrumentation-java/*/target/surefire-reports/*.txt load/push-sampler/target/surefire-reports/*.txt)
  # Surefire prints one summary per module: "Tests run: N, Failures: F, Errors: E, Skipped: S"
  local run=0 bad=0
  while IFS= read -r line; do
    [[ $line =~ Tests\ run:\ ([0-9]+),\ Failures:\ ([0-9]+),\ Errors:\ ([0-9]+) ]] || continue
    run=$((run + BASH_REMATCH[1]))
    bad=$((bad + BASH_REMATCH[2] + BASH_REMATCH[3]))
  done < <(grep -h -E '^Tests run:' "${reports[@]}" 2>/dev/null)
  if [[ $run -eq 0 ]]; then
    tail -n 40 "$log"
    echo "JUnit: no test ran (see $log)"
    count junit 0 1
    return
  fi
  [[ $bad -eq 0 ]] || grep -h -B2 -A20 -E 'FAILURE|ERROR' "${reports[@]}" 2>/dev/null | head -n 120
  echo "JUnit: $((run - bad)) passed, $bad failed"
  count junit "$((run - bad))" "$bad"
}

node_test_files() {
  # Unit tests first, then the ones that start servers, then the long end-to-end ones.
  git ls-files --cached --others --exclude-standard -- '*.test.js' |
    grep -v -e '^node_modules/' -e '^build/' |
    awk '{ rank = 1
           if ($0 ~ /^conformance\//) rank = 2
           if ($0 ~ /^(load|tests)\//) rank = 3
           if ($0 ~ /(multihost|sweep)/) rank = 4
           print rank "\t" $0 }' | sort -k1,1n -k2 | cut -f2
}

run_node_tests() {
  echo "== Node tests"
  local -a files=()
  local f w
  while IFS= read -r f; do
    if [[ ${#filters[@]} -eq 0 ]]; then files+=("$f"); continue; fi
    for w in "${filters[@]}"; do [[ $f == *"$w"* ]] && { files+=("$f"); break; }; done
  done < <(node_test_files)
  [[ ${#files[@]} -gt 0 ]] || { echo "no Node test file matched"; return; }
  local log=$PB_BUILD/node-tests$suffix.log   # one per slot: suites side by side keep their own
  local times=$PB_BUILD/node-test-times$suffix.tsv
  node --test --test-concurrency=1 --test-timeout=900000 --test-reporter=spec --test-reporter-destination=stdout \
    --test-reporter=./tests/lib/file-times.js --test-reporter-destination="$times" "${files[@]}" 2>&1 | tee "$log" || true
  echo "slowest test files (s):"   # the 12 slowest, then the total line
  awk 'NR <= 12 { row[NR] = $0 } { n = NR; last = $0 }
       END { for (i = 1; i < n && i <= 12; i++) print "  " row[i]; if (n) print "  " last }' "$times" 2>/dev/null || true
  local pass fail cancelled
  pass=$(sed -n 's/^ℹ pass \([0-9]*\)$/\1/p' "$log" | tail -n 1)
  fail=$(sed -n 's/^ℹ fail \([0-9]*\)$/\1/p' "$log" | tail -n 1)
  # A cancelled test (its file timed out or a server never came up) did not pass: count it as failed.
  cancelled=$(sed -n 's/^ℹ cancelled \([0-9]*\)$/\1/p' "$log" | tail -n 1)
  [[ -z $fail ]] || fail=$((fail + ${cancelled:-0}))
  if [[ -z $pass || -z $fail ]]; then
    echo "Node tests: the runner printed no summary (see $log)"
    count node "${pass:-0}" 1
    return
  fi
  count node "$pass" "$fail"
}

filters=("$@")
mkdir -p "$PB_BUILD" "$PB_STATE"
./setup.sh --for-tests

if [[ ${#filters[@]} -eq 0 ]]; then
  run_shellcheck
  run_junit
  run_node_tests
else
  wants shellcheck && run_shellcheck
  wants java && run_junit
  run_node_tests
fi

# Stop anything a test left behind (only servers this suite started: PID files under its own PB_STATE).
servers/control.sh stop all >/dev/null 2>&1 || true

echo
for f in "${failures[@]}"; do echo "FAILED $f"; done
echo "$passed passed, $failed failed"
[[ $failed -eq 0 ]]
