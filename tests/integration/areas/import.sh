# Round 3, import (issue 24: G6, G16, and the import of real lm-eval logs).
# Sourced by tests/integration/cases.sh. Each case fails on b7f1902's import.
#
# Tests: orchestrator/cmd/cmd_import.c
# Tests: orchestrator/cmd/import.c
# Tests: orchestrator/cmd/import_task.c
# Tests: orchestrator/cmd/import_write.c

# G6: a reply past the row's escaped budget (9 MB of text, or 1.5 M
# control characters in the reasoning, 6 bytes each once escaped) is a
# too_long error row, as the runner writes one, so bury reads the rung.
case_import_too_long() {
    local rc
    /usr/bin/python3 - "$work" <<'PY'
import json, sys, copy
w = sys.argv[1]
case = {"status": "ok", "expected": "18", "answer": "18", "correct": True,
        "response": "x" * (9 << 20) + "\n\\boxed{18}", "reasoning_content": None,
        "tokens": 9, "tps_gen": 40.0, "problem_idx": 0}
ctl = dict(case, response="so \\boxed{18}", reasoning_content="\u0001" * 1500000, problem_idx=1)
fine = dict(case, response="\\boxed{7}", problem_idx=2, tps_gen=1e40)  # G3: a speed past reason
cases = {"gsm8k_000_0": case, "gsm8k_000_1": ctl, "gsm8k_000_2": fine}
json.dump({"id": "gsm8k", "tasks": list(cases), "task_states": {"cases": cases}},
          open(w + "/big-state.json", "w"))
ans = "So 18.\n#### 18"
with open(w + "/samples_gsm8k_2026-01-01T00-00-00.jsonl", "w") as f:
    for i, reply in enumerate(["y" * (9 << 20) + " #### 18", "#### 18"]):
        for flt, got in (("strict-match", "18"), ("flexible-extract", "18")):
            f.write(json.dumps({"doc_id": i, "doc": {"question": "q", "answer": ans},
                                "target": ans, "resps": [[reply]], "filtered_resps": [got],
                                "filter": flt, "exact_match": 1.0}) + "\n")
PY
    rc=0; $GT import llama-eval "$work/big-state.json" "$work/tl" LL >"$work/out" 2>"$work/err" || rc=$?
    [ $rc = 0 ] || fail "llama-eval import: exit $rc $(head -c 300 "$work/err")"
    [ "$(field "$work/tl/rows/LL.jsonl" test-0 error_kind)" = '"too_long"' ] || fail "the 9 MB reply is not too_long"
    [ "$(field "$work/tl/rows/LL.jsonl" test-1 error_kind)" = '"too_long"' ] || fail "the control characters are not too_long"
    [ "$(field "$work/tl/rows/LL.jsonl" test-2 error_kind)" = null ] || fail "a short reply was marked"
    [ "$(field "$work/tl/rows/LL.jsonl" test-2 decode_tps)" = null ] || fail "a speed of 1e40 was kept: $(field "$work/tl/rows/LL.jsonl" test-2 decode_tps)"
    rc=0; $G bury "$work/tl" LL >"$work/out" 2>"$work/err" || rc=$?
    [ $rc = 0 ] || fail "bury of the llama-eval import: exit $rc $(head -c 300 "$work/err")"
    rc=0; $GT import lm-eval "$work/samples_gsm8k_2026-01-01T00-00-00.jsonl" "$work/tm" LM >"$work/out" 2>"$work/err" || rc=$?
    [ $rc = 0 ] || fail "lm-eval import: exit $rc $(head -c 300 "$work/err")"
    [ "$(field "$work/tm/rows/LM.jsonl" test-0 error_kind)" = '"too_long"' ] || fail "the lm-eval 9 MB reply is not too_long"
    rc=0; $G bury "$work/tm" LM >"$work/out" 2>"$work/err" || rc=$?
    [ $rc = 0 ] || fail "bury of the lm-eval import: exit $rc $(head -c 300 "$work/err")"
}
area_cases="$area_cases import_too_long"

# G16: a gsm8k samples file that also holds gsm8k_cot records (other
# stop strings in their "arguments") is refused, nothing written.
case_import_mixed_tasks() {
    local f=$ROOT/tests/golden/data/imports rc
    { cat "$f/samples_gsm8k_2026-11-01T10-00-00.jsonl"
      sed 's/"doc_id": 0,/"doc_id": 5,/; s/"doc_id": 1,/"doc_id": 6,/' "$f/samples_gsm8k_cot_2026-11-01T10-00-00.jsonl"
    } >"$work/samples_gsm8k_2026-01-02T00-00-00.jsonl"
    rc=0; $GT import lm-eval "$work/samples_gsm8k_2026-01-02T00-00-00.jsonl" "$work/mx" LM >"$work/out" 2>"$work/err" || rc=$?
    [ $rc = 2 ] && grep -q "two tasks" "$work/err" || fail "a mixed file: exit $rc $(cat "$work/out" "$work/err")"
    [ "$(wc -l <"$work/err")" = 1 ] || fail "not one line: $(cat "$work/err")"
    [ ! -e "$work/mx/rows/LM.jsonl" ] || fail "a mixed file wrote rows"
    # the same doc_id and filter twice (a second task's records of the
    # same replies) is refused too
    { cat "$f/samples_gsm8k_2026-11-01T10-00-00.jsonl"; head -1 "$f/samples_gsm8k_2026-11-01T10-00-00.jsonl"; } >"$work/samples_gsm8k_2026-01-03T00-00-00.jsonl"
    rc=0; $GT import lm-eval "$work/samples_gsm8k_2026-01-03T00-00-00.jsonl" "$work/mx" LM >"$work/out" 2>"$work/err" || rc=$?
    [ $rc = 2 ] && grep -q "a second .strict-match. record" "$work/err" || fail "a filter twice: exit $rc $(cat "$work/out" "$work/err")"
}
area_cases="$area_cases import_mixed_tasks"

# Item 3: a reply logged past a stop string (a server that ignored the
# stops) is graded as logged, as lm-eval graded it: its flexible-extract
# is the last number of the whole reply, at import and in bury.
case_import_as_logged() {
    local rc
    /usr/bin/python3 - "$work" <<'PY'
import json, sys
w = sys.argv[1]
ans = "She makes $18.\n#### 18"
reply = " She makes $18.\n#### 18\n\nQuestion: Tom has 3 apples and eats 7"
with open(w + "/samples_gsm8k_2026-01-04T00-00-00.jsonl", "w") as f:
    for flt, got, em in (("strict-match", "18", 1.0), ("flexible-extract", "7", 0.0)):
        f.write(json.dumps({"doc_id": 0, "doc": {"question": "q", "answer": ans},
            "target": ans, "arguments": {"gen_args_0": {"arg_0": "Question: q\nAnswer:",
            "arg_1": {"until": ["Question:", "</s>", "<|im_end|>"]}}},
            "resps": [[reply]], "filtered_resps": [got], "filter": flt,
            "exact_match": em}) + "\n")
PY
    rc=0; $GT import lm-eval "$work/samples_gsm8k_2026-01-04T00-00-00.jsonl" "$work/al" A >"$work/out" 2>"$work/err" || rc=$?
    [ $rc = 0 ] || fail "import: exit $rc $(cat "$work/err")"
    grep -q '"compared": 2, "extraction_differs": 0, "verdict_differs": 0' "$work/out" || fail "not graded as logged: $(cat "$work/out" "$work/err")"
    cp -r "$work/al/rows/A.jsonl" "$work/al/rows/B.jsonl"
    $G bury "$work/al" A B --rule flexible-extract >"$work/out" 2>"$work/err" || fail "bury: $(cat "$work/err")"
    grep -q '"rung": "A".*"right": 0' "$work/out" || fail "bury grades another reply than was logged: $(head -1 "$work/out")"
}
area_cases="$area_cases import_as_logged"

# a samples file of records built by python: import_samples FILE TASK
# JSON-LIST-OF-[doc_id, doc, target, reply, filter]
write_samples() {
    /usr/bin/python3 - "$1" "$2" <<'PY'
import json, sys
with open(sys.argv[1], "w") as f:
    for d, doc, target, reply, flt in json.loads(sys.argv[2]):
        r = {"doc_id": d, "doc": doc, "target": target, "resps": [[reply]],
             "filtered_resps": [reply]}
        if flt:
            r["filter"] = flt
        f.write(json.dumps(r) + "\n")
PY
}

# Item 4: a refusal quoting a reference with line ends is one line.
case_import_one_line() {
    local rc
    write_samples "$work/samples_gsm8k_2026-01-05T00-00-00.jsonl" \
        '[[0, {"question": "q"}, "a\nb\nc\nd\ne\nf\ng\nh\ni", "#### 1", "strict-match"]]'
    rc=0; $GT import lm-eval "$work/samples_gsm8k_2026-01-05T00-00-00.jsonl" "$work/ol" A >"$work/out" 2>"$work/err" || rc=$?
    [ $rc = 2 ] && [ "$(wc -l <"$work/err")" = 1 ] && grep -q 'a\\nb\\nc' "$work/err" || fail "exit $rc, $(wc -l <"$work/err") lines: $(cat "$work/err")"
}
area_cases="$area_cases import_one_line"

# Item 5: a log of other questions in a folder is refused without
# offering --force, which import does not take.
case_import_other_questions() {
    local f=$ROOT/tests/golden/data/imports rc
    $GT import lm-eval "$f/samples_gsm8k_2026-11-01T10-00-00.jsonl" "$work/oq" A >/dev/null || fail "first import: exit $?"
    rc=0; $GT import lm-eval "$f/samples_gsm8k_cot_2026-11-01T10-00-00.jsonl" "$work/oq" B >"$work/out" 2>"$work/err" || rc=$?
    [ $rc = 2 ] && grep -q "differs" "$work/err" || fail "other questions: exit $rc $(cat "$work/err")"
    grep -q -- "--force" "$work/err" && fail "offers --force: $(cat "$work/err")"
    rc=0; $GT import lm-eval "$f/samples_gsm8k_cot_2026-11-01T10-00-00.jsonl" "$work/oq" B --force >/dev/null 2>&1 || rc=$?
    [ $rc = 2 ] || fail "--force taken: exit $rc"
}
area_cases="$area_cases import_other_questions"

# Item 6: an instruction-following log (target "0", a placeholder: no
# field of the question holds it) is refused under --task.
case_import_no_reference() {
    local rc
    write_samples "$work/samples_ifeval_2026-01-06T00-00-00.jsonl" \
        '[[0, {"key": 1000, "prompt": "Write 3 lines", "instruction_id_list": ["x"], "kwargs": [{}]}, "0", "one, 2, three", "none"],
          [1, {"key": 1001, "prompt": "Write 4 lines", "instruction_id_list": ["x"], "kwargs": [{}]}, "0", "a b 0", "none"]]'
    rc=0; $GT import lm-eval "$work/samples_ifeval_2026-01-06T00-00-00.jsonl" "$work/nr" A --task lm-eval-gsm8k >"$work/out" 2>"$work/err" || rc=$?
    [ $rc = 2 ] && grep -q "no reference" "$work/err" || fail "a placeholder target imported: exit $rc $(cat "$work/out" "$work/err")"
    # a numeric target a field of the question holds is a reference
    write_samples "$work/samples_aime_2026-01-06T00-00-00.jsonl" \
        '[[0, {"problem": "p", "answer": 204}, "204", "#### 204", "none"], [1, {"problem": "p", "answer": "33"}, "33", "#### 3", "none"]]'
    $GT import lm-eval "$work/samples_aime_2026-01-06T00-00-00.jsonl" "$work/nr2" A --task lm-eval-gsm8k >"$work/out" 2>"$work/err" || fail "aime: $(cat "$work/err")"
    grep -q '"rows": 2, "right": 1' "$work/out" || fail "aime: $(cat "$work/out")"
}
area_cases="$area_cases import_no_reference"

# Item 8: a reference longer than graveyard's numbers is refused as
# that, not as "not a number".
case_import_long_number() {
    local rc
    write_samples "$work/samples_gsm8k_2026-01-07T00-00-00.jsonl" \
        '[[0, {"question": "q", "answer": "so\n#### 0.33333333333333333333333333333333333333333333333333333333333333333"}, "x", "#### 1", "strict-match"]]'
    rc=0; $GT import lm-eval "$work/samples_gsm8k_2026-01-07T00-00-00.jsonl" "$work/ln" A >"$work/out" 2>"$work/err" || rc=$?
    [ $rc = 2 ] && grep -q "longer than" "$work/err" && ! grep -q "not a number" "$work/err" || fail "exit $rc $(cat "$work/err")"
}
area_cases="$area_cases import_long_number"

# Item 1: lm-eval v0.4.3 to v0.4.6 wrote no "filter" (it came in v0.4.7):
# the records of a question are in filter order, compared by position,
# and the summary says so.
case_import_by_position() {
    local f=$ROOT/tests/golden/data/imports rc
    sed 's/, "filter": "[a-z-]*"//' "$f/samples_gsm8k_2026-11-01T10-00-00.jsonl" >"$work/samples_gsm8k_2026-01-08T00-00-00.jsonl"
    grep -q '"filter"' "$work/samples_gsm8k_2026-01-08T00-00-00.jsonl" && fail "the fixture still names filters"
    rc=0; $GT import lm-eval "$work/samples_gsm8k_2026-01-08T00-00-00.jsonl" "$work/bp" A >"$work/out" 2>"$work/err" || rc=$?
    [ $rc = 0 ] && grep -q '"compared": 4, "extraction_differs": 0, "verdict_differs": 0' "$work/out" || fail "not compared by position: exit $rc $(cat "$work/out" "$work/err")"
    grep -q 'no "filter".*by position' "$work/err" || fail "not said: $(cat "$work/err")"
    # the second record of doc 1 is flexible-extract's: its "4" agrees,
    # a "5" there differs from graveyard's flexible-extract
    sed 's/"filtered_resps": \["4"\]/"filtered_resps": ["5"]/' "$work/samples_gsm8k_2026-01-08T00-00-00.jsonl" >"$work/samples_gsm8k_2026-01-09T00-00-00.jsonl"
    rc=0; $GT import lm-eval "$work/samples_gsm8k_2026-01-09T00-00-00.jsonl" "$work/bp" B >"$work/out" 2>"$work/err" || rc=$?
    grep -q '"extraction_differs": 1' "$work/out" && grep -q "graveyard's 'flexible-extract' '4'" "$work/err" || fail "position 2 is not flexible-extract: $(cat "$work/out" "$work/err")"
}
area_cases="$area_cases import_by_position"

# Item 2: a log of lm-eval v0.4.0/v0.4.1 (one JSON array, no "filter",
# gsm8k stopped at "\n\n" and graded by get-answer without the trailing-
# period rule: "#### 18." was wrong there) is refused under today's task,
# with the line naming the task of its version, and imported under that
# one with lm-eval's verdict.
case_import_old_version() {
    local rc
    /usr/bin/python3 - "$work" <<'PY'
import json, sys
ans = "She makes $18.\n#### 18"
recs = []
for i, (reply, got, em) in enumerate(((" She makes 9 * 2 = 18.\n#### 18.", "18.", 0.0),
                                      (" So 18 in all.\n#### 18", "18", 1.0))):
    recs.append({"doc_id": i, "doc": {"question": "q%d" % i, "answer": ans}, "target": ans,
                 "arguments": [["Question: q\nAnswer:", {"until": ["\n\n", "Question:"], "do_sample": False}]],
                 "resps": [[reply]], "filtered_resps": [got], "exact_match": em})
json.dump(recs, open(sys.argv[1] + "/pretrained__gpt2_gsm8k.jsonl", "w"), indent=2)
PY
    rc=0; $GT import lm-eval "$work/pretrained__gpt2_gsm8k.jsonl" "$work/ov" A --task lm-eval-gsm8k >"$work/out" 2>"$work/err" || rc=$?
    [ $rc = 2 ] && [ "$(wc -l <"$work/err")" = 1 ] && grep -q "another version.*lm-eval-gsm8k-v0.4.1.json" "$work/err" || fail "an old log under today's task: exit $rc $(cat "$work/out" "$work/err")"
    rc=0; $GT import lm-eval "$work/pretrained__gpt2_gsm8k.jsonl" "$work/ov" A --task "$ROOT/tasks/lm-eval-gsm8k-v0.4.1.json" >"$work/out" 2>"$work/err" || rc=$?
    [ $rc = 0 ] && grep -q '"right": 1, "skipped": 0, "compared": 2, "extraction_differs": 0, "verdict_differs": 0' "$work/out" || fail "under its version's task: exit $rc $(cat "$work/out" "$work/err")"
}
area_cases="$area_cases import_old_version"

# Item 7: a chat log whose replies end "The best answer is C" (and the
# other common phrasings) is read by tasks/choice-phrasings.json, each
# phrasing of its documented list once.
case_import_phrasings() {
    local rc
    /usr/bin/python3 - "$work" <<'PY'
import json, sys
cases = [("Let me think. The best answer is C", "C"),
         ("Reasoning...\nThe answer is (B).", "B"),
         ("Answer: D", "D"),
         ("**Answer:** A", "A"),
         ("So the correct answer is **E**.", "E"),
         ("I pick option F", "F"),
         ("Thus $\\boxed{G}$", "G"),
         ("Answer: A bit of thought first. The best answer is H", "H"),
         ("Answer: B", "C"),
         ("I cannot tell which.", "A"),
         ("MMLU-Pro+ has twelve options.\nThe answer is (K).", "K")]
with open(sys.argv[1] + "/samples_arc_chat_2026-01-10T00-00-00.jsonl", "w") as f:
    for i, (reply, key) in enumerate(cases):
        f.write(json.dumps({"doc_id": i, "doc": {"id": "arc-%d" % i, "question": "q", "answerKey": key},
            "target": key, "arguments": {"gen_args_0": {"arg_0": "q", "arg_1": {"until": ["\n\n", "."]}}},
            "resps": [[reply]], "filtered_resps": [reply], "filter": "remove_whitespace", "exact_match": 0.0}) + "\n")
PY
    rc=0; $GT import lm-eval "$work/samples_arc_chat_2026-01-10T00-00-00.jsonl" "$work/ph" A --task "$ROOT/tasks/choice-phrasings.json" >"$work/out" 2>"$work/err" || rc=$?
    [ $rc = 0 ] && grep -q '"rows": 11, "right": 9,' "$work/out" || fail "phrasings: exit $rc $(cat "$work/out" "$work/err")"
    cp "$work/ph/rows/A.jsonl" "$work/ph/rows/B.jsonl"
    $G bury "$work/ph" A B >"$work/out" 2>"$work/err" || fail "bury: $(cat "$work/err")"
    grep -q '"rung": "A", "n": 11, "right": 9' "$work/out" || fail "bury: $(head -1 "$work/out")"
}
area_cases="$area_cases import_phrasings"

# From round 4 (issue 33; each failed on 21b075f):
# misc_samples FILE UNTIL_JSON: an lm-eval samples file (v0.4.3 and on:
# "arguments" as gen_args_0) of two GSM8K-shaped records asked with the
# stop strings UNTIL_JSON.
misc_samples() {
    /usr/bin/python3 - "$1" "$2" <<'PY'
import json, sys
until = json.loads(sys.argv[2])
with open(sys.argv[1], "w") as f:
    for i in range(2):
        ans = "So %d.\n#### %d" % (i, i)
        f.write(json.dumps({"doc_id": i, "doc": {"question": "q%d" % i, "answer": ans}, "target": ans,
            "arguments": {"gen_args_0": {"arg_0": "Q: q", "arg_1": {"until": until, "do_sample": False}}},
            "resps": [["#### %d" % i]], "filtered_resps": ["%d" % i], "filter": "strict-match",
            "exact_match": 1.0}) + "\n")
PY
}

# Another task's log (truthfulqa_gen, mmlu_pro_plus, humaneval: stop
# strings no version of the task has) given to a GSM8K task is refused
# as another task, named by its file, with the tasks graveyard knows; it
# was called "a log of another version of the task". A log whose stops
# are a known version's still names that version's task; without
# --task, a samples file of another task says which it is.
case_import_other_task() {
    local rc t until
    for t in 'truthfulqa_gen|["\n\n"]' 'mmlu_pro_plus|["</s>", "Q:", "<|im_end|>"]' \
             'humaneval|["\nclass", "\ndef", "\n#", "\nif", "\nprint"]'; do
        until=${t#*|}; t=${t%%|*}
        misc_samples "$work/samples_${t}_2026-02-01T00-00-00.123456.jsonl" "$until"
        rc=0; $GT import lm-eval "$work/samples_${t}_2026-02-01T00-00-00.123456.jsonl" "$work/ot" A --task lm-eval-gsm8k >"$work/out" 2>"$work/err" || rc=$?
        [ $rc = 2 ] && [ "$(wc -l <"$work/err")" = 1 ] || fail "$t: exit $rc $(cat "$work/err")"
        grep -q "a log of another task" "$work/err" && ! grep -q "another version" "$work/err" ||
            fail "$t: not another task: $(cat "$work/err")"
        grep -Fq "lm-eval's task '$t'" "$work/err" || fail "$t: the log's task not named: $(cat "$work/err")"
        grep -q "gsm8k_cot_zeroshot (--task lm-eval-gsm8k-cot-zeroshot)" "$work/err" ||
            fail "$t: the known tasks not listed: $(cat "$work/err")"
        [ ! -e "$work/ot/rows/A.jsonl" ] || fail "$t: rows written"
        # no --task: the file's name says which task it is
        rc=0; $GT import lm-eval "$work/samples_${t}_2026-02-01T00-00-00.123456.jsonl" "$work/ot" A >"$work/out" 2>"$work/err" || rc=$?
        [ $rc = 2 ] && grep -Fq "lm-eval's task '$t'" "$work/err" && grep -q "gsm8k_cot (--task lm-eval-gsm8k-cot)" "$work/err" ||
            fail "$t, no --task: exit $rc $(cat "$work/err")"
    done
    # a known version's stops: gsm8k_cot of v0.4.0 and v0.4.1
    misc_samples "$work/samples_gsm8k_cot_2026-02-01T00-00-00.jsonl" '["Q:", "\n\n"]'
    rc=0; $GT import lm-eval "$work/samples_gsm8k_cot_2026-02-01T00-00-00.jsonl" "$work/ov" A >"$work/out" 2>"$work/err" || rc=$?
    [ $rc = 2 ] && grep -q "another version of the task.*--task tasks/lm-eval-gsm8k-cot-v0.4.1.json" "$work/err" &&
        ! grep -q "another task" "$work/err" || fail "cot v0.4.1: exit $rc $(cat "$work/err")"
}
area_cases="$area_cases import_other_task"
