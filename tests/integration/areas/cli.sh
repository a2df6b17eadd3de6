# shellcheck shell=bash
# Round 4 (issue 34, "one front door"): every command's --help is made
# from its table of options (orchestrator/base/cli.c), so it lists every
# flag the command takes with its argument and, for a number, its range;
# and a bad number for any numeric flag is one line naming the command,
# the flag, the range and the value, exit 2, before anything is made.
# Sourced by tests/integration/cases.sh.

# COMMAND FLAG... : the flags each --help must list (the hidden
# --config-sha256 of run and canary aside).
cli_flags() {
    cat <<'T'
bury --json --partial --rule
autopsy --partial --rule
repeat --common --rule
report --out --rungs --side --repeat --partial --no-html --rule --margin
compare --rungs --labels --out --no-html --rule --margin
duel --also --margin --json
think --rungs --out --no-html --rule
build --only --force --jobs --run-dir --quiet
ladder --llama --gpus --only --run-dir --shard --replicate --repeat-reference --per-gpu --quiet
run --limit --llama --think --ngl --max-tokens --ctx --gpu --server-arg --request --health-timeout --idle-timeout --request-timeout --log-cap --task --prompt --server-argv --server-env --allow-batching --abort-loops --logprobs --force --quiet --url --api-key-env --allow-plain-http --config --rung --run-dir --question-file
audit --url --against --limit --api-key-env --allow-plain-http --json --quiet --force
canary --questions --max-changed --question-file --run-dir --config --llama --think --ngl --max-tokens --ctx --gpu --server-arg --request --health-timeout --idle-timeout --request-timeout --log-cap --task --prompt --server-argv --server-env --allow-batching --abort-loops --logprobs --force --quiet
import --task --question-file
publish --out --dataset --model --no-bundle --rungs --side --repeat --rule
export --eee --out --model --dataset --force --rungs --side --rule
merge --out
verify --against
f16-range --out --quiet
tensors --json
sha256 --vocab
init --llama --out --questions --force
long --tokenize --lengths --out --kinds --items --seed --force
sandbox --check --test --timeout --cpu --memory --nproc --fsize --output --jobs --bwrap --python --unsafe-exec
T
}

# COMMAND FLAG RANGE ARGS... : each numeric flag, the range its help and
# its error show, and the positionals that make the rest of the line good.
cli_numbers() {
    cat <<'T'
build --jobs 1:to:64 C.json
ladder --per-gpu 1:to:8 C.json
audit --limit 1:to:100000 NAME --url http://127.0.0.1:1 --against RD
report --margin above:0:and:below:100 RD
compare --margin above:0:and:below:100 RD RD2
duel --margin above:0:and:below:100 RD A B
run --limit 1:to:2147483647 Q4_0 M.gguf Q.jsonl RD
run --ngl 0:to:10000:or:'auto' Q4_0 M.gguf Q.jsonl RD
run --max-tokens 1:to:2147483647 Q4_0 M.gguf Q.jsonl RD
run --ctx 64:to:2147483647 Q4_0 M.gguf Q.jsonl RD
run --health-timeout 1:to:2592000 Q4_0 M.gguf Q.jsonl RD
run --idle-timeout 1:to:2592000 Q4_0 M.gguf Q.jsonl RD
run --request-timeout 1:to:2592000 Q4_0 M.gguf Q.jsonl RD
run --log-cap 1024:to:1099511627776 Q4_0 M.gguf Q.jsonl RD
run --logprobs 1:to:20 Q4_0 M.gguf Q.jsonl RD
canary --questions 1:to:2147483647 Q4_0 M.gguf R.jsonl
canary --max-changed 0:to:2147483647 Q4_0 M.gguf R.jsonl
canary --ngl 0:to:10000:or:'auto' Q4_0 M.gguf R.jsonl
canary --logprobs 1:to:20 Q4_0 M.gguf R.jsonl
long --items 1:to:10000 --tokenize http://127.0.0.1:1 --lengths 1K --out O.jsonl
long --seed 0:to:9007199254740991 --tokenize http://127.0.0.1:1 --lengths 1K --out O.jsonl
T
}

# Every command's --help: exit 0, nothing on stderr, the usage line
# first, every flag at the start of a line with its text, a number's
# range beside it, each line within 78 columns.
case_cli_help() {
    local cmd flags f rc
    while read -r cmd flags; do
        rc=0
        (cd "$work" && timeout -k 5 20 "$G" "$cmd" --help) >"$work/h.out" 2>"$work/h.err" || rc=$?
        [ $rc = 0 ] || { fail "$cmd --help: exit $rc $(cat "$work/h.err")"; continue; }
        [ -s "$work/h.err" ] && fail "$cmd --help wrote on stderr: $(cat "$work/h.err")"
        head -n 1 "$work/h.out" | grep -q "^usage: graveyard $cmd" ||
            fail "$cmd --help: no usage line first: $(head -n 1 "$work/h.out")"
        for f in $flags; do
            grep -qE -- "^  $f( [A-Z|/]+)?( |\$)" "$work/h.out" ||
                fail "$cmd --help does not list $f"
        done
        # the flags' paragraphs (the prose around them is laid by hand)
        awk '(/^  -/ || index($0, "      ") == 1) && length($0) > 78 { print; bad = 1 } END { exit bad }' "$work/h.out" >"$work/h.long" ||
            fail "$cmd --help: a line past 78 columns: $(head -n 1 "$work/h.long")"
    done < <(cli_flags)
    # every command graveyard --help lists is one of those above
    for cmd in $("$G" --help | awk '/^commands:/ { on = 1; next } on && /^  [a-z]/ { print $1 }'); do
        cli_flags | grep -q "^$cmd " || fail "graveyard --help lists '$cmd', which cli_flags does not check"
    done
    # -h is --help, wherever it stands
    rc=0; timeout -k 5 20 "$G" bury -h >"$work/h.out" 2>&1 || rc=$?
    [ $rc = 0 ] && grep -q -- "--partial" "$work/h.out" || fail "bury -h: exit $rc"
    # the numbers' ranges are in the help
    while read -r cmd f range _; do
        case $range in above*) continue ;; esac
        range=${range//:/ }
        range=${range% or \'auto\'}
        # the flag's paragraph: its line and those indented under it
        timeout -k 5 20 "$G" "$cmd" --help |
            awk -v f="$f" 'index($0, "  " f " ") == 1 { on = 1; print; next }
                           on && index($0, "      ") == 1 { print; next } { on = 0 }' | tr -s ' \n' '  ' |
            grep -qF "[$range" || fail "$cmd --help: $f's range [$range] not shown"
    done < <(cli_numbers)
    true
}

# A bad number for each numeric flag: exit 2, one line on stderr naming
# the command, the flag, its range and the value, nothing made; and a
# count of positionals short, a flag unknown or a value missing, one line
# each.
case_cli_numbers() {
    local cmd f range rc args v want
    while read -r cmd f range args; do
        range=${range//:/ }
        for v in x 0x10 99999999999999999999 -7; do
            rc=0
            # shellcheck disable=SC2086
            (cd "$work" && timeout -k 5 20 "$G" "$cmd" $args "$f" "$v") >/dev/null 2>"$work/n.err" || rc=$?
            case $range in
            above*) want="graveyard $cmd: $f wants a number of points $range, not '$v'" ;;
            *) want="graveyard $cmd: $f wants a whole number from $range, not '$v'" ;;
            esac
            [ $rc = 2 ] || fail "$cmd $f '$v': exit $rc, not 2"
            [ "$(cat "$work/n.err")" = "$want" ] ||
                fail "$cmd $f '$v': said '$(cat "$work/n.err")', not '$want'"
        done
        for d in RD RD2 C.json; do [ -e "$work/$d" ] && fail "$cmd $f: $d was made"; done
    done < <(cli_numbers)
    # the --flag=value form is read the same
    rc=0; (cd "$work" && timeout -k 5 20 "$G" build C.json --jobs=65) >/dev/null 2>"$work/n.err" || rc=$?
    [ $rc = 2 ] && grep -qxF "graveyard build: --jobs wants a whole number from 1 to 64, not '65'" "$work/n.err" ||
        fail "--jobs=65: exit $rc $(cat "$work/n.err")"
    while IFS='|' read -r cmd want; do
        rc=0
        # shellcheck disable=SC2086
        (cd "$work" && timeout -k 5 20 "$G" $cmd) >/dev/null 2>"$work/n.err" || rc=$?
        [ $rc = 2 ] && [ "$(wc -l <"$work/n.err")" = 1 ] && grep -qF -- "$want" "$work/n.err" ||
            fail "'$cmd': exit $rc, '$(cat "$work/n.err")' (wanted '$want')"
    done <<'T'
bury RD|graveyard bury: needs RUNDIR and the reference rung (see --help)
think RD|graveyard think: needs OFF_DIR and ON_DIR (see --help)
build|graveyard build: needs CONFIG (see --help)
publish RD|graveyard publish: needs --out DIR (see --help)
export --eee RD|graveyard export: needs --out DIR (see --help)
merge B.tgz|graveyard merge: needs --out RUNDIR (see --help)
audit NAME --url http://127.0.0.1:1|graveyard audit: needs --against RUNDIR (see --help)
sha256|graveyard sha256: needs at least one FILE (see --help)
report RD RD2|graveyard report: too many arguments at 'RD2' (see --help)
ladder C.json --bogus|graveyard ladder: unknown flag '--bogus' (see --help)
run Q M Q.jsonl RD --limit|graveyard run: flag '--limit' needs a value (N)
report RD --no-html=1|graveyard report: flag '--no-html' takes no value
canary Q M R --limit 3|graveyard canary: --limit: the canary asks --questions N of ROWS
T
    true
}

# The usual manners (issue 35): graveyard help CMD is CMD --help; -V the
# version; a mistyped command or flag is offered the nearest; a word
# nothing is near gets no guess.
case_cli_manners() {
    local cmd rc
    for cmd in $("$G" --help | awk '/^commands:/ { on = 1; next } on && /^  [a-z]/ { print $1 }'); do
        cmp -s <("$G" help "$cmd" 2>&1) <("$G" "$cmd" --help 2>&1) ||
            fail "graveyard help $cmd is not $cmd --help"
    done
    "$G" -V | grep -qx "graveyard [0-9.]*" || fail "-V: $("$G" -V 2>&1)"
    rc=0; "$G" ladr >/dev/null 2>"$work/err" || rc=$?
    [ $rc = 2 ] && grep -qx "graveyard: unknown command 'ladr'; did you mean 'ladder'?" "$work/err" ||
        fail "a mistyped command: exit $rc $(cat "$work/err")"
    rc=0; "$G" qwerty >/dev/null 2>"$work/err" || rc=$?
    [ $rc = 2 ] && grep -qx "graveyard: unknown command 'qwerty' (see graveyard --help)" "$work/err" ||
        fail "a word no command is near: exit $rc $(cat "$work/err")"
    rc=0; "$G" ladder C.json --gpu 0 >/dev/null 2>"$work/err" || rc=$?
    [ $rc = 2 ] && grep -qx "graveyard ladder: unknown flag '--gpu'; did you mean '--gpus'?" "$work/err" ||
        fail "a mistyped flag: exit $rc $(cat "$work/err")"
    rc=0; "$G" help ladder run >/dev/null 2>"$work/err" || rc=$?
    [ $rc = 2 ] || fail "help with two commands: exit $rc"
    rc=0; "$G" help nosuch >/dev/null 2>"$work/err" || rc=$?
    [ $rc = 2 ] && grep -q "unknown command 'nosuch'" "$work/err" || fail "help nosuch: exit $rc $(cat "$work/err")"
}
area_cases="$area_cases cli_help cli_numbers cli_manners"
