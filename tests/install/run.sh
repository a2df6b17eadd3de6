#!/bin/sh
# make install into a scratch DESTDIR, then what a user of the installed
# graveyard does: the demo ladder from another folder (the shipped config,
# its fake llama-server found beside it), init's questions found in
# PREFIX/share/graveyard, the man page rendered without a warning and
# holding every command, bash completion offering commands and flags.
# Ends with "install: N passed, M failed".
# Tests: orchestrator/cmd/main.c
# Usage: run.sh BUILD
set -u
build=$(cd "$1" && pwd)
here=$(cd "$(dirname "$0")/../.." && pwd)
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
passed=0 failed=0
ok() { passed=$((passed + 1)); echo "ok   install $1"; }
bad() { failed=$((failed + 1)); echo "FAIL install $1"; }

d=$tmp/dest p=/usr
g=$d$p/bin/graveyard
if make -C "$here" --no-print-directory BUILD="$build" DESTDIR="$d" \
    PREFIX="$p" install >"$tmp/make.log" 2>&1; then
    ok "make install"
else
    bad "make install: $(tail -3 "$tmp/make.log")"
    echo "install: $passed passed, $failed failed"
    exit 1
fi

mkdir "$tmp/elsewhere"
if (cd "$tmp/elsewhere" && timeout -k 5 120 "$g" ladder \
    "$d$p/share/graveyard/configs/demo.json" --run-dir demo --quiet) \
    >"$tmp/out" 2>"$tmp/err" && [ -s "$tmp/elsewhere/demo/REPORT.md" ]; then
    ok "the installed demo runs from another folder"
else
    bad "the installed demo: $(tail -3 "$tmp/err")"
fi

mkdir "$tmp/models"
"$build/fake-convert-hf" "$here/tests/fake-tools/convert_hf_to_gguf.py" \
    "$here/configs/demo/checkpoint" --outtype bf16 \
    --outfile "$tmp/models/m-BF16.gguf" >/dev/null 2>&1
"$build/fake-llama-quantize" "$tmp/models/m-BF16.gguf" "$tmp/models/m-Q4_0.gguf" \
    Q4_0 >/dev/null 2>&1
if (cd "$tmp/elsewhere" && "$g" init "$tmp/models" --out m.json) >/dev/null 2>"$tmp/err" &&
    grep -q "\"questions\": \"$d$p/share/graveyard/data/gsm8k/heldout-250.jsonl\"" "$tmp/elsewhere/m.json"; then
    ok "init finds the shipped questions in PREFIX/share/graveyard"
else
    bad "init's questions: $(cat "$tmp/err") $(grep questions "$tmp/elsewhere/m.json" 2>/dev/null)"
fi

man1=$d$p/share/man/man1/graveyard.1
if [ -s "$man1" ] && MANWIDTH=80 man --warnings -l "$man1" >"$tmp/man.txt" 2>"$tmp/man.err" &&
    [ ! -s "$tmp/man.err" ]; then
    ok "the man page renders without a warning"
else
    bad "the man page: $(head -3 "$tmp/man.err" 2>/dev/null)"
fi
missing=
for c in $("$g" --help | awk '/^commands:/ { on = 1; next } on && /^  [a-z]/ { print $1 }'); do
    u=$(printf '%s' "$c" | tr a-z A-Z)
    grep -q "^GRAVEYARD $u\$" "$tmp/man.txt" || missing="$missing $c"
done
[ -z "$missing" ] && grep -q -- "--per-gpu" "$tmp/man.txt" && ok "the man page has every command's help" ||
    bad "the man page lacks:$missing"

comp=$d$p/share/bash-completion/completions/graveyard
if [ -f "$comp" ] && out=$(bash -c ". '$comp'
COMP_WORDS=('$g' la); COMP_CWORD=1; _graveyard; echo \"\${COMPREPLY[*]}\"
COMP_WORDS=('$g' ladder --per); COMP_CWORD=2; _graveyard; echo \"\${COMPREPLY[*]}\"
COMP_WORDS=('$g' help ini); COMP_CWORD=2; _graveyard; echo \"\${COMPREPLY[*]}\"") &&
    [ "$out" = "$(printf 'ladder\n--per-gpu\ninit')" ]; then
    ok "bash completion: commands, flags, help's command"
else
    bad "bash completion said: ${out:-nothing}"
fi

if make -C "$here" --no-print-directory BUILD="$build" DESTDIR="$d" \
    PREFIX="$p" uninstall >/dev/null 2>&1 && [ ! -e "$g" ] &&
    [ ! -e "$d$p/share/graveyard" ] && [ ! -e "$man1" ]; then
    ok "make uninstall takes it all away"
else
    bad "make uninstall left files: $(find "$d" -type f | head -3)"
fi
echo "install: $passed passed, $failed failed"
[ "$failed" -eq 0 ]
