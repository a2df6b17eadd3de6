# shellcheck shell=bash
# Round 3, probs (issue 26, the capture side): "logprobs": N asks every
# token's top N, kept in rows/RUNG.probs one record an answer beside the
# rows. The demo ladder's files each get one record per answered row, with
# KLD against BF16 growing down the ladder and the split where the replies
# differ; kill -9 at random moments, a kill between a record and its row,
# a torn tail and a failed check: the resume repeats nothing and loses
# nothing; a probs file that is not what graveyard leaves is refused; a
# server build that sends no log-probabilities stops the rung (and the
# canary) at the first answer; N outside 1..20 is refused.
# Sourced by tests/integration/cases.sh (lib.sh's helpers).
#
# Tests: rundir/probsfile.c
# Tests: orchestrator/run/ask.c
# Tests: orchestrator/run/record.c
# Tests: orchestrator/cmd/cmd_canary.c
# Tests: orchestrator/figures/figures_probs.c

PROBS_CHECK="/usr/bin/python3 $ROOT/tests/integration/helpers/probs_check.py"

# the demo ladder (configs/demo.json) with "logprobs": N into $work/NAME
probs_demo_config() { # name n
    /usr/bin/python3 - "$ROOT" "$work/$1" "$FAKE" "$2" >"$work/$1.json" <<'PY'
import json, sys
root, run_dir, fake, n = sys.argv[1:]
c = json.load(open(root + "/configs/demo.json"))
# its paths are written from its own folder (docs/config.md, "Paths")
c["questions"] = root + "/configs/" + c["questions"]
for r in c["rungs"] + c["side_rungs"]:
    r["model"] = root + "/configs/" + r["model"]
c["run_dir"], c["server"]["binary"], c["logprobs"] = run_dir, fake, int(n)
print(json.dumps(c))
PY
}

# 40 questions, 30 ms a token, replies that differ by question
probs_many() {
    local i
    : >"$work/q40.jsonl"
    for i in $(seq 1 40); do
        printf '{"id": "q%02d", "question": "How many is %d and nothing more?", "answer": "%d"}\n' \
            "$i" "$i" "$i" >>"$work/q40.jsonl"
    done
    model probslow '"token_ms": 30, "default": {"content": "Let me count it.\nAnswer: 7"},
     "replies": [{"match": "is 1 ", "content": "One.\nAnswer: 1"},
                 {"match": "is 2 ", "content": "Two it is.\nAnswer: 2", "reasoning": "two"}]'
}

probs_run() { # dir [args...]: the slow model on the 40 questions, N 4
    local d=$1; shift
    $GT run P "$work/probslow.gguf" "$work/q40.jsonl" "$d" --llama "$FAKE" --logprobs 4 "$@"
}

# The demo ladder with logprobs 8: a record for every answered row of each
# rung, none for an error row, each whole; mean KLD against BF16 strictly
# grows down the chain (Q8_0 < Q4_0 < Q2_K); each split is where the two
# replies' texts first differ; BF16 asked again gives the very same file;
# the fork's stream shape carries them too. The manifest keeps N.
case_probs_demo() {
    local rc=0 k8 k4 k2 d=$work/pdemo
    probs_demo_config pdemo 8
    $GT ladder "$work/pdemo.json" --quiet >/dev/null 2>"$work/err" || rc=$?
    [ $rc = 0 ] || { fail "ladder: exit $rc $(tail -3 "$work/err")"; return; }
    $PROBS_CHECK kld "$d" BF16 Q8_0 Q4_0 Q2_K QAT_Q4_0 >"$work/kld" 2>&1 || fail "$(cat "$work/kld")"
    k8=$(awk '$1 == "Q8_0" && $2 == "kld" {print $3}' "$work/kld")
    k4=$(awk '$1 == "Q4_0" && $2 == "kld" {print $3}' "$work/kld")
    k2=$(awk '$1 == "Q2_K" && $2 == "kld" {print $3}' "$work/kld")
    awk -v a="$k8" -v b="$k4" -v c="$k2" 'BEGIN {exit !(a > 0 && a < b && b < c)}' ||
        fail "mean KLD not growing down the ladder: Q8_0 $k8, Q4_0 $k4, Q2_K $k2"
    grep -q '^Q8_0 kld [0-9.]* split [1-9]' "$work/kld" || fail "no split in Q8_0: $(cat "$work/kld")"
    tr -d ' \n' <"$d/manifest.json" | grep -q '"logprobs":8' || fail "the manifest does not keep logprobs 8"
    # the reference again, elsewhere: the same bytes
    $GT run BF16 "$ROOT/configs/demo/BF16.gguf" "$ROOT/configs/demo/questions.jsonl" "$work/prep" \
        --llama "$FAKE" --logprobs 8 --quiet >/dev/null 2>"$work/err" || fail "BF16 again: exit $? $(cat "$work/err")"
    cmp -s "$d/rows/BF16.probs" "$work/prep/rows/BF16.probs" || fail "BF16 asked again: another probs file"
    # the ik fork's shape (finish "stop", timings on the finish chunk)
    $GT run IK "$work/ik.gguf" "$work/q.jsonl" "$work/pik" --llama "$FAKE" --logprobs 3 --quiet \
        >/dev/null 2>"$work/err" || fail "ik: exit $? $(cat "$work/err")"
    $PROBS_CHECK records "$work/pik" IK >"$work/out" 2>&1 && grep -q "^IK records 4 rows 4" "$work/out" ||
        fail "ik: $(cat "$work/out")"
    true
}

# kill -9 of graveyard run at random moments, five times, then the resume
# to the end: one record per answered row, no question twice, none missing.
case_probs_kill() {
    local d=$work/pkill i pid rc
    probs_many
    for i in 1 2 3 4 5; do
        # graveyard itself, not a shell or timeout around it
        $G run P "$work/probslow.gguf" "$work/q40.jsonl" "$d" --llama "$FAKE" --logprobs 4 \
            >/dev/null 2>&1 &
        pid=$!
        sleep "0.$((RANDOM % 9 + 3))"
        kill -KILL $pid 2>/dev/null
        wait $pid 2>/dev/null
        no_servers_within 5 || fail "kill $i: a server outlived graveyard"
        $PROBS_CHECK records "$d" P >/dev/null 2>&1 ||
            [ ! -s "$d/rows/P.probs" ] || echo "  (kill $i left a tail to cut)"
    done
    rc=0; probs_run "$d" >/dev/null 2>"$work/err" || rc=$?
    [ $rc = 0 ] || fail "resume: exit $rc $(cat "$work/err")"
    [ "$(rows "$d" P)" = 40 ] || fail "resume: $(rows "$d" P) rows"
    $PROBS_CHECK records "$d" P >"$work/out" 2>&1 && grep -q "^P records 40 rows 40" "$work/out" ||
        fail "after the kills: $(cat "$work/out")"
    true
}

# A kill between a record and its row (made by dropping the last row: the
# record went out first), a torn last record, a last record whose check
# fails: each is cut on resume (said), the question asked again, and the
# file ends with one record per row. A record mid-file without a row, or
# a question twice, is refused naming the file.
case_probs_resume() {
    local d=$work/pres rc n
    probs_many
    probs_run "$d" --limit 6 >/dev/null 2>"$work/err" || { fail "first run: exit $? $(cat "$work/err")"; return; }
    cp "$d/rows/P.probs" "$work/full.probs"; cp "$d/rows/P.jsonl" "$work/full.jsonl"
    # 1. the record written, the row not
    sed -i '$d' "$d/rows/P.jsonl"
    rc=0; probs_run "$d" --limit 6 >/dev/null 2>"$work/err" || rc=$?
    [ $rc = 0 ] && grep -q "cut back 1 record(s) without a row" "$work/err" || fail "rowless tail: exit $rc $(cat "$work/err")"
    $PROBS_CHECK records "$d" P >"$work/out" 2>&1 && grep -q "^P records 6 rows 6" "$work/out" ||
        fail "rowless tail: $(cat "$work/out")"
    # 2. a torn record (its row never written): 5 bytes short
    sed -i '$d' "$d/rows/P.jsonl"
    n=$(stat -c %s "$d/rows/P.probs"); truncate -s $((n - 5)) "$d/rows/P.probs"
    rc=0; probs_run "$d" --limit 6 >/dev/null 2>"$work/err" || rc=$?
    [ $rc = 0 ] && grep -q "cut back a torn last record" "$work/err" || fail "torn tail: exit $rc $(cat "$work/err")"
    $PROBS_CHECK records "$d" P >"$work/out" 2>&1 && grep -q "^P records 6 rows 6" "$work/out" ||
        fail "torn tail: $(cat "$work/out")"
    # 3. a last record of its full length whose bytes did not all land
    sed -i '$d' "$d/rows/P.jsonl"
    n=$(stat -c %s "$d/rows/P.probs")
    printf '\377' | dd of="$d/rows/P.probs" bs=1 seek=$((n - 12)) conv=notrunc 2>/dev/null
    rc=0; probs_run "$d" --limit 6 >/dev/null 2>"$work/err" || rc=$?
    [ $rc = 0 ] && grep -q "cut back a torn last record" "$work/err" || fail "failed check: exit $rc $(cat "$work/err")"
    $PROBS_CHECK records "$d" P >"$work/out" 2>&1 && grep -q "^P records 6 rows 6" "$work/out" ||
        fail "failed check: $(cat "$work/out")"
    # 4. a record mid-file without a row: refused, the files untouched
    cp "$work/full.probs" "$d/rows/P.probs"; sed '2d' "$work/full.jsonl" >"$d/rows/P.jsonl"
    rc=0; probs_run "$d" --limit 6 >/dev/null 2>"$work/err" || rc=$?
    [ $rc = 2 ] && grep -q "P.probs': the record of question '[a-z0-9]*' (byte [0-9]*) has no row" "$work/err" ||
        fail "rowless record mid-file: exit $rc $(cat "$work/err")"
    cmp -s "$work/full.probs" "$d/rows/P.probs" || fail "rowless record mid-file: the file was changed"
    # 5. a question twice (a record appended again): refused
    cp "$work/full.jsonl" "$d/rows/P.jsonl"
    /usr/bin/python3 -c 'import struct,sys
b=open(sys.argv[1],"rb").read(); n=8+struct.unpack_from("<I",b,4)[0]
open(sys.argv[1],"ab").write(b[:n])' "$d/rows/P.probs"
    rc=0; probs_run "$d" --limit 6 >/dev/null 2>"$work/err" || rc=$?
    [ $rc = 2 ] && grep -q "P.probs': question 'q01' has two records" "$work/err" ||
        fail "a question twice: exit $rc $(cat "$work/err")"
    # 6. another N under --force: one file keeps one N
    cp "$work/full.probs" "$d/rows/P.probs"
    rc=0; $GT run P "$work/probslow.gguf" "$work/q40.jsonl" "$d" --llama "$FAKE" --logprobs 2 \
        --limit 7 --force >/dev/null 2>"$work/err" || rc=$?
    [ $rc = 2 ] && grep -q "P.probs' holds records of 4 log-probabilities a token, and this run asks 2" "$work/err" ||
        fail "another N under --force: exit $rc $(cat "$work/err")"
    true
}

# A server build that ignores the request (the fake's "no_logprobs"): the
# rung stops at its first answer with one line naming the rung and the
# server, exit 2, no row written; the canary with --logprobs says so too.
case_probs_refused() {
    local d=$work/pnone rc
    model nolp '"no_logprobs": true, "default": {"content": "Answer: 5"}'
    rc=0; $GT run NL "$work/nolp.gguf" "$work/q.jsonl" "$d" --llama "$FAKE" --logprobs 8 --quiet \
        >/dev/null 2>"$work/err" || rc=$?
    [ $rc = 2 ] && [ "$(grep -c . "$work/err")" = 1 ] &&
        grep -q "^graveyard run NL: the server '$FAKE' (version: 1 (fa4e0001)) answered its first question without log-probabilities.*returns none" "$work/err" ||
        fail "no logprobs: exit $rc $(cat "$work/err")"
    [ "$(rows "$d" NL)" = 0 ] || fail "no logprobs: $(rows "$d" NL) rows written"
    $GT run NL "$work/good.gguf" "$work/q.jsonl" "$work/ptrust" --llama "$FAKE" --quiet >/dev/null 2>&1 ||
        fail "trusted run: exit $?"
    rc=0; $GT canary NL "$work/nolp.gguf" "$work/ptrust/rows/NL.jsonl" --run-dir "$work/pcan" \
        --llama "$FAKE" --logprobs 8 --quiet >/dev/null 2>"$work/err" || rc=$?
    [ $rc != 0 ] && grep -q "answered its first question without log-probabilities" "$work/err" ||
        fail "canary: exit $rc $(cat "$work/err")"
    # a canary on a build that returns them: its probs file, afresh each time
    for rc in 1 2; do
        $GT canary NL "$work/good.gguf" "$work/ptrust/rows/NL.jsonl" --run-dir "$work/pcan2" \
            --llama "$FAKE" --logprobs 8 >/dev/null 2>"$work/err" || fail "canary $rc: exit $? $(cat "$work/err")"
        grep -q "without a row" "$work/err" && fail "canary $rc: the last canary's records were kept: $(cat "$work/err")"
        $PROBS_CHECK records "$work/pcan2/canary" NL >"$work/out" 2>&1 && grep -q "^NL records 4 rows 4" "$work/out" ||
            fail "canary $rc: $(cat "$work/out")"
    done
    true
}

# N outside 1..20: the config (naming the file) and the flag (naming it),
# exit 2, nothing made; with --logprobs, a "top_logprobs" of --request's
# does not change what is asked (the records keep N).
case_probs_range() {
    local n rc
    ladder_config pr 1 '"0"' good
    for n in 0 21 '"8"'; do
        refused_config pr "s|\"gpus\"|\"logprobs\": $n, \"gpus\"|" "pr-x.json: 'logprobs' must be an integer from 1 to 20" "logprobs $n"
    done
    for n in 0 21; do
        rc=0; $GT run R "$work/good.gguf" "$work/q.jsonl" "$work/prr" --llama "$FAKE" --logprobs $n \
            >/dev/null 2>"$work/err" || rc=$?
        [ $rc = 2 ] && grep -q -- "--logprobs wants a whole number from 1 to 20, not '$n'" "$work/err" ||
            fail "--logprobs $n: exit $rc $(cat "$work/err")"
    done
    [ -e "$work/prr" ] || [ -e "$work/pr" ] && fail "a run folder was made"
    rc=0; $GT run R "$work/good.gguf" "$work/q.jsonl" "$work/prx" --llama "$FAKE" --logprobs 3 --quiet \
        --request '{"logprobs": false, "top_logprobs": 5}' >/dev/null 2>"$work/err" || rc=$?
    [ $rc = 0 ] || fail "--request top_logprobs: exit $rc $(cat "$work/err")"
    /usr/bin/python3 -c 'import sys
b=open(sys.argv[1],"rb").read(); sys.exit(b[9+b[8]] != 3)' "$work/prx/rows/R.probs" ||
        fail "--request top_logprobs 5 changed N"
    true
}

area_cases="$area_cases probs_demo probs_kill probs_resume probs_refused probs_range"
