#!/bin/sh
# bench/exec_bench.sh - `paldron exec` with every layer on (Landlock,
# seccomp, rlimits, pre-run snapshot, post-run scan) against the bare
# command, alternating in one run, median ratio (bench/ratio).
# Goals (issue 3): exec -- true at most 3x bare /usr/bin/true;
# exec -- python3 -c pass at most 1.3x bare python3 -c pass.
# Usage: bench/exec_bench.sh [BUILD_DIR] [RUNS]
set -eu
build=$(cd "${1:-build}" && pwd)
runs=${2:-300}
ws=$(mktemp -d)
trap 'rm -rf "$ws"' EXIT
mkdir -p "$ws/src"
echo 'print("hi")' >"$ws/src/tool.py"
cat >"$ws/policy.toml" <<'POL'
allow_paths = ["src/"]
deny_globs = [".env", ".env.*", "*.pem", "**/secrets/**"]
allow_network = false
allow_binaries = ["true", "python3"]
require_os_isolation = true
timeout_sec = 30
POL
cd "$ws"
PATH=/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin
export PATH
py=$(command -v python3)
echo "paldron exec -- /usr/bin/true vs /usr/bin/true ($runs alternating pairs)"
"$build/bench/ratio" -n "$runs" -- "$build/launcher/paldron" exec --policy "$ws/policy.toml" -- \
    /usr/bin/true ::: /usr/bin/true
echo
echo "paldron exec -- python3 -c pass vs $py -c pass ($runs alternating pairs)"
"$build/bench/ratio" -n "$runs" -- "$build/launcher/paldron" exec --policy "$ws/policy.toml" -- \
    "$py" -c pass ::: "$py" -c pass
