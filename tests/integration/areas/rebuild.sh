# Round 3, area build (issue 24: G5, G17), sourced by tests/integration/cases.sh: what a
# build does with files made from a source that changed since (a new
# checkpoint and --force BF16, a build killed half way, a BF16 replaced
# by hand), and the build line of either lineage's llama-quantize in
# build.json. Helpers as tests/integration/build.sh's, prefixed r3b_.
#
# Tests: orchestrator/forge/build.c
# Tests: orchestrator/forge/buildstep.c
# Tests: orchestrator/forge/buildtool.c
# Tests: rundir/buildrec.c
# Tests: orchestrator/cmd/cmd_build.c
R3B_Q=$build/fake-llama-quantize
R3B_C=$build/fake-convert-hf
cp "$ROOT/tests/fake-tools/convert_hf_to_gguf.py" "$work/r3b-convert.py"

# A ladder config NAME (BF16 and F16 converted from checkpoint CKPT, Q8_0,
# Q4_0 and Q2_K quantized from BF16), its models in $work/NAME/m.
r3b_config() {
    local name=$1 ckpt=$2
    mkdir -p "$work/$name"
    cat >"$work/$name.json" <<JSON
{"name": "$name", "questions": "$work/q.jsonl", "run_dir": "$work/$name/run",
 "build": {"checkpoint": "$ckpt", "python": "$R3B_C", "convert": "$work/r3b-convert.py",
           "quantize": "$R3B_Q", "threads": 4},
 "rungs": [
  {"name": "BF16", "model": "$work/$name/m/BF16.gguf", "convert": "bf16"},
  {"name": "F16", "model": "$work/$name/m/F16.gguf", "convert": "f16"},
  {"name": "Q8_0", "model": "$work/$name/m/Q8_0.gguf", "quantize": {"from": "BF16", "type": "Q8_0"}},
  {"name": "Q4_0", "model": "$work/$name/m/Q4_0.gguf", "quantize": {"from": "BF16", "type": "Q4_0"}},
  {"name": "Q2_K", "model": "$work/$name/m/Q2_K.gguf", "quantize": {"from": "BF16", "type": "Q2_K"}}],
 "server": {"binary": "$FAKE"}, "gpus": ["0"]}
JSON
}
r3b_sums() { (cd "$1" && sha256sum BF16.gguf F16.gguf Q8_0.gguf Q4_0.gguf Q2_K.gguf 2>/dev/null); }
r3b_temps() { find "$1" -name '*.graveyard-tmp*' | wc -l; }
r3b_tools_left() { pgrep -f "$R3B_Q .*$work/|$R3B_C .*$work/" >/dev/null; }

# Two checkpoints, the demo's and one with a weight changed (so each
# BF16, F16 and every quantization made from them differ), and the bytes
# a fresh build makes from each: what the cases must end with.
r3b_setup() {
    [ -e "$work/r3b-new.sums" ] && return 0
    cp -r "$ROOT/configs/demo/checkpoint" "$work/r3b-old"
    cp -r "$ROOT/configs/demo/checkpoint" "$work/r3b-new"
    /usr/bin/python3 - "$work/r3b-new/model.safetensors" <<'PY'
import struct, sys
with open(sys.argv[1], "r+b") as f:
    n = struct.unpack("<Q", f.read(8))[0]
    f.seek(8 + n)         # the first tensor's first weight (BF16)
    b = f.read(1)
    f.seek(8 + n)
    f.write(bytes([b[0] ^ 0x5a]))
PY
    r3b_config r3b-refold "$work/r3b-old"
    r3b_config r3b-refnew "$work/r3b-new"
    $GT build "$work/r3b-refold.json" --quiet || fail "the old reference build: $?"
    $GT build "$work/r3b-refnew.json" --quiet || fail "the new reference build: $?"
    r3b_sums "$work/r3b-refold/m" >"$work/r3b-old.sums"
    r3b_sums "$work/r3b-refnew/m" >"$work/r3b-new.sums"
    # every file differs between them, or the cases below prove nothing
    [ -z "$(comm -12 <(cut -d' ' -f1 "$work/r3b-old.sums" | sort) <(cut -d' ' -f1 "$work/r3b-new.sums" | sort))" ] ||
        fail "the changed checkpoint made some of the same bytes"
}

# build.json's rungs each made from BF16 name BF16's sha256 as their source
r3b_sources_current() {
    /usr/bin/python3 - "$1/run/build.json" <<'PY'
import json, sys
b = json.load(open(sys.argv[1]))["rungs"]
for r in ("Q8_0", "Q4_0", "Q2_K"):
    assert b[r]["source_sha256"] == b["BF16"]["sha256"], (r, b[r]["source_sha256"], b["BF16"]["sha256"])
PY
}

# G5: the checkpoint changed and `build --force BF16`: the new BF16 comes
# out different, so what was made from the old one is made again in the
# same build (not "there already"); F16, not made from BF16, is kept. The
# files are then the bytes a fresh build of the new checkpoint makes, and
# a plain build after it makes nothing.
case_source_changed() {
    r3b_setup
    r3b_config r3b-sc "$work/r3b-old"
    $GT build "$work/r3b-sc.json" --quiet || fail "first build: $?"
    sed -i "s|\"checkpoint\": \"$work/r3b-old\"|\"checkpoint\": \"$work/r3b-new\"|" "$work/r3b-sc.json"
    $GT build "$work/r3b-sc.json" --force BF16 >"$work/out" 2>&1 || fail "--force BF16: exit $? $(cat "$work/out")"
    grep -q "4 made, 1 there already, 0 not made" "$work/out" || fail "--force BF16: $(cat "$work/out")"
    for r in Q8_0 Q4_0 Q2_K; do
        grep -q "$r: made from BF16 as it was before this build (sha256 [0-9a-f]\{12\}); BF16 is now [0-9a-f]\{12\}: making it again" "$work/out" ||
            fail "$r not said to be made again: $(cat "$work/out")"
    done
    grep -q "1 file to make, 1 at a time, 4 threads each; 3 more if what they are made from comes out different" "$work/out" ||
        fail "the plan line: $(grep 'to make' "$work/out")"
    r3b_sources_current "$work/r3b-sc" || fail "build.json: a source_sha256 is not BF16's"
    [ "$(r3b_sums "$work/r3b-sc/m" | grep F16.gguf | grep -v BF16)" = "$(grep F16.gguf "$work/r3b-old.sums" | grep -v BF16)" ] ||
        fail "F16 was made again (it was not forced)"
    cmp -s <(grep -v ' F16' "$work/r3b-new.sums") <(r3b_sums "$work/r3b-sc/m" | grep -v ' F16') ||
        fail "not the new checkpoint's bytes: $(r3b_sums "$work/r3b-sc/m")"
    $GT build "$work/r3b-sc.json" >"$work/out" 2>&1 || fail "plain build after: exit $?"
    grep -q "0 made, 5 there already" "$work/out" || fail "plain build after: $(cat "$work/out")"
    # the same BF16 again (the checkpoint did not change): nothing else made
    $GT build "$work/r3b-sc.json" --force BF16 >"$work/out" 2>&1 || fail "--force BF16 again: exit $?"
    grep -q "1 made, 4 there already" "$work/out" || fail "--force BF16 again: $(cat "$work/out")"
}

# G5 after a kill: `build --force BF16` SIGKILLed (its whole group) while
# the first file made from the new BF16 is being made. The next plain
# build sees Q8_0, Q4_0 and Q2_K made from a BF16 that graveyard has made
# again since: it makes them again (it finishes what the killed build
# started), never "there already"; and `graveyard ladder` on that folder
# makes them first rather than run them stale.
case_source_changed_killed() {
    local pid
    r3b_setup
    for v in kb kl; do
        r3b_config r3b-$v "$work/r3b-old"
        $GT build "$work/r3b-$v.json" --quiet || fail "$v: first build: $?"
        sed -i "s|\"checkpoint\": \"$work/r3b-old\"|\"checkpoint\": \"$work/r3b-new\"|" "$work/r3b-$v.json"
        rm -f "$work/r3b-$v/run/build/Q8_0.log"
        FAKE_TOOL_FAULT="Q8_0:hang" setsid $G build "$work/r3b-$v.json" --force BF16 --quiet >/dev/null 2>&1 &
        pid=$!
        wait_for 20 "grep -q hanging $work/r3b-$v/run/build/Q8_0.log 2>/dev/null" || fail "$v: Q8_0 never started"
        kill -KILL -- -$pid 2>/dev/null
        wait $pid 2>/dev/null
        wait_for 3 "! r3b_tools_left" || fail "$v: a tool outlived graveyard"
        # killed: BF16 is new, the three made from it are still the old ones
        [ "$(r3b_sums "$work/r3b-$v/m" | grep BF16)" = "$(grep BF16 "$work/r3b-new.sums")" ] || fail "$v: BF16 not made before the kill"
        [ "$(r3b_sums "$work/r3b-$v/m" | grep Q8_0)" = "$(grep Q8_0 "$work/r3b-old.sums")" ] || fail "$v: Q8_0 changed before the kill"
    done
    $GT build "$work/r3b-kb.json" >"$work/out" 2>&1 || fail "plain build after the kill: exit $? $(cat "$work/out")"
    grep -q "3 made, 2 there already, 0 not made" "$work/out" || fail "after the kill: $(cat "$work/out")"
    for r in Q8_0 Q4_0 Q2_K; do
        grep -q "$r: .*$r.gguf was made from an earlier BF16 (sha256 [0-9a-f]\{12\}); graveyard build has made BF16 again since (sha256 [0-9a-f]\{12\}): making it again" "$work/out" ||
            fail "$r: not said: $(cat "$work/out")"
    done
    r3b_sources_current "$work/r3b-kb" || fail "build.json: a source_sha256 is not BF16's"
    cmp -s <(grep -v ' F16' "$work/r3b-new.sums") <(r3b_sums "$work/r3b-kb/m" | grep -v ' F16') ||
        fail "after the kill, not the new checkpoint's bytes"
    [ "$(r3b_temps "$work/r3b-kb")" = 0 ] || fail "temporary files left"
    # graveyard ladder: every file is there, but three are stale
    $GT ladder "$work/r3b-kl.json" --quiet >/dev/null 2>"$work/err" || fail "ladder: exit $? $(cat "$work/err")"
    r3b_sources_current "$work/r3b-kl" || fail "ladder ran stale rungs: $(cat "$work/err")"
    cmp -s <(grep -v ' F16' "$work/r3b-new.sums") <(r3b_sums "$work/r3b-kl/m" | grep -v ' F16') ||
        fail "ladder: not the new checkpoint's bytes"
}

# G5 by hand: BF16's file replaced (the same size, other bytes) outside
# graveyard. Graveyard did not make the file now there, so what was made
# from the old one is refused, exit 2, one line a rung naming it and
# --force, nothing started; --force of those three makes them from it.
# The same for a BF16 that graveyard never made (a rung without a recipe).
case_source_by_hand() {
    local rc=0
    r3b_setup
    r3b_config r3b-bh "$work/r3b-old"
    $GT build "$work/r3b-bh.json" --quiet || fail "first build: $?"
    cp "$work/r3b-refnew/m/BF16.gguf" "$work/r3b-bh/m/BF16.gguf"
    $GT build "$work/r3b-bh.json" >"$work/out" 2>&1 || rc=$?
    [ $rc = 2 ] || fail "exit $rc $(cat "$work/out")"
    for r in Q8_0 Q4_0 Q2_K; do
        grep -q "r3b-bh.json: rung $r: .*$r.gguf was made from BF16 when its file had sha256 [0-9a-f]\{12\}; .*BF16.gguf now has sha256 [0-9a-f]\{12\}, not from graveyard build: give --force $r to make it again from it" "$work/out" ||
            fail "$r not refused: $(cat "$work/out")"
    done
    ! grep -q ": made \|quantize Q" "$work/out" || fail "something was started: $(cat "$work/out")"
    cmp -s <(grep -v BF16 "$work/r3b-old.sums") <(r3b_sums "$work/r3b-bh/m" | grep -v BF16) || fail "a file changed"
    $GT build "$work/r3b-bh.json" --force Q8_0 --force Q4_0 --force Q2_K --quiet 2>"$work/err" || fail "--force: $? $(cat "$work/err")"
    cmp -s <(grep -v ' F16' "$work/r3b-new.sums") <(r3b_sums "$work/r3b-bh/m" | grep -v ' F16') || fail "--force: other bytes"
    $GT build "$work/r3b-bh.json" >"$work/out" 2>&1 || fail "then: exit $? $(cat "$work/out")"
    grep -q "0 made, 5 there already" "$work/out" || fail "then: $(cat "$work/out")"
    # a brought BF16 (no recipe) replaced
    r3b_config r3b-br "$work/r3b-old"
    sed -i 's|, "convert": "bf16"||' "$work/r3b-br.json"
    mkdir -p "$work/r3b-br/m"
    cp "$work/r3b-refold/m/BF16.gguf" "$work/r3b-br/m/BF16.gguf"
    $GT build "$work/r3b-br.json" --quiet 2>"$work/err" || fail "brought: first build: $? $(cat "$work/err")"
    cp "$work/r3b-refnew/m/BF16.gguf" "$work/r3b-br/m/BF16.gguf"
    rc=0; $GT build "$work/r3b-br.json" >"$work/out" 2>&1 || rc=$?
    [ $rc = 2 ] && grep -q "rung Q4_0: .*give --force Q4_0" "$work/out" || fail "brought: exit $rc $(cat "$work/out")"
}

# G17: build.json's "tool" is the quantizer's path and its build line, for
# ik_llama.cpp's form ("main: build = N (C)", print_build_info in main)
# and for upstream's ("llama_print_build_info: build = N (C)", from
# common/build-info.cpp), both on stderr: the fake prints either
# (FAKE_QUANTIZE_LINEAGE=upstream).
case_tool_build_line() {
    r3b_setup
    for lineage in ik upstream; do
        r3b_config r3b-tl-$lineage "$work/r3b-old"
        FAKE_QUANTIZE_LINEAGE=$lineage $GT build "$work/r3b-tl-$lineage.json" --only Q4_0 --quiet 2>"$work/err" || fail "$lineage: exit $? $(cat "$work/err")"
    done
    head -1 "$work/r3b-tl-upstream/run/build/Q4_0.log" | grep -q "^llama_print_build_info: build = 6789 (abcdef12)$" ||
        fail "the fake's upstream log: $(head -3 "$work/r3b-tl-upstream/run/build/Q4_0.log")"
    head -1 "$work/r3b-tl-ik/run/build/Q4_0.log" | grep -q "^main: build = 4242 (fa4e0001)$" ||
        fail "the fake's ik log: $(head -3 "$work/r3b-tl-ik/run/build/Q4_0.log")"
    /usr/bin/python3 - "$work" "$R3B_Q" <<'PY' || fail "build.json's tool"
import json, sys
w, q = sys.argv[1], sys.argv[2]
for lineage, line in (("ik", "build = 4242 (fa4e0001)"), ("upstream", "build = 6789 (abcdef12)")):
    t = json.load(open(f"{w}/r3b-tl-{lineage}/run/build.json"))["rungs"]["Q4_0"]["tool"]
    assert t == f"{q} {line}", (lineage, t)
PY
}


# A ladder that waited for another build's lock plans again when that
# build ends: what is still missing then (the other build was stopped)
# is made, its steps prepared as a first plan's are (it crashed on an
# unset temporary name).
case_ladder_waited() {
    local a b rc=0
    r3b_setup
    r3b_config r3b-lw "$work/r3b-old"
    FAKE_TOOL_FAULT="BF16:hang" $G build "$work/r3b-lw.json" >/dev/null 2>&1 &
    a=$!
    wait_for 20 "grep -q hanging $work/r3b-lw/run/build/BF16.log 2>/dev/null" || fail "BF16 never hung"
    $GT ladder "$work/r3b-lw.json" >"$work/lw.out" 2>&1 &
    b=$!
    wait_for 20 "grep -q 'waiting for it' $work/lw.out" || fail "the ladder did not wait: $(cat "$work/lw.out")"
    kill -TERM $a; wait $a 2>/dev/null
    wait $b || rc=$?
    [ $rc = 0 ] || fail "the ladder after the wait: exit $rc $(tail -5 "$work/lw.out")"
    cmp -s "$work/r3b-old.sums" <(r3b_sums "$work/r3b-lw/m") || fail "after the wait, other bytes"
}

area_cases="$area_cases source_changed source_changed_killed source_by_hand tool_build_line ladder_waited"
