#!/bin/sh
# check-tests-map: every product module (a .c file of orchestrator/,
# grader/, rundir/, report/, pyre/, weights/, util/) is named by some
# test, and docs/testing.md's module map says which. A test names what it
# tests near its top, one line per module, path from the repo root:
#     * Tests: orchestrator/forge/buildstep.c      (C)
#     # Tests: orchestrator/cmd/cmd_publish.c      (shell, Python)
# Every file under tests/ is read for such lines. Fails naming each
# module no test names, and each Tests: line that names no product
# module (a file renamed or gone). Then the table between the markers
# of docs/testing.md ("Which test tests what") must be what the lines
# give: `make tests-map` (--write) writes it.
# Usage: check-tests-map.sh [--write]
set -eu
cd "$(dirname "$0")/.."
write=0
[ "${1:-}" = --write ] && write=1
doc=docs/testing.md
begin='<!-- tests-map: begin (make tests-map writes this table) -->'
end='<!-- tests-map: end -->'
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
LC_ALL=C
export LC_ALL

find orchestrator grader rundir report pyre haystack toolcall weights util -name '*.c' \
    -type f | sort >"$tmp/modules"
# "TEST MODULE" for each module a Tests: line under tests/ names (C
# comments, shell and Python ones; several on a line, spaces between),
# TEST its path without tests/
grep -rlE '^[[:space:]]*(\*|#|//)?[[:space:]]*Tests:' tests | sort |
    while read -r f; do
        awk -v t="${f#tests/}" '
            /^[ \t]*(\*|#|\/\/)?[ \t]*Tests:/ {
                sub(/^[ \t]*(\*|#|\/\/)?[ \t]*Tests:/, "")
                for (i = 1; i <= NF; i++) print t, $i
            }' "$f"
    done | sort -u >"$tmp/pairs"

bad=0
# a Tests: line naming no product module
awk '{ print $2 }' "$tmp/pairs" | sort -u | comm -23 - "$tmp/modules" >"$tmp/stray"
while read -r m; do
    t=$(awk -v m="$m" '$2 == m { print "tests/" $1 }' "$tmp/pairs" | head -n 1)
    echo "check-tests-map: '$t' says Tests: '$m', which is no product module (a .c of orchestrator/, grader/, rundir/, report/, pyre/, haystack/, toolcall/, weights/ or util/)" >&2
    bad=1
done <"$tmp/stray"
# a module no test names
awk '{ print $2 }' "$tmp/pairs" | sort -u | comm -13 - "$tmp/modules" >"$tmp/untested"
while read -r m; do
    echo "check-tests-map: '$m' is named by no test: add ' * Tests: $m' (or '# Tests: $m') to the test that tests it" >&2
    bad=1
done <"$tmp/untested"

# the table: one row a module, its tests in the order of their paths
{
    echo "$begin"
    echo ""
    echo "| module | tested by (under tests/) |"
    echo "|---|---|"
    while read -r m; do
        t=$(awk -v m="$m" '$2 == m { printf "%s%s", sep, $1; sep = ", " }' "$tmp/pairs")
        echo "| $m | ${t:--} |"
    done <"$tmp/modules"
    echo ""
    echo "$end"
} >"$tmp/table"
n_begin=$(grep -cxF -- "$begin" "$doc" || true)
n_end=$(grep -cxF -- "$end" "$doc" || true)
if [ "$n_begin" != 1 ] || [ "$n_end" != 1 ]; then
    echo "check-tests-map: '$doc' needs one line '$begin' and one '$end' (it has $n_begin and $n_end)" >&2
    exit 1
fi
awk -v b="$begin" -v e="$end" -v t="$tmp/table" '
    $0 == b { while ((getline l < t) > 0) print l; skip = 1; next }
    $0 == e { skip = 0; next }
    !skip' "$doc" >"$tmp/doc"
if [ $write = 1 ]; then
    cmp -s "$tmp/doc" "$doc" || cat "$tmp/doc" >"$doc"
    echo "tests-map: '$doc' lists $(wc -l <"$tmp/modules" | tr -d ' ') modules and their tests"
elif ! cmp -s "$tmp/doc" "$doc"; then
    echo "check-tests-map: the module map in '$doc' is not what the tests' Tests: lines say: run make tests-map" >&2
    diff "$doc" "$tmp/doc" | sed -n '2,7p' | sed 's/^/  /' >&2
    bad=1
fi
[ $bad = 0 ] || exit 1
[ $write = 1 ] ||
    echo "check-tests-map: $(wc -l <"$tmp/modules" | tr -d ' ') modules, each named by a test's Tests: line ($(wc -l <"$tmp/pairs" | tr -d ' ') in $(cut -d' ' -f1 "$tmp/pairs" | sort -u | wc -l | tr -d ' ') files); '$doc' maps them"
