#!/bin/sh
# What `make check` runs besides the compiler: each tool or Python module
# missing is named, with the one command that installs them all (the demo
# needs none of these). Debian's modules are /usr/bin/python3's (a pyenv
# python3 first on PATH lacks them; the suites call /usr/bin/python3).
# Exit 2 when one is missing.
set -u
missing=
# a daemon lives in /usr/sbin, which a user's PATH may lack
need() {
    command -v "$1" >/dev/null 2>&1 || [ -x "/usr/sbin/$1" ] ||
        missing="$missing $1"
}
for c in clang clang-tidy clang-format python3 bc rsvg-convert chromium \
    chromedriver sbatch slurmctld slurmd munged pgrep bwrap; do
    need "$c"
done
[ -x /usr/bin/time ] || missing="$missing time(/usr/bin/time)"
pkg-config --exists cmocka 2>/dev/null || missing="$missing cmocka(libcmocka-dev)"
for m in jsonschema numpy selenium; do
    /usr/bin/python3 -c "import $m" >/dev/null 2>&1 ||
        missing="$missing python3-$m"
done
if [ -n "$missing" ]; then
    echo "make check: missing:$missing" >&2
    echo "make check: install the test stack with: sh scripts/deps.sh --test" >&2
    exit 2
fi
