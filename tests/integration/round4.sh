#!/bin/bash
# Hostile nights, round 4 (issue 33): each attack that broke 21b075f, as a
# case that fails without its fix. The cases live one file per area in
# tests/integration/round4/ (runner, endpoint, publish, config, misc),
# each defining case_NAME functions and adding NAME to round4_cases,
# so that areas worked on side by side never touch one file.
# Usage: round4.sh BUILD_DIR [CASE...]   Ends with "round4: N passed, M failed".
set -u
. "$(dirname "$0")/lib.sh"
round4_cases=""
for f in "$(dirname "$0")"/round4/*.sh; do
    [ -e "$f" ] || continue
    # shellcheck disable=SC1090
    . "$f"
done

cases=${*:-$round4_cases}
for c in $cases; do
    ok=1
    if declare -F "case_$c" >/dev/null; then "case_$c"; else fail "no such case"; fi
    if ! no_servers_within 5; then fail "a fake server is still running"; pkill -f "$FAKE -m $work/"; fi
    if [ $ok = 1 ]; then passed=$((passed + 1)); echo "ok   round4 $c"
    else failed=$((failed + 1)); echo "FAIL round4 $c"; fi
done
echo "round4: $passed passed, $failed failed"
[ $failed = 0 ]
