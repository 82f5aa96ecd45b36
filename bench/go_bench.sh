#!/bin/sh
# bench/go_bench.sh - `paldron exec -- go build` of a hello module against a
# warm bare `go build` (issue 11: at most 1.3x), alternating in one run
# (bench/ratio). Both sides build the same module with their own warm cache:
# bare uses the user's GOCACHE, exec the workspace's persistent cache folder
# (launcher/exec/exec_cache.c); a warm-up pair fills both first. Runs as the
# unprivileged user paldron-test when started as root.
# Usage: bench/go_bench.sh [BUILD_DIR] [RUNS]
set -eu
build=$(cd "${1:-build}" && pwd)
runs=${2:-30}
command -v go >/dev/null || { echo "SKIP go_bench: no go here"; exit 0; }
ws=$(mktemp -d /var/tmp/paldron-gobench-XXXXXX)
trap 'rm -rf "$ws"' EXIT
printf 'module example.com/hello\n\ngo 1.19\n' >"$ws/go.mod"
printf 'package main\n\nimport "fmt"\n\nfunc main() { fmt.Println("hello") }\n' >"$ws/main.go"
tooldir=$(go env GOTOOLDIR)
cat >"$ws/policy.toml" <<POL
allow_paths = ["."]
allow_binaries = ["go", "$tooldir/compile", "$tooldir/link", "$tooldir/asm", "$tooldir/buildid", "$tooldir/cgo", "gcc"]
timeout_sec = 120
POL
export PATH=/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin
as_user=""
if [ "$(id -u)" -eq 0 ] && id paldron-test >/dev/null 2>&1; then
    chown -R paldron-test: "$ws"
    chmod 755 "$ws"
    as_user="setpriv --reuid paldron-test --regid paldron-test --clear-groups env HOME=$(getent passwd paldron-test | cut -d: -f6)"
fi
cd "$ws"
echo "paldron exec -- go build vs warm bare go build ($runs alternating pairs)"
# shellcheck disable=SC2086
$as_user "$build/bench/ratio" -n "$runs" -w 2 -- "$build/launcher/paldron" exec --policy policy.toml \
    -- go build -o hello . ::: go build -o hello .
