#!/bin/sh
# Install what graveyard needs on Debian 12 (run as root, or it uses sudo).
#
#   sh scripts/deps.sh          what building graveyard and running its
#                               demo need: a C compiler, make, pkg-config,
#                               the -dev packages of libuv, libcurl,
#                               jansson, OpenSSL and zlib, libmicrohttpd for
#                               the fake llama-server the demo runs,
#                               Python 3 (the fake converter's wrapper)
#                               and bubblewrap (the code ladder's
#                               sandbox, docs/sandbox.md)
#   sh scripts/deps.sh --test   that, and the test stack `make check` uses:
#                               cmocka; clang (libFuzzer), clang-tidy (the
#                               function size gate) and clang-format (the
#                               layout gate); python3-jsonschema (schema
#                               checks, the benchmark's baseline) and
#                               python3-numpy (f16-range's baseline); GNU
#                               time and bc (the benchmarks' figures);
#                               Slurm and munge (a ladder as a job array on
#                               a one-node cluster of the test's own);
#                               procps (no server left behind); librsvg2-bin
#                               (the pictures read back as pixels); chromium,
#                               chromium-driver and python3-selenium (the
#                               pages opened headless; the driver is built
#                               from chromium's own Debian source, so their
#                               versions match)
#
# Slurm's and munge's services are never left enabled by this script: the
# test starts a cluster of its own from its own folder (tests/slurm/), and
# a workstation that did not run them before does not run them after.
set -eu
usage() {
    echo "usage: sh scripts/deps.sh [--test]" >&2
    exit 2
}
test=0
case $# in
0) ;;
1) [ "$1" = --test ] || usage; test=1 ;;
*) usage ;;
esac

DEMO="build-essential pkg-config libuv1-dev libcurl4-openssl-dev
libjansson-dev libssl-dev zlib1g-dev libmicrohttpd-dev python3 bubblewrap"
TEST="libcmocka-dev clang libclang-rt-14-dev clang-tidy clang-format
python3-jsonschema python3-numpy time bc
slurmctld slurmd slurm-client munge procps librsvg2-bin chromium
chromium-driver python3-selenium fonts-dejavu-core"
SERVICES="slurmctld slurmd munge"

PKGS=$DEMO
[ $test = 0 ] || PKGS="$DEMO $TEST"
SUDO=
if [ "$(id -u)" != 0 ]; then SUDO=sudo; fi
export DEBIAN_FRONTEND=noninteractive

# the services' packages not installed yet: theirs to disable after
fresh=
if [ $test = 1 ]; then
    for s in $SERVICES; do
        dpkg -s "$s" >/dev/null 2>&1 || fresh="$fresh $s"
    done
fi

$SUDO apt-get update -qq
# shellcheck disable=SC2086
$SUDO apt-get install -y -qq --no-install-recommends $PKGS

# a package's postinst may enable (and start) its service: undo it for
# the ones this run installed, where systemd runs at all
if [ -n "$fresh" ] && [ -d /run/systemd/system ]; then
    for s in $fresh; do
        $SUDO systemctl disable --now "$s" >/dev/null 2>&1 ||
            echo "deps.sh: could not disable the $s service; it may run" >&2
    done
fi
