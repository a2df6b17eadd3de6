# shellcheck shell=bash
# Round 4 (issue 33), the small ones: graveyard tensors' shown text,
# import of another task's log, a planted link in a fresh run folder, and
# the suite under nohup. Sourced by tests/integration/round4.sh; each case
# failed on 21b075f.

# misc_gguf OUT NAME:TYPE... -> a GGUF v3 whose tensor names are given
# with Python's escapes (\x1b, \xff), each 64 x 2 elements, 512 bytes
# apart, with quantize.imatrix.file "im\x1b]0;x\x07\xc2\x9b\xff.dat".
misc_gguf() {
    /usr/bin/python3 - "$@" <<'PY'
import struct, sys
out, specs = sys.argv[1], sys.argv[2:]
def s(x): return struct.pack("<Q", len(x)) + x
h = b"GGUF" + struct.pack("<IQQ", 3, len(specs), 2)
h += s(b"general.file_type") + struct.pack("<II", 4, 2)
h += s(b"quantize.imatrix.file") + struct.pack("<I", 8) + s(b"im\x1b]0;x\x07\xc2\x9b\xff.dat")
for i, sp in enumerate(specs):
    name, ty = sp.rsplit(":", 1)
    name = name.encode().decode("unicode_escape").encode("latin-1")
    h += s(name) + struct.pack("<IQQIQ", 2, 64, 2, int(ty), 512 * i)
h += b"\0" * (-len(h) % 32)
open(out, "wb").write(h + b"\0" * (512 * len(specs)))
PY
}

# graveyard tensors shows a tensor name holding ESC, BEL or bytes that
# are not UTF-8 by the server log lines' rule (\xNN), never raw and never
# "(null)"; a type id neither lineage has leaves '?' and every line its
# end; --json keeps every name, shown, with its bytes in name_hex.
case_tensors_shown() {
    local rc=0
    misc_gguf "$work/h1.gguf" 'blk.0.attn_q.\x1b[31mred\x07:0' \
        'blk.0.attn_k.\xff\xfe:0' 'blk.0.attn_v.weight:200' ||
        { fail "python3 could not write a GGUF"; return; }
    misc_gguf "$work/h2.gguf" 'blk.0.attn_q.\x1b[31mred\x07:2' \
        'blk.0.attn_k.\xff\xfe:2' 'blk.0.attn_v.weight:0'
    timeout -k 5 30 "$G" tensors "$work/h1.gguf" "$work/h2.gguf" \
        >"$work/t.out" 2>"$work/t.err" || rc=$?
    [ $rc = 0 ] || fail "tensors exited $rc ($(cat "$work/t.err"))"
    if LC_ALL=C grep -q '[^ -~]' "$work/t.out"; then
        fail "a byte that is not printable ASCII: $(LC_ALL=C grep -n '[^ -~]' "$work/t.out" | cat -A)"
    fi
    grep -q '(null)' "$work/t.out" && fail "a name printed as (null)"
    grep -Fq 'blk.0.attn_q.\x1b[31mred\x07 ' "$work/t.out" ||
        fail "the ESC/BEL name not shown: $(cat -A "$work/t.out")"
    grep -Fq 'blk.0.attn_k.\xff\xfe ' "$work/t.out" ||
        fail "the bad UTF-8 name not shown: $(cat -A "$work/t.out")"
    grep -Fxq '  quantize.imatrix.file = im\x1b]0;x\x07\xc2\x9b\xff.dat' "$work/t.out" ||
        fail "the imatrix file not shown: $(cat -A "$work/t.out")"
    grep -q '^/.*h1.gguf: 3 tensors, ? bytes, ? bits per weight$' "$work/t.out" ||
        fail "the unknown size's line ran on: $(head -2 "$work/t.out" | cat -A)"
    [ "$(grep -c '^  total ' "$work/t.out")" = 2 ] &&
        ! grep -q '^  total .*h2.gguf' "$work/t.out" ||
        fail "a total line ran on: $(grep 'total' "$work/t.out" | cat -A)"
    rc=0
    timeout -k 5 30 "$G" tensors --json "$work/h1.gguf" "$work/h2.gguf" \
        >"$work/t.json" 2>"$work/t.err" || rc=$?
    [ $rc = 0 ] || fail "tensors --json exited $rc ($(cat "$work/t.err"))"
    /usr/bin/python3 - "$work/t.json" >"$work/t.py" 2>&1 <<'PY' || fail "--json: $(cat "$work/t.py")"
import json, sys
d = json.load(open(sys.argv[1]))
want = [b"blk.0.attn_q.\x1b[31mred\x07", b"blk.0.attn_k.\xff\xfe", b"blk.0.attn_v.weight"]
shown = ["blk.0.attn_q.\\x1b[31mred\\x07", "blk.0.attn_k.\\xff\\xfe", "blk.0.attn_v.weight"]
for f in d["files"]:
    t = f["tensor_table"]
    assert [e.get("name") for e in t] == shown, [e.get("name") for e in t]
    raw = [bytes.fromhex(e["name_hex"]) if "name_hex" in e else e["name"].encode() for e in t]
    assert raw == want, raw
    m = f["metadata"]["quantize.imatrix.file"]
    assert m == "im\\x1b]0;x\\x07\\xc2\\x9b\\xff.dat", m
diff = d["differences"]["differ"]
assert [e.get("tensor") for e in diff] == shown, diff
PY
}
round4_cases="$round4_cases tensors_shown"

# The suite run under nohup (SIGHUP ignored on entry, inherited by every
# child, and not to be undone by a non-interactive bash's trap): the cases
# that send a hangup and expect its default give the process they test a
# default SIGHUP themselves ($HUP_DEFAULT), as the nohup cases set it
# ignored on purpose. Each failed under nohup before ("exit 0 after
# SIGHUP", "hangup without nohup: exit 0").
case_suite_nohup() {
    local rc=0
    timeout -k 10 150 nohup bash "$ROOT/tests/integration/run.sh" "$build" \
        sigterm_and_resume >"$work/nh-run.out" 2>&1 || rc=$?
    [ $rc = 0 ] || fail "run.sh sigterm_and_resume under nohup: exit $rc $(tail -4 "$work/nh-run.out")"
    rc=0
    timeout -k 10 150 nohup bash "$ROOT/tests/integration/hostile.sh" "$build" \
        nohup >"$work/nh-hostile.out" 2>&1 || rc=$?
    [ $rc = 0 ] || fail "hostile.sh nohup under nohup: exit $rc $(tail -4 "$work/nh-hostile.out")"
}
round4_cases="$round4_cases suite_nohup"

# A fresh run folder with a link planted where a rung's files go later
# (rows/R1.done is written when the rung ends, rows/R1.power while it
# runs): refused at the start, exit 2, naming the path, before any
# server starts or a question is asked; it used to answer every question
# and then refuse rows/R1.done (exit 1). A FIFO there is refused alike.
# The ladder checks every rung's and its own end files (graveyard.json,
# ladder.json) before its first rung: it used to run them all first.
case_planted_ahead() {
    local d=$work/pa rc what
    printf 'precious\n' >"$work/victim"
    for what in rows/R1.done rows/R1.power rows/R1.probs logs/R1.server.log R1.server.pid ladder.tsv; do
        rm -rf "$d"; mkdir -p "$d/rows" "$d/logs"
        ln -s "$work/victim" "$d/$what"
        rc=0; timeout -k 5 60 $G run R1 "$work/slow.gguf" "$work/q.jsonl" "$d" --llama "$FAKE" --quiet >/dev/null 2>"$work/err" || rc=$?
        [ $rc = 2 ] && grep -Fq "'$d/$what' is a symbolic link" "$work/err" ||
            fail "$what: exit $rc $(head -c 300 "$work/err")"
        [ ! -s "$d/rows/R1.jsonl" ] || fail "$what: $(rows "$d" R1) questions answered first"
        grep -qs "listening" "$d/logs/R1.server.log" && fail "$what: a server started"
        [ "$(cat "$work/victim")" = precious ] || fail "$what: the link's target changed"
    done
    rm -rf "$d"; mkdir -p "$d/rows"; mkfifo "$d/rows/R1.done"
    rc=0; timeout -k 5 60 $G run R1 "$work/slow.gguf" "$work/q.jsonl" "$d" --llama "$FAKE" --quiet >/dev/null 2>"$work/err" || rc=$?
    [ $rc = 2 ] && grep -Fq "'$d/rows/R1.done': not a regular file" "$work/err" && [ ! -s "$d/rows/R1.jsonl" ] ||
        fail "a FIFO: exit $rc, $(rows "$d" R1 2>/dev/null) rows, $(head -c 300 "$work/err")"
    for what in rows/R2.done rows/R2.jsonl graveyard.json ladder.json; do
        ladder_config pl 2 '"0"' good
        rm -rf "$work/pl"; mkdir -p "$work/pl/rows"
        ln -s "$work/victim" "$work/pl/$what"
        rc=0; timeout -k 5 60 $G ladder "$work/pl.json" --quiet >/dev/null 2>"$work/err" || rc=$?
        [ $rc = 2 ] && grep -Fq "'$work/pl/$what' is a symbolic link" "$work/err" ||
            fail "ladder, $what: exit $rc $(head -c 300 "$work/err")"
        [ ! -s "$work/pl/rows/R1.jsonl" ] || fail "ladder, $what: rung R1 answered first"
        [ "$(cat "$work/victim")" = precious ] || fail "ladder, $what: the link's target changed"
    done
}
round4_cases="$round4_cases planted_ahead"

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
round4_cases="$round4_cases import_other_task"
