#!/bin/sh
# Run each fuzzer for a bounded time, seeded with the golden rows.
# Usage: run.sh BUILD_DIR SECONDS
set -eu
build=$1 secs=$2
for f in extract rows rowscan sse; do
    corpus=$build/corpus-$f
    mkdir -p "$corpus"
    # seeds: every golden row, one per file, and a few bare answers
    i=0
    for rows in tests/golden/data/*/rows/*.jsonl; do
        while IFS= read -r line; do
            i=$((i + 1))
            printf '%s\n' "$line" >"$corpus/seed-$i"
        done <"$rows"
    done
    printf 'Answer: **$1,234.50**.' >"$corpus/seed-answer"
    printf 'data: {"choices":[{"delta":{"content":"Answer: 1"}}]}\r\n\r\n: ping\n\ndata: [DONE]\n\n' \
        >"$corpus/seed-sse"
    echo "fuzz_$f: $secs s"
    "$build/fuzz_$f" -max_total_time="$secs" -max_len=4096 \
        -artifact_prefix="$build/" \
        -print_final_stats=1 "$corpus" 2>"$build/fuzz_$f.log" || {
        tail -40 "$build/fuzz_$f.log"; exit 1; }
    grep -E 'stat::number_of_executed_units|stat::peak_rss_mb' \
        "$build/fuzz_$f.log" | sed "s/^/fuzz_$f: /"
done
