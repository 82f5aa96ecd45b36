#!/bin/sh
# bench/output_bench.sh - what the output scan adds to a run that prints
# 1 MiB: `paldron exec` with output_scan = true against the same run with
# output_scan = false, alternating; prints both medians and their difference
# (goal, issue 6: under 5 ms). The throughput goal (500 MB/s over 100 MB with
# 50 known values) is build/bench/outscan_bench.
# Usage: bench/output_bench.sh [BUILD_DIR] [RUNS]
set -eu
build=$(cd "${1:-build}" && pwd)
runs=${2:-100}
ws=$(mktemp -d)
trap 'rm -rf "$ws"' EXIT
mkdir -p "$ws/src"
head -c 786432 /dev/urandom | base64 -w 100 | head -c 1048576 >"$ws/src/mib.txt"
printf 'API_TOKEN=zq8Kp2mXv7Lr4Tn9Wc3Yb6Hd\n' >"$ws/.env"
for on in true false; do
    printf 'allow_binaries = ["cat"]\noutput_scan = %s\n' "$on" >"$ws/scan-$on.toml"
done
cd "$ws"
"$build/bench/ratio" -n "$runs" -- \
    "$build/launcher/paldron" exec --policy "$ws/scan-true.toml" -- cat src/mib.txt ::: \
    "$build/launcher/paldron" exec --policy "$ws/scan-false.toml" -- cat src/mib.txt |
    awk '{print} /^A:/ {a=$(NF-5)} /^B:/ {b=$(NF-5)} END {printf "difference A-B: %.2f ms\n", a-b}'
