#!/bin/sh
# tests/run-all.sh - set everything up and run the whole test suite.
#   tests/run-all.sh              normal build in build/
#   tests/run-all.sh --sanitize   ASan+UBSan build in build-asan/
#   tests/run-all.sh [--sanitize] CTEST_ARGS...   e.g. -LE slow, as CI does
#                                 (.ci/run: the tests labelled slow run locally)
set -eu
src=$(cd "$(dirname "$0")/.." && pwd)
build=build
opts=""
if [ "${1:-}" = "--sanitize" ]; then
    build=build-asan
    opts="-DPALDRON_SANITIZE=ON"
    shift
fi
# shellcheck disable=SC2086
"$src/tests/setup.sh" "$build" $opts
cd "$src/$build"
ctest --output-on-failure -j2 --timeout 600 "$@"
