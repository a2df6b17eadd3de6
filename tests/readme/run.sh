#!/bin/sh
# README's examples against the demo: each line of README.md of the form
#   $ graveyard ARGS...      # after make demo
# is run (graveyard being BUILD/graveyard) in a scratch copy of the demo,
# made by scripts/demo.sh as `make demo` makes it, and its stdout must be
# the lines that follow it in the README, up to the closing ``` (a README
# example that drifts from what the demo prints fails here). Ends with
# "readme: N passed, M failed".
# Usage: run.sh BUILD
set -u
build=$(cd "$1" && pwd)
here=$(cd "$(dirname "$0")/../.." && pwd)
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
passed=0 failed=0

# the demo's inputs, and the build as the demo finds it
mkdir -p "$tmp/demo/tests"
cp -r "$here/configs" "$here/data" "$here/scripts" "$tmp/demo/"
cp -r "$here/tests/fake-tools" "$tmp/demo/tests/"
ln -s "$build" "$tmp/demo/build"
if ! (cd "$tmp/demo" && timeout -k 5 300 sh scripts/demo.sh build) \
    >"$tmp/demo.log" 2>&1; then
    echo "FAIL readme: the demo did not run"
    tail -20 "$tmp/demo.log"
    echo "readme: 0 passed, 1 failed"
    exit 1
fi

# each example: its line number, its arguments; then the lines after it
grep -n '^\$ graveyard .*# after make demo$' "$here/README.md" >"$tmp/examples"
if [ ! -s "$tmp/examples" ]; then
    echo "FAIL readme: no example marked '# after make demo' in README.md"
    echo "readme: 0 passed, 1 failed"
    exit 1
fi
while IFS= read -r ex; do
    line=${ex%%:*}
    args=$(printf '%s\n' "${ex#*:}" | sed 's/^\$ graveyard //; s/ *# after make demo$//')
    awk -v from="$line" 'NR > from { if ($0 ~ /^```/) exit; print }' \
        "$here/README.md" >"$tmp/want"
    # shellcheck disable=SC2086
    (cd "$tmp/demo" && timeout -k 5 60 build/graveyard $args) \
        >"$tmp/got" 2>"$tmp/err"
    if cmp -s "$tmp/want" "$tmp/got"; then
        passed=$((passed + 1))
        echo "ok   readme README.md:$line graveyard $args"
    else
        failed=$((failed + 1))
        echo "FAIL readme README.md:$line graveyard $args: the demo prints otherwise"
        diff "$tmp/want" "$tmp/got" | head -20
        sed 's/^/     /' "$tmp/err" | head -5
    fi
done <"$tmp/examples"
echo "readme: $passed passed, $failed failed"
[ "$failed" -eq 0 ]
