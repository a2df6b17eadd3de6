# longctx-fake (issue 36): the fake llama-server standing in for a real
# one on long prompts: POST /tokenize (the real shapes, its documented
# tokenizer, bad bodies, off -> 404), the context size from -c,
# --ctx-size and LLAMA_ARG_CTX_SIZE in /props and /slots, the
# exceed-context 400 (stream and not; the ik fork's context shift and its
# 500), the prompt's count in usage and timings, the needles reply mode
# for RULER's shapes, and the length cliff in each mode (by KV cache type,
# by needle depth); and graveyard's own -c reaching the fake.
# The checks are tests/integration/helpers/longctx_fake.py's; each case
# starts the fake itself (lc_start) on a model of its own.
# Sourced by tests/integration/cases.sh (lib.sh's helpers).
#
# Tests: orchestrator/server/launch.c

LC_PY="/usr/bin/python3 $(dirname "${BASH_SOURCE[0]}")/../helpers/longctx_fake.py"
lc_port() { /usr/bin/python3 -c 'import socket; s=socket.socket(); s.bind(("127.0.0.1",0)); print(s.getsockname()[1])'; }
# start the fake on model NAME with extra args: sets lc_pid, lc_url
lc_start() { # name [args...]
    local name=$1 port; shift
    port=$(lc_port)
    timeout -k 5 120 "$FAKE" -m "$work/$name.gguf" --host 127.0.0.1 --port "$port" "$@" \
        >"$work/lc-$name.log" 2>&1 &
    lc_pid=$!
    lc_url="http://127.0.0.1:$port"
    wait_for 10 "curl -s -o /dev/null '$lc_url/health'" ||
        fail "the fake on $name did not start: $(tail -3 "$work/lc-$name.log")"
}
lc_stop() { kill "$lc_pid" 2>/dev/null; wait "$lc_pid" 2>/dev/null; }
# run check NAME [args] of the helper against the started fake
lc_check() { # check [args...]
    local out
    out=$(timeout -k 5 90 $LC_PY "$lc_url" "$@" 2>&1) || fail "$out"
}

model lcplain '"default": {"content": "Answer: 0"},
 "replies": [{"match": "apples", "content": "3 + 2 = 5\nAnswer: 5"}]'
model lcnotok '"tokenize": false, "default": {"content": "Answer: 0"}'
model lcik '"ik": true, "needles": true, "default": {"content": "Answer: 0"}'
model lcneedles '"needles": true, "default": {"content": "Answer: 0"},
 "replies": [{"match": "apples", "content": "Answer: 5"}]'
model lcusage '"prompt_tps": 500, "default": {"content": "Answer: 0"}'
for m in wrong gibberish empty; do
    model "lccliff$m" '"needles": true, "default": {"content": "Answer: 0"},
 "replies": [{"match": "apples", "content": "Answer: 5"}],
 "cliff": {"tokens": 3000, "mode": "'"$m"'"}'
done
model lcdepth '"needles": true, "default": {"content": "Answer: 0"},
 "cliff": {"tokens": 2000, "mode": "wrong", "cliff_depth": 10}'
# a cliff for the q4_0 K cache only, another lower for q8_0
model lcbykv '"needles": true, "default": {"content": "Answer: 0"},
 "replies": [{"match": "apples", "content": "Answer: 5"}],
 "cliff": [{"ctk": "q4_0", "tokens": 3000, "mode": "wrong"},
           {"ctk": "q8_0", "tokens": 100000, "mode": "empty"}]'

# /tokenize: the ids of the page's rule, stable, add_special's BOS,
# parse_special, with_pieces (ids and pieces joining to the text, a cut
# UTF-8 piece as bytes; the ik fork ignores it), no content, mixed
# content, bad bodies (500 as the real server), ~4.5 bytes a token on
# prose; "tokenize": false -> 404.
case_longctx_tokenize() {
    lc_start lcplain
    lc_check tokenize
    lc_stop
    lc_start lcik
    lc_check tokenize_ik
    lc_stop
    lc_start lcnotok
    lc_check tokenize_off
    lc_stop
}

# the context size: -c, --ctx-size, --ctx_size (upstream turns _ into -),
# LLAMA_ARG_CTX_SIZE (the command line wins), -np's share per slot (all
# of it with -kvu), the default 4096, the ik fork's top-level n_ctx, the
# RoPE scaling flags taken; a bad value refused.
case_longctx_ctx_size() {
    lc_start lcplain -c 8192
    lc_check props 8192 8192 up
    lc_stop
    lc_start lcplain --ctx-size 2048 -np 2
    lc_check props 2048 1024 up
    lc_stop
    lc_start lcplain --ctx_size 1500
    lc_check props 1500 1500 up
    lc_stop
    LLAMA_ARG_CTX_SIZE=3000 lc_start lcplain
    lc_check props 3000 3000 up
    lc_stop
    LLAMA_ARG_CTX_SIZE=3000 lc_start lcplain -c 640
    lc_check props 640 640 up
    lc_stop
    lc_start lcplain
    lc_check props 4096 4096 up
    lc_stop
    # a unified KV cache: every slot may fill the whole context
    lc_start lcplain -c 4000 -np 4 -kvu
    lc_check props 4000 4000 up
    lc_stop
    # the flags a long rung's server_args may add past the trained context
    lc_start lcplain -c 65536 --rope-scaling yarn --rope-scale 4 --yarn-orig-ctx 16384 --rope-freq-base 10000 --rope-freq-scale 0.25 --kv-unified
    lc_check props 65536 65536 up
    lc_stop
    lc_start lcik -c 5000
    lc_check props 5000 5000 ik
    lc_stop
    if timeout -k 5 10 "$FAKE" -m "$work/lcplain.gguf" --port "$(lc_port)" -c abc >"$work/lc-bad.log" 2>&1; then
        fail "-c abc taken"
    fi
    grep -q 'error while handling argument "-c"' "$work/lc-bad.log" || fail "-c abc: $(cat "$work/lc-bad.log")"
}

# over n_ctx: upstream's 400 exceed_context_size_error with the counts, for
# a stream and not; the ik fork cuts the prompt's front (a needle there is
# lost, the reply 200) and with --no-context-shift answers 500.
case_longctx_exceed() {
    lc_start lcplain -c 300
    lc_check exceed 300
    lc_stop
    lc_start lcik -c 400
    lc_check ik_shift 400 kind-lamp 3141592
    lc_stop
    lc_start lcik -c 400 --no-context-shift
    lc_check ik_noshift 400
    lc_stop
}

# the prompt's count (the fake's tokens + the template's 8) in
# usage.prompt_tokens and timings.prompt_n, stream and not; prompt_ms from
# prompt_tps, growing with the prompt (and no sleep: the case is quick).
case_longctx_prompt_tokens() {
    lc_start lcusage -c 65536
    lc_check usage 500
    lc_stop
}

# "needles": true answers RULER's shapes as a perfect reader: niah single,
# uuid, multikey, multivalue, multiquery (asked order), vt (the chain,
# not the decoy), cwe (the 10 common words), fwe (the 3 most frequent
# coded words, not the noise); other prompts by the rules.
case_longctx_needles() {
    lc_start lcneedles -c 65536
    lc_check needles
    lc_stop
}

# the cliff in each mode: right below, never the needle above (a wrong
# value, confident gibberish, an empty content); a rule's digits wrong
# past it; cliff_depth keeps the needles of the prompt's ends; a cliff by
# -ctk.
case_longctx_cliff() {
    local m
    for m in wrong gibberish empty; do
        lc_start "lccliff$m" -c 65536
        lc_check cliff 3000 "$m"
        lc_stop
    done
    lc_start lcdepth -c 65536
    lc_check depth 2000 10
    lc_stop
    lc_start lcbykv -c 65536 -ctk q4_0 -ctv q4_0
    lc_check cliff 3000 wrong
    lc_stop
    # f16 (no -ctk): no cliff for it, the far needle found
    lc_start lcbykv -c 65536
    lc_check cliff_none 3000
    lc_stop
}

# graveyard's own -c reaches the fake (launch.c's argv, a rung's
# server_args after it: the last wins, as upstream), and a question
# longer than --ctx gets the exceed 400, said in the row.
case_longctx_run_ctx() {
    local d=$work/lcrun q=$work/lcq.jsonl
    /usr/bin/python3 - "$q" <<'PY'
import json, sys
long = " ".join(["the quiet garden river stone window morning."] * 120)
with open(sys.argv[1], "w") as f:
    f.write(json.dumps({"id": "apples", "question": "Tom has 3 apples and gets 2 more. How many apples?", "answer": "5"}) + "\n")
    f.write(json.dumps({"id": "long", "question": long + " How many apples?", "answer": "5"}) + "\n")
PY
    $GT run --llama "$FAKE" --ctx 700 R1 "$work/lcneedles.gguf" "$q" "$d" >"$work/lcrun.out" 2>&1
    grep -rqs -- "-c 700" "$d" "$work/lcrun.out" || fail "-c 700 not in the fake's args: $(grep -rh 'fake: args' "$d" | head -2)"
    grep -rqs "fake: n_ctx 700" "$d" "$work/lcrun.out" || fail "the fake did not say n_ctx 700"
    grep -q '"apples"' "$d/rows/R1.jsonl" || fail "no row for apples"
    grep '"long"' "$d/rows/R1.jsonl" | grep -q "exceed" ||
        fail "the long question's row does not say exceed: $(grep '"long"' "$d/rows/R1.jsonl" | cut -c1-300)"
    $GT run --llama "$FAKE" --ctx 700 --server-arg --ctx-size --server-arg 9000 R1 "$work/lcneedles.gguf" "$q" "$d.b" >"$work/lcrun.out" 2>&1
    grep -rqs "fake: n_ctx 9000" "$d.b" "$work/lcrun.out" || fail "--ctx-size 9000 after -c 700: not the last value"
}

area_cases="$area_cases longctx_tokenize longctx_ctx_size longctx_exceed longctx_prompt_tokens longctx_needles longctx_cliff longctx_run_ctx"
