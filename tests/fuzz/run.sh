#!/bin/sh
# tests/fuzz/run.sh [SECONDS_PER_TARGET] [TARGET...] - build the libFuzzer
# targets (tests/fuzz/fuzz_*.c) and run each for a bounded time.
#
#   tests/fuzz/run.sh            every target, 20 s each (CI: about 4 minutes)
#   tests/fuzz/run.sh 600 shell  one target for 10 minutes (a longer local run)
#
# The build directory is build-fuzz beside the sources (PALDRON_FUZZ_BUILD to
# change it), configured once with clang and -DPALDRON_FUZZ=ON. Each target
# runs on a temp copy of tests/fuzz/corpus/<name>/ (the committed corpus does
# not grow), with tests/fuzz/<name>.dict when there is one, one target at a
# time. Per target it prints the executions, the coverage (libFuzzer's cov:
# edges and ft: features), the corpus it reached, its slowest input and OK
# or what it found; a finding (crash,
# invariant, leak, sanitizer report, timeout, out of memory) is kept in
# <build>/fuzz-findings/<name>/ with its log, and the script exits 1.
# Reproduce one: <build>/tests/fuzz/fuzz_<name> <the artifact>.
# PALDRON_FUZZ_FLAGS adds libFuzzer flags to every run (-max_len=65536 ...).
set -u

secs=${1:-20}
[ $# -gt 0 ] && shift
case $secs in
'' | *[!0-9]*)
    echo "usage: $0 [SECONDS_PER_TARGET] [TARGET...]" >&2
    exit 2
    ;;
esac

here=$(cd "$(dirname "$0")" && pwd)
root=$(cd "$here/../.." && pwd)
build=${PALDRON_FUZZ_BUILD:-$root/build-fuzz}
cc=${PALDRON_FUZZ_CC:-clang}

# clang and its libFuzzer runtime (Debian 12: clang 14)
if [ "$cc" = clang ]; then
    "$root/tests/need-packages.sh" clang libclang-rt-14-dev || exit 2
fi
if [ ! -f "$build/CMakeCache.txt" ]; then
    mkdir -p "$build"
    cmake -S "$root" -B "$build" -DCMAKE_C_COMPILER="$cc" -DPALDRON_FUZZ=ON \
        -DCMAKE_BUILD_TYPE=RelWithDebInfo >"$build/configure.log" 2>&1 || {
        cat "$build/configure.log" >&2
        echo "run.sh: configuring $build failed" >&2
        exit 2
    }
fi
cmake --build "$build" -j"${PALDRON_FUZZ_JOBS:-2}" --target paldron_fuzz || {
    echo "run.sh: building the fuzz targets failed" >&2
    exit 2
}

targets=$*
if [ -z "$targets" ]; then
    for src in "$here"/fuzz_*.c; do
        name=${src##*/fuzz_}
        targets="$targets ${name%.c}"
    done
fi

# leaks are findings; UBSan stops at the first report (the build also says
# -fno-sanitize-recover) and prints where
export ASAN_OPTIONS="${ASAN_OPTIONS:-detect_leaks=1:abort_on_error=0:symbolize=1}"
export UBSAN_OPTIONS="${UBSAN_OPTIONS:-halt_on_error=1:print_stacktrace=1}"

tmp=$(mktemp -d "${TMPDIR:-/tmp}/paldron-fuzz.XXXXXX")
trap 'rm -rf "$tmp"' EXIT INT TERM
failed=0
printf '%-10s %12s %8s %8s %7s %6s  %s\n' target execs cov ft corpus slow result
for name in $targets; do
    bin=$build/tests/fuzz/fuzz_$name
    if [ ! -x "$bin" ]; then
        printf '%-10s %s\n' "$name" "no such target ($bin)"
        failed=1
        continue
    fi
    work=$tmp/$name/corpus
    art=$tmp/$name/artifacts
    mkdir -p "$work" "$art"
    if [ -d "$here/corpus/$name" ]; then
        cp "$here/corpus/$name"/* "$work"/ 2>/dev/null
    fi
    set -- -max_total_time="$secs" -timeout=25 -rss_limit_mb=2560 -print_final_stats=1 \
        -artifact_prefix="$art/"
    [ -f "$here/$name.dict" ] && set -- "$@" -dict="$here/$name.dict"
    # more libFuzzer flags, e.g. PALDRON_FUZZ_FLAGS="-max_len=65536 -seed=7"
    # shellcheck disable=SC2086
    set -- "$@" ${PALDRON_FUZZ_FLAGS:-}
    log=$tmp/$name/log
    "$bin" "$@" "$work" >"$log" 2>&1
    rc=$?
    execs=$(sed -n 's/^stat::number_of_executed_units: *//p' "$log" | tail -n 1)
    slow=$(sed -n 's/^stat::slowest_unit_time_sec: *//p' "$log" | tail -n 1)
    # the last status line (DONE, or the last pulse before a finding)
    cov=$(grep -Eo 'cov: [0-9]+' "$log" | tail -n 1 | cut -d' ' -f2)
    ft=$(grep -Eo 'ft: [0-9]+' "$log" | tail -n 1 | cut -d' ' -f2)
    corp=$(grep -Eo 'corp: [0-9]+' "$log" | tail -n 1 | cut -d' ' -f2)
    found=$(ls "$art" | head -n 1)
    if [ $rc -eq 0 ] && [ -z "$found" ] &&
        ! grep -Eq '^(==[0-9]+==ERROR|SUMMARY: |.*runtime error: |.*invariant failed: )' "$log"; then
        result=OK
    else
        failed=1
        keep=$build/fuzz-findings/$name
        mkdir -p "$keep"
        cp "$log" "$keep/log"
        [ -n "$found" ] && cp "$art"/* "$keep"/
        why=$(grep -Eo -m1 '(ERROR: [A-Za-z]+: [a-z-]+|ERROR: libFuzzer: [a-z-]+|invariant failed: .*|runtime error: .*)' "$log")
        result="FOUND ${why:-exit $rc} -> $keep/${found:-log}"
    fi
    printf '%-10s %12s %8s %8s %7s %5ss  %s\n' "$name" "${execs:-?}" "${cov:-?}" "${ft:-?}" \
        "${corp:-?}" "${slow:-?}" "$result"
    [ "$result" = OK ] || tail -n 30 "$log" | sed 's/^/    /'
done
exit $failed
