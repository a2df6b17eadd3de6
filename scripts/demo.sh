#!/bin/sh
# The demo: build the ladder of configs/demo-build.json from a made-up
# checkpoint with the fake converter and llama-quantize, run its six rungs
# on the fake llama-server (no GPU, no model download), then bury,
# autopsy and repeat it and write its report, as a user does with a real
# one.
# Usage: demo.sh BUILD_DIR
set -eu
build=$1
run=runs/demo
d=configs/demo
m=$run/models # where configs/demo-build.json puts the files it makes
rm -rf "$run" "$run-lm-eval" "$run-choice"
mkdir -p runs
say() { printf '\n== %s\n$ %s\n' "$1" "$2"; }

say "build: BF16 and F16 converted from the checkpoint, three rungs quantized from BF16" \
    "graveyard build configs/demo-build.json --jobs 2"
"$build/graveyard" build configs/demo-build.json --jobs 2
echo "(what was made, as run and verify read it: $run/ladder.tsv; how: $run/build.json; logs: $run/build/)"
column -t -s "$(printf '\t')" "$run/ladder.tsv" 2>/dev/null || cat "$run/ladder.tsv"

say "f16-range: what the F16 rung's cast cost, counted before it was made" \
    "tail -1 $run/f16-range.jsonl"
tail -1 "$run/f16-range.jsonl"

say "build again: every file is there, made with the config's recipe: no tool runs" \
    "graveyard build configs/demo-build.json"
"$build/graveyard" build configs/demo-build.json

say "ladder: six rungs, each on its own llama-server, on two fake GPUs, then bury" \
    "graveyard ladder configs/demo-build.json"
"$build/graveyard" ladder configs/demo-build.json \
    --llama "$build/fake-llama-server"
echo "(per-question tombstones and ghosts: $run/graveyard.json and graveyard-side.json)"

say "autopsy: how each rung's answers fail" \
    "graveyard autopsy $run BF16 F16 Q8_0 Q4_0 Q2_K"
"$build/graveyard" autopsy "$run" BF16 F16 Q8_0 Q4_0 Q2_K

say "the QAT side rung beside the plain Q4_0, in a file of its own" \
    "graveyard bury $run BF16 QAT_Q4_0 Q4_0 --json $run/graveyard-qat.json"
"$build/graveyard" bury "$run" BF16 QAT_Q4_0 Q4_0 --json "$run/graveyard-qat.json"

say "duel: the QAT Q4_0 against the plain Q4_0, answer by answer, and where each file came from" \
    "graveyard duel $run Q4_0 QAT_Q4_0"
"$build/graveyard" duel "$run" Q4_0 QAT_Q4_0

say "repeat: Q4_0 run again, compared question by question" \
    "graveyard run Q4_0 ... $run/repeat && graveyard repeat $run $run/repeat Q4_0"
"$build/graveyard" run Q4_0 "$m/demo-Q4_0.gguf" "$d/questions.jsonl" "$run/repeat" \
    --llama "$build/fake-llama-server" --quiet >/dev/null
"$build/graveyard" repeat "$run" "$run/repeat" Q4_0

say "resume: a finished rung prints its summary and starts no server" \
    "graveyard run Q4_0 $m/demo-Q4_0.gguf $d/questions.jsonl $run --llama ..."
"$build/graveyard" run Q4_0 "$m/demo-Q4_0.gguf" "$d/questions.jsonl" "$run" \
    --llama "$build/fake-llama-server"

say "the report: REPORT.md, REPORT.html, cover.svg, pareto.svg and report.json, now with the repeat" \
    "graveyard report $run"
"$build/graveyard" report "$run"
echo "(the ladder table of $run/REPORT.md:)"
sed -n '/^## The ladder/,/^Dead:/p' "$run/REPORT.md" | sed '1d;$d'
say "export: each rung's answers as Every Eval Ever records (docs/export.md)" \
    "graveyard export --eee $run --out $run/eee --model demo/made-up"
"$build/graveyard" export --eee "$run" --out "$run/eee" --model demo/made-up >/dev/null
find "$run/eee" -type f | sort | sed -n '1,4p'

say "tasks: BF16 and Q4_0 asked lm-eval's gsm8k prompt, graded by both of its rules (docs/tasks.md)" \
    "graveyard run BF16 ... --task lm-eval-gsm8k && graveyard report $run-lm-eval"
for r in BF16 Q4_0; do
    "$build/graveyard" run $r "$m/demo-$r.gguf" "$d/questions.jsonl" "$run-lm-eval" \
        --llama "$build/fake-llama-server" --task lm-eval-gsm8k --quiet >/dev/null
done
"$build/graveyard" report "$run-lm-eval" --rungs BF16,Q4_0 --no-html >/dev/null
echo "(replies that end in \"Answer: N\" have no \"#### N\": strict-match reads none of them)"
sed -n '/^| Rung | strict-match/,/^$/p' "$run-lm-eval/REPORT.md"

say "multiple choice: the shipped questions (data/choice/tiny.jsonl), a letter each" \
    "graveyard run MC $d/choice.gguf data/choice/tiny.jsonl $run-choice --task choice"
"$build/graveyard" run MC "$d/choice.gguf" data/choice/tiny.jsonl "$run-choice" \
    --llama "$build/fake-llama-server" --task choice --quiet

say "a ladder of settings: one file with KV cache q8_0 and q4_0, flash attention and a draft model (docs/config.md)" \
    "graveyard ladder configs/settings.json"
rm -rf runs/settings-ladder
"$build/graveyard" ladder configs/settings.json --llama "$build/fake-llama-server" --quiet >/dev/null
sed -n '/^## The ladder/,/^Dead:/p' runs/settings-ladder/REPORT.md | sed '1d;$d' | cut -d'|' -f1-5
sed -n '/^## Speculative decoding/,/^A speculative/p' runs/settings-ladder/REPORT.md | sed '1,2d;$d'

printf '\nRows: %s/rows/ (docs/rows.md). Report: %s/REPORT.md, cover.svg and pareto.svg. Every answer, in a browser: %s/REPORT.html (docs/page.md). Tombstones: %s/graveyard.json. Server logs: %s/logs/.\n' \
    "$run" "$run" "$run" "$run" "$run"
