#!/bin/bash
# Run every test: the unit binaries given as arguments, then the suites:
# the structure checks on planted breaches, the golden case folders
# against $BUILD/graveyard, the regular expressions against Python's re,
# graveyard run against the fake llama-server, the hostile nights (kills,
# floods, hung tools, a full disk, planted links), the integration cases
# one suite per area (tests/integration/areas: endpoint, publish, ...),
# graveyard build on the fake tools, the Slurm job array, the report's
# reconstruction, cover and pareto tests, the pages in a headless
# browser, then the JSON Schema checks. Ends with one line that CI reads: "check: N passed, M failed".
#
# CHECK_SKIP names suites not to start ("guards formats"): .ci/run's
# sanitized pass skips the two that test the tree's scripts, not the
# build's code, which its plain pass ran; each is said, never silent.
#
# The suites run side by side, CHECK_JOBS at a time (default: the cores),
# longest first: most of their time is spent waiting on servers and
# signals, not on a core, so two lanes on two cores take about half the
# time of one. Each suite has its own work folder, its own ports (the
# kernel's) and scopes every process it looks for to that folder, so none
# sees another's. Each suite's output is printed whole as it ends, with
# its time.
set -u
unit_only=0
if [ "${1:-}" = "--unit-only" ]; then unit_only=1; shift; fi
B=${BUILD:-build}
jobs=${CHECK_JOBS:-$(nproc 2>/dev/null || echo 2)}
out=$(mktemp -d)
trap 'rm -rf "$out"' EXIT
passed=0 failed=0

# The unit binaries, as one suite: "unit: N passed, M failed".
units() {
    local t o rc n f up=0 uf=0
    for t in "$@"; do
        o=$("$t" 2>&1); rc=$?
        # the last summary line each: a binary that printed two (a
        # forked child that carried on) is a failure below, never a
        # broken sum that ends the suite without a status
        n=$(printf '%s\n' "$o" | sed -n 's/^\[  PASSED  \] \([0-9]*\) test.*/\1/p' | tail -1)
        f=$(printf '%s\n' "$o" | sed -n 's/^\[  FAILED  \] \([0-9]*\) test.*/\1/p' | tail -1)
        [ "$(printf '%s\n' "$o" | grep -c '^\[==========\] [0-9]* test(s) run')" -le 1 ] || f=${f:-1}
        up=$((up + ${n:-0}))
        if [ $rc -ne 0 ] || [ -n "$f" ]; then
            printf '%s\n' "$o"
            uf=$((uf + ${f:-1}))
            echo "FAIL $t"
        else
            echo "ok   $t (${n:-0} tests)"
            # what a passing test left out, and why (a clone without
            # ../shared beside it): said, not hidden with the rest
            printf '%s\n' "$o" | sed -n 's/^skip: /     skip: /p'
        fi
    done
    echo "unit: $up passed, $uf failed"
}

names=() told=" " skipped=" "
# Start suite NAME (a command that ends with "NAME: N passed, M failed")
# once fewer than $jobs run; its output, seconds and status go to $out
# (the status last: the suite's end).
start() {
    local name=$1
    shift
    case " ${CHECK_SKIP:-} " in *" $name "*)
        echo "skip $name (CHECK_SKIP)"
        skipped="$skipped$name "
        return ;;
    esac
    while [ "$(jobs -rp | wc -l)" -ge "$jobs" ]; do
        wait -n
        drain
    done
    names+=("$name")
    (
        t0=$(date +%s)
        "$@" >"$out/$name.out" 2>&1
        rc=$?
        echo $(($(date +%s) - t0)) >"$out/$name.time"
        echo $rc >"$out/$name.rc"
    ) &
}

# A suite's lines, its time, and its counts added up: a suite that
# failed without saying how many counts as one failure.
tally() {
    local name=$1 o rc n f
    o=$(cat "$out/$name.out")
    rc=$(cat "$out/$name.rc" 2>/dev/null || echo 1)
    printf '%s\n' "$o"
    echo "time $name: $(cat "$out/$name.time" 2>/dev/null || echo '?') s"
    n=$(printf '%s\n' "$o" | sed -n "s/^$name: \([0-9]*\) passed, \([0-9]*\) failed\$/\1/p")
    f=$(printf '%s\n' "$o" | sed -n "s/^$name: \([0-9]*\) passed, \([0-9]*\) failed\$/\2/p")
    passed=$((passed + ${n:-0}))
    failed=$((failed + ${f:-0}))
    if [ "$rc" -ne 0 ] && [ "${f:-0}" -eq 0 ]; then failed=$((failed + 1)); fi
}

# Tell every suite that has ended and was not told yet.
drain() {
    local name
    for name in "${names[@]}"; do
        case $told in *" $name "*) continue ;; esac
        [ -e "$out/$name.rc" ] || continue
        tally "$name"
        told="$told$name "
    done
}

# Start the integration cases of each AREA (tests/integration/areas/
# AREA.sh) as the suite AREA; an area's name is not another suite's.
started=" "
areas() {
    local a
    for a in "$@"; do
        [ -e "tests/integration/areas/$a.sh" ] || continue
        started="$started$a "
        start "$a" bash tests/integration/cases.sh --area "$a" "$B"
    done
}

if [ $unit_only -eq 1 ]; then
    jobs=1
    start unit units "$@"
else
    # longest first, so that the lanes end together (the times of
    # docs/testing.md); the integration cases one suite per area
    start integration bash tests/integration/run.sh "$B"
    # the structure checks on the breaches they guard, planted in copies
    # of the archives and the sources (check-edges, check-rooms,
    # check-lines, check-tests-map)
    start guards sh tests/guards/run.sh "$B" \
        "${GUARDS_CC:-cc -std=c11 -D_POSIX_C_SOURCE=200809L}"
    areas publish grader
    start hostile bash tests/integration/hostile.sh "$B"
    # the pages in Debian's chromium, headless, through selenium and
    # chromedriver (Debian's python3-selenium, for /usr/bin/python3); the
    # screenshots land in $BUILD/tests/page-shots for a person to look at
    start page /usr/bin/python3 tests/browser/page_test.py "$B/graveyard"
    areas endpoint
    start build bash tests/integration/build.sh "$B"
    start unit units "$@"
    areas loop probs power procs
    # make check-formats' check on a scratch tree, a breach planted at a
    # time (each refused naming its file and line)
    start formats sh tests/formats/run.sh
    areas rebuild signals
    # pareto.svg: points where report.json's figures put them, the fronts
    start pareto python3 tests/report/pareto_test.py "$B/graveyard"
    # depth.svg: each cell the rows' dead of answered, empty cells empty
    start depth python3 tests/report/depth_test.py "$B/graveyard"
    areas config settings runner paths
    start slurm bash tests/slurm/run.sh "$B"
    areas import vocab tensors verdict report
    start golden sh tests/golden/run.sh "$B/graveyard"
    # README's examples marked "# after make demo" against a demo of its own
    start readme sh tests/readme/run.sh "$B"
    # make install into a scratch DESTDIR: the demo from another folder,
    # the man page, bash completion, uninstall
    start install sh tests/install/run.sh "$B"
    # the regular expressions against Python's re: 3,000 random cases
    # (make pyre-diff runs more)
    start pyre python3 tests/pyre/diff.py --driver "$B/pyre_driver" \
        --cases 3000 --seed 1
    # the split view (issue 26) on a page test_report_probs builds
    start probs-page /usr/bin/python3 tests/browser/probs_test.py "$B"
    # the tool-call view (issue 37) on a ladder of tool items it runs
    start calls-page /usr/bin/python3 tests/browser/calls_test.py "$B"
    # the code view (issue 38) on a code ladder it runs in the sandbox
    start code-page /usr/bin/python3 tests/browser/code_test.py "$B"
    # the duels (issue 39) on a page test_report_page_duels builds
    start duel-page /usr/bin/python3 tests/browser/duel_test.py "$B"
    # the report: the study's counts read back from REPORT.md, and the
    # cover rendered (rsvg-convert) with every cell's colour read
    start cover python3 tests/report/cover_test.py "$B/graveyard"
    start reconstruct python3 tests/report/reconstruct_test.py "$B/graveyard"
    # lm-eval's rules, differentially against a transcription of its code
    start rules python3 tests/tasks/rule_diff.py "$B/rule_driver"
    # lm-eval's RULER scorers, copied, on 500+ canned replies
    start ruler /usr/bin/python3 tests/tasks/ruler_diff.py "$B/rule_driver"
    # tool calls: BFCL's own AST checker's committed verdicts on 300+
    # canned cases (tests/tools/bfcl_fixture.py), graveyard's against them
    start bfcl python3 tests/tools/bfcl_diff.py "$B/toolcall_driver"
    # the long-context items made again by a Python port of their docs
    start haystack-port /usr/bin/python3 tests/tasks/haystack_port.py \
        "$B/haystack_driver"
    # the schemas need Debian's python3-jsonschema, for /usr/bin/python3
    start schemas /usr/bin/python3 tests/schemas/validate.py
    # an area not placed above (a new one): last
    for f in tests/integration/areas/*.sh; do
        a=$(basename "$f" .sh)
        case $started in *" $a "*) ;; *) areas "$a" ;; esac
    done
fi
wait
drain
# a suite that never wrote its status (killed with its shell, say) was
# never counted: it fails, by name, rather than vanish from the total
for name in "${names[@]}"; do
    case $told in *" $name "*) continue ;; esac
    echo "FAIL $name: ended without a status; its output:"
    cat "$out/$name.out" 2>/dev/null
    failed=$((failed + 1))
done
# a name in CHECK_SKIP that is no suite (a typo) skips nothing: said
[ $unit_only -eq 1 ] || for name in ${CHECK_SKIP:-}; do
    case $skipped in *" $name "*) continue ;; esac
    echo "FAIL CHECK_SKIP names '$name', which is no suite"
    failed=$((failed + 1))
done
echo "check: $passed passed, $failed failed"
[ $failed -eq 0 ]
