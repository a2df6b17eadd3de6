# Round 3, paths (issue 24: G2, G8, G10, G12, G15): what graveyard reads
# and writes where a file goes. Sourced by tests/integration/cases.sh.
#
# Tests: rundir/files.c
# Tests: rundir/outfile.c
# Tests: rundir/rundir.c
# Tests: orchestrator/run/prepare.c
# Tests: orchestrator/forge/build.c
# Tests: orchestrator/cmd/cmd_sha256.c
# Tests: orchestrator/cmd/cmd_f16range.c

# refused_now WHAT WANT CMD...: CMD exits 2 within a few seconds (a
# `timeout 10` turns a hang into 124) and says WANT on its one line of
# error.
refused_now() {
    local what=$1 want=$2 rc=0 t0=$SECONDS; shift 2
    timeout -k 2 10 "$@" >/dev/null 2>"$work/err" </dev/null || rc=$?
    [ $rc = 2 ] && grep -q -- "$want" "$work/err" ||
        fail "$what: exit $rc $(head -3 "$work/err")"
    [ $((SECONDS - t0)) -le 3 ] || fail "$what: took $((SECONDS - t0)) s"
    [ "$(wc -l <"$work/err")" -le 2 ] || fail "$what: $(cat "$work/err")"
}

# G2: a FIFO where a file goes blocked open() forever. Each is refused at
# once as "not a regular file", before any read could wait on it.
case_fifo_inputs() {
    local f=$work/fifo d=$work/fifock
    rm -f "$f"; mkfifo "$f"
    refused_now "model" "'$f': not a regular file" \
        $G run Q4_0 "$f" "$work/q.jsonl" "$work/ff1" --llama "$FAKE"
    refused_now "question file" "'$f': not a regular file" \
        $G run Q4_0 "$work/good.gguf" "$f" "$work/ff2" --llama "$FAKE"
    refused_now "task file" "'$f': not a regular file" \
        $G run Q4_0 "$work/good.gguf" "$work/q.jsonl" "$work/ff3" --llama "$FAKE" --task "$f"
    refused_now "config" "'$f': not a regular file" $G ladder "$f"
    refused_now "sha256" "'$f': not a regular file" $G sha256 "$f"
    refused_now "sha256 of /dev/zero" "not a regular file" $G sha256 /dev/zero
    refused_now "verify --against" "'$f': not a regular file" \
        $G verify "$ROOT/tests/golden/data/t4-fewer" --against "$f"
    ln -sf "$ROOT/tests/golden/data/t4-fewer/ladder.tsv" "$work/linked.tsv"
    $GT verify "$ROOT/tests/golden/data/t4-fewer" --against "$work/linked.tsv" >/dev/null 2>&1 ||
        fail "verify --against a link: exit $?"
    refused_now "f16-range" "not a regular file" $G f16-range "$f"
    refused_now "import" "'$f': not a regular file" \
        $G import lm-eval "$f" "$work/ff4" R --task lm-eval-gsm8k
    # a checkpoint folder whose shard, or whose index, is a FIFO
    mkdir -p "$d"; rm -f "$d"/*
    cp "$ROOT/configs/demo/checkpoint/config.json" "$d/"
    mkfifo "$d/model.safetensors"
    refused_now "f16-range shard" "not a regular file" $G f16-range "$d"
    rm -f "$d/model.safetensors"
    cp "$ROOT/configs/demo/checkpoint/model.safetensors" "$d/model-00001-of-00001.safetensors"
    mkfifo "$d/model.safetensors.index.json"
    refused_now "f16-range index" "not a regular file" $G f16-range "$d"
    [ ! -e "$work/ff1" ] && [ ! -e "$work/ff2" ] && [ ! -e "$work/ff3" ] ||
        fail "a refused run left a run folder"
}
area_cases="$area_cases fifo_inputs"

# G2: build with a FIFO as the checkpoint's shard waited on it forever,
# and a SIGTERM ("stopping on signal 15") never ended it.
case_fifo_build() {
    local d=$work/fbck pid rc=0
    mkdir -p "$d" "$work/fb"; rm -f "$d"/*
    cp "$ROOT/configs/demo/checkpoint/config.json" "$d/"
    mkfifo "$d/model.safetensors"
    cat >"$work/fb.json" <<JSON
{"name": "fb", "questions": "$work/q.jsonl", "run_dir": "$work/fb/run",
 "build": {"checkpoint": "$d", "python": "$build/fake-convert-hf",
           "convert": "$ROOT/tests/fake-tools/convert_hf_to_gguf.py",
           "quantize": "$build/fake-llama-quantize"},
 "rungs": [{"name": "BF16", "model": "$work/fb/m/BF16.gguf", "convert": "bf16"},
  {"name": "Q4_0", "model": "$work/fb/m/Q4_0.gguf", "quantize": {"from": "BF16", "type": "Q4_0"}}],
 "server": {"binary": "$FAKE"}, "gpus": ["0"]}
JSON
    timeout -k 2 20 $G build "$work/fb.json" >/dev/null 2>"$work/err" </dev/null || rc=$?
    [ $rc = 2 ] && grep -q "'$d/model.safetensors': not a regular file" "$work/err" ||
        fail "build: exit $rc $(tail -3 "$work/err")"
    # and a SIGTERM, whenever it comes, ends it
    $G build "$work/fb.json" >/dev/null 2>&1 </dev/null &
    pid=$!
    sleep 0.3
    kill -TERM $pid 2>/dev/null
    gone_within 5 $pid || { fail "build: SIGTERM did not end it"; kill -KILL $pid; }
    wait $pid 2>/dev/null
}
area_cases="$area_cases fifo_build"

# G8: a resume was refused ("rows made two ways") when the same file was
# spelled another way: q/q4.jsonl then ./q/q4.jsonl, GGUF_DIR=/x then
# /x/. A file is its sha256; another file is still refused.
case_spelling() {
    local s=$work/sp rc=0
    mkdir -p "$s/q" "$s/m"
    cp "$work/q.jsonl" "$s/q/q4.jsonl"; cp "$work/good.gguf" "$s/m/good.gguf"
    (cd "$s" && $GT run R1 m/good.gguf q/q4.jsonl run --llama "$FAKE" --limit 2 --quiet) >/dev/null 2>"$work/err" || fail "first: exit $? $(cat "$work/err")"
    (cd "$s" && $GT run R1 ./m//good.gguf ./q/q4.jsonl run --llama "$FAKE" --quiet) >/dev/null 2>"$work/err" || fail "respelled: exit $? $(cat "$work/err")"
    [ "$(rows "$s/run" R1)" = 4 ] || fail "respelled: $(rows "$s/run" R1) rows"
    grep -q '"path": "q/q4.jsonl"' "$s/run/manifest.json" || fail "the recorded spelling changed: $(grep path "$s/run/manifest.json")"
    # another question file, however spelled, is still another
    sed 's/"5"/"6"/' "$work/q.jsonl" >"$s/q/other.jsonl"
    (cd "$s" && $GT run R1 m/good.gguf q/other.jsonl run --llama "$FAKE" --quiet) >/dev/null 2>"$work/err" || rc=$?
    [ $rc = 2 ] && grep -q "rows made two ways" "$work/err" || fail "another file: exit $rc $(cat "$work/err")"
    # a ladder config's ${GGUF_DIR}, with and without a trailing slash
    cat >"$s/l.json" <<JSON
{"name": "sp", "questions": "$work/q.jsonl", "run_dir": "$s/lrun", "limit": 2,
 "rungs": [{"name": "R1", "model": "\${GGUF_DIR}/good.gguf"}],
 "server": {"binary": "$FAKE"}, "gpus": ["0"]}
JSON
    GGUF_DIR=$s/m $GT ladder "$s/l.json" --quiet >/dev/null 2>"$work/err" || fail "ladder: exit $? $(tail -3 "$work/err")"
    sed -i 's/"limit": 2,//' "$s/l.json"
    GGUF_DIR=$s/m/ $GT ladder "$s/l.json" --quiet >/dev/null 2>"$work/err" || fail "GGUF_DIR/: exit $? $(tail -3 "$work/err")"
    [ "$(rows "$s/lrun" R1)" = 4 ] || fail "GGUF_DIR/: $(rows "$s/lrun" R1) rows"
}
area_cases="$area_cases spelling"

# G12: a garbage or linked rows/R.done was printed as the rung's summary
# with exit 0 (and bury failed after). It is read as any run-folder file.
case_done_checked() {
    local d=$work/dc rc
    $GT run R1 "$work/good.gguf" "$work/q.jsonl" "$d" --llama "$FAKE" --quiet >/dev/null 2>&1 || fail "run: exit $?"
    cp "$d/rows/R1.done" "$work/R1.done.good"
    $GT run R1 "$work/good.gguf" "$work/q.jsonl" "$d" --llama "$FAKE" --quiet >"$work/out" 2>&1 || fail "again: exit $?"
    cmp -s "$work/out" "$work/R1.done.good" || fail "again: $(cat "$work/out")"
    printf 'rm -rf ~ # not a summary\n' >"$d/rows/R1.done"
    rc=0; $GT run R1 "$work/good.gguf" "$work/q.jsonl" "$d" --llama "$FAKE" --quiet >"$work/out" 2>"$work/err" || rc=$?
    [ $rc = 2 ] && grep -q "R1.done.*malformed rung summary" "$work/err" && [ ! -s "$work/out" ] ||
        fail "garbage: exit $rc, out $(cat "$work/out") err $(cat "$work/err")"
    sed 's/"rung": "R1"/"rung": "R2"/' "$work/R1.done.good" >"$d/rows/R1.done"
    rc=0; $GT run R1 "$work/good.gguf" "$work/q.jsonl" "$d" --llama "$FAKE" --quiet >"$work/out" 2>"$work/err" || rc=$?
    [ $rc = 2 ] && grep -q "not the summary of rung 'R1'" "$work/err" || fail "another rung's: exit $rc $(cat "$work/err")"
    rm "$d/rows/R1.done"; ln -s "$work/R1.done.good" "$d/rows/R1.done"
    rc=0; $GT run R1 "$work/good.gguf" "$work/q.jsonl" "$d" --llama "$FAKE" --quiet >"$work/out" 2>"$work/err" || rc=$?
    [ $rc = 2 ] && grep -q "symbolic link" "$work/err" && [ ! -s "$work/out" ] || fail "a link: exit $rc $(cat "$work/err")"
    rm "$d/rows/R1.done"; mkfifo "$d/rows/R1.done"
    rc=0; timeout -k 2 20 $G run R1 "$work/good.gguf" "$work/q.jsonl" "$d" --llama "$FAKE" --quiet >"$work/out" 2>"$work/err" || rc=$?
    [ $rc = 2 ] && grep -q "not a regular file" "$work/err" || fail "a FIFO: exit $rc $(cat "$work/err")"
    rc=0; timeout -k 2 20 $G bury "$d" R1 >"$work/out" 2>"$work/err" || rc=$?
    [ $rc = 2 ] && grep -q "not a regular file" "$work/err" || fail "bury, a FIFO: exit $rc $(cat "$work/err")"
}
area_cases="$area_cases done_checked"

# G10: a full disk while manifest.json is written was exit 2 ("refused
# their input" in a ladder): it is exit 1, "disk full", and resumes.
case_manifest_full() {
    local mnt=$work/mf d rc=0
    mkdir -p "$mnt"
    if ! mount -t tmpfs -o size=1m tmpfs "$mnt" 2>/dev/null; then
        echo "  skip: cannot mount a small tmpfs here (root is needed)"
        return
    fi
    d=$mnt/run
    $GT run R1 "$work/good.gguf" "$work/q.jsonl" "$d" --llama "$FAKE" --limit 1 --quiet >/dev/null 2>"$work/err" || fail "first: exit $? $(cat "$work/err")"
    # every page taken: the rung's lock rewrites its own page, the model's
    # hash is in the cache, and the manifest, changed under --force, is the
    # first file that needs a new page
    dd if=/dev/zero of="$mnt/fill" bs=4k 2>/dev/null
    $GT run R1 "$work/good.gguf" "$work/q.jsonl" "$d" --llama "$FAKE" --max-tokens 500 --force --quiet >/dev/null 2>"$work/err" || rc=$?
    [ $rc = 1 ] && grep -q "manifest.json.*disk full" "$work/err" || fail "full at the manifest: exit $rc $(cat "$work/err")"
    rm -f "$mnt/fill"
    $GT run R1 "$work/good.gguf" "$work/q.jsonl" "$d" --llama "$FAKE" --max-tokens 500 --force --quiet >/dev/null 2>"$work/err" || fail "resume: exit $? $(cat "$work/err")"
    [ "$(rows "$d" R1)" = 4 ] || fail "resume: $(rows "$d" R1) rows"
    umount "$mnt"
}
area_cases="$area_cases manifest_full"

# G15: a tool that made a folder at its temporary output path left it
# there for good. It goes when the step fails and when a later build
# starts the step (its links removed, never followed); and a folder where
# the rung's file goes is refused.
case_tmp_folder() {
    local w=$work/tf rc=0 q=$work/tf/dirquant
    mkdir -p "$w/m" "$w/victim"; rm -rf "$w/m"/* "$w/m"/.[!.]* "$w/run"
    echo keep >"$w/victim/precious"
    cp -r "$ROOT/configs/demo/checkpoint" "$w/ck"
    # a quantizer that makes a folder at its output (a link inside), exit 0
    cat >"$q" <<SH
#!/bin/sh
echo "main: build = 1 (dirquant)"
for a; do case "\$a" in *.graveyard-tmp.*) out=\$a;; esac; done
mkdir -p "\$out/deep/er" && ln -s "$w/victim" "\$out/deep/er/link" && echo x >"\$out/deep/f"
exit \${DIRQUANT_RC:-0}
SH
    chmod +x "$q"
    cat >"$w/tf.json" <<JSON
{"name": "tf", "questions": "$work/q.jsonl", "run_dir": "$w/run",
 "build": {"checkpoint": "$w/ck", "python": "$build/fake-convert-hf",
           "convert": "$ROOT/tests/fake-tools/convert_hf_to_gguf.py", "quantize": "$q"},
 "rungs": [{"name": "BF16", "model": "$w/m/BF16.gguf", "convert": "bf16"},
  {"name": "Q4_0", "model": "$w/m/Q4_0.gguf", "quantize": {"from": "BF16", "type": "Q4_0"}}],
 "server": {"binary": "$FAKE"}, "gpus": ["0"]}
JSON
    for code in 0 1; do
        rc=0; DIRQUANT_RC=$code $GT build "$w/tf.json" --quiet >/dev/null 2>"$work/err" || rc=$?
        [ $rc = 1 ] || fail "tool exit $code: build exit $rc $(tail -3 "$work/err")"
        [ -z "$(ls -A "$w/m" | grep graveyard-tmp)" ] || fail "tool exit $code: left $(ls -A "$w/m")"
    done
    [ "$(cat "$w/victim/precious")" = keep ] || fail "the link's target changed"
    # a folder left by a build killed with the tool: gone when it starts
    mkdir -p "$w/m/.Q4_0.gguf.graveyard-tmp.99999/a/b"
    ln -s "$w/victim" "$w/m/.Q4_0.gguf.graveyard-tmp.99999/a/b/link"
    mkdir -p "$w/m/.Q4_0.gguf.graveyard-tmpx" # not our name: stays
    sed -i "s|\"quantize\": \"$q\"|\"quantize\": \"$build/fake-llama-quantize\"|" "$w/tf.json"
    $GT build "$w/tf.json" --quiet >/dev/null 2>"$work/err" || fail "resume: exit $? $(tail -3 "$work/err")"
    [ ! -e "$w/m/.Q4_0.gguf.graveyard-tmp.99999" ] || fail "resume left the folder: $(ls -A "$w/m")"
    [ -d "$w/m/.Q4_0.gguf.graveyard-tmpx" ] || fail "removed a name not ours"
    [ -f "$w/m/Q4_0.gguf" ] && [ "$(cat "$w/victim/precious")" = keep ] || fail "resume: $(ls -A "$w/m" "$w/victim")"
    # a folder where a rung's file goes
    rm -f "$w/m/Q4_0.gguf"; mkdir "$w/m/Q4_0.gguf"
    rc=0; $GT build "$w/tf.json" --quiet >/dev/null 2>"$work/err" || rc=$?
    [ $rc = 2 ] && grep -q "Q4_0.gguf' is a folder" "$work/err" || fail "a folder as the output: exit $rc $(tail -3 "$work/err")"
    [ -d "$w/m/Q4_0.gguf" ] || fail "the folder was touched"
}
area_cases="$area_cases tmp_folder"

# Issue 25 item 5: paths live in capped buffers (BUF_PATH_MAX, 4199
# bytes), and a path past the cap is refused with a message naming it,
# never cut to name another file. A run folder of 5,000 characters given
# to run, bury, verify, build and ladder: exit 2, one line, nothing made.
case_long_paths() {
    local long=$work/lp/$(printf 'a%.0s' $(seq 1 5000)) cmd
    rm -rf "$work/lp"
    refused_now "run" "path too long" \
        $G run Q4_0 "$work/good.gguf" "$work/q.jsonl" "$long" --llama "$FAKE"
    for cmd in "bury $long Q4_0" \
        "verify $long --against $ROOT/tests/golden/data/t4-fewer/ladder.tsv"; do
        # shellcheck disable=SC2086
        refused_now "${cmd%% *}" "too long" $G $cmd
    done
    refused_now "build" "path too long" \
        $G build --run-dir "$long" "$ROOT/configs/demo-build.json"
    # the ladder cut the path of each rung's folder and started rungs that
    # refused it, one line each: now refused before anything starts
    refused_now "ladder" "path too long" \
        $G ladder --run-dir "$long" --llama "$FAKE" "$ROOT/configs/demo.json"
    [ ! -e "$work/lp" ] || fail "a refused long path left $work/lp"
}
area_cases="$area_cases long_paths"

# Issue 25, the rest of item 5: the build kept a rung's folder and its
# temporary name in fixed arrays, and a tool's path in a PATH_MAX one: a
# rung's "model" past the cap was cut, and refused as "cannot write into"
# the cut folder. A rung whose "model" passes the cap (5,000 characters in
# folders of 200) is refused by name, in one line, before a folder is
# made; so is a quantizer or a python so long.
case_long_build_paths() {
    local w=$work/lbp seg long i
    rm -rf "$w"; mkdir -p "$w"
    seg=$(printf 'b%.0s' $(seq 1 200)); long=$w/m
    for i in $(seq 1 24); do long=$long/$seg; done
    cp -r "$ROOT/configs/demo/checkpoint" "$w/ck"
    long_build_config() { # MODEL QUANTIZE PYTHON
        cat >"$w/b.json" <<JSON
{"name": "lbp", "questions": "$work/q.jsonl", "run_dir": "$w/run",
 "build": {"checkpoint": "$w/ck", "python": "$3",
           "convert": "$ROOT/tests/fake-tools/convert_hf_to_gguf.py", "quantize": "$2"},
 "rungs": [{"name": "BF16", "model": "$w/BF16.gguf", "convert": "bf16"},
  {"name": "Q4_0", "model": "$1", "quantize": {"from": "BF16", "type": "Q4_0"}}],
 "server": {"binary": "$FAKE"}, "gpus": ["0"]}
JSON
    }
    long_build_config "$long/Q4_0.gguf" "$build/fake-llama-quantize" "$build/fake-convert-hf"
    refused_now "a rung's model" "rung Q4_0: path too long: '$w/m/bbb" $G build "$w/b.json"
    [ ! -e "$w/m" ] && [ ! -e "$w/BF16.gguf" ] || fail "a refused model path made $(ls "$w")"
    long_build_config "$w/Q4_0.gguf" "$long/quantize" "$build/fake-convert-hf"
    refused_now "build.quantize" "'build.quantize': path too long: '$w/m/bbb" $G build "$w/b.json"
    long_build_config "$w/Q4_0.gguf" "$build/fake-llama-quantize" "$long/python3"
    refused_now "build.python" "'build.python': path too long: '$w/m/bbb" $G build "$w/b.json"
    [ ! -e "$w/BF16.gguf" ] && [ ! -e "$w/Q4_0.gguf" ] || fail "a refused build made a file"
}
area_cases="$area_cases long_build_paths"

# From round 4 (issue 33; failed on 21b075f):
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
area_cases="$area_cases planted_ahead"
