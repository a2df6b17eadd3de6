#!/bin/sh
# Replay every input that once broke a fuzzer (tests/fuzz/regressions/
# NAME/: commit each crash there), then run each fuzzer for a bounded
# time, seeded with the golden rows, those inputs and tests/fuzz/seeds/
# NAME/ (real streams: upstream's chunks with logprobs, for fuzz_sse;
# bundles made by graveyard publish and hostile headers, for fuzz_tar:
# tests/fuzz/make_tar_seeds.py).
# Usage: run.sh BUILD_DIR SECONDS
set -eu
build=$1 secs=$2
for f in extract rows rowscan sse safetensors gguf page pyre tar toolcall; do
    set -- tests/fuzz/regressions/$f/*
    if [ -e "$1" ]; then
        echo "fuzz_$f: replaying $# regression input(s)"
        "$build/fuzz_$f" "$@" >"$build/fuzz_$f.replay.log" 2>&1 || {
            tail -40 "$build/fuzz_$f.replay.log"; exit 1; }
    fi
done
for f in extract rows rowscan sse safetensors gguf page pyre tar toolcall; do
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
    for r in tests/fuzz/regressions/$f/* tests/fuzz/seeds/$f/*; do
        [ -e "$r" ] && cp "$r" "$corpus/"
    done
    printf 'Answer: **$1,234.50**.' >"$corpus/seed-answer"
    # tables: a small safetensors file and a small GGUF, to mutate
    printf '\067\000\000\000\000\000\000\000{"w":{"dtype":"BF16","shape":[2],"data_offsets":[0,4]}}\000\000\000\000' \
        >"$corpus/seed-st"
    printf 'GGUF\003\000\000\000\001\000\000\000\000\000\000\000\001\000\000\000\000\000\000\000\021\000\000\000\000\000\000\000general.alignment\004\000\000\000\040\000\000\000\001\000\000\000\000\000\000\000w\001\000\000\000\002\000\000\000\000\000\000\000\036\000\000\000\000\000\000\000\000\000\000\000\000\000\000\000\000\000\000\000\000\000\000\000' \
        >"$corpus/seed-gguf"
    printf 'data: {"choices":[{"delta":{"content":"Answer: 1"}}]}\r\n\r\n: ping\n\ndata: [DONE]\n\n' \
        >"$corpus/seed-sse"
    # regular expressions: flags byte, pattern, NUL, text (fuzz_pyre.c)
    printf '\000(-?[$0-9.,]{2,})|(-?[0-9]+)\000Between 3-4 days' \
        >"$corpus/seed-re-flexible"
    printf '\000(?s).*#### \000She sold\n1,072 clips.\n#### 1,072' \
        >"$corpus/seed-re-ignore"
    printf '\001(a|b)*?(?=c)(?P<x>\\w+)\\s*$\000abc ab\n\303\251' \
        >"$corpus/seed-re-groups"
    # the page's Markdown: a report and a comparison as graveyard writes them
    cp tests/golden/cases/report-t4/files/data/t4/REPORT.md "$corpus/seed-md"
    cp tests/golden/cases/compare-t4-l4/files/cmp/COMPARE.md "$corpus/seed-cmp" \
        2>/dev/null || true
    # a bundle's tar.gz is tens of KiB: fuzz_tar's seeds are real ones
    maxlen=4096
    [ "$f" = tar ] && maxlen=131072
    echo "fuzz_$f: $secs s"
    "$build/fuzz_$f" -max_total_time="$secs" -max_len=$maxlen \
        -artifact_prefix="$build/" \
        -print_final_stats=1 "$corpus" 2>"$build/fuzz_$f.log" || {
        tail -40 "$build/fuzz_$f.log"; exit 1; }
    grep -E 'stat::number_of_executed_units|stat::peak_rss_mb' \
        "$build/fuzz_$f.log" | sed "s/^/fuzz_$f: /"
done
