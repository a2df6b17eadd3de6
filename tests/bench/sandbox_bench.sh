#!/bin/sh
# The sandbox's cost (docs/performance.md, "The sandbox"): N candidates
# (a one-line function and one assert) run one at a time by `graveyard
# sandbox --jobs 1`, against N plain `python3 -I -c pass` and N
# `/bin/true` under bubblewrap with the sandbox's flags (sandbox.c's
# bwrap_flags); then the same N candidates, each with a little work (a
# sum over 200,000 numbers), at --jobs 1, 2 and 4. Wall clock of the
# whole commands (graveyard's includes its probe, one sandbox more).
# Usage: sandbox_bench.sh GRAVEYARD [N]
set -eu
g=$1 n=${2:-40}
d=$(mktemp -d)
trap 'rm -rf "$d"' EXIT
i=1
while [ "$i" -le "$n" ]; do
    printf 'def f(x):\n    return x + 1\n' >"$d/c$i.py"
    printf 'def f(x):\n    return sum(range(200000)) + x\n' >"$d/w$i.py"
    i=$((i + 1))
done
ms() { # command... -> wall milliseconds
    s=$(date +%s%N)
    "$@" >/dev/null 2>&1 || true
    e=$(date +%s%N)
    echo $(((e - s) / 1000000))
}
repeat() { # count command... : the command count times
    c=$1
    shift
    while [ "$c" -gt 0 ]; do
        "$@"
        c=$((c - 1))
    done
}
bw="bwrap --unshare-all --unshare-user --disable-userns --die-with-parent
--new-session --cap-drop ALL --clearenv --setenv PATH /usr/bin:/bin
--setenv HOME /tmp --ro-bind /usr /usr --symlink usr/bin /bin
--symlink usr/lib /lib --symlink usr/lib64 /lib64 --symlink usr/sbin /sbin
--ro-bind-try /etc/ld.so.cache /etc/ld.so.cache --proc /proc --dev /dev
--size 16777216 --tmpfs /tmp --remount-ro / --chdir /tmp"
# shellcheck disable=SC2086
t_true=$(ms repeat "$n" $bw -- /bin/true)
t_py=$(ms repeat "$n" /usr/bin/python3 -I -c pass)
files=$(i=1; while [ "$i" -le "$n" ]; do printf '%s ' "$d/c$i.py"; i=$((i + 1)); done)
# shellcheck disable=SC2086
t_g=$(ms "$g" sandbox --jobs 1 $files --test 'assert f(1) == 2')
printf 'per candidate, %s one at a time: graveyard sandbox %s ms, python3 -c pass %s ms, bwrap /bin/true %s ms\n' \
    "$n" "$(echo "scale=1; $t_g / ($n + 1)" | bc)" "$(echo "scale=1; $t_py / $n" | bc)" \
    "$(echo "scale=1; $t_true / $n" | bc)"
files=$(i=1; while [ "$i" -le "$n" ]; do printf '%s ' "$d/w$i.py"; i=$((i + 1)); done)
for j in 1 2 4; do
    # shellcheck disable=SC2086
    t=$(ms "$g" sandbox --jobs "$j" $files --test 'assert f(1) > 0')
    printf 'throughput, --jobs %s: %s candidates in %s ms, %s a second\n' \
        "$j" "$n" "$t" "$(echo "scale=1; $n * 1000 / $t" | bc)"
done
