#!/bin/sh
# tests/clients/install.sh DIR [claude-code] [codex] - install the agent
# clients the real-client tests drive from the npm registry into DIR (both
# when none is named), at the versions the tests were written against.
#
# Idempotent: a client whose pinned version already answers `--version` is
# left alone, so the tests call this before every run (the cache makes it a
# no-op). Prints one line per client: "<name> <version> <path>".
# Exit 0 when every named client works; 1 with the reason on stderr otherwise
# (npm missing, registry unreachable, a binary that does not start) - the
# tests turn that into "SKIP <test>: <why>".
set -eu

# Pinned: bump these together with tests/clients/README.md after re-running
# the tests (both clients change hook behaviour between minor versions).
CLAUDE_CODE_VERSION=2.1.332
CODEX_VERSION=0.171.0

dir=${1:-${PALDRON_CLIENTS_DIR:-/var/cache/paldron-clients}}
[ $# -gt 0 ] && shift
[ $# -gt 0 ] || set -- claude-code codex

die() {
    echo "install.sh: $*" >&2
    exit 1
}

command -v npm >/dev/null 2>&1 || die "npm not found (install Debian's nodejs/npm)"
command -v node >/dev/null 2>&1 || die "node not found"
mkdir -p "$dir" || die "cannot create $dir"
dir=$(cd "$dir" && pwd)

# The two test files run in parallel under `ctest -j2`: one npm at a time
# into the shared prefix.
if command -v flock >/dev/null 2>&1; then
    exec 9>"$dir/.install.lock"
    flock 9
fi

# version_of BIN: the first word of `BIN --version` that looks like a version.
version_of() {
    "$1" --version 2>/dev/null | tr ' ' '\n' | grep -E '^[0-9]+\.[0-9]+\.[0-9]+' | head -n 1
}

# npm_install SPEC: quiet; the log goes to stderr only when it fails, so that
# a registry outage reads as one reason.
npm_install() {
    log="$dir/npm-install.log"
    if ! npm install -g --prefix "$dir" --no-audit --no-fund --loglevel=error "$1" \
        >"$log" 2>&1; then
        tail -n 20 "$log" >&2
        die "npm install $1 failed (registry unreachable?)"
    fi
}

install_claude_code() {
    bin="$dir/bin/claude"
    if [ "$(version_of "$bin")" != "$CLAUDE_CODE_VERSION" ]; then
        npm_install "@anthropic-ai/claude-code@$CLAUDE_CODE_VERSION"
    fi
    if [ "$(version_of "$bin")" != "$CLAUDE_CODE_VERSION" ]; then
        # npm 11 may skip the package's postinstall, which is what puts the
        # native binary behind bin/claude; run it by hand.
        pkg="$dir/lib/node_modules/@anthropic-ai/claude-code"
        [ -f "$pkg/install.cjs" ] || die "claude-code installed without install.cjs: $pkg"
        (cd "$pkg" && node install.cjs) >"$dir/claude-postinstall.log" 2>&1 || {
            tail -n 20 "$dir/claude-postinstall.log" >&2
            die "claude-code install.cjs failed"
        }
    fi
    v=$(version_of "$bin")
    [ "$v" = "$CLAUDE_CODE_VERSION" ] ||
        die "claude --version gives '${v:-nothing}', want $CLAUDE_CODE_VERSION"
    echo "claude-code $v $bin"
}

install_codex() {
    # The native binary ships in the optional dependency @openai/codex-linux-x64.
    bin="$dir/bin/codex"
    if [ "$(version_of "$bin")" != "$CODEX_VERSION" ]; then
        npm_install "@openai/codex@$CODEX_VERSION"
    fi
    v=$(version_of "$bin")
    [ "$v" = "$CODEX_VERSION" ] || die "codex --version gives '${v:-nothing}', want $CODEX_VERSION"
    echo "codex $v $bin"
}

for client in "$@"; do
    case $client in
    claude-code) install_claude_code ;;
    codex) install_codex ;;
    *) die "unknown client '$client' (claude-code, codex)" ;;
    esac
done
