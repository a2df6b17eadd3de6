# shellcheck shell=bash
# Round 3, publish (issue 29, "Evidence to publish"): graveyard publish on
# the study-shaped T4 folder (tests/page/make_study.py, 10 rungs x 250):
# the card, the model-index front matter and the .eval_results YAML parsed
# back by PyYAML and the lm-eval files, each rung's figures checked against
# report.json; a model name made to break YAML read back whole; no path of
# the machine (the manifest's model folders, the question file's folder,
# the run folder) in any file. Sourced by round3.sh (lib.sh's helpers).

PUBLISH_CHECK="/usr/bin/python3 $ROOT/tests/integration/round3/publish_check.py"

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
round3_cases="$round3_cases publish_card"

PUBLISH_TAMPER="/usr/bin/python3 $ROOT/tests/integration/round3/publish_tamper.py"

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
round3_cases="$round3_cases publish_bundle"

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
round3_cases="$round3_cases publish_hostile"

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
round3_cases="$round3_cases publish_private"
