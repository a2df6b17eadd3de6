#!/bin/sh
# check-format: every product file laid out as .clang-format says (4
# spaces, 79 columns, the kernel's braces; STYLE.md), so that a diff shows
# what changed and never a re-wrap: the .c and .h files under grader/
# pyre/ report/ orchestrator/ rundir/ util/ weights/, and the fake server
# and tools the tests build (tests/fake-llama-server, tests/fake-tools),
# the files `make lint` formats. tests/unit and the other test drivers are
# not held to it yet (their case tables are laid out by hand).
# Usage: check-format.sh [ROOT]   (default: the checkout this script is in)
set -eu
root=${1:-$(dirname "$0")/..}
cd "$root"
command -v clang-format >/dev/null 2>&1 || {
    echo "check-format: clang-format is not installed (scripts/deps.sh)" >&2
    exit 2
}
[ -r .clang-format ] || { echo "check-format: no '.clang-format' in '$root'" >&2; exit 2; }
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
for d in grader pyre haystack toolcall report orchestrator rundir util weights \
    tests/fake-llama-server tests/fake-tools; do
    [ -d "$d" ] && find "$d" -type f -name '*.[ch]'
done | LC_ALL=C sort >"$tmp/files"
[ -s "$tmp/files" ] || { echo "check-format: no product file found" >&2; exit 1; }
n=$(wc -l <"$tmp/files")
# shellcheck disable=SC2046
if clang-format --dry-run --Werror $(cat "$tmp/files") >/dev/null 2>"$tmp/err"; then
    echo "check-format: $n files as .clang-format lays them out"
    exit 0
fi
echo "check-format: not as .clang-format lays them out (clang-format -i FILE):" >&2
# each file once, at its first line out of place
sed -n 's/^\([^:]*\):\([0-9]*\):[0-9]*: error: .*/\1:\2/p' "$tmp/err" |
    awk -F: '!seen[$1]++ { print "  " $0 }' >&2
echo "check-format: $(sed -n 's/^\([^:]*\):[0-9]*:[0-9]*: error: .*/\1/p' "$tmp/err" | sort -u | wc -l) of $n files" >&2
exit 1
