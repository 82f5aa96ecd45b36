#!/bin/sh
# packaging/check-deb.sh DEB - install the package as a user would (apt
# install ./paldron_*.deb, as root), check that what it installs works -
# the version, the man page, the live gate found beside the binary, the
# README's headline demo (a denied .env write, exit 2) - and remove it
# again. Run by .ci/run after packaging/build.sh.
set -eu
deb=$(cd "$(dirname "$1")" && pwd)/$(basename "$1")
export DEBIAN_FRONTEND=noninteractive
apt-get install -y -qq "$deb" >/dev/null
trap 'apt-get remove -y -qq paldron >/dev/null 2>&1 || true' EXIT
want=$(dpkg-deb -f "$deb" Version)
got=$(paldron version)
[ "$got" = "paldron $want" ] || { echo "check-deb: version '$got', package $want" >&2; exit 1; }
man -w paldron >/dev/null || { echo "check-deb: no man page paldron(1)" >&2; exit 1; }
test -x /usr/share/doc/paldron/examples/demo.sh
tmp=$(mktemp -d)
cp -r /usr/share/doc/paldron/examples/paldron-exec "$tmp/"
rm -f "$tmp/paldron-exec/src/.env"
set +e
out=$(cd "$tmp/paldron-exec" && PATH=/usr/bin:/bin paldron exec --policy policy.toml -- python3 src/leak.py 2>&1)
rc=$?
set -e
rm -rf "$tmp"
if [ "$rc" -ne 2 ] || ! printf '%s\n' "$out" | grep -q 'paldron: deny: python3 create src/.env'; then
    printf 'check-deb: the installed demo did not deny (exit %s):\n%s\n' "$rc" "$out" >&2
    exit 1
fi
echo "check-deb: $got installed, man page, live gate and the demo's denial (exit 2): ok"
