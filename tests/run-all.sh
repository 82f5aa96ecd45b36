#!/bin/sh
# tests/run-all.sh - set everything up and run the whole test suite.
#   tests/run-all.sh              normal build in build/
#   tests/run-all.sh --sanitize   ASan+UBSan build in build-asan/
set -eu
src=$(cd "$(dirname "$0")/.." && pwd)
build=build
opts=""
if [ "${1:-}" = "--sanitize" ]; then
    build=build-asan
    opts="-DPALDRON_SANITIZE=ON"
fi
# shellcheck disable=SC2086
"$src/tests/setup.sh" "$build" $opts
cd "$src/$build"
ctest --output-on-failure -j2 --timeout 600
