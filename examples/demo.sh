#!/bin/sh
# examples/demo.sh - set everything up, then run the headline demo: an agent's
# script writes src/.env inside a writable folder, and Paldron denies the run
# (exit 2) and says why. The example is copied to a temporary folder so that
# the repository stays clean.
set -eu
src=$(cd "$(dirname "$0")/.." && pwd)
"$src/tests/setup.sh" build
demo=$(mktemp -d)
trap 'rm -rf "$demo"' EXIT
cp -r "$src/examples/paldron-exec/." "$demo/"
cd "$demo"
echo "\$ cat src/leak.py"
cat src/leak.py
echo "\$ paldron exec --policy policy.toml -- python3 src/leak.py"
set +e
PATH=/usr/local/bin:/usr/bin:/bin "$src/build/launcher/paldron" exec --policy policy.toml -- python3 src/leak.py
code=$?
set -e
echo "exit code: $code"
exit "$code"
