#!/bin/sh
# Prove that libgrader.a stands without libuv, libcurl and OpenSSL, and
# names no jansson symbol itself: it must link into a program with libc,
# libm, its own regular expressions (libpyre.a, held to the same border
# by check-pyre-deps.sh) and the tool-call checker (libtoolcall.a, which
# alone reads JSON: a reply's calls and an item's docs) alone, and name
# none of their symbols (it scans rows with a parser of its own, and the
# JSON it is reported in is report/'s business); and that it reads no file (numbers only: callers feed it rows):
# no open, fopen, read or stat; and that code outside grader/ reaches it
# through its one public header, grader.h, never a module's own header or
# internal.h (tests, white-box, may).
# Usage: check-grader-deps.sh LIBGRADER LIBPYRE "CC FLAGS" "LIBS"
set -eu
lib=$1 pyre=$2 cc=$3 libs=$4
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
if nm -u "$lib" | grep -E ' (uv_|curl_|EVP_|SSL_|OPENSSL_|json_)' >"$tmp/bad"; then
    echo "check-grader-deps: $lib uses symbols it must not:" >&2
    cat "$tmp/bad" >&2
    exit 1
fi
files=' (open|open64|openat|fopen|fopen64|fdopen|read|pread|stat|stat64|fstat|lstat|opendir|json_load_file|json_loadf|json_loadfd|json_dump_file)$'
if nm -u "$lib" | grep -E "$files" >"$tmp/bad"; then
    echo "check-grader-deps: $lib touches files; the grader is fed bytes:" >&2
    cat "$tmp/bad" >&2
    exit 1
fi
if grep -rnE '#include "[^"]*grader/[a-z_]+\.h"' orchestrator report rundir util tools 2>/dev/null |
    grep -v 'grader/grader\.h"' >"$tmp/bad"; then
    echo "check-grader-deps: include grader/grader.h, not a module's header:" >&2
    cat "$tmp/bad" >&2
    exit 1
fi
# the public header alone declares everything a caller needs
cat >"$tmp/main.c" <<'C'
#include "grader.h"
int main(void)
{
    struct grader_qset *qs = grader_qset_new();
    grader_qset_free(qs);
    return (int)grader_mcnemar_p(1, 1) - 1;
}
C
# shellcheck disable=SC2086
$cc -Igrader -o "$tmp/main" "$tmp/main.c" "$lib" "$pyre" $libs
"$tmp/main"
echo "check-grader-deps: libgrader.a links with libc, libm, libpyre.a and libtoolcall.a only, opens no file, and is reached through grader.h"
