#!/bin/sh
# tests/setup.sh - install what Paldron needs (Debian 12, as root), then
# configure and build. Used by the README's two commands and by CI.
#   tests/setup.sh BUILD_DIR [cmake options...]
set -eu
build=${1:-build}
shift || true
src=$(cd "$(dirname "$0")/.." && pwd)

packages="build-essential cmake pkg-config libinih-dev libcjson-dev libseccomp-dev \
libcriterion-dev libcurl4-openssl-dev python3 git tar util-linux passwd curl bind9-dnsutils \
golang-go rsync python3-pytest python3-venv python3-pip libpython3.11-testsuite sqlite3 \
man-db ed zip unzip patch perl gzip nodejs zsh"
# (the last two lines: the programs of the workload suite, tests/workloads/,
# and zsh for the completion test;
# nodejs 20 comes from the configured NodeSource repository)
# shellcheck disable=SC2086
"$src/tests/need-packages.sh" $packages

cmake -S "$src" -B "$src/$build" -DCMAKE_BUILD_TYPE=RelWithDebInfo "$@" >&2
cmake --build "$src/$build" -j"$(nproc)" >&2
