#!/bin/sh
# packaging/build.sh [OUT_DIR] - build the packages of this checkout: a
# versioned .deb (apt install ./paldron_<version>_<arch>.deb) and a .tar.gz
# of the install tree, each with a .sha256 beside it, into OUT_DIR (default
# out/). The version is the build's (cmake/version.cmake); the install
# prefix is /usr, as Debian's own packages have it.
set -eu
src=$(cd "$(dirname "$0")/.." && pwd)
out=${1:-$src/out}
build=$src/build-pkg
mkdir -p "$out"
out=$(cd "$out" && pwd) # cpack runs in the build directory
cmake -S "$src" -B "$build" -DCMAKE_BUILD_TYPE=RelWithDebInfo -DCMAKE_INSTALL_PREFIX=/usr \
    -DPALDRON_TESTS=OFF -DPALDRON_INSTALL_DEV=OFF >&2
cmake --build "$build" -j"$(nproc)" >&2
(cd "$build" && cpack -B "$out" >&2)
rm -rf "$out/_CPack_Packages"
ls "$out"
