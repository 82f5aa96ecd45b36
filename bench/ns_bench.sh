#!/bin/sh
# bench/ns_bench.sh - what the namespace floor adds to `paldron exec -- true`
# (issue 9: at most 0.7 ms), measured against the same run with
# `namespaces = false`, alternating in one run (bench/ratio); then the
# network namespace alone (network off, namespaces on, against network on,
# namespaces on: the only difference is CLONE_NEWNET and lo). Runs as the
# unprivileged user paldron-test when started as root (a real user's run
# enters a user namespace; root's does not).
# Usage: bench/ns_bench.sh [BUILD_DIR] [RUNS]
set -eu
build=$(cd "${1:-build}" && pwd)
runs=${2:-300}
ws=$(mktemp -d /var/tmp/paldron-nsbench-XXXXXX)
trap 'rm -rf "$ws"' EXIT
mkdir -p "$ws/src"
echo 'SECRET=x' >"$ws/src/.env"
policy() { # namespaces allow_network
    cat <<POL
allow_paths = ["src/"]
deny_globs = [".env", ".env.*", "*.pem", "**/secrets/**"]
allow_network = $2
allow_binaries = ["true"]
namespaces = $1
timeout_sec = 30
POL
}
policy true false >"$ws/ns.toml"
policy false false >"$ws/nons.toml"
policy true true >"$ws/ns-net.toml"
chmod -R a+rX "$ws"
as_user=""
if [ "$(id -u)" -eq 0 ] && id paldron-test >/dev/null 2>&1; then
    chown -R paldron-test: "$ws"
    as_user="setpriv --reuid paldron-test --regid paldron-test --clear-groups"
fi
cd "$ws"
export PATH=/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin
p="$build/launcher/paldron"
added() { # label, ratio output on stdin: print A - B in ms
    awk -v label="$1" '/^A:/{a=$(NF-5)} /^B:/{b=$(NF-5)} {print}
        END {printf "%s: %+.3f ms\n", label, a - b}'
}
echo "exec -- true: namespaces on vs off ($runs alternating pairs, $(id -un ${as_user:+paldron-test}))"
# shellcheck disable=SC2086
$as_user "$build/bench/ratio" -n "$runs" -- "$p" exec --policy ns.toml -- /usr/bin/true ::: \
    "$p" exec --policy nons.toml -- /usr/bin/true | added "namespaces add"
echo
echo "exec -- true: network namespace (network off) vs none (network on), namespaces on"
# shellcheck disable=SC2086
$as_user "$build/bench/ratio" -n "$runs" -- "$p" exec --policy ns.toml -- /usr/bin/true ::: \
    "$p" exec --policy ns-net.toml -- /usr/bin/true | added "network namespace adds"
