#!/bin/bash
# Hostile nights, round 3 (issue 24): each attack that broke b7f1902, as a
# case that fails without its fix. The cases live one file per area in
# tests/integration/round3/ (procs, paths, grader, build, import, config,
# page), each defining case_NAME functions and adding NAME to round3_cases,
# so that areas worked on side by side never touch one file.
# Usage: round3.sh BUILD_DIR [CASE...]   Ends with "round3: N passed, M failed".
set -u
. "$(dirname "$0")/lib.sh"
round3_cases=""
for f in "$(dirname "$0")"/round3/*.sh; do
    [ -e "$f" ] || continue
    # shellcheck disable=SC1090
    . "$f"
done

cases=${*:-$round3_cases}
for c in $cases; do
    ok=1
    if declare -F "case_$c" >/dev/null; then "case_$c"; else fail "no such case"; fi
    if ! no_servers_within 5; then fail "a fake server is still running"; pkill -f "$FAKE -m $work/"; fi
    if [ $ok = 1 ]; then passed=$((passed + 1)); echo "ok   round3 $c"
    else failed=$((failed + 1)); echo "FAIL round3 $c"; fi
done
echo "round3: $passed passed, $failed failed"
[ $failed = 0 ]
