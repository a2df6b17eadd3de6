#!/bin/bash
# Time README's first command on a fresh Debian 12: debootstrap a minimal
# bookworm into a folder, clone this checkout into it, and run
# `sh scripts/deps.sh && make demo` there under chroot, as a new user would
# on a new machine (no apt lists, no compiler, no -dev package: deps.sh's
# own apt-get update and install are part of the time).
#
#   sudo bash scripts/time-first-command.sh [FOLDER] [MIRROR]
#
# FOLDER (default /var/tmp/graveyard-fresh-deb12) is removed first and
# left behind for a look (`rm -rf` it after). Needs root, debootstrap
# (Debian's package) and the network; not part of make check. Prints the
# seconds of debootstrap and of the first command, and the command's
# last lines (the demo's report). README, "Two commands", quotes it.
set -eu
[ "$(id -u)" = 0 ] || { echo "time-first-command.sh: run as root (chroot, mount)" >&2; exit 2; }
command -v debootstrap >/dev/null ||
    { echo "time-first-command.sh: no debootstrap (apt-get install debootstrap)" >&2; exit 2; }
here=$(cd "$(dirname "$0")/.." && pwd)
R=${1:-/var/tmp/graveyard-fresh-deb12}
MIRROR=${2:-http://deb.debian.org/debian}
case "$R" in /|"") echo "time-first-command.sh: refusing folder '$R'" >&2; exit 2 ;; esac
rm -rf "$R"
mkdir -p "$R"
t0=$(date +%s)
debootstrap --variant=minbase bookworm "$R" "$MIRROR" >"$R.debootstrap.log" 2>&1 ||
    { echo "time-first-command.sh: debootstrap failed: $R.debootstrap.log" >&2; exit 1; }
t1=$(date +%s)
echo "debootstrap: $((t1 - t0)) s"
cp /etc/resolv.conf "$R/etc/resolv.conf"
rm -rf "$R"/var/lib/apt/lists/* # a new machine's first update is deps.sh's
mount --bind /dev "$R/dev"
mount -t proc proc "$R/proc"
trap 'umount "$R/proc" "$R/dev" 2>/dev/null || true' EXIT
git clone -q "$here" "$R/root/graveyard"
t2=$(date +%s)
rc=0
chroot "$R" /bin/sh -c 'cd /root/graveyard && sh scripts/deps.sh && make demo' \
    >"$R.first.log" 2>&1 || rc=$?
t3=$(date +%s)
echo "first command: $((t3 - t2)) s on $(nproc) cores, exit $rc (log: $R.first.log)"
tail -3 "$R.first.log"
exit $rc
