# shellcheck shell=bash
# graveyard merge (issue 39, the commons): bundles of several machines
# made one run folder, when and only when their rows are comparable
# (docs/merge.md). A ladder run in one folder on the fake server, its
# rungs split into two folders (helpers/merge_split.py), each published
# and merged: the merged folder reports byte for byte as the one folder
# did. Then each thing that makes rows incomparable, refused by name;
# a re-upload kept as two rungs; tampered and hostile bundles refused as
# verify refuses them; the --out rules. Sourced by
# tests/integration/cases.sh (lib.sh's helpers).
#
# Tests: orchestrator/cmd/cmd_merge.c
# Tests: orchestrator/figures/figures_merge.c
# Tests: orchestrator/figures/figures_verify.c
# Tests: rundir/comparable.c
# Tests: rundir/merged.c

MERGE_SPLIT="/usr/bin/python3 $ROOT/tests/integration/helpers/merge_split.py"

# mg_config NAME RUNG=MODEL... [-- EXTRA_JSON]: $work/NAME.json, a ladder
# into $work/NAME on the fake server (MG_BIN: another binary); EXTRA_JSON
# (', "ctx": 8192') is added to the config's top level
mg_config() {
    local name=$1 rungs="" extra="" r
    shift
    while [ $# -gt 0 ]; do
        [ "$1" = -- ] && { extra=$2; break; }
        r="{\"name\": \"${1%%=*}\", \"model\": \"$work/${1#*=}.gguf\"}"
        rungs="$rungs${rungs:+, }$r"
        shift
    done
    cat >"$work/$name.json" <<JSON
{"name": "mg", "questions": "${MG_Q:-$work/q.jsonl}", "run_dir": "$work/$name",
 "rungs": [$rungs], "server": {"binary": "${MG_BIN:-$FAKE}"}, "gpus": ["0"]$extra}
JSON
}

# mg_ladder NAME RUNG=MODEL... [-- EXTRA]: the config run, then published
# into $work/NAME-pub
mg_ladder() {
    local name=$1
    mg_config "$@"
    $GT ladder "$work/$name.json" >/dev/null 2>"$work/$name.err" ||
        { fail "ladder $name: $(tail -3 "$work/$name.err")"; return 1; }
    mg_publish "$name"
}
mg_publish() { # RUNDIR name under $work: published into $work/NAME-pub
    $GT publish "$work/$1" --out "$work/$1-pub" >"$work/$1.pout" 2>&1 ||
        { fail "publish $1: $(tail -3 "$work/$1.pout")"; return 1; }
}

# the one-folder ladder ($work/mg-one, published) and its two halves
# ($work/mg-h1: Q8_0 Q4_0, $work/mg-h2: Q2_K IQ1_S, each published),
# made once for the cases that run in one work folder
mg_halves() {
    [ -f "$work/mg-h2-pub/bundle.tar.gz" ] && return 0 # made by a case before
    model mthird '"default": {"content": "Answer: 8"}'
    mg_ladder mg-one Q8_0=good Q4_0=good Q2_K=drift IQ1_S=mthird || return 1
    $MERGE_SPLIT "$work/mg-one" "$work/mg-h1" Q8_0 Q4_0 &&
        $MERGE_SPLIT "$work/mg-one" "$work/mg-h2" Q2_K IQ1_S ||
        { fail "merge_split.py failed"; return 1; }
    mg_publish mg-h1 && mg_publish mg-h2
}

# mg_refused WHAT PATTERN ARGS...: graveyard merge ARGS exits 2 naming
# PATTERN (grep -E), and writes nothing: no --out ($work/mg-x), no stage
mg_refused() {
    local what=$1 pat=$2 rc
    shift 2
    rm -rf "$work/mg-x"
    $GT merge "$@" --out "$work/mg-x" >"$work/mg-x.out" 2>&1
    rc=$?
    [ $rc = 2 ] || fail "$what: exit $rc, not 2: $(tail -3 "$work/mg-x.out")"
    grep -qE -- "$pat" "$work/mg-x.out" ||
        fail "$what: did not say '$pat': $(tail -3 "$work/mg-x.out")"
    [ ! -e "$work/mg-x" ] || fail "$what: --out was written"
    [ -z "$(find "$work" -maxdepth 1 -name '.merge.*')" ] ||
        fail "$what: a stage was left: $(find "$work" -maxdepth 1 -name '.merge.*')"
}

# The halves merged report byte for byte as the one folder: the bundle of
# the merged folder against the one folder's (REPORT.md, report.json,
# CARD.md, REPORT.html, manifest.json), and graveyard report of the
# merged folder against graveyard report of the one folder's bundle
# unpacked under the same name. The halves given as a tar.gz, publish's
# folder and an unpacked folder; a rung in both bundles kept once.
case_merge_halves() {
    local f u=$work/mg-u
    mg_halves || return
    mkdir -p "$u/one" "$u/h2" &&
        tar xzf "$work/mg-one-pub/bundle.tar.gz" -C "$u/one" &&
        tar xzf "$work/mg-h2-pub/bundle.tar.gz" -C "$u/h2" || { fail "tar"; return; }
    $GT merge "$work/mg-h1-pub/bundle.tar.gz" "$u/h2/bundle" --out "$work/mg-m" \
        >"$work/mg-m.out" 2>&1 || { fail "merge: $(tail -3 "$work/mg-m.out")"; return; }
    grep -q "merged 2 bundles into $work/mg-m: 4 rungs (Q8_0, Q4_0, Q2_K, IQ1_S)" \
        "$work/mg-m.out" || fail "merge said: $(tail -2 "$work/mg-m.out")"
    mg_publish mg-m || return
    mkdir -p "$u/m" && tar xzf "$work/mg-m-pub/bundle.tar.gz" -C "$u/m"
    for f in REPORT.md report.json CARD.md REPORT.html manifest.json; do
        cmp -s "$u/one/bundle/$f" "$u/m/bundle/$f" ||
            fail "the merged folder's $f is not the one folder's: $(diff "$u/one/bundle/$f" "$u/m/bundle/$f" | head -4)"
    done
    # graveyard report of each, the folders named alike (the report
    # names its run folder)
    mkdir -p "$u/r1" "$u/r2" && cp -r "$u/one/bundle" "$u/r1/run" &&
        cp -r "$work/mg-m" "$u/r2/run"
    (cd "$u/r1" && $GT report run --out out --no-html >/dev/null 2>&1) &&
        (cd "$u/r2" && $GT report run --out out --no-html >/dev/null 2>&1) ||
        fail "graveyard report failed"
    for f in REPORT.md report.json; do
        cmp -s "$u/r1/out/$f" "$u/r2/out/$f" ||
            fail "graveyard report of the merged folder: $f differs: $(diff "$u/r1/out/$f" "$u/r2/out/$f" | head -4)"
    done
    # publish's folder, and the one folder's bundle with a half: every
    # rung of the half is in both, the same rows, kept once
    $GT merge "$work/mg-one-pub" "$work/mg-h2-pub" --out "$work/mg-m2" \
        >"$work/mg-m2.out" 2>&1 || { fail "merge with a rung twice: $(tail -3 "$work/mg-m2.out")"; return; }
    grep -q ": 4 rungs (Q8_0, Q4_0, Q2_K, IQ1_S)" "$work/mg-m2.out" ||
        fail "a rung in two bundles not kept once: $(tail -1 "$work/mg-m2.out")"
    diff -r "$work/mg-m" "$work/mg-m2" >/dev/null ||
        fail "merging the whole with a half made another folder: $(diff -r "$work/mg-m" "$work/mg-m2" | head -3)"
}
area_cases="$area_cases merge_halves"

# Each setting that makes rows incomparable, run for real on the fake
# server and refused by name: the token cap, the question file, the
# server build, a server flag (--ctx, the rung's ctx) on the same rung,
# the rows of one rung, the GPU.
case_merge_refused() {
    mg_halves || return
    # the token cap: the second half run with another request.max_tokens
    mg_ladder mg-cap Q2_K=drift IQ1_S=mthird -- ', "request": {"max_tokens": 512}' || return
    mg_refused "another token cap" \
        'refused: request\.max_tokens differs: 1024 in .*mg-h1-pub/bundle\.tar\.gz, 512 in .*mg-cap-pub/bundle\.tar\.gz' \
        "$work/mg-h1-pub/bundle.tar.gz" "$work/mg-cap-pub/bundle.tar.gz"
    # the question file: one answer changed
    sed 's/"answer": "15"/"answer": "16"/' "$work/q.jsonl" >"$work/q2.jsonl"
    MG_Q=$work/q2.jsonl mg_ladder mg-qs Q2_K=drift IQ1_S=mthird || return
    mg_refused "another question file" \
        "refused: questions\.sha256 differs: \"$(sha256sum "$work/q.jsonl" | cut -c1-64)\" in .*, \"$(sha256sum "$work/q2.jsonl" | cut -c1-64)\" in .*mg-qs-pub" \
        "$work/mg-h1-pub/bundle.tar.gz" "$work/mg-qs-pub/bundle.tar.gz"
    # another llama.cpp build: the fake behind a --version of its own
    r4c_wrapper "$work/mg-fork" "version: 2 (f0f0f0f0)"
    MG_BIN=$work/mg-fork mg_ladder mg-build Q2_K=drift IQ1_S=mthird || return
    mg_refused "another server build" \
        'refused: server\.version differs: "version: 1 \(fa4e0001\)" in .*mg-h1-pub/bundle\.tar\.gz, "version: 2 \(f0f0f0f0\)" in .*mg-build-pub' \
        "$work/mg-h1-pub/bundle.tar.gz" "$work/mg-build-pub/bundle.tar.gz"
    # a server flag on the same rung: Q4_0 again with --ctx 8192
    mg_ladder mg-ctx Q4_0=good -- ', "ctx": 8192' || return
    mg_refused "another ctx on the same rung" \
        'refused: rungs\.Q4_0\.ctx differs: 4096 in .*mg-h1-pub.*, 8192 in .*mg-ctx-pub' \
        "$work/mg-h1-pub/bundle.tar.gz" "$work/mg-ctx-pub/bundle.tar.gz"
    # a server flag of the rung's own: Q4_0 again with its KV cache at
    # q4_0 (publish carries each rung's server_args, paths cut to names)
    mg_config mg-ctk Q4_0=good &&
        sed -i 's|"model": "\([^"]*\)good.gguf"}|"model": "\1good.gguf", "server_args": ["-ctk", "q4_0", "-ctv", "q4_0"]}|' "$work/mg-ctk.json" &&
        $GT ladder "$work/mg-ctk.json" >/dev/null 2>"$work/mg-ctk.err" && mg_publish mg-ctk ||
        { fail "ladder mg-ctk: $(tail -3 "$work/mg-ctk.err")"; return; }
    mg_refused "another KV cache type on the same rung" \
        'refused: rungs\.Q4_0\.server_args differs: absent in .*mg-h1-pub.*, \["-ctk","q4_0","-ctv","q4_0"\] in .*mg-ctk-pub' \
        "$work/mg-h1-pub/bundle.tar.gz" "$work/mg-ctk-pub/bundle.tar.gz"
    # the same rung, file and settings, other rows: named by question
    $MERGE_SPLIT "$work/mg-one" "$work/mg-rows" Q4_0 || { fail "split"; return; }
    sed -i '2s/"latency_ms":[0-9]*/"latency_ms":99999/' "$work/mg-rows/rows/Q4_0.jsonl"
    mg_publish mg-rows || return
    mg_refused "other rows of one rung" \
        "refused: rung Q4_0 has other rows in .*mg-h1-pub/bundle.tar.gz and .*mg-rows-pub/bundle.tar.gz: question 'pears' \(rows/Q4_0.jsonl:2\) differs" \
        "$work/mg-h1-pub/bundle.tar.gz" "$work/mg-rows-pub/bundle.tar.gz"
    # another GPU: one folder holds one GPU's rows
    $MERGE_SPLIT "$work/mg-one" "$work/mg-gpu" Q2_K IQ1_S || { fail "split"; return; }
    # (whatever this machine recorded: null without nvidia-smi, its name
    # with one)
    sed -i -E 's/"gpu_name": (null|"[^"]*")/"gpu_name": "Other GPU 80GB"/' \
        "$work/mg-gpu/rows/Q2_K.done" "$work/mg-gpu/rows/IQ1_S.done"
    grep -q '"gpu_name": "Other GPU 80GB"' "$work/mg-gpu/rows/Q2_K.done" ||
        { fail "no gpu_name in $(cat "$work/mg-gpu/rows/Q2_K.done")"; return; }
    mg_publish mg-gpu || return
    mg_refused "another GPU" \
        "refused: rung Q2_K of .*mg-gpu-pub/bundle.tar.gz ran on the GPU 'Other GPU 80GB', rung Q8_0 of .*mg-h1-pub/bundle.tar.gz on '[^']+'.*graveyard compare" \
        "$work/mg-h1-pub/bundle.tar.gz" "$work/mg-gpu-pub/bundle.tar.gz"
}
area_cases="$area_cases merge_refused"

# A re-upload: Q2_K again from a file of the same name and other bytes.
# Two rungs, the second named Q2_K-SHA8, its rows and .done renamed; the
# merged folder publishes and verifies.
case_merge_reupload() {
    local sha
    mg_halves || return
    mkdir -p "$work/re"
    printf '{"fake_llama_server": 1, "decode_tps": 50.0, "default": {"content": "Answer: 15"}}\n' \
        >"$work/re/drift.gguf"
    mg_ladder mg-re Q2_K=re/drift || return
    sha=$(sha256sum "$work/re/drift.gguf" | cut -c1-8)
    $GT merge "$work/mg-h2-pub/bundle.tar.gz" "$work/mg-re-pub/bundle.tar.gz" \
        --out "$work/mg-rm" >"$work/mg-rm.out" 2>&1 ||
        { fail "merge of a re-upload: $(tail -3 "$work/mg-rm.out")"; return; }
    grep -q ": 3 rungs (Q2_K, IQ1_S, Q2_K-$sha)" "$work/mg-rm.out" ||
        fail "the re-upload not named apart: $(tail -1 "$work/mg-rm.out")"
    [ -f "$work/mg-rm/rows/Q2_K-$sha.jsonl" ] || { fail "no rows/Q2_K-$sha.jsonl"; return; }
    cmp -s "$work/mg-h2/rows/Q2_K.jsonl" "$work/mg-rm/rows/Q2_K.jsonl" ||
        fail "the first Q2_K's rows changed"
    [ "$(grep -c "\"rung\":\"Q2_K-$sha\"" "$work/mg-rm/rows/Q2_K-$sha.jsonl")" = 4 ] ||
        fail "the renamed rung's rows do not name it"
    grep -q "\"rung\":\"Q2_K-$sha\"" "$work/mg-rm/rows/Q2_K-$sha.done" ||
        fail "the renamed rung's .done does not name it"
    grep -q "^Q2_K-$sha	drift.gguf	" "$work/mg-rm/ladder.tsv" ||
        fail "ladder.tsv: $(cat "$work/mg-rm/ladder.tsv")"
    mg_publish mg-rm || return
    $GT verify "$work/mg-rm-pub/bundle.tar.gz" >"$work/mg-rm.v" 2>&1 ||
        fail "the merged folder's bundle does not verify: $(head -3 "$work/mg-rm.v")"
    grep -q "\"rung\": \"Q2_K-$sha\"" "$work/mg-rm-pub/report.json" 2>/dev/null ||
        tar xzf "$work/mg-rm-pub/bundle.tar.gz" -O bundle/report.json |
        grep -q "\"rung\": \"Q2_K-$sha\"" || fail "report.json has no rung Q2_K-$sha"
}
area_cases="$area_cases merge_reupload"

# Tampered and hostile bundles: merge refuses each as verify does (the
# same exit code, every line verify says), and writes nothing
case_merge_hostile() {
    local m b rc vrc line
    mg_halves || return
    b=$work/mg-h1-pub/bundle.tar.gz
    for m in row rowwrong figure sums mansha tsvpath dotdot symlink huge; do
        $PUBLISH_TAMPER $m "$b" "$work/mg-t-$m.tgz" >/dev/null ||
            { fail "publish_tamper.py $m"; continue; }
        timeout -k 2 60 "$G" verify "$work/mg-t-$m.tgz" >"$work/mg-t.v" 2>&1
        vrc=$?
        [ $vrc != 0 ] || { fail "$m: verify passed it: the case tests nothing"; continue; }
        rm -rf "$work/mg-x"
        timeout -k 2 60 "$G" merge "$work/mg-t-$m.tgz" "$work/mg-h2-pub/bundle.tar.gz" \
            --out "$work/mg-x" >"$work/mg-t.m" 2>&1
        rc=$?
        [ $rc = $vrc ] || fail "$m: merge exited $rc, verify $vrc"
        while IFS= read -r line; do
            line=${line#graveyard verify: }
            grep -qF -- "$line" "$work/mg-t.m" ||
                fail "$m: merge did not say verify's '$line': $(head -3 "$work/mg-t.m")"
        done <"$work/mg-t.v"
        grep -q "refused: .*mg-t-$m.tgz does not verify" "$work/mg-t.m" ||
            fail "$m: merge did not name the bundle: $(tail -2 "$work/mg-t.m")"
        [ ! -e "$work/mg-x" ] || fail "$m: --out was written"
    done
}
area_cases="$area_cases merge_hostile"

# --out: absent or an empty folder; a folder with a file in it, a plain
# file and a link (to an empty folder) refused, exit 2, nothing written
# there or through the link; the stage beside --out is gone at the end
case_merge_out() {
    local h1 h2
    mg_halves || return
    h1=$work/mg-h1-pub/bundle.tar.gz h2=$work/mg-h2-pub/bundle.tar.gz
    mkdir -p "$work/mg-o/full" "$work/mg-o/empty" "$work/mg-o/target"
    : >"$work/mg-o/full/keep"
    : >"$work/mg-o/plain"
    ln -s "$work/mg-o/target" "$work/mg-o/link"
    for o in full plain link; do
        $GT merge "$h1" "$h2" --out "$work/mg-o/$o" >"$work/mg-o.out" 2>&1
        [ $? = 2 ] || fail "--out $o: not refused with 2: $(tail -2 "$work/mg-o.out")"
        grep -q "must not exist, or be an empty folder" "$work/mg-o.out" ||
            fail "--out $o: $(tail -2 "$work/mg-o.out")"
    done
    [ "$(ls -A "$work/mg-o/full")" = keep ] || fail "a full --out was written"
    [ -z "$(ls -A "$work/mg-o/target")" ] || fail "the link was followed"
    $GT merge "$h1" "$h2" --out "$work/mg-o/empty" >"$work/mg-o.out" 2>&1 ||
        fail "an empty --out: $(tail -2 "$work/mg-o.out")"
    [ -f "$work/mg-o/empty/rows/IQ1_S.jsonl" ] || fail "an empty --out holds no rows"
    $GT merge "$h1" "$h2" --out "$work/mg-o/new/" >"$work/mg-o.out" 2>&1 ||
        fail "--out with a trailing slash: $(tail -2 "$work/mg-o.out")"
    [ -z "$(find "$work/mg-o" -maxdepth 1 -name '.merge.*')" ] || fail "a stage was left"
    $GT merge --out "$work/mg-o/none" >/dev/null 2>&1
    [ $? = 2 ] || fail "no bundle: not exit 2"
    $GT merge "$h1" >/dev/null 2>&1
    [ $? = 2 ] || fail "no --out: not exit 2"
}
area_cases="$area_cases merge_out"
