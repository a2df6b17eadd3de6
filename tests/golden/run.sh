#!/bin/sh
# Golden case folders: rows in, expected output out (curl tests/data,
# jansson test/suites). Usage: run.sh GRAVEYARD [CASE...]
#
# Each tests/golden/cases/<case>/ holds:
#   cmd      the arguments to graveyard, one line, run from a scratch folder
#            that holds a copy of tests/golden/data/ as data/
#   rc       the expected exit status
#   stdout   the expected standard output (exactly)
#   stderr   the expected standard error (optional; exactly)
#   files/   files the command must leave, by path in the scratch folder
#   absent   paths that must not exist afterwards, one a line (optional)
# No case may leave a temporary file behind. UPDATE=1 rewrites stdout,
# stderr and rc from what the binary does now, and UPDATE=files the
# files/ a case already lists too: read the diff before committing it.
#
# Tests: orchestrator/cmd/main.c
# Tests: orchestrator/cmd/cmd_grade.c
# Tests: orchestrator/cmd/cmd_report.c
# Tests: orchestrator/cmd/cmd_import.c
# Tests: orchestrator/cmd/import.c
# Tests: orchestrator/cmd/import_task.c
# Tests: orchestrator/cmd/import_write.c
# Tests: orchestrator/figures/pages.c
# Tests: grader/bury.c
# Tests: grader/ladder.c
# Tests: grader/compare.c
# Tests: grader/repeat.c
# Tests: grader/think.c
# Tests: grader/error.c
# Tests: grader/pick.c
# Tests: report/md.c
# Tests: report/md_compare.c
# Tests: report/md_cost.c
# Tests: report/md_settings.c
# Tests: report/md_verdict.c
# Tests: report/json.c
# Tests: report/emit.c
set -u
bin=$(cd "$(dirname "$1")" && pwd)/$(basename "$1")
shift
here=$(cd "$(dirname "$0")" && pwd)
cases=${*:-$(ls "$here/cases")}
passed=0 failed=0
for c in $cases; do
    dir=$here/cases/$c
    work=$(mktemp -d)
    cp -r "$here/data" "$work/data"
    ok=1
    # shellcheck disable=SC2046
    (cd "$work" && timeout 60 "$bin" $(cat "$dir/cmd") \
        >"$work/.stdout" 2>"$work/.stderr"; echo $? >"$work/.rc")
    if [ "${UPDATE:-0}" = files ] && [ -d "$dir/files" ]; then
        for f in $(cd "$dir/files" && find . -type f); do
            if [ -f "$work/$f" ]; then cp "$work/$f" "$dir/files/$f"; fi
        done
    fi
    if [ "${UPDATE:-0}" = 1 ] || [ "${UPDATE:-0}" = files ]; then
        cp "$work/.stdout" "$dir/stdout"; cp "$work/.rc" "$dir/rc"
        if [ -s "$work/.stderr" ]; then cp "$work/.stderr" "$dir/stderr"; fi
    fi
    if ! cmp -s "$work/.rc" "$dir/rc"; then
        echo "golden $c: exit status $(cat "$work/.rc"), expected $(cat "$dir/rc")"
        ok=0
    fi
    if ! diff -u "$dir/stdout" "$work/.stdout" >"$work/.diff"; then
        echo "golden $c: stdout differs:"; cat "$work/.diff"; ok=0
    fi
    if [ -f "$dir/stderr" ] && ! diff -u "$dir/stderr" "$work/.stderr" >"$work/.diff"; then
        echo "golden $c: stderr differs:"; cat "$work/.diff"; ok=0
    fi
    if [ -d "$dir/files" ]; then
        for f in $(cd "$dir/files" && find . -type f); do
            if ! diff -u "$dir/files/$f" "$work/$f" >"$work/.diff" 2>&1; then
                echo "golden $c: $f differs:"; cat "$work/.diff"; ok=0
            fi
        done
    fi
    if [ -f "$dir/absent" ]; then
        while read -r f; do
            if [ -e "$work/$f" ]; then echo "golden $c: $f was written"; ok=0; fi
        done <"$dir/absent"
    fi
    if [ -n "$(find "$work/data" -name '*.tmp.*')" ]; then
        echo "golden $c: temporary files left behind"; ok=0
    fi
    if [ $ok = 1 ]; then passed=$((passed + 1)); echo "ok   golden $c"
    else failed=$((failed + 1)); echo "FAIL golden $c"; fi
    rm -rf "$work"
done
echo "golden: $passed passed, $failed failed"
[ $failed = 0 ]
