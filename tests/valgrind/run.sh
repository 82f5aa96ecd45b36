#!/usr/bin/env bash
# tests/valgrind/run.sh - the integration suite once, with the launcher under
# valgrind memcheck (issue 17, item 3): every paldron the harness starts
# (tests/integration/harness.py, PALDRON_WRAPPER) runs under
#   valgrind --tool=memcheck --leak-check=full --errors-for-leak-kinds=definite
# with one log per process, and the run fails if a test fails, or if any log
# has an error or a definite leak.
#
# Under valgrind the kernel layers are applied by the launcher's own binary
# run natively (launcher/exec/exec_valgrind.c: `paldron __probe`, `paldron
# __sandbox`): valgrind checks the launcher; the command and its live gate
# run natively, as they always do.
#
# usage: tests/valgrind/run.sh [BUILD_DIR [TEST...]]
#   BUILD_DIR  a build of its own, configured here (Debug); default
#              build-valgrind in the source tree
#   TEST       test files of tests/integration (test_check or test_check.py);
#              default: every test_*.py, less the tests tests/valgrind/exclusions
#              names (each said in the output, with why)
# environment:
#   PALDRON_VG_JOBS     test files run at once (default: the number of CPUs)
#   PALDRON_VG_LOGS     where the logs go (default: BUILD_DIR/valgrind-logs)
#   PALDRON_VG_TIMEOUT  seconds per test file (default 1800)
# Needs root, like the integration suite (the sandboxed commands run as the
# unprivileged test user).
set -euo pipefail

src=$(cd "$(dirname "$0")/../.." && pwd)
build=${1:-$src/build-valgrind}
[ $# -gt 0 ] && shift
jobs=${PALDRON_VG_JOBS:-$(nproc)}
logs=${PALDRON_VG_LOGS:-$build/valgrind-logs}
timeout_s=${PALDRON_VG_TIMEOUT:-1800}

"$src/tests/need-packages.sh" valgrind
command -v valgrind >/dev/null || {
    echo "run.sh: valgrind not found (apt install valgrind)" >&2
    exit 1
}

start=$(date +%s)
mkdir -p "$build"
echo "== configure and build $build (Debug)"
cmake -S "$src" -B "$build" -DCMAKE_BUILD_TYPE=Debug >"$build/valgrind-configure.log" 2>&1 || {
    cat "$build/valgrind-configure.log" >&2
    exit 1
}
cmake --build "$build" -j "$jobs" >"$build/valgrind-build.log" 2>&1 || {
    tail -50 "$build/valgrind-build.log" >&2
    exit 1
}

if [ $# -gt 0 ]; then
    tests=()
    for t in "$@"; do
        tests+=("$(basename "${t%.py}")")
    done
else
    mapfile -t tests < <(cd "$src/tests/integration" && ls test_*.py | sed 's/\.py$//')
fi

# The longest test files first (as the last run measured them), so that
# the slowest does not start last.
if [ -d "$logs" ]; then
    mapfile -t tests < <(for t in "${tests[@]}"; do
        secs=$(awk '{ print $3 }' "$logs/$t/result" 2>/dev/null || true)
        echo "${secs:-100000} $t"
    done | sort -rn | awk '{ print $2 }')
fi
rm -rf "$logs"
mkdir -p "$logs"
if [ ${#tests[@]} -eq 0 ]; then
    echo "run.sh: no test file to run" >&2
    exit 1
fi

# valgrind itself: Debian's /usr/bin/valgrind is a script that adds
# LD_LIBRARY_PATH and GLIBCXX_FORCE_NEW to the environment of the program,
# which the launcher would then pass on to the command; its valgrind.bin
# beside it is valgrind without them.
vg=$(command -v valgrind)
[ -x "$vg.bin" ] && vg=$vg.bin
export vg

# One log (and one XML file, which scan_logs.py counts) per process tree: %p
# is the launcher's pid (valgrind 3.19 writes a forked child into its
# parent's XML file, each with its own preamble). --trace-children=no (the
# default) is what makes `paldron __sandbox` and the command run natively.
# --vgdb=no: no gdb server pipes in /tmp for each of the many runs.
# --read-inline-info=no: a sixth of valgrind's start-up; a Debug build has
# no inlined code of Paldron's to show.
vg_args() {
    local dir=$1
    printf '%s ' "$vg" --tool=memcheck --error-exitcode=97 --leak-check=full \
        --show-leak-kinds=definite --errors-for-leak-kinds=definite --track-fds=no \
        --num-callers=40 --vgdb=no --read-inline-info=no \
        --suppressions="$src/tests/valgrind/paldron.supp" \
        --log-file="$dir/vg.%p.log" --xml=yes --xml-file="$dir/vg.%p.xml"
}

run_one() {
    local name=$1 dir=$logs/$1 rc=0
    mkdir -p "$dir"
    chmod 1777 "$dir" # the test user's launchers write their logs here too
    local t0 t1
    t0=$(date +%s.%N)
    (
        cd "$src/tests/integration"
        PALDRON_WRAPPER="$(vg_args "$dir")" PALDRON_BINARY_DIR="$build" \
            PALDRON_SOURCE_DIR="$src" timeout "$timeout_s" \
            python3 "$src/tests/valgrind/run_file.py" "$name"
    ) >"$dir/test.out" 2>&1 || rc=$?
    t1=$(date +%s.%N)
    local secs
    secs=$(awk "BEGIN { printf \"%.1f\", $t1 - $t0 }")
    echo "$name $rc $secs" >"$dir/result"
    printf '%-36s exit %-3d %7s s\n' "$name" "$rc" "$secs"
}
export -f run_one vg_args
export src build logs timeout_s

echo "== ${#tests[@]} test file(s), $jobs at a time; logs in $logs"
printf '%s\n' "${tests[@]}" | xargs -P "$jobs" -I{} bash -c 'run_one "$1"' _ {}

rc=0
python3 "$src/tests/valgrind/scan_logs.py" "$logs" || rc=$?
echo "== wall time: $(($(date +%s) - start)) s"
exit $rc
