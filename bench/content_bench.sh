#!/bin/sh
# bench/content_bench.sh - what the content scan of changed files
# (launcher/exec/exec_content.c, issue 10 item 7) adds to a run that writes
# 100 MB: 100 files of 1 MiB of base64 text in src/ (the writable root),
# `paldron exec` with output_scan = true (content scan on, .env's values
# known) against the same run with output_scan = false (content scan off),
# alternating; prints both medians, their ratio and difference. The run
# writes nothing on stdout, so the output scan itself costs nothing here.
# Usage: bench/content_bench.sh [BUILD_DIR] [RUNS]
set -eu
build=$(cd "${1:-build}" && pwd)
runs=${2:-11}
ws=$(mktemp -d "${TMPDIR:-/var/tmp}/paldron-content-bench-XXXXXX")
trap 'rm -rf "$ws"' EXIT
mkdir -p "$ws/src"
head -c 786432 /dev/urandom | base64 -w 100 | head -c 1048576 >"$ws/mib.txt"
printf 'API_TOKEN=zq8Kp2mXv7Lr4Tn9Wc3Yb6Hd\nDB_PASSWORD=Hk3-s9Lq-22xM-pw\n' >"$ws/.env"
cat >"$ws/src/write.sh" <<'SH'
mkdir -p src/out && rm -f src/out/*
i=0
while [ $i -lt 100 ]; do cp mib.txt src/out/f$i.txt; i=$((i + 1)); done
SH
for on in true false; do
    printf 'allow_paths = ["src/"]\nallow_binaries = ["sh", "cp", "mkdir", "rm"]\noutput_scan = %s\n' \
        "$on" >"$ws/scan-$on.toml"
done
cd "$ws"
"$build/bench/ratio" -n "$runs" -- \
    "$build/launcher/paldron" exec --policy "$ws/scan-true.toml" -- sh src/write.sh ::: \
    "$build/launcher/paldron" exec --policy "$ws/scan-false.toml" -- sh src/write.sh |
    awk '{print} /^A:/ {a=$(NF-5)} /^B:/ {b=$(NF-5)} END {printf "difference A-B: %.2f ms\n", a-b}'
