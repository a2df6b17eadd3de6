#!/bin/bash
# Shared by the integration suites (run.sh, hostile.sh): the binaries, a
# work folder removed at exit, the question file and the fake models, and
# small helpers. Source it with the build folder as $1; it shifts it off.
set -u
build=$(cd "$1" && pwd); shift
G=$build/graveyard
GT="timeout -k 10 120 $G" # every run has a time limit, but those signalled
FAKE=$build/fake-llama-server
ROOT=$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd) # the checkout
work=$(mktemp -d)
trap 'pkill -f "$work/" 2>/dev/null; rm -rf "$work"' EXIT
passed=0 failed=0

fail() { echo "  $*"; ok=0; }
servers_left() { pgrep -f "$FAKE -m $work/" >/dev/null; }

# questions and fake models
cat >"$work/q.jsonl" <<'Q'
{"id": "apples", "question": "Tom has 3 apples and gets 2 more. How many apples?", "answer": "5"}
{"id": "pears", "question": "A box holds 12 pears; 4 are eaten. How many pears are left?", "answer": "8"}
{"id": "plums", "question": "Sam buys 6 bags of 10 plums. How many plums?", "answer": "60"}
{"id": "figs", "question": "Half of 30 figs are ripe. How many figs are ripe?", "answer": "15"}
Q
model() { # name, json body after the header
    printf '{"fake_llama_server": 1, "decode_tps": 50.0, %s}\n' "$2" >"$work/$1.gguf"
}
model good '"load_ms": 200, "default": {"content": "Answer: 0"},
 "replies": [{"match": "apples", "content": "3 + 2 = 5\nAnswer: 5", "reasoning": "count them"},
             {"match": "pears", "content": "12 - 4 = 8\nAnswer: **8**."},
             {"match": "plums", "content": "6 x 10 = 60\nAnswer: 60"}]'
model drift '"default": {"content": "Answer: 0"},
 "replies": [{"match": "apples", "content": "3 + 2 = 5\nAnswer: 5", "reasoning": "count them"},
             {"match": "pears", "content": "Answer: 9"},
             {"match": "plums", "content": "Answer: 61"}]'
model batch '"token_ms": 20, "default": {"content": "Answer: 5", "batched": "Answer: 6"}'
# replies that loop (a line, a span without line ends, in the thinking
# block) and one that does not, 5 ms a token: 5 s a reply at the cap
loops="\"default\": {\"content\": \"Let me see.\\nAnswer: 5\"},
 \"replies\": [{\"match\": \"apples\", \"content\": \"Count.\\n$(printf 'We add the apples again.\\n%.0s' $(seq 200))\"},
             {\"match\": \"pears\", \"content\": \"Hmm $(printf 'and so on %.0s' $(seq 300))\"},
             {\"match\": \"plums\", \"reasoning\": \"$(printf '6 bags.\\n%.0s' $(seq 600))\", \"content\": \"Answer: 60\"}]"
model loops "\"token_ms\": 5, $loops"
# the same replies at 1 ms a token, for the runs that go on to the cap
model loopsfull "\"token_ms\": 1, $loops"
# the same, but the thinking loop ends before the cap and the answer is
# right: what abort_loops cannot know, and a repeat shows
model leaves "\"token_ms\": 1, \"default\": {\"content\": \"Let me see.\\nAnswer: 5\"},
 \"replies\": [{\"match\": \"plums\", \"reasoning\": \"$(printf '6 bags.\\n%.0s' $(seq 300))\", \"content\": \"Answer: 60\"}]"
model slow '"token_ms": 60, "default": {"content": "Working it out slowly.\nAnswer: 5"}'
model faults '"default": {"content": "Answer: 5"},
 "replies": [{"match": "apples", "content": "xxxxxxxxxxxxxxxxxxxxxxxxxxxx", "fault": "exit"},
             {"match": "pears", "fault": "http500"},
             {"match": "plums", "content": "yyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyy", "fault": "error_event"},
             {"match": "figs", "content": "zzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzz Answer: 15"}]'
model allcrash '"default": {"content": "xxxxxxxxxxxxxxxxxxxxxxxx", "fault": "exit"}'
model nostart '"fail_start": "llama_model_load: error loading model: tensor data is corrupted"'
model hang '"default": {"content": "Answer: 5"},
 "replies": [{"match": "pears", "content": "wwwwwwwwwwwwwwwwwwwwwwwwwwwwww", "fault": "hang"}]'
model flaky '"exit_after": 2, "default": {"content": "Answer: 5"}'
model never '"never_ready": true, "default": {"content": "Answer: 5"}'
model ikload '"ik": true, "load_ms": 2500, "health_hangs": true, "default": {"content": "Answer: 5"}'
model long '"token_ms": 2, "default": {"content": "Let me think about this one step at a time, slowly.\nAnswer: 5"}'
model spam '"log_spam": 20000, "default": {"content": "Answer: 5"}'
model port '"fail_bind_once": "'"$work/bind.mark"'", "default": {"content": "Answer: 5"}'
model ik '"ik": true, "default": {"content": "one two three four five six seven eight nine ten Answer: 5"}'

# HUP_DEFAULT CMD...: CMD with SIGHUP at its default, whatever this suite
# was started with. Under nohup SIGHUP is ignored on entry and inherited,
# and a non-interactive bash cannot undo that (trap - HUP does nothing),
# so a case that sends a hangup and expects the default (exit 129) starts
# its process through this; it execs, so $! is CMD's pid.
HUP_DEFAULT=$work/hup-default
cat >"$HUP_DEFAULT" <<'PY'
#!/usr/bin/python3
import os, signal, sys
signal.signal(signal.SIGHUP, signal.SIG_DFL)
os.execvp(sys.argv[1], sys.argv[1:])
PY
chmod +x "$HUP_DEFAULT"

rows() { wc -l <"$1/rows/$2.jsonl" | tr -d ' '; }
field() { # file, id, field -> value as JSON
    /usr/bin/python3 -c 'import json,sys
for l in open(sys.argv[1]):
    r=json.loads(l)
    if r["id"]==sys.argv[2]: print(json.dumps(r[sys.argv[3]]))' "$1" "$2" "$3"
}

# poll, never sleep a fixed time: cmd within secs seconds
wait_for() {
    local secs=$1 i; shift
    for i in $(seq 1 $((secs * 10))); do
        if eval "$@"; then return 0; fi
        sleep 0.1
    done
    return 1
}
# pid is gone (or a zombie) within secs seconds: a job of ours that ended,
# or a process that another parent has yet to reap
gone_within() {
    local secs=$1 pid=$2 i
    for i in $(seq 1 $((secs * 10))); do
        if ! kill -0 "$pid" 2>/dev/null; then return 0; fi
        case "$(cut -d' ' -f3 "/proc/$pid/stat" 2>/dev/null)" in Z|X|"") return 0;; esac
        sleep 0.1
    done
    return 1
}
# no fake server of this run's work folder is left within secs seconds
no_servers_within() {
    local secs=$1 i
    for i in $(seq 1 $((secs * 10))); do
        servers_left || return 0
        sleep 0.1
    done
    return 1
}

# ladder configs for the fake: NAME RUNGS GPUS MODEL -> $work/NAME.json
ladder_config() {
    local name=$1 n=$2 gpus=$3 model=$4 i rungs=""
    for i in $(seq 1 "$n"); do
        rungs="$rungs${rungs:+, }{\"name\": \"R$i\", \"model\": \"$work/$model.gguf\"}"
    done
    cat >"$work/$name.json" <<JSON
{"name": "$name", "questions": "$work/q.jsonl", "run_dir": "$work/$name",
 "rungs": [$rungs], "server": {"binary": "$FAKE"}, "gpus": [$gpus]}
JSON
}

# A config made from $work/BASE.json by a sed expression must be refused
# before anything starts: exit 2, with want in the message.
# Usage: refused_config BASE SED WANT WHAT
refused_config() {
    local base=$1 expr=$2 want=$3 what=$4 rc=0
    sed "$expr" "$work/$base.json" >"$work/$base-x.json"
    $GT ladder "$work/$base-x.json" >/dev/null 2>"$work/err" || rc=$?
    [ $rc = 2 ] && grep -q -- "$want" "$work/err" || fail "$what: exit $rc $(cat "$work/err")"
}

# SIGTERM to a command while the tool it waits for hangs (a process
# matching pat): the command ends at once, and takes the tool with it.
# Usage: term_while_hung PAT WHAT COMMAND...
term_while_hung() {
    local pat=$1 what=$2 pid; shift 2
    "$@" >/dev/null 2>&1 &
    pid=$!
    wait_for 10 "pgrep -f '$pat' >/dev/null" || fail "$what: the tool never ran"
    kill -TERM $pid
    gone_within 3 $pid || { fail "$what: SIGTERM waited for the tool"; kill -KILL $pid; }
    wait $pid 2>/dev/null
    wait_for 3 "! pgrep -f '$pat' >/dev/null" || fail "$what: the tool outlived it"
}
