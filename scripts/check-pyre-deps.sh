#!/bin/sh
# Prove that libpyre.a, the regular expressions under the grader (pyre/),
# is a library of its own at the grader's border and below it: it links
# into a program with libc alone (no libm, no jansson, libuv, libcurl or
# OpenSSL), reads no file (it is handed patterns and texts), includes no
# header but its own and the C library's (nothing of the grader's: the
# grader uses pyre, never the other way), and code outside grader/ and
# pyre/ reaches it through grader/grader.h, never a pyre/ header (tests,
# white-box, may).
# Usage: check-pyre-deps.sh LIBPYRE "CC FLAGS"
set -eu
lib=$1 cc=$2
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
if nm -u "$lib" | grep -E ' (uv_|curl_|EVP_|SSL_|OPENSSL_|json_)' >"$tmp/bad"; then
    echo "check-pyre-deps: $lib uses symbols it must not:" >&2
    cat "$tmp/bad" >&2
    exit 1
fi
files=' (open|open64|openat|fopen|fopen64|fdopen|freopen|read|pread|write|stat|stat64|fstat|lstat|opendir|mmap|mmap64)$'
if nm -u "$lib" | grep -E "$files" >"$tmp/bad"; then
    echo "check-pyre-deps: $lib touches files; pyre is handed bytes:" >&2
    cat "$tmp/bad" >&2
    exit 1
fi
# its own headers and the C library's, nothing else (no "../grader/...")
for f in pyre/*.c pyre/*.h; do
    grep -E '^[[:space:]]*#[[:space:]]*include[[:space:]]*"' "$f" |
        sed -E 's/^[^"]*"([^"]*)".*/\1/' | while read -r h; do
        [ -f "pyre/$h" ] && case $h in */*) ;; *) continue ;; esac
        echo "$f: #include \"$h\""
    done
done >"$tmp/bad"
if [ -s "$tmp/bad" ]; then
    echo "check-pyre-deps: pyre includes only its own headers (the grader uses pyre, not the other way):" >&2
    cat "$tmp/bad" >&2
    exit 1
fi
# (grep's status is 2 when a folder is missing: judge by its output)
grep -rnE '#[[:space:]]*include[[:space:]]*"[^"]*pyre(/[a-z_]+)?\.h"|#[[:space:]]*include[[:space:]]*"[^"]*pyre_[a-z_]+\.h"' \
    orchestrator report rundir util weights tools 2>/dev/null >"$tmp/bad" || true
if [ -s "$tmp/bad" ]; then
    echo "check-pyre-deps: include grader/grader.h, not a pyre/ header:" >&2
    cat "$tmp/bad" >&2
    exit 1
fi
# the public header alone declares what a caller needs, and libc alone
# links it
cat >"$tmp/main.c" <<'C'
#include <string.h>
#include "pyre.h"
int main(void)
{
    struct pyre *re;
    char msg[200], *out = NULL;
    size_t n = 0;
    int rc;

    if (pyre_compile("a+", 2, 0, &re, msg, sizeof(msg)) != 0)
        return 1;
    rc = pyre_sub_empty(re, "baab", 4, &out, &n);
    pyre_free(re);
    if (rc != 0 || n != 2 || strcmp(out, "bb") != 0)
        return 1;
    pyre_text_free(out);
    return pyre_utf8_seq((const unsigned char *)"\303\251", 2) == 2 ? 0 : 1;
}
C
# shellcheck disable=SC2086
$cc -Ipyre -o "$tmp/main" "$tmp/main.c" "$lib"
"$tmp/main"
echo "check-pyre-deps: libpyre.a links with libc alone, opens no file, includes nothing of the grader's, and is reached through grader.h"
