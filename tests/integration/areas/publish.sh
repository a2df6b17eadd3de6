# shellcheck shell=bash
# Round 4, publish (issue 33, "Hostile nights, round 4"): graveyard publish
# and verify BUNDLE against what a shared disk or a sender can put in their
# way: a FIFO or a symbolic link where each file they read goes, a gzip
# bomb, a killed run's leftovers, a bundle whose manifest, ladder.tsv or
# SHA256SUMS contradicts itself. Sourced by tests/integration/cases.sh (lib.sh's helpers).
#
# Tests: orchestrator/cmd/cmd_publish.c
# Tests: orchestrator/cmd/cmd_verify.c
# Tests: orchestrator/figures/figures_publish.c
# Tests: orchestrator/figures/figures_bundle.c
# Tests: orchestrator/figures/figures_bundle_write.c
# Tests: orchestrator/figures/figures_verify.c
# Tests: orchestrator/figures/figures_agree.c
# Tests: orchestrator/figures/figures_rowdiff.c
# Tests: orchestrator/figures/figures_stage.c
# Tests: report/card.c
# Tests: orchestrator/base/tarball.c
# Tests: rundir/published.c

PUBLISH_TAMPER="/usr/bin/python3 $ROOT/tests/integration/helpers/publish_tamper.py"

# a 20-question study folder (tests/page/make_study.py) at $1, its question
# file inside it by a relative name, a power file at rows/Q4_0.power
r4p_study() {
    /usr/bin/python3 "$ROOT/tests/page/make_study.py" "$1" --n 20 \
        --questions "$ROOT/data/gsm8k/heldout-250.jsonl" >/dev/null || return 1
    cp "$ROOT/data/gsm8k/heldout-250.jsonl" "$1/questions.jsonl" || return 1
    /usr/bin/python3 - "$1/manifest.json" <<'PY' || return 1
import json, sys
m = json.load(open(sys.argv[1]))
m["questions"]["path"] = "questions.jsonl"
json.dump(m, open(sys.argv[1], "w"), indent=2)
PY
    printf 'b 0\n0 60.0\n1000 60.0\ne 2000\n' >"$1/rows/Q4_0.power"
}

# run "$@" under a 10 s limit into $work/r4p.out; it must end (no hang),
# exit non-zero and name $name on its output
r4p_refused() { # what name cmd...
    local what=$1 name=$2 rc t0 t1
    shift 2
    t0=$(date +%s%N)
    timeout -k 2 10 "$@" >"$work/r4p.out" 2>&1
    rc=$?
    t1=$(date +%s%N)
    if [ $rc = 124 ] || [ $rc = 137 ]; then
        fail "$what: hung (killed after 10 s)"
    elif [ $rc = 0 ]; then
        fail "$what: exit 0: $(tail -2 "$work/r4p.out")"
    elif ! grep -qF -- "$name" "$work/r4p.out"; then
        fail "$what: exit $rc without naming '$name': $(head -3 "$work/r4p.out")"
    elif [ $(((t1 - t0) / 1000000)) -gt 5000 ]; then
        fail "$what: took $(((t1 - t0) / 1000000)) ms to refuse"
    fi
}

# $1 swapped for a FIFO (mode fifo) or a link to a copy elsewhere (link);
# r4p_restore puts it back
r4p_swap() { # file mode
    mv "$1" "$1.orig" || return 1
    if [ "$2" = fifo ]; then
        mkfifo "$1"
    else
        cp "$1.orig" "$work/r4p-target" && ln -s "$work/r4p-target" "$1"
    fi
}
r4p_restore() { rm -f "$1" && mv "$1.orig" "$1"; }

# every file publish reads from a run folder, as a FIFO and as a link:
# refused naming it, never hanging, never copied into a bundle
case_publish_fifo_link() {
    local d=$work/r4p-study f mode
    r4p_study "$d" || { fail "make_study.py failed"; return; }
    $GT publish "$d" --out "$work/r4p-out" >"$work/r4p.out" 2>&1 ||
        { fail "publish of the folder as made: $(tail -3 "$work/r4p.out")"; return; }
    for f in rows/Q4_0.jsonl rows/Q4_0.done rows/Q4_0.power manifest.json \
        ladder.json ladder.tsv questions.jsonl repeat/rows/Q4_0.jsonl; do
        for mode in fifo link; do
            r4p_swap "$d/$f" $mode || { fail "cannot swap $f"; continue; }
            rm -rf "$work/r4p-out"
            r4p_refused "publish, $f a $mode" "$f" \
                "$G" publish "$d" --out "$work/r4p-out"
            r4p_restore "$d/$f"
        done
    done
    # the rows folder itself a link to a copy (O_NOFOLLOW guards the last
    # name only)
    mv "$d/rows" "$work/r4p-rows" && ln -s "$work/r4p-rows" "$d/rows"
    rm -rf "$work/r4p-out"
    r4p_refused "publish, rows/ a link" "rows': a symbolic link where a folder goes" \
        "$G" publish "$d" --out "$work/r4p-out"
    rm "$d/rows" && mv "$work/r4p-rows" "$d/rows"
    # a .probs file too (the report reads the chain's; none in the study)
    printf 'x' >"$work/r4p-target"
    ln -s "$work/r4p-target" "$d/rows/Q2_K.probs"
    r4p_refused "publish, rows/Q2_K.probs a link" rows/Q2_K.probs \
        "$G" publish "$d" --out "$work/r4p-out"
    rm -f "$d/rows/Q2_K.probs" && mkfifo "$d/rows/Q2_K.probs"
    r4p_refused "publish, rows/Q2_K.probs a fifo" rows/Q2_K.probs \
        "$G" publish "$d" --out "$work/r4p-out"
    rm -f "$d/rows/Q2_K.probs"
}
area_cases="$area_cases publish_fifo_link"

# every file verify reads from an unpacked bundle, as a FIFO and as a
# link; and the bundle given as a FIFO
case_verify_fifo_link() {
    local d=$work/r4v-study u=$work/r4v-x f mode
    r4p_study "$d" || { fail "make_study.py failed"; return; }
    $GT publish "$d" --out "$work/r4v-out" >"$work/r4p.out" 2>&1 ||
        { fail "publish: $(tail -3 "$work/r4p.out")"; return; }
    mkdir -p "$u" && tar xzf "$work/r4v-out/bundle.tar.gz" -C "$u" ||
        { fail "tar"; return; }
    $GT verify "$u/bundle" >"$work/r4p.out" 2>&1 ||
        { fail "verify of the folder as made: $(head -3 "$work/r4p.out")"; return; }
    for f in SHA256SUMS rows/Q4_0.jsonl rows/Q4_0.done rows/Q4_0.power \
        manifest.json ladder.json ladder.tsv questions.jsonl publish.json \
        report.json repeat/rows/Q4_0.jsonl; do
        [ -f "$u/bundle/$f" ] || { fail "the bundle has no $f"; continue; }
        for mode in fifo link; do
            r4p_swap "$u/bundle/$f" $mode || { fail "cannot swap $f"; continue; }
            r4p_refused "verify, $f a $mode" "$f" "$G" verify "$u/bundle"
            r4p_restore "$u/bundle/$f"
        done
    done
    mv "$u/bundle/rows" "$work/r4v-rows" && ln -s "$work/r4v-rows" "$u/bundle/rows"
    r4p_refused "verify, rows/ a link" "rows': a symbolic link where a folder goes" \
        "$G" verify "$u/bundle"
    rm "$u/bundle/rows" && mv "$work/r4v-rows" "$u/bundle/rows"
    mkfifo "$work/r4v-fifo.tgz"
    r4p_refused "verify of a FIFO" r4v-fifo.tgz "$G" verify "$work/r4v-fifo.tgz"
}
area_cases="$area_cases verify_fifo_link"

# a 2 MB gzip bomb: its one entry's header declares 2 GiB of zeros. The
# header is refused as it arrives, so the peak memory stays small (it was
# 1 GiB: the whole stream up to the total cap, then refused)
case_verify_bomb() {
    local rss
    $PUBLISH_TAMPER bomb - "$work/bomb.tgz" || { fail "publish_tamper.py bomb"; return; }
    [ "$(stat -c %s "$work/bomb.tgz")" -lt 3000000 ] || fail "the bomb is not 2 MB"
    timeout -k 2 60 /usr/bin/time -f 'maxrss %M' -o "$work/bomb.rss" \
        "$G" verify "$work/bomb.tgz" >"$work/bomb.out" 2>&1
    [ $? = 2 ] || fail "the bomb was not refused with 2: $(head -3 "$work/bomb.out")"
    grep -q "'bundle/rows/Q4_0.jsonl': an entry past the cap of 256 MiB" \
        "$work/bomb.out" || fail "not refused at its header: $(head -3 "$work/bomb.out")"
    rss=$(sed -n 's/^maxrss //p' "$work/bomb.rss")
    [ -n "$rss" ] && [ "$rss" -lt 204800 ] ||
        fail "verify of a 2 MB bomb peaked at ${rss:-?} KiB resident (cap 200 MiB)"
}
area_cases="$area_cases verify_bomb"

# verify MODE PATTERN: the bundle publish_tamper.py makes exits 1 naming
# what PATTERN says (grep -E)
r4p_tampered() { # mode pattern
    $PUBLISH_TAMPER "$1" "$work/r4c-out/bundle.tar.gz" "$work/r4c-$1.tgz" \
        >"$work/r4c-$1.made" || { fail "publish_tamper.py $1 failed"; return; }
    timeout -k 2 60 "$G" verify "$work/r4c-$1.tgz" >"$work/r4c-$1.out" 2>&1
    local rc=$?
    [ $rc = 1 ] || fail "$1: verify exited $rc, not 1: $(head -3 "$work/r4c-$1.out")"
    grep -qE -- "$2" "$work/r4c-$1.out" ||
        fail "$1: verify did not say '$2': $(head -4 "$work/r4c-$1.out")"
}

# a bundle that contradicts itself: its manifest against its ladder.tsv,
# its rows and its question file (each with SHA256SUMS fixed to match),
# an entry twice in the archive, a SHA256SUMS line twice
case_verify_contradicts() {
    local d=$work/r4c-study
    r4p_study "$d" || { fail "make_study.py failed"; return; }
    $GT publish "$d" --out "$work/r4c-out" >"$work/r4p.out" 2>&1 ||
        { fail "publish: $(tail -3 "$work/r4p.out")"; return; }
    $GT verify "$work/r4c-out/bundle.tar.gz" >"$work/r4p.out" 2>&1 ||
        { fail "verify of the bundle as made: $(head -3 "$work/r4p.out")"; return; }
    r4p_tampered mansha "^manifest.json: rungs.Q4_0.sha256 is 0000000000000000; ladder.tsv:[0-9]+ says 2d84758474be87d0"
    r4p_tampered tsvsha "^manifest.json: rungs.Q4_0.sha256 is 2d84758474be87d0; ladder.tsv:[0-9]+ says 0000000000000000"
    # a path in ladder.tsv: named, and not rendered (the recipes would read
    # this machine's file)
    r4p_tampered tsvpath "^ladder.tsv:[0-9]+: file '/etc/hostname' is a path; a bundle names files by their names"
    r4p_tampered manmodel "^manifest.json: rungs.Q4_0.model is 'other.gguf'; ladder.tsv:[0-9]+ says 'e2b-Q4_0.gguf'"
    r4p_tampered manrung "^ladder.tsv:[0-9]+: rung 'Q2_K' is not in manifest.json's rungs"
    r4p_tampered manrung "^rows/Q2_K.jsonl: rung 'Q2_K' is not in manifest.json's rungs"
    r4p_tampered manqs "^manifest.json: questions.sha256 is 0000000000000000; questions.jsonl's is [0-9a-f]{16}"
    r4p_tampered dupentry "^rows/Q4_0.jsonl: twice in the archive"
    grep -q "not in SHA256SUMS" "$work/r4c-dupentry.out" &&
        fail "dupentry: a duplicate called 'not in SHA256SUMS'"
    r4p_tampered dupsums "^SHA256SUMS:[0-9]+: rows/Q4_0.jsonl: listed twice \(line [0-9]+ too\)"
    # a row edited, its SHA256SUMS line fixed: named by file, line and id
    $PUBLISH_TAMPER rowwrong "$work/r4c-out/bundle.tar.gz" "$work/r4c-row0.tgz" \
        >"$work/r4c-row.made" || { fail "publish_tamper.py rowwrong"; return; }
    read -r line id <"$work/r4c-row.made"
    r4p_tampered rowwrong "^rows/Q4_0.jsonl:$line: question '$id': its grading is not what REPORT.html shows"
    grep -q "not in the bundle" "$work/r4c-dupsums.out" &&
        fail "dupsums: a duplicate called 'not in the bundle'"
}
area_cases="$area_cases verify_contradicts"

# what a publish or verify killed mid-way leaves (its staging folder, a
# bundle.tar.gz.tmp.*) goes at the next start; a live process's stays.
# Each command is killed with SIGKILL once its staging folder is seen,
# then run again with the same output folder and TMPDIR
r4p_leftovers() { # dirs...: every staging folder or temporary bundle left
    find "$@" -mindepth 1 -maxdepth 1 \( -name '*stage*' -o \
        -name 'graveyard-bundle*' -o -name 'bundle.tar.gz.tmp*' \) 2>/dev/null
}
r4p_kill_staged() { # tmpdir watched args...: graveyard ARGS with TMPDIR,
    # SIGKILLed once a staging folder shows in the folder watched
    local t=$1 watched=$2 pid
    shift 2
    TMPDIR=$t "$G" "$@" >/dev/null 2>&1 &
    pid=$!
    # at most 6 s, then killed anyway: the case never hangs
    for _ in $(seq 1 300); do
        # shellcheck disable=SC2086
        [ -n "$(r4p_leftovers $watched)" ] && break
        kill -0 $pid 2>/dev/null || break
        sleep 0.02
    done
    kill -KILL $pid 2>/dev/null
    wait $pid 2>/dev/null
}
case_publish_stale() {
    local d=$work/r4s-study t=$work/r4s-tmp out=$work/r4s-out dead left
    /usr/bin/python3 "$ROOT/tests/page/make_study.py" "$d" >/dev/null ||
        { fail "make_study.py failed"; return; }
    mkdir -p "$t"
    for _ in 1 2 3; do
        r4p_kill_staged "$t" "$t $out" publish "$d" --out "$out"
        [ -n "$(r4p_leftovers "$t" "$out")" ] && break
    done
    [ -n "$(r4p_leftovers "$t" "$out")" ] ||
        { fail "publish was never caught with a staging folder"; return; }
    # a dead process's temporary bundle, and a live one's (this shell's)
    sh -c 'exit 0' & dead=$!
    wait $dead
    printf x >"$out/bundle.tar.gz.tmp.$dead.0"
    printf x >"$out/CARD.md.tmp.$dead.3"
    printf x >"$out/bundle.tar.gz.tmp.$$.0"
    mkdir -p "$out/.bundle-stage.$$.keep/bundle"
    $GT publish "$d" --out "$out" >"$work/r4s.out" 2>&1 ||
        fail "publish after a kill: $(tail -2 "$work/r4s.out")"
    left=$(r4p_leftovers "$t" "$out" | grep -v "\.$$\.")
    [ -e "$out/CARD.md.tmp.$dead.3" ] && left="$left $out/CARD.md.tmp.$dead.3"
    [ -z "$left" ] || fail "publish left after a SIGKILL, still there after the next: $left"
    [ -e "$out/bundle.tar.gz.tmp.$$.0" ] && [ -d "$out/.bundle-stage.$$.keep" ] ||
        fail "a live process's temporary files were removed"
    rm -rf "$out/bundle.tar.gz.tmp.$$.0" "$out/.bundle-stage.$$.keep" "$t"
    mkdir -p "$t"
    # verify of the tar.gz stages under TMPDIR
    for _ in 1 2 3; do
        r4p_kill_staged "$t" "$t" verify "$out/bundle.tar.gz"
        [ -n "$(r4p_leftovers "$t")" ] && break
    done
    [ -n "$(r4p_leftovers "$t")" ] ||
        { fail "verify was never caught with a staging folder"; return; }
    TMPDIR=$t $GT verify "$out/bundle.tar.gz" >"$work/r4s.out" 2>&1 ||
        fail "verify after a kill: $(tail -2 "$work/r4s.out")"
    left=$(r4p_leftovers "$t")
    [ -z "$left" ] || fail "verify left after a SIGKILL, still there after the next: $left"
}
area_cases="$area_cases publish_stale"

# publish and verify change no working folder (issue 34: they chdir'ed
# into their stage and back). Run from a folder that holds a questions.jsonl
# of other texts and a bundle/ of its own with the same, verify still
# reads the stage's copy (a renderer reading a relative name from the
# working folder puts the other texts in REPORT.html: exit 1), and publish
# from there makes the same bytes. A stage that cannot be made (TMPDIR a
# plain file) is verify's own failure: exit 2 naming it, never "differs"
# (exit 1, a changed bundle, before).
case_publish_cwd() {
    local d=$work/r4w-study w=$work/r4w-cwd rc
    r4p_study "$d" || { fail "make_study.py failed"; return; }
    $GT publish "$d" --out "$work/r4w-out" >"$work/r4p.out" 2>&1 ||
        { fail "publish: $(tail -3 "$work/r4p.out")"; return; }
    mkdir -p "$w/bundle/rows"
    sed 's/"question": "/"question": "NOT THIS ONE /' "$d/questions.jsonl" \
        >"$w/bundle/questions.jsonl"
    (cd "$w" && $GT publish "$d" --out "$work/r4w-out2") >"$work/r4p.out" 2>&1 ||
        fail "publish from another folder: $(tail -3 "$work/r4p.out")"
    cmp -s "$work/r4w-out/bundle.tar.gz" "$work/r4w-out2/bundle.tar.gz" ||
        fail "publish from another folder made other bytes"
    cp "$w/bundle/questions.jsonl" "$w/questions.jsonl"
    (cd "$w" && $GT verify "$work/r4w-out/bundle.tar.gz") >"$work/r4p.out" 2>&1 ||
        fail "verify from a folder with other questions: $(head -3 "$work/r4p.out")"
    : >"$work/r4w-notafolder"
    TMPDIR=$work/r4w-notafolder $GT verify "$work/r4w-out/bundle.tar.gz" \
        >"$work/r4p.out" 2>&1
    rc=$?
    [ $rc = 2 ] || fail "a stage that cannot be made: exit $rc, not 2: $(head -3 "$work/r4p.out")"
    grep -q "r4w-notafolder" "$work/r4p.out" ||
        fail "a stage that cannot be made, not named: $(head -3 "$work/r4p.out")"
    if grep -q "differs" "$work/r4p.out"; then
        fail "a stage that cannot be made called a changed bundle"
    fi
}
area_cases="$area_cases publish_cwd"

# Round 3, publish (issue 29, "Evidence to publish"): graveyard publish on
# the study-shaped T4 folder (tests/page/make_study.py, 10 rungs x 250):
# the card, the model-index front matter and the .eval_results YAML parsed
# back by PyYAML and the lm-eval files, each rung's figures checked against
# report.json; a model name made to break YAML read back whole; no path of
# the machine (the manifest's model folders, the question file's folder,
# the run folder) in any file. Sourced by tests/integration/cases.sh (lib.sh's helpers).

PUBLISH_CHECK="/usr/bin/python3 $ROOT/tests/integration/helpers/publish_check.py"

case_publish_card() {
    local d=$work/pub-study name='T4: "quoted" #not-a-comment {x: [1]}
line two'
    /usr/bin/python3 "$ROOT/tests/page/make_study.py" "$d" >/dev/null ||
        { fail "make_study.py failed"; return; }
    "$G" report "$d" --out "$work/pub-report" --no-html >/dev/null ||
        { fail "report failed"; return; }
    "$G" publish "$d" --out "$work/pub-out" --dataset openai/gsm8k \
        --model "$name" >"$work/pub.out" 2>&1 ||
        { fail "publish failed: $(tail -2 "$work/pub.out")"; return; }
    PUBLISH_MODEL=$name $PUBLISH_CHECK "$work/pub-report/report.json" \
        "$work/pub-out" openai/gsm8k /opt1/ "$ROOT/data" "$d" \
        >"$work/pub-check.out" 2>&1 ||
        fail "publish_check: $(head -5 "$work/pub-check.out")"
    # no RUNDIR and no --out: usage, nothing written
    "$G" publish "$d" >/dev/null 2>&1
    [ $? = 2 ] || fail "publish without --out did not exit 2"
}
area_cases="$area_cases publish_card"


# the study folder published once per case into $work/pub-b
publish_bundle_made() {
    local d=$work/pub-b-study
    /usr/bin/python3 "$ROOT/tests/page/make_study.py" "$d" >/dev/null &&
        "$G" publish "$d" --out "$work/pub-b" --dataset openai/gsm8k \
            >"$work/pub-b.out" 2>&1
}

# verify MODE: the tampered bundle must exit 1 naming what is in $2
tampered() { # mode pattern
    $PUBLISH_TAMPER "$1" "$work/pub-b/bundle.tar.gz" "$work/t-$1.tgz" \
        >/dev/null || { fail "publish_tamper.py $1 failed"; return; }
    "$G" verify "$work/t-$1.tgz" >"$work/v-$1.out" 2>&1
    local rc=$?
    [ $rc = 1 ] || fail "$1: verify exited $rc, not 1: $(head -3 "$work/v-$1.out")"
    grep -qE "$2" "$work/v-$1.out" ||
        fail "$1: verify did not name '$2': $(head -3 "$work/v-$1.out")"
}

# the bundle: verified (tar.gz and unpacked folder), the same bytes twice,
# then one edited row, one edited figure, one changed SHA256SUMS line
case_publish_bundle() {
    publish_bundle_made || { fail "publish failed: $(tail -2 "$work/pub-b.out")"; return; }
    "$G" verify "$work/pub-b/bundle.tar.gz" >"$work/v.out" 2>&1 ||
        fail "verify of a fresh bundle: $(head -3 "$work/v.out")"
    mkdir -p "$work/pub-unpacked"
    tar xzf "$work/pub-b/bundle.tar.gz" -C "$work/pub-unpacked"
    "$G" verify "$work/pub-unpacked/bundle" >"$work/v2.out" 2>&1 ||
        fail "verify of the unpacked folder: $(head -3 "$work/v2.out")"
    (cd "$work/pub-unpacked/bundle" && sha256sum -c --quiet SHA256SUMS) ||
        fail "sha256sum -c does not read SHA256SUMS"
    cp "$work/pub-b/bundle.tar.gz" "$work/first.tgz"
    "$G" publish "$work/pub-b-study" --out "$work/pub-b" \
        --dataset openai/gsm8k >/dev/null 2>&1
    cmp -s "$work/first.tgz" "$work/pub-b/bundle.tar.gz" ||
        fail "the same folder made another bundle"
    tampered row 'report.json: rungs\[6\]\.right is 222; the rows give 221'
    tampered rowonly 'rows/Q4_0.jsonl: sha256 .* SHA256SUMS line'
    tampered figure 'report.json: rungs\[6\]\.accuracy is 0.999'
    tampered sums "SHA256SUMS line 4's 0000"
    # an unpacked folder with one row edited in place
    sed -i '1s/"right":true/"right":false/' \
        "$work/pub-unpacked/bundle/rows/Q4_0.jsonl"
    "$G" verify "$work/pub-unpacked/bundle" >"$work/v3.out" 2>&1
    [ $? = 1 ] && grep -q 'rows/Q4_0.jsonl: sha256' "$work/v3.out" ||
        fail "an edited row in a folder: $(head -3 "$work/v3.out")"
}
area_cases="$area_cases publish_bundle"

# hostile archives: refused with one line, exit 2, nothing written outside
case_publish_hostile() {
    publish_bundle_made || { fail "publish failed"; return; }
    local m out
    for m in dotdot symlink huge; do
        $PUBLISH_TAMPER $m "$work/pub-b/bundle.tar.gz" "$work/h-$m.tgz" \
            >/dev/null || { fail "publish_tamper.py $m"; continue; }
        out=$(cd "$work" && "$G" verify "h-$m.tgz" 2>&1)
        [ $? = 2 ] || fail "$m: not refused with 2: $out"
        case $m in
        dotdot) [[ $out == *"'bundle/../x': a name absolute"* ]] || fail "$m: $out" ;;
        symlink) [[ $out == *"links, devices"* ]] || fail "$m: $out" ;;
        huge) [[ $out == *"past the cap"* || $out == *"unpacks past"* ]] || fail "$m: $out" ;;
        esac
    done
    [ ! -e "$work/x" ] || fail "an entry was written outside"
    printf 'not gzip' >"$work/h-plain.tgz"
    "$G" verify "$work/h-plain.tgz" >/dev/null 2>&1
    [ $? = 2 ] || fail "a file that is not gzip was not refused with 2"
}
area_cases="$area_cases publish_hostile"

# nothing private in a bundle: a ladder whose servers got a secret-looking
# environment value, and a served rung with an API key beside it in the
# same folder; the bundle holds neither value, nor the key's hash, nor the
# endpoint's URL, nor any folder of this machine ($work)
case_publish_private() {
    local d=$work/pubpriv secret="tok-$$-s3cr3t-Xq9" sha
    ladder_config pubpriv 2 '"0"' good
    sed -i "s|\"server\": {\"binary\": \"$FAKE\"}|\"server\": {\"binary\": \"$FAKE\", \"env\": {\"MY_SECRET_TOKEN\": \"$secret\"}}|" \
        "$work/pubpriv.json"
    grep -q "$secret" "$work/pubpriv.json" || { fail "the config has no env"; return; }
    $GT ladder "$work/pubpriv.json" >/dev/null 2>"$work/err" ||
        { fail "ladder: $(tail -3 "$work/err")"; return; }
    ep_start good --api-key "$EP_KEY"
    EP_TEST_KEY="$EP_KEY" $GT run --url "$ep_url" E1 "$work/q.jsonl" "$d" \
        --api-key-env EP_TEST_KEY >/dev/null 2>"$work/err" ||
        fail "endpoint rung: $(tail -3 "$work/err")"
    ep_stop
    grep -q "api_key_sha256" "$d/manifest.json" ||
        fail "the run folder kept no key hash: the test tests nothing"
    "$G" publish "$d" --out "$work/pubpriv-out" --rungs R1,R2,E1 \
        >"$work/pub.out" 2>&1 || { fail "publish: $(tail -2 "$work/pub.out")"; return; }
    "$G" verify "$work/pubpriv-out/bundle.tar.gz" >/dev/null 2>&1 ||
        fail "the bundle does not verify"
    mkdir -p "$work/pubpriv-x"
    tar xzf "$work/pubpriv-out/bundle.tar.gz" -C "$work/pubpriv-x"
    sha=$(printf '%s' "$EP_KEY" | sha256sum | cut -c1-64)
    for s in "$secret" "$EP_KEY" "$sha" "$ep_url" "$work"; do
        if grep -rqaF -- "$s" "$work/pubpriv-x" "$work/pubpriv-out"/*.md \
            "$work/pubpriv-out"/*.yaml "$work/pubpriv-out"/*.json; then
            fail "'$s' is in $(grep -rlaF -- "$s" "$work/pubpriv-x" "$work/pubpriv-out" | head -3)"
        fi
    done
}
area_cases="$area_cases publish_private"
