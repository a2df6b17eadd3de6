#!/bin/sh
# The test of scripts/check-formats.sh (make check-formats): the check run
# on a scratch copy of the source tree, clean and then with one breach
# planted at a time, each expected to be refused naming its file and line
# (or, for what EXCEPTIONS allows, passed). Ends with
# "formats: N passed, M failed" (tests/run-all.sh).
# Usage: tests/formats/run.sh (from the repository root)
set -u
check=$(pwd)/scripts/check-formats.sh
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
passed=0 failed=0

ok() { passed=$((passed + 1)); echo "ok   formats $1"; }
bad() { failed=$((failed + 1)); echo "FAIL formats $1"; }

# a fresh scratch tree: the C sources of every module
fresh() {
    rm -rf "$tmp/root"
    mkdir -p "$tmp/root"
    find grader pyre report rundir util weights orchestrator \
        -name '*.[ch]' -print | tar cf - -T - | tar xf - -C "$tmp/root"
}

# NAME WANT: the check on the scratch tree refuses (WANT is a line of its
# output: FILE:LINE:WHAT) or, with WANT "pass", passes
expect() {
    out=$(sh "$check" "$tmp/root" 2>&1)
    rc=$?
    if [ "$2" = pass ]; then
        if [ $rc -eq 0 ]; then ok "$1"; else bad "$1: refused"; printf '%s\n' "$out"; fi
        return
    fi
    if [ $rc -eq 1 ] && printf '%s\n' "$out" | grep -qxF "  $2"; then
        ok "$1"
        printf '%s\n' "$out" | sed -n '2,$p' | sed 's/^/     /'
    else
        bad "$1: want '$2' refused, got rc $rc"
        printf '%s\n' "$out"
    fi
}

# append lines to FILE in the scratch tree; the first appended line's
# number in $line
plant() {
    f=$tmp/root/$1
    shift
    line=$(($(wc -l <"$f") + 1))
    printf '%s\n' "$@" >>"$f"
}

fresh
expect "the tree as it is" pass

# the planted breach of the issue: a scratch copy of a file reading a
# manifest key by hand
fresh
cp "$tmp/root/report/md_settings.c" "$tmp/root/report/md_scratch.c"
plant report/md_scratch.c \
    'static long cap(const json_t *m)' \
    '{' \
    '    return (long)json_integer_value(' \
    '        json_object_get(json_object_get(m, "request"), "max_tokens"));' \
    '}'
expect "json_object_get of request.max_tokens" \
    "report/md_scratch.c:$((line + 3)):request"
expect "json_object_get of request.max_tokens (the inner key)" \
    "report/md_scratch.c:$((line + 3)):max_tokens"

# a json_pack whose key is on a later line: named at the statement
fresh
plant orchestrator/cmd/cmd_audit.c \
    'static json_t *by_hand(void)' \
    '{' \
    '    return json_pack("{s:s}",' \
    '                     "server_argv", "x");' \
    '}'
expect "json_pack of server_argv across lines" \
    "orchestrator/cmd/cmd_audit.c:$((line + 2)):server_argv"

# the table's names and the table itself are rundir/'s
fresh
plant orchestrator/run/record.c '#include "../../rundir/manifest_keys.h"'
expect "manifest_keys.h included" \
    "orchestrator/run/record.c:$line:manifest_keys.h included"
fresh
plant report/md_settings.c 'static const char *k = MK_REQUEST;'
expect "an MK_ name used" \
    "report/md_settings.c:$line:manifest_keys.h name"

# .done and ladder.tsv spelt as a path or a suffix
fresh
plant orchestrator/figures/figures_recipes.c \
    'static int is_done(const char *p) { return strstr(p, ".done") != 0; }'
expect ".done compared" "orchestrator/figures/figures_recipes.c:$line:.done"
fresh
plant weights/recipe.c 'static const char *tsv = "runs/x/ladder.tsv";'
expect "ladder.tsv as a path" "weights/recipe.c:$line:ladder.tsv"

# prose naming the files is allowed, as help and messages do
fresh
plant orchestrator/cmd/cmd_build.c \
    'static const char *said = "written to ladder.tsv and rows/X.done";'
expect "prose naming the files" pass

# EXCEPTIONS: figures_bundle.c may spell publish.json's "model", not the
# manifest's "questions", nor ".done" (the publish files read the run
# folder's formats through rundir/ since issue 34); config.c may spell
# "server", a config's own key, but not "request"
fresh
plant orchestrator/figures/figures_bundle.c \
    'static json_t *pm(json_t *j) { return json_object_get(j, "model"); }'
expect "publish.json's model (EXCEPTIONS)" pass
plant orchestrator/figures/figures_bundle.c \
    'static int is_done2(const char *p) { return strstr(p, ".done") != 0; }'
expect "a publish file's .done (not excepted)" \
    "orchestrator/figures/figures_bundle.c:$line:.done"
fresh
plant orchestrator/figures/figures_agree.c \
    'static json_t *mq(json_t *m) { return json_object_get(m, "questions"); }'
expect "a publish file's manifest questions (not excepted)" \
    "orchestrator/figures/figures_agree.c:$line:questions"
fresh
plant orchestrator/input/config.c \
    'static json_t *srv(json_t *r) { return json_object_get(r, "server"); }'
expect "config.c's server (EXCEPTIONS)" pass
plant orchestrator/input/config.c \
    'static json_t *rq(json_t *r) { return json_object_get(r, "request"); }'
expect "config.c's request (not excepted)" \
    "orchestrator/input/config.c:$line:request"

# the keys come from the one table: renamed there, the old spelling is
# free and the new one refused
fresh
sed 's/^\(#define[ \t]*MK_CTX[ \t]*\)"ctx"/\1"context"/' rundir/manifest_keys.h \
    >"$tmp/root/rundir/manifest_keys.h"
plant report/json.c \
    'static json_t *c1(json_t *r) { return json_object_get(r, "ctx"); }'
expect "a key renamed in the table: the old name free" pass
plant report/json.c \
    'static json_t *c2(json_t *r) { return json_object_get(r, "context"); }'
expect "a key renamed in the table: the new name refused" \
    "report/json.c:$line:context"

echo "formats: $passed passed, $failed failed"
[ "$failed" -eq 0 ]
