#!/bin/sh
# bench/routed_bench.sh - a hook-routed `ls` (what the client runs after
# `check --hook` rewrote the call: paldron exec --routed ... -- 'ls')
# against `paldron exec -- ls`, each as a ratio to the bare `ls` in the
# same run (bench/ratio, alternating pairs, median).
# Goal (issue 12): the routed ls costs at most the exec -- ls figure.
# Usage: bench/routed_bench.sh [BUILD_DIR] [RUNS]
set -eu
build=$(cd "${1:-build}" && pwd)
runs=${2:-200}
ws=$(mktemp -d)
trap 'rm -rf "$ws"' EXIT
mkdir -p "$ws/src"
echo hi >"$ws/src/a.txt"
cat >"$ws/policy.toml" <<'POL'
allow_paths = ["src/"]
deny_globs = [".env", ".env.*", "*.pem", "**/secrets/**"]
allow_network = false
allow_binaries = ["ls", "cat", "git", "python3"]
POL
cd "$ws"
PATH=/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin
export PATH
ls=$(command -v ls)
p="$build/launcher/paldron"
echo "paldron exec --routed -- 'ls src' vs $ls src ($runs alternating pairs)"
"$build/bench/ratio" -n "$runs" -- "$p" exec --routed --policy "$ws/policy.toml" \
    --workspace "$ws" --timeout 120 -- 'ls src' ::: "$ls" src
echo
echo "paldron exec -- ls src vs $ls src ($runs alternating pairs)"
"$build/bench/ratio" -n "$runs" -- "$p" exec --policy "$ws/policy.toml" -- ls src ::: "$ls" src
echo
echo "paldron exec --routed -- 'ls src' vs paldron exec -- ls src ($runs alternating pairs; goal <= 1.0)"
"$build/bench/ratio" -n "$runs" -- "$p" exec --routed --policy "$ws/policy.toml" \
    --workspace "$ws" --timeout 120 -- 'ls src' ::: "$p" exec --policy "$ws/policy.toml" -- ls src
