#!/bin/sh
# examples/demo.sh - the headline demo: an agent's script writes src/.env
# inside a writable folder, the live gate refuses the write, and Paldron
# denies the run (exit 2) and says why. The example (paldron-exec/, next to
# this script) is copied to a temporary folder, so nothing here changes.
#
# Which paldron runs:
#   - PALDRON=/path/to/paldron: that one; nothing is installed or built.
#   - from a clone of the repository (examples/demo.sh): tests/setup.sh
#     installs the Debian packages (as root) and builds into build/ first.
#   - from an install (<prefix>/share/doc/paldron/examples/demo.sh): the
#     installed <prefix>/bin/paldron, else the paldron on PATH; no build.
# Run as root, the demo command runs as an unprivileged user
# (PALDRON_DEMO_USER, default nobody), as an agent would: root passes file
# permission checks that the demo does not depend on, but it should not be
# the example people copy.
# Exit code: the demo command's (2: denied, as expected); 1 when the demo
# cannot run.
set -eu
here=$(cd "$(dirname "$0")" && pwd)
example="$here/paldron-exec"
fail() {
    echo "paldron demo: $*" >&2
    exit 1
}
[ -d "$example" ] || fail "the example folder $example is missing"

if [ -n "${PALDRON:-}" ]; then
    paldron=$PALDRON
elif [ -f "$here/../tests/setup.sh" ] && [ -f "$here/../CMakeLists.txt" ]; then
    src=$(cd "$here/.." && pwd)
    sh "$src/tests/setup.sh" build
    paldron="$src/build/launcher/paldron"
else
    # <prefix>/share/doc/paldron/examples -> <prefix>/bin
    prefix=$(cd "$here/../../../.." && pwd)
    installed=${prefix%/}/bin/paldron
    if [ -x "$installed" ]; then
        paldron=$installed
    elif command -v paldron >/dev/null 2>&1; then
        paldron=$(command -v paldron)
    else
        fail "no paldron binary (looked for $installed and on PATH; set PALDRON=/path/to/paldron)"
    fi
fi
[ -x "$paldron" ] || fail "$paldron is not an executable file"

demo=$(mktemp -d "${TMPDIR:-/tmp}/paldron-demo.XXXXXX")
trap 'rm -rf "$demo"' EXIT
mkdir "$demo/project" "$demo/cache"
cp -R "$example/." "$demo/project/"
# As root: the demo command runs as $user (setpriv), with that user's home
# and without root's TMPDIR.
# Always: a fixed PATH (python3 from the system, not from a shim in a home
# folder), and exec's persistent cache folder in the demo folder, not in a home.
as_user() {
    if [ -n "${user:-}" ]; then
        setpriv --reuid="$uid" --regid="$gid" --clear-groups \
            env -u TMPDIR HOME="$home" USER="$user" LOGNAME="$user" "$@"
    else
        "$@"
    fi
}
user=""
if [ "$(id -u)" -eq 0 ]; then
    user=${PALDRON_DEMO_USER:-nobody}
    uid=$(id -u "$user") || fail "no user $user (set PALDRON_DEMO_USER)"
    gid=$(id -g "$user")
    home=$(getent passwd "$user" | cut -d: -f6)
    home=${home:-/}
    chmod 755 "$demo"
    chown -R "$uid:$gid" "$demo/project" "$demo/cache"
    # a clone or prefix under /root is out of the user's reach: copy the
    # binary and its live gate library (next to it, or in <prefix>/lib*/paldron)
    if ! as_user test -x "$paldron"; then
        bin=$(dirname "$paldron")
        mkdir "$demo/bin"
        cp "$paldron" "$demo/bin/paldron"
        for lib in "$bin/libpaldron_preload.so" "$bin"/../lib*/paldron/libpaldron_preload.so \
            "$bin"/../lib/*/paldron/libpaldron_preload.so; do
            if [ -f "$lib" ]; then
                cp "$lib" "$demo/bin/"
                break
            fi
        done
        chmod -R a+rX "$demo/bin"
        paldron="$demo/bin/paldron"
    fi
    echo "(as root: the demo command runs as $user)"
fi
cd "$demo/project"
echo "\$ cat src/leak.py"
cat src/leak.py
echo "\$ paldron exec --policy policy.toml -- python3 src/leak.py"
set +e
as_user env PATH=/usr/local/bin:/usr/bin:/bin XDG_CACHE_HOME="$demo/cache" \
    "$paldron" exec --policy policy.toml -- python3 src/leak.py
code=$?
set -e
echo "exit code: $code"
exit "$code"
