#!/bin/sh
# Prove the run folder has one owner (rundir/, docs/design.md):
#  1. librundir.a (with libutil.a) links into a program with jansson and
#     libc alone, naming no symbol of libuv, libcurl, OpenSSL or the grader
#     (it may use the grader's structs, never its functions);
#  2. no C file outside rundir/ spells a path under a run folder: the
#     format strings of rows/, .done, locks/, logs/, the pid file,
#     manifest.json, ladder.tsv, ladder.json, sha256.cache, graveyard*.json,
#     repeat/, canary/, build/, build.json, f16-range.jsonl and gpu<ID> are
#     rundir.c's alone.
# Usage: check-rundir-deps.sh LIBRUNDIR LIBUTIL "CC FLAGS" "LIBS"
set -eu
lib=$1 util=$2 cc=$3 libs=$4
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
if nm -u "$lib" | grep -E ' (uv_|curl_|EVP_|SSL_|OPENSSL_|grader_)' >"$tmp/bad"; then
    echo "check-rundir-deps: $lib uses symbols it must not:" >&2
    cat "$tmp/bad" >&2
    exit 1
fi
cat >"$tmp/main.c" <<'C'
#include "rundir.h"
int main(void)
{
    char p[64];
    return rundir_path(p, sizeof(p), "r", RD_MANIFEST, 0);
}
C
# shellcheck disable=SC2086
$cc -Irundir -o "$tmp/main" "$tmp/main.c" "$lib" "$util" $libs
"$tmp/main"
# a run folder's names, as a format or a path literal, outside rundir/
pat='%s/(rows|locks|logs|repeat|canary|gpu%s)|%s/build(/%s|")|%s/[^"]*\.(done|jsonl|log|server\.(log|pid)|lock)"|(manifest|ladder|graveyard|graveyard-side|build)\.json"|ladder\.tsv"|sha256\.cache"|f16-range\.jsonl"'
if grep -nE "$pat" grader/*.c grader/*.h pyre/*.c pyre/*.h \
        report/*.c report/*.h orchestrator/*/*.c orchestrator/*/*.h \
        util/*.c util/*.h weights/*.c weights/*.h >"$tmp/spelt"; then
    echo "check-rundir-deps: run-folder paths spelt outside rundir/:" >&2
    cat "$tmp/spelt" >&2
    exit 1
fi
echo "check-rundir-deps: librundir.a links with jansson and libc only; no other module spells a run folder's paths"
