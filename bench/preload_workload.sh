#!/bin/sh
# bench/preload_workload.sh - file-heavy real workloads with and without
# libpaldron_preload.so, alternating, median ratio (bench/ratio):
#   1. git status in a repository of FILES files
#   2. cp -r of the same tree (rm -rf of the previous copy included, so
#      both sides do the same work: reads, creates, deletes)
# Goal (issue 4): at most 1.10x. The policy is the built-in default with the
# tree inside the workspace (compiled by preload_open_bench --compile).
# Usage: bench/preload_workload.sh [BUILD_DIR] [RUNS] [FILES]
set -eu
build=$(cd "${1:-build}" && pwd)
runs=${2:-11}
files=${3:-20000}
lib=$build/launcher/libpaldron_preload.so
[ -f "$lib" ] || { echo "preload_workload: no $lib" >&2; exit 2; }
base=$(mktemp -d /tmp/pd-work-XXXXXX)
trap 'rm -rf "$base"' EXIT
ws=$base/ws
run=$base/run
mkdir -p "$ws/src/tree" "$run"
export PATH=/usr/bin:/bin LC_ALL=C GIT_CONFIG_NOSYSTEM=1 HOME="$base"
export GIT_AUTHOR_NAME=b GIT_AUTHOR_EMAIL=b@b GIT_COMMITTER_NAME=b GIT_COMMITTER_EMAIL=b@b

# FILES files, 100 per directory
dirs=$(( (files + 99) / 100 ))
(
    cd "$ws/src/tree"
    for d in $(seq 1 "$dirs"); do
        mkdir "d$d"
        (cd "d$d" && seq -f "f%g.txt" 1 100 | xargs touch)
    done
    git init -q .
    git add -A
    git commit -q -m tree
)
"$build/bench/preload_open_bench" --compile "$ws" "$run"

with="LD_PRELOAD=$lib PALDRON_PRELOAD=$lib PALDRON_RUN=$run"

# ratio runs A before B in every pair; on a busy machine the order alone
# shifts the figure by a few percent. Measure both orders and report the
# geometric mean of with/without and 1 / (without/with).
both() {
    name=$1
    shift
    warm=$1
    shift
    # shellcheck disable=SC2086
    out1=$("$build/bench/ratio" -n "$runs" -w "$warm" -- env $with "$@" ::: env "$@")
    # shellcheck disable=SC2086
    out2=$("$build/bench/ratio" -n "$runs" -w "$warm" -- env "$@" ::: env $with "$@")
    printf '%s\n%s\n' "$out1" "$out2"
    if printf '%s\n%s\n' "$out1" "$out2" | grep -q 'last exit status [^0]'; then
        echo "preload_workload: $name failed on one side (see the exit status)" >&2
        exit 1
    fi
    r1=$(printf '%s\n' "$out1" | sed -n 's/^median ratio.*: //p')
    r2=$(printf '%s\n' "$out2" | sed -n 's/^median ratio.*: //p')
    awk -v a="$r1" -v b="$r2" -v n="$name" \
        'BEGIN { printf "%s: preload/none %.2fx (with first %.2f, without first %.2f)\n", n, sqrt(a / b), a, 1 / b }'
}

echo "git status in a $files-file repository ($runs pairs per order)"
both "git status" 2 git -C "$ws/src/tree" status --porcelain
echo "cp -r of a $files-file tree ($runs pairs per order)"
both "cp -r" 1 sh -c "rm -rf '$ws/src/copy' && cp -r '$ws/src/tree' '$ws/src/copy'"
# the preloaded copy really ran under the gate: a denied write is refused
# shellcheck disable=SC2086
if env $with sh -c "echo x > '$ws/src/copy/.env'" 2>/dev/null; then
    echo "preload_workload: the preload did not gate the workload" >&2
    exit 1
fi
