#!/bin/sh
# The demo: grade a small ladder whose rows the project ships (the golden
# tests' run folder), as a user grades a real one. Usage: demo.sh GRAVEYARD
set -eu
bin=$1
run=runs/demo
rm -rf "$run" "$run-again"
mkdir -p runs
cp -r tests/golden/data/ladder "$run"
cp -r tests/golden/data/ladder-again "$run-again"
say() { printf '\n== %s\n$ %s\n' "$1" "$2"; }

say "bury: each rung against BF16, question by question" \
    "graveyard bury $run BF16 Q8_0 Q4_0 Q2_K"
"$bin" bury "$run" BF16 Q8_0 Q4_0 Q2_K
echo "(per-question tombstones and ghosts: $run/graveyard.json)"

say "autopsy: how each rung's answers fail" \
    "graveyard autopsy $run BF16 Q8_0 Q4_0 Q2_K"
"$bin" autopsy "$run" BF16 Q8_0 Q4_0 Q2_K

say "a side rung (QAT Q4_0) buried beside the ladder, in its own file" \
    "graveyard bury $run BF16 QAT_Q4_0 Q4_0 --json $run/graveyard-qat.json"
"$bin" bury "$run" BF16 QAT_Q4_0 Q4_0 --json "$run/graveyard-qat.json"

say "repeat: a second run of two rungs, compared question by question" \
    "graveyard repeat $run $run-again Q4_0 Q8_0"
"$bin" repeat "$run" "$run-again" Q4_0 Q8_0

printf '\nThe rows are in %s/rows/; docs/rows.md explains them.\n' "$run"
