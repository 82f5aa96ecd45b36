#!/bin/sh
# bench/hook_bench.sh - `paldron check --hook` on a typical Claude Code Bash
# payload against /usr/bin/true (same stdin), alternating, median ratio.
# Goal (issue 5): at most 2x. Usage: bench/hook_bench.sh [BUILD_DIR] [RUNS]
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
allow_binaries = ["ls", "cat", "python3", "git", "grep", "head"]
POL
cat >"$ws/payload.json" <<JSON
{"session_id":"8f1c2a7e-1d3b-4c55-9a0e-3b6f0d1e2a44","transcript_path":"/home/dev/.claude/projects/p/t.jsonl","cwd":"$ws","permission_mode":"default","hook_event_name":"PreToolUse","tool_name":"Bash","tool_input":{"command":"git status --short && grep -rn \"TODO\" src/ | head -20","description":"Show status and TODOs"},"tool_use_id":"toolu_01ABCDEF"}
JSON
cd "$ws"
echo "paldron check --hook (Bash payload) vs /usr/bin/true ($runs alternating pairs)"
"$build/bench/ratio" -n "$runs" -i "$ws/payload.json" -- \
    "$build/launcher/paldron" check --policy "$ws/policy.toml" --hook ::: /usr/bin/true
