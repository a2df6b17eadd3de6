#!/bin/sh
# check-lines: no product file over 800 lines (STYLE.md, libuv's limit):
# every .c and .h under grader/ pyre/ report/ orchestrator/ rundir/ util/
# weights/ (report/assets/embed.c, the build's tool, included). A file
# past the limit is split where it has a name for each part, or named in
# scripts/lines.exceptions with its reason; an exception that is no
# longer over the limit, or names no file, fails too, so the list only
# shrinks. tests/ is not held to it (docs/testing.md says why).
# Usage: check-lines.sh
set -eu
cd "$(dirname "$0")/.."
max=800
list=scripts/lines.exceptions
[ -r "$list" ] || { echo "check-lines: cannot read '$list'" >&2; exit 1; }
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
# FILE and its reason, one a line; a line without a reason is refused
sed -e 's/#.*//' -e '/^[[:space:]]*$/d' "$list" >"$tmp/ex"
if awk 'NF < 2' "$tmp/ex" | grep . >"$tmp/bare"; then
    echo "check-lines: '$list' names a file without its reason:" >&2
    cat "$tmp/bare" >&2
    exit 1
fi
find grader pyre haystack toolcall report orchestrator rundir util weights -type f \
    -name '*.[ch]' | LC_ALL=C sort >"$tmp/files"
[ -s "$tmp/files" ] || { echo "check-lines: no product file found" >&2; exit 1; }
bad=0 n=0
while read -r f; do
    n=$((n + 1))
    lines=$(wc -l <"$f")
    [ "$lines" -gt $max ] || continue
    awk -v f="$f" '$1 == f { found = 1 } END { exit !found }' "$tmp/ex" && continue
    echo "check-lines: '$f' has $lines lines, over $max (split it, or name it in $list with the reason)" >&2
    bad=1
done <"$tmp/files"
while read -r f _; do
    if [ ! -f "$f" ]; then
        echo "check-lines: '$list' names '$f', which is no file" >&2
        bad=1
    elif [ "$(wc -l <"$f")" -le $max ]; then
        echo "check-lines: '$f' is within $max lines: take it out of '$list'" >&2
        bad=1
    fi
done <"$tmp/ex"
[ "$bad" = 0 ] || exit 1
echo "check-lines: $n product files, each within $max lines but the $(wc -l <"$tmp/ex") $list names"
