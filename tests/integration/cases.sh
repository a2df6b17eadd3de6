#!/bin/bash
# The integration cases, one file per area in tests/integration/areas/
# (endpoint, publish, config, procs, ...): each attack of the hostile
# nights (rounds 3 and 4, issues 24 to 34) and each feature's end-to-end
# case, as case_NAME functions that fail without their fix, each file
# adding its NAMEs to area_cases. Every area is sourced (an area may use
# another's helpers); make check runs one suite an area, side by side
# (tests/run-all.sh). Helper scripts of the cases: areas/../helpers/.
# Usage: cases.sh BUILD_DIR [CASE...]     the cases named (any area), or
#                                         all; ends "cases: N passed, M failed"
#        cases.sh --area AREA BUILD_DIR   the cases of areas/AREA.sh;
#                                         ends "AREA: N passed, M failed"
#        cases.sh --areas                 the areas, one a line
set -u
here=$(dirname "$0")
if [ "${1:-}" = --areas ]; then
    for f in "$here"/areas/*.sh; do basename "$f" .sh; done
    exit 0
fi
area=""
if [ "${1:-}" = --area ]; then
    area=${2:-}
    [ -n "$area" ] && [ -e "$here/areas/$area.sh" ] ||
        { echo "cases.sh: no area '$area' in $here/areas/" >&2; exit 2; }
    shift 2
fi
[ $# -ge 1 ] || { echo "usage: cases.sh [--area AREA] BUILD_DIR [CASE...]" >&2; exit 2; }
# a file of cases left where the rounds were (a branch older than the
# areas): never sourced, so said, not skipped
for f in "$here"/round[0-9]*/*.sh; do
    [ -e "$f" ] || continue
    echo "cases.sh: '$f' is not run: the cases live in $here/areas/AREA.sh now (area_cases)" >&2
    exit 2
done
. "$here/lib.sh"

all="" of=" " round3_cases="" round4_cases=""
for f in "$here"/areas/*.sh; do
    area_cases=""
    # shellcheck disable=SC1090
    . "$f"
    a=$(basename "$f" .sh)
    for c in $area_cases; do of="$of$c=$a "; done
    all="$all $area_cases"
done
if [ -n "$round3_cases$round4_cases" ]; then
    echo "cases.sh: cases added to round3_cases or round4_cases are not run: add them to area_cases ($round3_cases$round4_cases)" >&2
    exit 2
fi
label=cases
if [ -n "$area" ]; then
    label=$area
    set -- $(printf '%s\n' $of | sed -n "s/^\(.*\)=$area\$/\1/p")
    [ $# -gt 0 ] || { echo "  areas/$area.sh adds no case to area_cases"; echo "$area: 0 passed, 1 failed"; exit 1; }
fi

cases=${*:-$all}
for c in $cases; do
    ok=1 t0=$(date +%s)
    a=$(printf '%s\n' $of | sed -n "s/^$c=//p")
    if declare -F "case_$c" >/dev/null; then "case_$c"; else fail "no such case"; fi
    if ! no_servers_within 5; then fail "a fake server is still running"; pkill -f "$FAKE -m $work/"; fi
    t=$(($(date +%s) - t0))
    if [ $ok = 1 ]; then passed=$((passed + 1)); echo "ok   ${a:-?} $c ($t s)"
    else failed=$((failed + 1)); echo "FAIL ${a:-?} $c ($t s)"; fi
done
echo "$label: $passed passed, $failed failed"
[ $failed = 0 ]
