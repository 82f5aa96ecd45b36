#!/bin/sh
# tests/need-packages.sh PACKAGE... - install the Debian packages that are
# missing (as root; otherwise name them and fail). Every setup script of
# the tree (tests/setup.sh, tests/lint.sh, tests/fuzz/run.sh, the valgrind
# and packaging scripts) asks through this one, so that a clean Debian 12
# machine needs nothing but the command itself.
set -eu
missing=""
for p in "$@"; do
    dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed" ||
        missing="$missing $p"
done
[ -z "$missing" ] && exit 0
if [ "$(id -u)" -ne 0 ]; then
    echo "paldron setup: missing Debian packages:$missing (run as root to install)" >&2
    exit 1
fi
echo "paldron setup: installing$missing" >&2
export DEBIAN_FRONTEND=noninteractive
apt-get update -qq >&2
# shellcheck disable=SC2086
apt-get install -y -qq --no-install-recommends $missing >&2
