#!/bin/sh
# tests/lint.sh - the static checks of CI: clang-tidy with the checks of
# .clang-tidy, and cppcheck, over the project's sources (launcher/, policy/,
# preload/, platform/). Prints every finding and exits 1 when there is one.
#   tests/lint.sh [BUILD_DIR]    (default: build-lint in the source tree)
# BUILD_DIR is configured here with clang and a compile_commands.json; only
# the generated version header is built. Besides the build's own packages
# (tests/setup.sh) it needs clang, clang-tidy (clang-tidy, run-clang-tidy)
# and cppcheck, installed here when missing (as root).
set -eu
src=$(cd "$(dirname "$0")/.." && pwd)
build=${1:-$src/build-lint}
jobs=$(nproc)
"$src/tests/need-packages.sh" clang clang-tidy cppcheck python3 cmake

missing=""
for tool in clang clang-tidy run-clang-tidy cppcheck python3 cmake; do
    command -v "$tool" >/dev/null 2>&1 || missing="$missing $tool"
done
if [ -n "$missing" ]; then
    echo "lint: not found:$missing (Debian 12: apt-get install clang clang-tidy cppcheck" \
         "python3 cmake)" >&2
    exit 1
fi

mkdir -p "$build/lint"
cmake -S "$src" -B "$build" -DCMAKE_C_COMPILER=clang -DCMAKE_EXPORT_COMPILE_COMMANDS=ON \
      -DPALDRON_FUZZ=OFF -DPALDRON_SANITIZE=OFF >"$build/lint/configure.log" 2>&1 || {
    cat "$build/lint/configure.log" >&2
    echo "lint: cmake configure failed" >&2
    exit 1
}
cmake --build "$build" --target paldron_version_header >/dev/null

# The compile commands of the sources linted, one per file (the policy files
# built twice, for the launcher and for the preload, are read once: clang-tidy
# 14 given two commands for one file in one run also reports a va_list that
# va_start initialised as uninitialised in the second).
lintdb="$build/lint"
python3 - "$src" "$build/compile_commands.json" "$lintdb/compile_commands.json" <<'EOF'
import json, os, sys
src, db, out = sys.argv[1:4]
dirs = tuple(os.path.join(src, d) + os.sep for d in ("launcher", "policy", "preload", "platform"))
seen, keep = set(), []
for entry in json.load(open(db)):
    f = os.path.normpath(os.path.join(entry["directory"], entry["file"]))
    if f.startswith(dirs) and f not in seen:
        seen.add(f)
        keep.append(entry)
json.dump(keep, open(out, "w"), indent=1)
print("lint: %d files" % len(keep), file=sys.stderr)
EOF

status=0
out="$build/lint/clang-tidy.out"
# -header-filter: the project's headers (and .def tables), by absolute path.
# run-clang-tidy 14 always asks for colours: they are taken out.
if ! run-clang-tidy -quiet -j "$jobs" -p "$lintdb" \
        -header-filter="^$src/(launcher|policy|preload|platform)/" >"$out.raw" 2>&1; then
    status=1
fi
sed 's/\x1b\[[0-9;]*m//g' "$out.raw" >"$out"
# the findings with their notes, without the lines that say what ran
grep -Ev '^(clang-tidy|[0-9]+ warnings? (and [0-9]+ errors? )?generated|[0-9]+ warnings? treated as errors)' \
    "$out" >"$out.findings" || true
if grep -Eq '(warning|error):' "$out.findings"; then
    status=1
fi
cat "$out.findings" >&2

# cppcheck: warning, performance and portability (and its errors, always
# on), with the POSIX and GNU function tables. Suppressed everywhere:
#   readdirCalled  it asks for readdir_r, which glibc deprecates; readdir on
#                  a stream that one thread reads is safe
# Findings in one place are suppressed there: // cppcheck-suppress ID ; why
if ! cppcheck -q -j "$jobs" --std=c11 --enable=warning,performance,portability \
        --library=posix --library=gnu --inline-suppr --error-exitcode=1 \
        --suppress=readdirCalled --project="$lintdb/compile_commands.json" \
        >"$build/lint/cppcheck.out" 2>&1; then
    status=1
fi
if [ -s "$build/lint/cppcheck.out" ]; then
    cat "$build/lint/cppcheck.out" >&2
    status=1
fi

if [ "$status" -ne 0 ]; then
    echo "lint: findings above (clang-tidy: .clang-tidy; cppcheck: tests/lint.sh)" >&2
else
    echo "lint: clean" >&2
fi
exit "$status"
