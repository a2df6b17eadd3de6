#!/bin/sh
# Run every test: the unit binaries given as arguments, then the golden
# case folders against $BUILD/graveyard, the regular expressions against
# Python's re, graveyard run against the fake
# llama-server, the hostile nights (kills, floods, hung tools, a full
# disk, planted links), graveyard build on the fake tools, the Slurm job
# array, the report's reconstruction, cover and pareto tests, the pages in
# a headless browser, then the JSON Schema checks. Ends with one line that CI reads:
# "check: N passed, M failed".
set -u
unit_only=0
if [ "${1:-}" = "--unit-only" ]; then unit_only=1; shift; fi
passed=0 failed=0
for t in "$@"; do
    out=$("$t" 2>&1); rc=$?
    n=$(printf '%s\n' "$out" | sed -n 's/^\[  PASSED  \] \([0-9]*\) test.*/\1/p')
    f=$(printf '%s\n' "$out" | sed -n 's/^\[  FAILED  \] \([0-9]*\) test.*/\1/p')
    passed=$((passed + ${n:-0}))
    if [ $rc -ne 0 ] || [ -n "$f" ]; then
        printf '%s\n' "$out"
        failed=$((failed + ${f:-1}))
        echo "FAIL $t"
    else
        echo "ok   $t (${n:-0} tests)"
        # what a passing test left out, and why (a clone without
        # ../shared beside it): said, not hidden with the rest
        printf '%s\n' "$out" | sed -n 's/^skip: /     skip: /p'
    fi
done
# Run a suite that ends with "NAME: N passed, M failed" and add it up.
suite() {
    name=$1; shift
    t0=$(date +%s)
    out=$("$@" 2>&1); rc=$?
    printf '%s\n' "$out"
    # each suite's time, so that CI's minutes can be seen where they go
    echo "time $name: $(($(date +%s) - t0)) s"
    n=$(printf '%s\n' "$out" | sed -n "s/^$name: \([0-9]*\) passed, \([0-9]*\) failed\$/\1/p")
    f=$(printf '%s\n' "$out" | sed -n "s/^$name: \([0-9]*\) passed, \([0-9]*\) failed\$/\2/p")
    passed=$((passed + ${n:-0}))
    failed=$((failed + ${f:-0}))
    if [ $rc -ne 0 ] && [ "${f:-0}" -eq 0 ]; then failed=$((failed + 1)); fi
}
if [ $unit_only -eq 0 ]; then
    # the structure checks on the breaches they guard, planted in copies
    # of the archives and the sources (check-edges, check-rooms,
    # check-lines)
    suite guards sh tests/guards/run.sh "${BUILD:-build}" \
        "${GUARDS_CC:-cc -std=c11 -D_POSIX_C_SOURCE=200809L}"
    suite golden sh tests/golden/run.sh "${BUILD:-build}/graveyard"
    # make check-formats' check on a scratch tree, a breach planted at a
    # time (each refused naming its file and line)
    suite formats sh tests/formats/run.sh
    # the regular expressions against Python's re: 3,000 random cases
    # (make pyre-diff runs more)
    suite pyre python3 tests/pyre/diff.py --driver "${BUILD:-build}/pyre_driver" \
        --cases 3000 --seed 1
    suite integration bash tests/integration/run.sh "${BUILD:-build}"
    suite hostile bash tests/integration/hostile.sh "${BUILD:-build}"
    suite build bash tests/integration/build.sh "${BUILD:-build}"
    # hostile nights, round 3 (issue 24): one file of cases per area
    suite round3 bash tests/integration/round3.sh "${BUILD:-build}"
    # hostile nights, round 4 (issue 33)
    suite round4 bash tests/integration/round4.sh "${BUILD:-build}"
    suite slurm bash tests/slurm/run.sh "${BUILD:-build}"
    # the report: the study's counts read back from REPORT.md, and the
    # cover rendered (rsvg-convert) with every cell's colour read
    suite reconstruct python3 tests/report/reconstruct_test.py "${BUILD:-build}/graveyard"
    suite cover python3 tests/report/cover_test.py "${BUILD:-build}/graveyard"
    # pareto.svg: points where report.json's figures put them, the fronts
    suite pareto python3 tests/report/pareto_test.py "${BUILD:-build}/graveyard"
    # the pages in Debian's chromium, headless, through selenium and
    # chromedriver (Debian's python3-selenium, for /usr/bin/python3); the
    # screenshots land in $BUILD/tests/page-shots for a person to look at
    suite page /usr/bin/python3 tests/browser/page_test.py "${BUILD:-build}/graveyard"
    # the split view (issue 26) on a page test_render_probs builds
    suite probs-page /usr/bin/python3 tests/browser/probs_test.py "${BUILD:-build}"
    # lm-eval's rules, differentially against a transcription of its code
    suite rules python3 tests/tasks/rule_diff.py "${BUILD:-build}/rule_driver"
    # the schemas need Debian's python3-jsonschema, for /usr/bin/python3
    suite schemas /usr/bin/python3 tests/schemas/validate.py
fi
echo "check: $passed passed, $failed failed"
[ $failed -eq 0 ]
