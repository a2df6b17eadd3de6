#!/bin/sh
# Prove that libhaystack.a, the long-context items (haystack/), stands on
# libc alone, as pyre does: a program links with it and nothing else (no
# libm, no jansson, libuv, libcurl or OpenSSL), it calls no file
# function (it is handed a counter, and returns text), and its files
# include no header but their own and the C library's.
# Usage: check-haystack-deps.sh LIBHAYSTACK "CC FLAGS"
set -eu
lib=$1 cc=$2
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
files=' (open|open64|openat|fopen|fopen64|fdopen|freopen|read|pread|write|fwrite|fputs|puts|printf|fprintf|stat|stat64|fstat|lstat|opendir|mmap|mmap64)$'
if nm -u "$lib" | grep -E "$files| (uv_|curl_|EVP_|SSL_|json_|pyre_|grader_)" >"$tmp/bad"; then
    echo "check-haystack-deps: $lib uses symbols it must not (files, outside libraries, the grader):" >&2
    cat "$tmp/bad" >&2
    exit 1
fi
for f in haystack/*.c haystack/*.h; do
    grep -E '^[[:space:]]*#[[:space:]]*include[[:space:]]*"' "$f" |
        sed -E 's/^[^"]*"([^"]*)".*/\1/' | while read -r h; do
        [ -f "haystack/$h" ] && case $h in */*) ;; *) continue ;; esac
        echo "$f: #include \"$h\""
    done
done >"$tmp/bad"
if [ -s "$tmp/bad" ]; then
    echo "check-haystack-deps: haystack includes only its own headers:" >&2
    cat "$tmp/bad" >&2
    exit 1
fi
cat >"$tmp/main.c" <<'C'
#include "haystack.h"
int main(void)
{
    struct haystack_item it;
    struct haystack_prompt p = {0};
    int rc = haystack_item_make(HAYSTACK_VT, 1, 2, &it);

    if (rc == 0)
        rc = haystack_render(&it, 100, &p);
    haystack_prompt_release(&p);
    return rc == 0 && it.nanswers == 5 ? 0 : 1;
}
C
# shellcheck disable=SC2086
$cc -Ihaystack -o "$tmp/main" "$tmp/main.c" "$lib"
"$tmp/main"
echo "check-haystack-deps: libhaystack.a links with libc alone, opens no file and includes only its own headers"
