#!/bin/sh
# The function size gate: no function of graveyard's own code over 80
# statements or 150 lines (clang-tidy's readability-function-size, which
# counts statements in the AST, not lines of text). A long function is
# split where it has a name for each part; a function that must stay one
# piece says why in a NOLINT comment on its first line.
# Usage: check-size.sh "CFLAGS"  (the include flags of the libraries)
set -eu
cflags=$1
command -v clang-tidy >/dev/null || {
    echo "check-size: clang-tidy is not installed (sh scripts/deps.sh installs it)" >&2
    exit 1
}
out=$(mktemp)
trap 'rm -f "$out"' EXIT
# shellcheck disable=SC2086
clang-tidy --quiet --checks='-*,readability-function-size' \
    --config='{CheckOptions: [
        {key: readability-function-size.StatementThreshold, value: 80},
        {key: readability-function-size.LineThreshold, value: 150}]}' \
    grader/*.c pyre/*.c haystack/*.c toolcall/*.c report/*.c rundir/*.c util/*.c weights/*.c \
    orchestrator/*/*.c \
    -- -std=c11 -D_POSIX_C_SOURCE=200809L $cflags >"$out" 2>/dev/null || {
    echo "check-size: clang-tidy failed:" >&2
    cat "$out" >&2
    exit 1
}
if grep -q 'warning:' "$out"; then
    echo "check-size: functions over 80 statements or 150 lines:" >&2
    grep -E 'warning:|note: [0-9]+ (statements|lines)' "$out" | sed -e 's/ \[readability-function-size\]//' -e 's/ exceeds recommended size\/complexity thresholds//' >&2
    exit 1
fi
echo "check-size: every function is within 80 statements and 150 lines"
