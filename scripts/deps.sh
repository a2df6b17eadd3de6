#!/bin/sh
# Install what graveyard needs on Debian 12 (run as root, or it uses sudo).
# Build: a C compiler, make, pkg-config and the -dev packages of libuv,
# libcurl, jansson, OpenSSL, and libmicrohttpd for the fake llama-server
# the tests and the demo run. Tests: cmocka, clang (libFuzzer), clang-tidy
# (the function size gate), clang-format (the layout gate), Python 3
# with jsonschema (schema checks; the benchmark's baseline) and numpy
# (f16-range's benchmark baseline), GNU time and bc (the benchmarks'
# figures); Slurm and munge for the test that runs
# a ladder as a job array on a one-node cluster of its own (their
# services are not started by installing them); procps (pgrep, pkill)
# for the tests that check no server is left; librsvg2-bin (rsvg-convert)
# for the tests that render the cover and pareto.svg and read their
# pixels; chromium for the tests that open the pages headless, driven by
# python3-selenium through chromium-driver (chromedriver, built from the
# same Debian source as chromium, so their versions match).
set -eu
PKGS="build-essential pkg-config libuv1-dev libcurl4-openssl-dev
libjansson-dev libssl-dev libmicrohttpd-dev libcmocka-dev clang libclang-rt-14-dev clang-tidy clang-format python3
python3-jsonschema python3-numpy time bc zlib1g-dev
slurmctld slurmd slurm-client munge procps librsvg2-bin chromium
chromium-driver python3-selenium
fonts-dejavu-core"
SUDO=
if [ "$(id -u)" != 0 ]; then SUDO=sudo; fi
export DEBIAN_FRONTEND=noninteractive
$SUDO apt-get update -qq
# shellcheck disable=SC2086
$SUDO apt-get install -y -qq --no-install-recommends $PKGS
