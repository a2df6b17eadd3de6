#!/bin/sh
# make bench (third part): graveyard's sha256 (OpenSSL EVP) against
# coreutils' sha256sum on the same 2 GiB file, warm in the page cache,
# best of two each. Usage: hash_bench.sh GRAVEYARD [MIB]
set -eu
g=$1 mib=${2:-2048}
f=build/bench/hash-$mib.bin
mkdir -p build/bench
[ -f "$f" ] || head -c $((mib * 1048576)) /dev/urandom >"$f"
best() { # command... -> best wall seconds of two runs
    b=
    for _ in 1 2; do
        s=$(date +%s.%N); "$@" >/dev/null; e=$(date +%s.%N)
        t=$(echo "$e - $s" | bc)
        if [ -z "$b" ] || [ "$(echo "$t < $b" | bc)" = 1 ]; then b=$t; fi
    done
    echo "$b"
}
[ "$("$g" sha256 "$f" | cut -d' ' -f1)" = "$(sha256sum "$f" | cut -d' ' -f1)" ] || {
    echo "hash bench: graveyard and sha256sum disagree" >&2; exit 1; }
a=$(best "$g" sha256 "$f")
b=$(best sha256sum "$f")
printf '\nsha256 of %s MiB: graveyard %.2f s, sha256sum %.2f s: %.1fx\n' \
    "$mib" "$a" "$b" "$(echo "$b / $a" | bc -l)"
