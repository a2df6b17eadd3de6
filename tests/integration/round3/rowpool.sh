# Issue 25 (no blocking call on a loop thread): a row is graded as it is
# written, and a user's pattern past its step budget takes about 0.7 s a
# rule. Graded on the run's loop thread, four such rules (a task's most)
# held the loop near 3 s:
# a SIGTERM waited for all of them. Rows are graded on libuv's thread pool
# now, the rest of their step waiting, and a stop ends the grading before
# its next rule: the run is gone within what is left of one rule (0.5 s on
# an idle machine; the case allows 2 s, 4 under the sanitizers, where a
# rule takes longer, against about 2.6 s before), the unwritten question
# asked again on resume.
case_term_while_grading() {
    local d=$work/tg rc=0 a rules="" i lim=2 pid
    case $build in *sanitize*) lim=4 ;; esac
    a=$(printf 'a%.0s' $(seq 34))
    model backtrack6 '"default": {"content": "Answer: 5"},
 "replies": [{"match": "apples", "content": "'"$a"'b"}]'
    for i in 1 2 3 4; do
        rules="$rules{\"name\": \"t$i\", \"kind\": \"regex\", \"pattern\": \"(a+)+\$|Answer: (\\\\d+)\", \"group_select\": -1}, "
    done
    printf '{"name": "bt6", "prompt": "Q: {question}", "rules": [%s]}\n' \
        "${rules%, }" >"$work/bt6-task.json"
    rm -rf "$d"
    $G run R1 "$work/backtrack6.gguf" "$work/q.jsonl" "$d" --llama "$FAKE" \
        --task "$work/bt6-task.json" --quiet >/dev/null 2>"$work/err" &
    pid=$!
    wait_for 10 "grep -q 'first chat request' '$d/logs/R1.server.log' 2>/dev/null" ||
        fail "the question was never asked: $(cat "$work/err")"
    sleep 0.2 # the reply is in: its row is being graded
    kill -TERM $pid
    gone_within $lim $pid || fail "SIGTERM while a row was graded: not gone within $lim s"
    wait $pid || rc=$?
    [ $rc = 143 ] || fail "stopped: exit $rc $(cat "$work/err")"
    [ ! -s "$d/rows/R1.jsonl" ] || [ "$(tail -c 1 "$d/rows/R1.jsonl" | od -An -c | tr -d ' ')" = '\n' ] ||
        fail "a partial row: $(tail -c 200 "$d/rows/R1.jsonl")"
    # the resume asks what was not written, and grades it as ever
    $GT run R1 "$work/backtrack6.gguf" "$work/q.jsonl" "$d" --llama "$FAKE" \
        --task "$work/bt6-task.json" --quiet >/dev/null 2>"$work/err" || fail "resume: exit $? $(cat "$work/err")"
    [ "$(rows "$d" R1)" = 4 ] || fail "resume: $(rows "$d" R1) rows"
    grep -q '"t4":{"extracted":null,"right":false,"error":"step limit"}' "$d/rows/R1.jsonl" ||
        fail "row's grades: $(grep apples "$d/rows/R1.jsonl" | head -c 600)"
    grep -q '"step_limit": 1' "$d/rows/R1.done" || fail ".done: $(cat "$d/rows/R1.done")"
}
round3_cases="$round3_cases term_while_grading"
