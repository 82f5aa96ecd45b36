#!/bin/sh
# bench/net_bench.sh - what network by name (allow_hosts, issue 16) costs,
# in one table:
#   (a) `paldron exec -- true` with allow_hosts against the same policy
#       without it (both with namespaces, network off), alternating in one
#       run (bench/ratio): the listeners, the SCM_RIGHTS message, the
#       proxy's thread (goal: at most 1 ms added);
#   (b) a 1 GiB download (curl -o /dev/null) from a local server
#       (bench/blob_server.py) direct on the host, and through the run's
#       proxy in absolute form and through CONNECT, in MB/s (goal: at least
#       1000 MB/s through the proxy; the direct rate says what the machine
#       can show);
#   (c) 1000 small HTTP requests one after the other (bench/http_client.py):
#       on one kept connection (a CONNECT tunnel against direct) and on a
#       connection each (absolute form and CONNECT against direct), the
#       median ratio of ROUNDS alternating rounds (goal: at most 1.5x).
# Runs as the unprivileged user paldron-test when started as root (a real
# user's run enters a user namespace; root's does not). Not part of ctest.
# Usage: bench/net_bench.sh [BUILD_DIR] [RUNS] [ROUNDS]
set -eu
build=$(cd "${1:-build}" && pwd)
runs=${2:-300}
rounds=${3:-11}
here=$(cd "$(dirname "$0")" && pwd)
p="$build/launcher/paldron"
ratio="$build/bench/ratio"
if [ ! -x "$p" ] || [ ! -x "$ratio" ]; then
    echo "net_bench: build $build first (cmake --build $build)" >&2
    exit 1
fi
export PATH=/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin
for tool in curl python3; do
    command -v "$tool" >/dev/null 2>&1 || {
        echo "net_bench: needs $tool" >&2
        exit 1
    }
done
ws=$(mktemp -d /var/tmp/paldron-netbench-XXXXXX)
server=""
cleanup() {
    if [ -n "$server" ]; then kill "$server" 2>/dev/null || true; fi
    rm -rf "$ws"
}
trap cleanup EXIT
mkdir -p "$ws/src"
cp "$here/http_client.py" "$ws/src/"

# the upstream, in the host's network; its port on the first line
python3 "$here/blob_server.py" $((1 << 30)) >"$ws/port" &
server=$!
i=0
while [ ! -s "$ws/port" ] && [ $i -lt 100 ]; do
    sleep 0.05
    i=$((i + 1))
done
port=$(head -1 "$ws/port")
[ -n "$port" ] || {
    echo "net_bench: the blob server did not start" >&2
    exit 1
}

policy() { # extra line
    cat <<POL
allow_paths = ["src/"]
allow_network = false
allow_binaries = ["true", "curl", "sh", "python3"]
namespaces = true
timeout_sec = 300
$1
POL
}
policy "allow_hosts = [\"127.0.0.1:$port\"]" >"$ws/hosts.toml"
policy "" >"$ws/plain.toml"
chmod -R a+rX "$ws"
as_user=""
user=$(id -un)
if [ "$(id -u)" -eq 0 ] && id paldron-test >/dev/null 2>&1; then
    chown -R paldron-test: "$ws"
    as_user="setpriv --reuid paldron-test --regid paldron-test --clear-groups"
    user=paldron-test
    HOME=$(getent passwd paldron-test | cut -d: -f6)
    export HOME
fi
export XDG_CACHE_HOME="$ws/cache"
cd "$ws"

median() { # numbers on stdin
    sort -n | awk '{v[NR] = $1} END {if (NR == 0) print "nan"; else if (NR % 2) print v[(NR + 1) / 2];
        else print (v[NR / 2] + v[NR / 2 + 1]) / 2}'
}
# run a command in the run (allow_hosts); its stdout lines
inrun() {
    # shellcheck disable=SC2086
    $as_user "$p" exec --policy hosts.toml --json -- "$@" |
        python3 -c 'import json, sys; o = json.load(sys.stdin); sys.stdout.write(o["stdout"])
if o["exit"] != 0: sys.exit("net_bench: the run failed: %s %s" % (o["error"], o["stderr"]))'
}

echo "net_bench: allow_hosts (issue 16), measured as $user"
echo "machine: $(nproc) cores, $(uname -r), $(sed -n 's/^model name\s*: //p' /proc/cpuinfo | head -1);" \
    "$runs alternating pairs for (a), $rounds rounds for (b) and (c)"

# (a) startup
# shellcheck disable=SC2086
out=$($as_user "$ratio" -n "$runs" -- "$p" exec --policy hosts.toml -- /usr/bin/true ::: \
    "$p" exec --policy plain.toml -- /usr/bin/true)
a_ms=$(printf '%s\n' "$out" | sed -n 's/^A: .* median \([0-9.]*\) ms.*/\1/p')
b_ms=$(printf '%s\n' "$out" | sed -n 's/^B: .* median \([0-9.]*\) ms.*/\1/p')
a_status=$(printf '%s\n' "$out" | sed -n 's/^A: .*last exit status \([0-9-]*\).*/\1/p')
if [ "$a_status" != 0 ]; then
    echo "net_bench: exec -- true with allow_hosts exited $a_status" >&2
    # shellcheck disable=SC2086
    $as_user "$p" exec --policy hosts.toml -- /usr/bin/true >&2 || true
    exit 1
fi
added=$(awk -v a="$a_ms" -v b="$b_ms" 'BEGIN {printf "%+.3f", a - b}')

# (b) throughput: curl's own rate (bytes/s), median of the rounds
url="http://127.0.0.1:$port/blob"
fmt='%{speed_download} %{size_download}\n'
: >"$ws/direct" && : >"$ws/abs" && : >"$ws/connect"
for r in $(seq "$rounds"); do
    # shellcheck disable=SC2086
    $as_user curl -sS --noproxy '*' -o /dev/null -w "$fmt" "$url" >>"$ws/direct"
    inrun sh -c "curl -sS --noproxy '' -o /dev/null -w '$fmt' $url >>src/abs &&
        curl -sS -p --noproxy '' -o /dev/null -w '$fmt' $url >>src/connect"
done
for f in abs connect; do
    cat "$ws/src/$f" >>"$ws/$f"
done
for f in direct abs connect; do
    bad=$(awk -v want=$((1 << 30)) '$2 != want' "$ws/$f" | wc -l)
    if [ "$bad" -ne 0 ]; then
        echo "net_bench: a $f download was short:" >&2
        cat "$ws/$f" >&2
        exit 1
    fi
done
mbs() { awk '{print $1 / 1e6}' "$ws/$1" | median; }
direct_mbs=$(mbs direct)
abs_mbs=$(mbs abs)
connect_mbs=$(mbs connect)

# (c) requests: the client's own time, alternating direct and proxied rounds
: >"$ws/c"
for r in $(seq "$rounds"); do
    for pair in keep-direct:keep-connect new-direct:new-absolute new-direct:new-connect; do
        d=${pair%%:*}
        x=${pair#*:}
        # shellcheck disable=SC2086
        td=$($as_user python3 "$ws/src/http_client.py" "$d" "$port" 1000 | awk '{print $(NF-1)}')
        tx=$(inrun python3 src/http_client.py "$x" "$port" 1000 | awk '{print $(NF-1)}')
        echo "$x $td $tx" >>"$ws/c"
    done
done
req() { # mode: "median direct ms, median proxied ms, median ratio"
    d=$(awk -v m="$1" '$1 == m {print $2}' "$ws/c" | median)
    x=$(awk -v m="$1" '$1 == m {print $3}' "$ws/c" | median)
    q=$(awk -v m="$1" '$1 == m {print $3 / $2}' "$ws/c" | median)
    printf '%.1f ms direct, %.1f ms proxied: %.2fx' "$d" "$x" "$q"
}

echo
printf '%-58s %-44s %s\n' "what" "measured" "goal"
printf '%-58s %-44s %s\n' "(a) exec -- true: allow_hosts adds" \
    "$added ms ($a_ms vs $b_ms ms)" "<= 1 ms"
printf '%-58s %-44s %s\n' "(b) 1 GiB, curl direct on the host" "$(printf '%.0f MB/s' "$direct_mbs")" \
    "(the machine's rate)"
printf '%-58s %-44s %s\n' "(b) 1 GiB, curl through the proxy, absolute form" \
    "$(printf '%.0f MB/s' "$abs_mbs")" ">= 1000 MB/s"
printf '%-58s %-44s %s\n' "(b) 1 GiB, curl through the proxy, CONNECT" \
    "$(printf '%.0f MB/s' "$connect_mbs")" ">= 1000 MB/s"
printf '%-58s %-44s %s\n' "(c) 1000 requests on one connection: CONNECT vs direct" \
    "$(req keep-connect)" "<= 1.5x"
printf '%-58s %-44s %s\n' "(c) 1000 requests, a connection each: absolute vs direct" \
    "$(req new-absolute)" "<= 1.5x"
printf '%-58s %-44s %s\n' "(c) 1000 requests, a connection each: CONNECT vs direct" \
    "$(req new-connect)" "<= 1.5x"
