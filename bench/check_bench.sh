#!/bin/sh
# bench/check_bench.sh - `paldron check` (a write_file call against the
# README policy) against /usr/bin/true, alternating, median ratio.
# Goal (issue 2): at most 1.7x. Usage: bench/check_bench.sh [BUILD_DIR] [RUNS]
set -eu
build=$(cd "${1:-build}" && pwd)
runs=${2:-300}
ws=$(mktemp -d)
trap 'rm -rf "$ws"' EXIT
mkdir -p "$ws/src"
cat >"$ws/policy.toml" <<'POL'
allow_paths = ["src/", "docs/"]
deny_globs = [".env", ".env.*", "*.pem", "**/secrets/**"]
allow_network = false
allow_binaries = ["ls", "cat", "python3", "git"]
require_os_isolation = true
timeout_sec = 30
POL
cd "$ws"
echo "paldron check write_file vs /usr/bin/true ($runs alternating pairs)"
"$build/bench/ratio" -n "$runs" -- "$build/launcher/paldron" check --policy "$ws/policy.toml" -- \
    write_file "{\"path\":\"$ws/src/a.txt\",\"content\":\"hi\"}" ::: /usr/bin/true
