"""Network by name (allow_hosts, issue 16): the run has its own network
namespace with only lo; the launcher serves, from the host's network, a
proxy (HTTP CONNECT, absolute-form HTTP and SOCKS5 on one port, named by
$HTTPS_PROXY and kin) and a DNS server (127.0.0.53 and 127.0.0.1) that
answers only allowed names. Run for real as the unprivileged user.

Remote hosts are stood in for by names of the test domain paldron.test that
/etc/hosts maps to 127.0.0.x and ::1 (net_servers.py adds the lines, as
root), with HTTP servers bound to those addresses in the host's network
namespace: the launcher resolves and reaches them; inside the run the same
addresses are the run's own loopback, where nothing listens, so only the
proxy reaches the host's servers. Each case checks the exit code and the
message (and where it matters what the host's servers saw):

- curl through the proxy (absolute form, CONNECT, SOCKS5) to an allowed
  name; an unlisted one refused (403, X-Paldron-Error, the deny line, exit
  2); deny_hosts over allow_hosts; metadata addresses; IPv6;
- pip, npm and git fetching from local stand-ins of an index, a registry
  and a dumb-HTTP repository through the proxy;
- direct connections (curl --noproxy, the static probe, a CGO_ENABLED=0 Go
  program) reach nothing, while the same Go program through the proxy does;
- the DNS server: NXDOMAIN for unlisted names over UDP and TCP on both
  addresses (getent, raw queries, dig), TTL 0 answers for allowed ones, and
  no question for a denied name ever reaches the host's resolver (a stub
  DNS server counts them, bound in with a private /etc/resolv.conf);
- the relay: bytes sent with the CONNECT head, half closes, a 16 MiB body
  intact by every protocol, 502 from an allowed host that refuses, the
  8 KiB head limit and the 10 s head timeout, 1000 tunnels at once; the DNS
  server's TCP framing, case and rate limit;
- the run's environment, `paldron connect`, the launcher killed mid-run,
  the runs without namespaces, a bad entry at load time.
"""

import json
import os
import re
import secrets
import shutil
import signal
import socket
import subprocess
import tempfile
import time
import unittest

import net_servers as ns
from harness import PALDRON, RUN_PATH, Result, main, skip
from test_exec_result import ExecBase, user_processes

TOKEN = secrets.token_hex(4)
BODY_PKGS = "pd-pkgs-body-%s" % TOKEN
BODY_OTHER = "pd-other-body-%s" % TOKEN
BODY_V6 = "pd-v6-body-%s" % TOKEN
BODY_DNSONLY = "pd-dnsonly-body-%s" % TOKEN
WHEEL = "pdtestwheel"
NPM_PKG = "pdnpmpkg"
PIP_BINARIES = ("pip", "python3", "sh", "uname")
PROXY_URL = re.compile(r"^http://127\.0\.0\.1:(\d+)$")
# what a direct connect from the run may get: nothing listens on the run's
# own loopback, and it has no route anywhere else
DIRECT_ERRNOS = {111, 101, 113}  # ECONNREFUSED, ENETUNREACH, EHOSTUNREACH

# the address of the stub DNS server and of the server only it knows
STUB_DNS = "127.0.0.25"
DNSONLY_ADDR = "127.0.0.23"
DNSONLY = "dnsonly.paldron.test"

BIG = os.urandom(16 << 20)  # what the relay must pass intact
SERVERS = {}  # name -> ns.HTTPServer, set up once for the module
ROOT = None  # what the package servers serve (simple index, files, repo.git)
SETUP_SKIP = None  # why the module cannot run here


def echo_route(body):
    """/echo/...: the body and the path, so that each test asks a path of its own."""
    return [("/echo/", lambda path: (200, "text/plain", ("%s %s\n" % (body, path)).encode()))]


def setUpModule():
    global ROOT, SETUP_SKIP
    if os.geteuid() != 0:
        SETUP_SKIP = "needs root (the test hosts in /etc/hosts, the unprivileged user)"
        return
    ns.ensure_hosts()
    for addr, name in ns.TEST_HOSTS[:3]:  # (v6: its own test says SKIP)
        if not ns.resolves_to(name, addr):
            SETUP_SKIP = "%s does not resolve to %s on this host" % (name, addr)
            return
    ROOT = tempfile.mkdtemp(prefix="paldron-net-", dir="/var/tmp")
    os.chmod(ROOT, 0o755)
    os.makedirs(os.path.join(ROOT, "files"))
    whl, sha = ns.make_wheel(os.path.join(ROOT, "files"), WHEEL)
    ns.simple_index(ROOT, WHEEL, whl, sha)
    ns.git_bare_repo(ROOT, "repo.git", "hello from the served repo %s\n" % TOKEN)
    pkgs = ns.HTTPServer("127.0.0.21", root=ROOT,
                         routes={"/": (200, "text/plain", (BODY_PKGS + "\n").encode())},
                         prefix_routes=echo_route(BODY_PKGS))
    tgz, sha1, integrity = ns.npm_tarball(NPM_PKG)
    tarball_path = "/%s/-/%s-1.0.0.tgz" % (NPM_PKG, NPM_PKG)
    pkgs.routes["/" + NPM_PKG] = (200, "application/json", ns.npm_packument(
        NPM_PKG, "1.0.0", "http://pkgs.paldron.test:%d%s" % (pkgs.port, tarball_path), sha1,
        integrity))
    pkgs.routes[tarball_path] = (200, "application/octet-stream", tgz)
    pkgs.routes["/big"] = (200, "application/octet-stream", BIG)
    SERVERS["pkgs"] = pkgs
    # the same index on a host that is not allowed: only the proxy stops it
    SERVERS["other"] = ns.HTTPServer(
        "127.0.0.22", root=ROOT, routes={"/": (200, "text/plain", (BODY_OTHER + "\n").encode())},
        prefix_routes=echo_route(BODY_OTHER))
    try:
        SERVERS["v6"] = ns.HTTPServer("::1", routes={"/": (200, "text/plain",
                                                           (BODY_V6 + "\n").encode())},
                                      prefix_routes=echo_route(BODY_V6))
    except OSError:
        pass  # no IPv6 loopback: the IPv6 test says SKIP


def tearDownModule():
    for s in SERVERS.values():
        s.close()
    if ROOT:
        shutil.rmtree(ROOT, ignore_errors=True)


def toml_list(items):
    return "[%s]" % ", ".join('"%s"' % i for i in items)


class NetBase(ExecBase):
    """ExecBase with the module's servers and a policy of allow_hosts."""

    def setUp(self):
        if SETUP_SKIP:
            skip(self, SETUP_SKIP)
        super().setUp()
        self.pkgs = SERVERS["pkgs"]
        self.other = SERVERS["other"]

    def net_policy(self, hosts, binaries=("curl", "sh"), deny=(), **keys):
        for b in binaries:
            if "/" not in b and not shutil.which(b, path=RUN_PATH):
                skip(self, "%s is not installed" % b)
        text = ('allow_paths = ["src/"]\n'
                'deny_globs = [".env", "*.pem"]\n'
                "allow_network = false\n"
                "allow_binaries = %s\n"
                "allow_hosts = %s\n"
                "timeout_sec = 60\n" % (toml_list(binaries), toml_list(hosts)))
        if deny:
            text += "deny_hosts = %s\n" % toml_list(deny)
        for k, v in keys.items():
            text += "%s = %s\n" % (k, ("true" if v else "false") if isinstance(v, bool) else v)
        return text

    def inner_paldron_policy(self, hosts, binaries):
        """A policy for a run that starts this build's paldron inside (paldron
        connect): an ASan build's shadow memory needs max_memory_mb
        "unlimited" and LeakSanitizer ptrace, which seccomp refuses, so
        INNER_ENV turns leak detection off (docs/policy.md, max_memory_mb)."""
        return self.net_policy(hosts, binaries=binaries, max_memory_mb='"unlimited"')

    INNER_ENV = {"ASAN_OPTIONS": "detect_leaks=0"}

    def pkgs_host(self):
        return "pkgs.paldron.test:%d" % self.pkgs.port

    def other_host(self):
        return "other.paldron.test:%d" % self.other.port

    def run_json(self, argv, policy, env=None, timeout=120):
        """exec --json: (Result, the result object)."""
        r = self.exec(argv, policy=policy, env=env, timeout=timeout, opts=["--json"])
        try:
            obj = json.loads(r.out)
        except ValueError:
            self.fail("no JSON result object: %r" % r)
        return r, obj

    def deny_line(self, program, target, reason="not in allow_hosts"):
        return "paldron: deny: %s connect %s (%s) [live]" % (program, target, reason)


class ProxyTest(NetBase):
    def test_allowed_name_through_every_protocol(self):
        pol = self.net_policy([self.pkgs_host()])
        base = "http://%s" % self.pkgs_host()
        # absolute form: the proxy rewrites the head; the server sees the
        # origin form, its own Host, and no Proxy-Authorization
        r, obj = self.run_json(["curl", "-sS", "-H", "Proxy-Authorization: Basic cGQ6cGQ=",
                                "-H", "Host: evil.example", base + "/echo/abs"], pol)
        self.assertRun(r, 0, absent=["paldron: deny", "paldron: blocked"])
        self.assertEqual(obj["stdout"], "%s /echo/abs\n" % BODY_PKGS, obj)
        req = self.pkgs.last()
        self.assertEqual(req.path, "/echo/abs", req)
        self.assertEqual(req.headers.get("host"), self.pkgs_host(), req)
        self.assertNotIn("proxy-authorization", req.headers, req)
        # CONNECT (curl -p), SOCKS5 with the name resolved by the proxy
        r, obj = self.run_json(["sh", "-c",
                                "curl -sS -p %s/echo/connect && "
                                "curl -sS -v --socks5-hostname \"${HTTPS_PROXY#http://}\" "
                                "%s/echo/socks" % (base, base)], pol)
        self.assertRun(r, 0, absent=["paldron: deny", "paldron: blocked"])
        self.assertEqual(obj["stdout"], "%s /echo/connect\n%s /echo/socks\n"
                         % (BODY_PKGS, BODY_PKGS), obj)
        self.assertIn("SOCKS5", obj["stderr"], "curl did not speak SOCKS5: %r" % obj)
        self.assertIn("CONNECT %s HTTP/1.1" % self.pkgs_host(), self.connect_trace(pol, base))
        self.assertEqual(self.pkgs.count("/echo/connect"), 1)
        self.assertEqual(self.pkgs.count("/echo/socks"), 1)

    def connect_trace(self, pol, base):
        """curl -v -p's account of the tunnel (the CONNECT line it sent)."""
        r, obj = self.run_json(["curl", "-sS", "-v", "-p", "-o", "/dev/null",
                                base + "/echo/trace"], pol)
        self.assertRun(r, 0)
        return obj["stderr"]

    def test_unlisted_host_is_refused_with_the_reason(self):
        pol = self.net_policy([self.pkgs_host()])
        url = "http://%s/echo/refused" % self.other_host()
        # through sh: the proxy judges, not the argv gate
        r, obj = self.run_json(["sh", "-c", "curl -sS -w 'code=%%{http_code}\\n' %s" % url], pol)
        self.assertRun(r, 2, self.deny_line("curl", self.other_host()))
        self.assertEqual(obj["stdout"], "paldron: %s (not in allow_hosts)\ncode=403\n"
                         % self.other_host(), obj)
        # -i shows the header; CONNECT and SOCKS5 are refused the same
        r, obj = self.run_json(["sh", "-c",
                                "curl -sS -i %s; curl -sS -p %s; echo connect=$?; "
                                "curl -sS --socks5-hostname \"${HTTPS_PROXY#http://}\" %s; "
                                "echo socks=$?" % (url, url, url)], pol)
        self.assertRun(r, 2, self.deny_line("curl", self.other_host()))
        self.assertIn("HTTP/1.1 403 Forbidden", obj["stdout"], obj)
        self.assertIn("X-Paldron-Error: %s (not in allow_hosts)" % self.other_host(),
                      obj["stdout"], obj)
        self.assertIn("CONNECT tunnel failed, response 403", obj["stderr"], obj)
        self.assertIn("connect=56", obj["stdout"], obj)
        self.assertRegex(obj["stdout"], r"socks=9[17]\b")
        self.assertNotIn(BODY_OTHER, obj["stdout"])
        self.assertEqual(self.other.count("/echo/refused"), 0)

    def test_audit_lets_an_unlisted_host_through_and_says_so(self):
        # --audit only logs what the gate would deny, the proxy's refusals too
        pol = self.net_policy([self.pkgs_host()])
        r = self.exec(["curl", "-sS", "http://%s/echo/audit" % self.other_host()], policy=pol,
                      opts=["--audit"])
        self.assertRun(r, 0, "paldron: audit: would deny: curl connect %s (not in allow_hosts)"
                       % self.other_host(), BODY_OTHER)
        self.assertEqual(self.other.count("/echo/audit"), 1)

    def test_deny_hosts_wins_over_allow_hosts(self):
        pol = self.net_policy(["*.paldron.test:%d" % self.pkgs.port,
                               "*.paldron.test:%d" % self.other.port],
                              deny=["other.paldron.test"])
        r, obj = self.run_json(["sh", "-c",
                                "curl -sS http://%s/echo/wild; curl -sS -i http://%s/echo/denied"
                                % (self.pkgs_host(), self.other_host())], pol)
        self.assertRun(r, 2, self.deny_line("curl", self.other_host(),
                                            "in deny_hosts other.paldron.test"))
        self.assertIn("%s /echo/wild\n" % BODY_PKGS, obj["stdout"], obj)
        self.assertIn("HTTP/1.1 403 Forbidden", obj["stdout"], obj)
        self.assertIn("X-Paldron-Error: %s (in deny_hosts)" % self.other_host(), obj["stdout"])
        self.assertEqual(self.other.count("/echo/denied"), 0)

    def test_metadata_address_of_an_allowed_name_is_refused(self):
        pol = self.net_policy(["meta.paldron.test"], binaries=("curl", "sh", "python3"))
        self.ws.write("src/dnsq.py", ns.DNS_CLIENT)
        r, obj = self.run_json(["sh", "-c", "curl -sS -i --max-time 20 http://meta.paldron.test/;"
                                " python3 src/dnsq.py meta.paldron.test 127.0.0.53 udp"], pol)
        self.assertRun(r, 2, "paldron: deny: curl connect meta.paldron.test:80 (",
                       "169.254.169.254")
        line = [l for l in r.err.splitlines() if "deny: curl connect meta" in l]
        self.assertIn("169.254.169.254", line[0], r)
        self.assertIn("HTTP/1.1 403 Forbidden", obj["stdout"], obj)
        self.assertRegex(obj["stdout"], r"X-Paldron-Error: .*169\.254\.169\.254")
        # the DNS server does not hand the address out either
        self.assertIn("rcode=0 answers=0", obj["stdout"], obj)

    def test_metadata_in_its_ipv6_forms_is_refused(self):
        pol = self.net_policy(["mapped.paldron.test", "nat64.paldron.test"])
        r, obj = self.run_json(["sh", "-c", "curl -sS -i --max-time 20 http://mapped.paldron.test/;"
                                " curl -sS -i --max-time 20 http://nat64.paldron.test/"], pol)
        self.assertRun(r, 2, "paldron: deny: curl connect mapped.paldron.test:80 (",
                       "paldron: deny: curl connect nat64.paldron.test:80 (")
        for name in ("mapped", "nat64"):
            line = [l for l in r.err.splitlines() if "connect %s.paldron.test" % name in l]
            self.assertIn("(cloud metadata address 169.254.169.254", line[0], r)
            self.assertTrue(line[0].endswith(") [live]"), r)
        self.assertEqual(obj["stdout"].count("HTTP/1.1 403 Forbidden"), 2, obj)

    def test_ipv6_by_name_and_by_literal(self):
        if "v6" not in SERVERS or not ns.resolves_to("v6.paldron.test", "::1"):
            skip(self, "no IPv6 loopback on this host, or v6.paldron.test is not ::1")
        v6 = SERVERS["v6"]
        pol = self.net_policy(["v6.paldron.test:%d" % v6.port, "[::1]:%d" % v6.port])
        # [::1] is in NO_PROXY (the run's own loopback): --noproxy '' sends it
        # to the proxy, which dials the host's [::1]
        r, obj = self.run_json(["sh", "-c",
                                "curl -sS -p http://v6.paldron.test:%d/echo/v6name && "
                                "curl -sS -p --noproxy '' 'http://[::1]:%d/echo/v6literal'"
                                % (v6.port, v6.port)], pol)
        self.assertRun(r, 0, absent=["paldron: deny", "paldron: blocked"])
        self.assertEqual(obj["stdout"], "%s /echo/v6name\n%s /echo/v6literal\n"
                         % (BODY_V6, BODY_V6), obj)
        self.assertEqual((v6.count("/echo/v6name"), v6.count("/echo/v6literal")), (1, 1))
        # the proxy listens on the run's [::1] too
        r, obj = self.run_json(["sh", "-c", "curl -sS -x \"http://[::1]:${HTTPS_PROXY##*:}\" "
                                "http://v6.paldron.test:%d/echo/v6proxy" % v6.port], pol)
        self.assertRun(r, 0, absent=["paldron: deny"])
        self.assertEqual(obj["stdout"], "%s /echo/v6proxy\n" % BODY_V6, obj)
        # an IPv6 literal that is not listed is refused like a name
        r, obj = self.run_json(["sh", "-c", "curl -sS -i -p --noproxy '' 'http://[::1]:%d/x'"
                                % self.pkgs.port], pol)
        self.assertRun(r, 2, self.deny_line("curl", "[::1]:%d" % self.pkgs.port))


class RelayTest(NetBase):
    """The proxy's protocol details: bytes sent with the head, half closes,
    large bodies, limits, and many tunnels at once."""

    def test_bytes_sent_with_the_connect_head_reach_the_server(self):
        pol = self.net_policy([self.pkgs_host()], binaries=("python3",))
        self.ws.write("src/pipelined.py", (
            "import os, socket\n"
            "port = int(os.environ['HTTPS_PROXY'].rsplit(':', 1)[1])\n"
            "s = socket.create_connection(('127.0.0.1', port))\n"
            "s.sendall(b'CONNECT %s HTTP/1.1\\r\\nHost: %s\\r\\n\\r\\n'\n"
            "          b'GET /echo/pipelined HTTP/1.0\\r\\n\\r\\n')\n"
            "data = b''\n"
            "while True:\n"
            "    part = s.recv(65536)\n"
            "    if not part:\n"
            "        break\n"
            "    data += part\n"
            "print(data.decode())\n") % (self.pkgs_host(), self.pkgs_host()))
        r, obj = self.run_json(["python3", "src/pipelined.py"], pol)
        self.assertRun(r, 0, absent=["paldron: deny"])
        self.assertTrue(obj["stdout"].startswith(
            "HTTP/1.1 200 Connection established\r\n\r\nHTTP/1.0 200 OK\r\n"), obj)
        self.assertIn("%s /echo/pipelined\n" % BODY_PKGS, obj["stdout"])
        self.assertEqual(self.pkgs.count("/echo/pipelined"), 1)

    def test_a_half_close_is_passed_on(self):
        eof = ns.EofServer("127.0.0.21")
        self.addCleanup(eof.close)
        pol = self.inner_paldron_policy(["pkgs.paldron.test:%d" % eof.port], ("sh", "head"))
        # the server answers only after the client's EOF: paldron connect
        # shuts its side down at the end of its input, the relay passes that on
        r, obj = self.run_json(["sh", "-c", "head -c 100000 /dev/zero | %s connect "
                                "pkgs.paldron.test %d" % (PALDRON, eof.port)], pol,
                               env=self.INNER_ENV)
        self.assertRun(r, 0, absent=["paldron: deny"])
        self.assertEqual(obj["stdout"], "got 100000 bytes\n", obj)

    def test_a_large_body_arrives_intact(self):
        pol = self.net_policy([self.pkgs_host()], binaries=("curl", "sh"))
        url = "http://%s/big" % self.pkgs_host()
        r, obj = self.run_json(["sh", "-c",
                                "curl -sS -o src/big-abs %s && curl -sS -p -o src/big-connect %s &&"
                                " curl -sS --socks5-hostname \"${HTTPS_PROXY#http://}\" "
                                "-o src/big-socks %s" % (url, url, url)], pol)
        self.assertRun(r, 0, absent=["paldron: deny"])
        for name in ("big-abs", "big-connect", "big-socks"):
            with open(self.p("src/" + name), "rb") as f:
                got = f.read()
            self.assertEqual(len(got), len(BIG), name)
            self.assertTrue(got == BIG, "%s differs from what the server sent" % name)

    def test_an_allowed_host_that_refuses_gets_502_not_a_denial(self):
        probe = socket.socket()
        probe.bind(("127.0.0.21", 0))
        port = probe.getsockname()[1]
        probe.close()  # nothing listens there now
        pol = self.net_policy(["pkgs.paldron.test:%d" % port])
        r, obj = self.run_json(["sh", "-c", "curl -sS -i http://pkgs.paldron.test:%d/; "
                                "curl -sS -p http://pkgs.paldron.test:%d/; echo rc=$?"
                                % (port, port)], pol)
        self.assertRun(r, 0, absent=["paldron: deny", "paldron: blocked"])
        self.assertIn("HTTP/1.1 502 Bad Gateway", obj["stdout"], obj)
        self.assertIn("X-Paldron-Error: pkgs.paldron.test:%d: connection refused or unreachable"
                      % port, obj["stdout"])
        self.assertIn("CONNECT tunnel failed, response 502", obj["stderr"], obj)
        self.assertTrue(obj["stdout"].endswith("rc=56\n"), obj)

    def test_a_slow_head_times_out(self):
        pol = self.net_policy([self.pkgs_host()], binaries=("python3",))
        self.ws.write("src/slowhead.py", (
            "import os, socket, time\n"
            "port = int(os.environ['HTTPS_PROXY'].rsplit(':', 1)[1])\n"
            "s = socket.create_connection(('127.0.0.1', port), timeout=30)\n"
            "s.sendall(b'GET http://%s/echo/slow HTTP/1.1\\r\\n')\n"
            "t = time.monotonic()\n"
            "reply = s.recv(4096).split(b'\\r\\n')\n"
            "print(reply[0].decode(), round(time.monotonic() - t))\n"
            "print([l.decode() for l in reply if l.startswith(b'X-Paldron-Error')])\n")
            % self.pkgs_host())
        r, obj = self.run_json(["python3", "src/slowhead.py"], pol)
        self.assertRun(r, 0)
        self.assertEqual(obj["stdout"], "HTTP/1.1 400 Bad Request 10\n['X-Paldron-Error: no "
                         "complete request head within 10 s']\n", obj)
        self.assertEqual(self.pkgs.count("/echo/slow"), 0)

    def test_an_upstream_that_never_answers_gets_504(self):
        # a listener whose accept queue is full drops the SYNs: the dial hangs
        hole = socket.socket()
        hole.bind(("127.0.0.21", 0))
        hole.listen(0)
        self.addCleanup(hole.close)
        fill = []
        for _ in range(4):
            c = socket.socket()
            c.setblocking(False)
            c.connect_ex(hole.getsockname())
            fill.append(c)
        self.addCleanup(lambda: [c.close() for c in fill])
        port = hole.getsockname()[1]
        pol = self.net_policy(["pkgs.paldron.test:%d" % port])
        r, obj = self.run_json(["sh", "-c", "curl -sS -i http://pkgs.paldron.test:%d/" % port],
                               pol)
        self.assertRun(r, 0, absent=["paldron: deny"])
        self.assertIn("HTTP/1.1 504 Gateway Timeout", obj["stdout"], obj)

    def test_a_head_over_8_kib_is_refused(self):
        pol = self.net_policy([self.pkgs_host()], binaries=("python3",))
        self.ws.write("src/bighead.py", (
            "import os, socket\n"
            "port = int(os.environ['HTTPS_PROXY'].rsplit(':', 1)[1])\n"
            "s = socket.create_connection(('127.0.0.1', port))\n"
            "s.sendall(b'GET http://%s/echo/bighead HTTP/1.1\\r\\nHost: %s\\r\\n'\n"
            "          b'X-Big: ' + b'a' * 9216 + b'\\r\\n\\r\\n')\n"
            "print(s.recv(4096).split(b'\\r\\n')[0].decode())\n") % (self.pkgs_host(),
                                                                    self.pkgs_host()))
        r, obj = self.run_json(["python3", "src/bighead.py"], pol)
        self.assertRun(r, 0)
        self.assertEqual(obj["stdout"], "HTTP/1.1 431 Request Header Fields Too Large\n", obj)
        self.assertEqual(self.pkgs.count("/echo/bighead"), 0)

    PARALLEL = r"""
import os, socket, sys
n, host = int(sys.argv[1]), sys.argv[2]
port = int(os.environ["HTTPS_PROXY"].rsplit(":", 1)[1])
socks = []
for k in range(n):
    s = socket.create_connection(("127.0.0.1", port), timeout=60)
    s.sendall(("CONNECT %s HTTP/1.1\r\nHost: %s\r\n\r\n" % (host, host)).encode())
    socks.append(s)
status = {}
est = []
for s in socks:
    head = b""
    while b"\r\n\r\n" not in head:
        part = s.recv(4096)
        if not part:
            break
        head += part
    line = head.split(b"\r\n", 1)[0].decode(errors="replace") or "(closed)"
    status[line] = status.get(line, 0) + 1
    if " 200 " in line:
        est.append(s)
good = 0
for k, s in enumerate(est):
    s.sendall(b"GET /echo/par HTTP/1.0\r\n\r\n")
    data = b""
    while True:
        part = s.recv(65536)
        if not part:
            break
        data += part
    good += b"/echo/par" in data
print("answered %d of %d; %r" % (good, n, sorted(status.items())))
"""

    def parallel(self, soft):
        """1000 tunnels open at once, each then used, with the launcher's
        RLIMIT_NOFILE soft limit at soft."""
        self.ws.write("src/par.py", self.PARALLEL)
        pol = self.net_policy([self.pkgs_host()], binaries=("python3",), max_open_files=4096)
        hard = max(soft, 16384)
        r = self.ws.run(["--nofile=%d:%d" % (soft, hard), PALDRON, "exec", "--policy",
                         self.ws.policy(pol), "--json", "--", "python3", "src/par.py", "1000",
                         self.pkgs_host()], prog="prlimit", timeout=300)
        obj = json.loads(r.out)
        self.assertRun(r, 0, absent=["paldron: deny"])
        self.assertEqual(obj["stdout"], "answered 1000 of 1000; [('HTTP/1.1 200 Connection "
                         "established', 1000)]\n", obj)

    def test_a_thousand_tunnels_at_once(self):
        self.parallel(16384)

    def test_a_thousand_tunnels_at_the_usual_descriptor_limit(self):
        # 1024 is the usual soft limit of a login session (systemd's default)
        self.parallel(1024)


class PackageManagerTest(NetBase):
    def test_pip_download_from_a_local_index(self):
        # pip asks uname for its user agent (and lsb_release, refused: not a denial)
        pol = self.net_policy([self.pkgs_host()], binaries=PIP_BINARIES)
        args = ["pip", "download", "--no-deps", "--disable-pip-version-check", "--no-input",
                "-d", "src/dl", "--index-url", "http://%s/simple/" % self.pkgs_host(),
                "--trusted-host", "pkgs.paldron.test", WHEEL]
        r, obj = self.run_json(args, pol, timeout=180)
        self.assertRun(r, 0, "Saved", absent=["paldron: deny"])
        self.assertTrue(self.ws.exists("src/dl/%s-1.0-py3-none-any.whl" % WHEEL), obj)
        self.assertGreaterEqual(self.pkgs.count("/simple/%s/" % WHEEL), 1)

    def test_pip_from_an_unlisted_index_is_denied(self):
        pol = self.net_policy([self.pkgs_host()], binaries=PIP_BINARIES)
        cmd = ("pip download --no-deps --disable-pip-version-check --no-input --retries 0 "
               "-d src/dl --index-url http://%s/simple/ --trusted-host other.paldron.test %s"
               % (self.other_host(), WHEEL))
        r, obj = self.run_json(["sh", "-c", cmd], pol, timeout=180)
        self.assertRun(r, 2, "connect %s (not in allow_hosts) [live]" % self.other_host())
        self.assertRegex(r.err, r"paldron: deny: \S+ connect %s" % re.escape(self.other_host()))
        self.assertNotEqual(obj["command"]["exit"], 0, obj)
        self.assertFalse(self.ws.exists("src/dl/%s-1.0-py3-none-any.whl" % WHEEL))
        self.assertEqual(self.other.count("/simple/%s/" % WHEEL), 0)

    def test_npm_install_from_a_registry_stub(self):
        if not shutil.which("npm", path=RUN_PATH):
            skip(self, "npm is not installed")
        pol = self.net_policy([self.pkgs_host()], binaries=("npm", "node", "env", "sh"))
        cmd = ("cd src && npm install --registry http://%s/ --no-audit --no-fund "
               "--cache /tmp/npm-cache %s" % (self.pkgs_host(), NPM_PKG))
        r, obj = self.run_json(["sh", "-c", cmd], pol, timeout=300)
        self.assertRun(r, 0, "added 1 package", absent=["paldron: deny"])
        self.assertEqual(self.ws.read("src/node_modules/%s/index.js" % NPM_PKG),
                         "module.exports = 'from the test registry';\n")
        self.assertGreaterEqual(self.pkgs.count("/%s/-/%s-1.0.0.tgz" % (NPM_PKG, NPM_PKG)), 1)

    def test_git_clone_over_dumb_http(self):
        pol = self.net_policy([self.pkgs_host()], binaries=("git", "sh"))
        r, obj = self.run_json(["git", "clone", "-q", "http://%s/repo.git" % self.pkgs_host(),
                                "src/clone"], pol, timeout=180)
        self.assertRun(r, 0, absent=["paldron: deny"])
        self.assertEqual(self.ws.read("src/clone/README"),
                         "hello from the served repo %s\n" % TOKEN)
        self.assertGreaterEqual(self.pkgs.count("/repo.git/info/refs"), 1)


class DirectTest(NetBase):
    """What does not go through the proxy reaches nothing."""

    def test_curl_without_the_proxy_reaches_nothing(self):
        pol = self.net_policy([self.pkgs_host()])
        r, obj = self.run_json(["sh", "-c", "curl -sS --max-time 10 --noproxy '*' "
                                "http://%s/echo/direct" % self.pkgs_host()], pol)
        self.assertRun(r, 1, "paldron: command exited 7")
        self.assertEqual(obj["command"]["exit"], 7, obj)
        self.assertIn("Failed to connect", obj["stderr"], obj)
        self.assertNotIn(BODY_PKGS, obj["stdout"])
        # an address that is not loopback: no route, reported as blocked
        r, obj = self.run_json(["sh", "-c", "curl -sS --max-time 10 --noproxy '*' "
                                "http://1.1.1.1/"], pol)
        self.assertRun(r, 1, "paldron: blocked: curl connect 1.1.1.1:80 (a direct connection;")
        self.assertEqual(obj["command"]["exit"], 7, obj)
        self.assertEqual(self.pkgs.count("/echo/direct"), 0)

    def test_static_probe_reaches_nothing(self):
        self.copy_probes()
        counter = ns.AcceptCounter("127.0.0.21")
        self.addCleanup(counter.close)
        pol = self.net_policy([self.pkgs_host(), "pkgs.paldron.test:%d" % counter.port],
                              binaries=["sh"] + self.probe_paths())
        r, obj = self.run_json(["sh", "-c",
                                "src/probe_static connect-tcp 127.0.0.21 %d; "
                                "src/probe_static connect-tcp 1.1.1.1 80; "
                                "src/probe_static udp-send 8.8.8.8 53" % counter.port], pol)
        self.assertRun(r, 0, self.coverage_line("src/probe_static"))
        lines = obj["stdout"].split()
        self.assertEqual(len(lines), 6, obj)
        for k, what in enumerate(["connect 127.0.0.21", "connect 1.1.1.1", "udp 8.8.8.8"]):
            ret, err = int(lines[2 * k]), int(lines[2 * k + 1])
            self.assertEqual(ret, -1, "%s succeeded: %r" % (what, obj))
            self.assertIn(err, DIRECT_ERRNOS, "%s: errno %d: %r" % (what, err, obj))
        # 127.0.0.21 inside the run is the run's own loopback: refused; the
        # rest has no route
        self.assertEqual((int(lines[1]), int(lines[3])), (111, 101), obj)
        # the host's listener on that address saw nothing
        self.assertEqual(counter.accepted, 0)

    DIRECT_PY = r'''
import errno, socket, sys
port = int(sys.argv[1])
def attempt(name, fn):
    try:
        fn()
        print(name, "ok")
    except OSError as e:
        print(name, errno.errorcode.get(e.errno, e.errno))
def sock(*a):
    s = socket.socket(*a)
    s.settimeout(5)
    return s
attempt("raw", lambda: sock(socket.AF_INET, socket.SOCK_RAW, socket.IPPROTO_ICMP))
attempt("host-loopback", lambda: sock().connect(("127.0.0.21", port)))
attempt("tcp4", lambda: sock().connect(("1.1.1.1", 80)))
attempt("tcp6", lambda: sock(socket.AF_INET6).connect(("2606:4700::1111", 80)))
attempt("udp", lambda: sock(socket.AF_INET, socket.SOCK_DGRAM).sendto(b"x", ("8.8.8.8", 53)))
attempt("mptcp", lambda: sock(socket.AF_INET, socket.SOCK_STREAM, 262).connect(("1.1.1.1", 80)))
attempt("fastopen", lambda: sock().sendto(b"GET / HTTP/1.0\r\n\r\n", socket.MSG_FASTOPEN,
                                          ("1.1.1.1", 80)))
'''

    def test_every_other_direct_path_fails(self):
        counter = ns.AcceptCounter("127.0.0.21")
        self.addCleanup(counter.close)
        pol = self.net_policy([self.pkgs_host(), "pkgs.paldron.test:%d" % counter.port],
                              binaries=("python3",))
        self.ws.write("src/direct.py", self.DIRECT_PY)
        r, obj = self.run_json(["python3", "src/direct.py", str(counter.port)], pol)
        self.assertRun(r, 0, "paldron: blocked: python3 connect 1.1.1.1:80 (a direct connection;",
                       absent=["paldron: deny"])
        got = dict(line.split() for line in obj["stdout"].splitlines())
        self.assertEqual(set(got), {"raw", "host-loopback", "tcp4", "tcp6", "udp", "mptcp",
                                    "fastopen"}, obj)
        self.assertNotIn("ok", got.values(), obj)
        self.assertEqual(got["host-loopback"], "ECONNREFUSED", obj)
        self.assertIn(got["raw"], ("EPERM", "EACCES"), obj)
        for k in ("tcp4", "tcp6", "udp", "fastopen"):
            self.assertIn(got[k], ("ENETUNREACH", "EPERM", "EACCES"), "%s: %r" % (k, obj))
        self.assertEqual(counter.accepted, 0)

    GO_PROG = r'''
package main

import (
	"fmt"
	"io"
	"net"
	"net/http"
	"os"
	"time"
)

func get(c *http.Client, url string) {
	resp, err := c.Get(url)
	if err != nil {
		fmt.Println("get error:", err)
		return
	}
	defer resp.Body.Close()
	b, _ := io.ReadAll(resp.Body)
	fmt.Printf("status=%d body=%s", resp.StatusCode, b)
}

func main() {
	for i := 1; i+1 < len(os.Args); i += 2 {
		mode, arg := os.Args[i], os.Args[i+1]
		switch mode {
		case "dial":
			c, err := net.DialTimeout("tcp", arg, 5*time.Second)
			if err != nil {
				fmt.Println("dial error:", err)
			} else {
				c.Close()
				fmt.Println("dial ok")
			}
		case "direct":
			get(&http.Client{Transport: &http.Transport{Proxy: nil}, Timeout: 10 * time.Second}, arg)
		case "get":
			get(&http.Client{Timeout: 10 * time.Second}, arg)
		}
	}
}
'''

    def build_go(self):
        go = shutil.which("go", path=RUN_PATH + ":/usr/local/go/bin")
        if not go:
            skip(self, "go is not installed (tests/setup.sh installs golang-go)")
        d = tempfile.mkdtemp(prefix="paldron-net-go-", dir="/var/tmp")
        self.addCleanup(shutil.rmtree, d, True)
        with open(os.path.join(d, "netgo.go"), "w") as f:
            f.write(self.GO_PROG)
        out = self.p("src/netgo")
        env = dict(os.environ, CGO_ENABLED="0", GO111MODULE="off", GOFLAGS="")
        p = subprocess.run([go, "build", "-o", out, "netgo.go"], cwd=d, env=env,
                           stdout=subprocess.PIPE, stderr=subprocess.STDOUT, timeout=600)
        self.assertEqual(p.returncode, 0, p.stdout.decode())
        self.ws._own()
        return out

    def test_go_program_direct_fails_through_the_proxy_works(self):
        prog = self.build_go()
        pol = self.net_policy([self.pkgs_host()], binaries=["sh", prog])
        base = "http://%s" % self.pkgs_host()
        r, obj = self.run_json(["sh", "-c",
                                "src/netgo dial %s dial 1.1.1.1:80 dial '[2606:4700::1111]:80' "
                                "direct %s/echo/go-direct get %s/echo/go-proxy"
                                % (self.pkgs_host(), base, base)], pol)
        self.assertRun(r, 0, self.coverage_line("src/netgo"), absent=["paldron: deny"])
        out = obj["stdout"].splitlines()
        self.assertEqual(len(out), 5, obj)
        self.assertRegex(out[0], r"^dial error: .*connection refused", obj)
        self.assertRegex(out[1], r"^dial error: .*network is unreachable", obj)
        self.assertRegex(out[2], r"^dial error: .*(network is unreachable|"
                                 r"cannot assign requested address)", obj)
        self.assertRegex(out[3], r"^get error: .*connection refused", obj)
        self.assertEqual(out[4], "status=200 body=%s /echo/go-proxy" % BODY_PKGS, obj)
        self.assertEqual(self.pkgs.count("/echo/go-direct"), 0)
        self.assertEqual(self.pkgs.count("/echo/go-proxy"), 1)


class DnsTest(NetBase):
    def test_getent_of_an_unlisted_name(self):
        pol = self.net_policy([self.pkgs_host()], binaries=("getent", "sh"))
        r, obj = self.run_json(["sh", "-c", "getent hosts unlisted.example; echo getent=$?; "
                                "getent hosts pkgs.paldron.test"], pol)
        self.assertRun(r, 0, "paldron: blocked: getent resolve unlisted.example "
                             "(not in allow_hosts) [live]", absent=["paldron: deny"])
        self.assertEqual(obj["stdout"].split(), ["getent=2", "127.0.0.21", "pkgs.paldron.test"],
                         obj)

    def test_raw_queries_on_both_addresses_udp_and_tcp(self):
        pol = self.net_policy([self.pkgs_host(), "meta.paldron.test"],
                              binaries=("python3", "sh"))
        self.ws.write("src/dnsq.py", ns.DNS_CLIENT)
        script = []
        for server in ("127.0.0.53", "127.0.0.1"):
            for proto in ("udp", "tcp"):
                script.append("echo '# %s %s'; python3 src/dnsq.py unlisted-%s.example %s %s; "
                              "python3 src/dnsq.py pkgs.paldron.test %s %s"
                              % (server, proto, TOKEN, server, proto, server, proto))
        script.append("echo '# AAAA'; python3 src/dnsq.py pkgs.paldron.test 127.0.0.53 udp 28")
        r, obj = self.run_json(["sh", "-c", "; ".join(script)], pol)
        self.assertRun(r, 0, "paldron: blocked: ", "resolve unlisted-%s.example (not in "
                       "allow_hosts) [live]" % TOKEN, absent=["paldron: deny"])
        blocks = obj["stdout"].split("# ")[1:]
        self.assertEqual(len(blocks), 5, obj)
        for b in blocks[:4]:
            lines = b.splitlines()
            self.assertEqual(lines[1:], ["rcode=3 answers=0 id=ok",
                                         "rcode=0 answers=1 id=ok", "A 127.0.0.21 ttl=0"],
                             "%s: %r" % (lines[0], obj))
        # the name has no IPv6 address: NOERROR, no data
        self.assertEqual(blocks[4].splitlines()[1:], ["rcode=0 answers=0 id=ok"], obj)

    def test_dig_gets_nxdomain(self):
        dig = shutil.which("dig", path=RUN_PATH)
        if not dig:
            skip(self, "dig is not installed (bind9-dnsutils, tests/setup.sh)")
        pol = self.net_policy([self.pkgs_host()], binaries=("dig", "sh"))
        r, obj = self.run_json(["sh", "-c",
                                "dig +time=3 +tries=1 unlisted.example; "
                                "dig +time=3 +tries=1 +tcp @127.0.0.1 unlisted.example; "
                                "dig +time=3 +tries=1 +short pkgs.paldron.test"], pol)
        self.assertRun(r, 0, "paldron: blocked: dig resolve unlisted.example (not in "
                             "allow_hosts) [live]", absent=["paldron: deny"])
        self.assertEqual(obj["stdout"].count("status: NXDOMAIN"), 2, obj)
        self.assertIn("SERVER: 127.0.0.53#53(127.0.0.53) (UDP)", obj["stdout"])
        self.assertIn("SERVER: 127.0.0.1#53(127.0.0.1) (TCP)", obj["stdout"])
        self.assertEqual(obj["stdout"].splitlines()[-1], "127.0.0.21", obj)


    def test_tcp_questions_back_to_back_and_case(self):
        pol = self.net_policy([self.pkgs_host()], binaries=("python3",))
        self.ws.write("src/dnstcp.py", (
            "import socket, struct\n"
            "def q(name, qid):\n"
            "    m = struct.pack('>HHHHHH', qid, 0x0100, 1, 0, 0, 0)\n"
            "    for l in name.split('.'):\n"
            "        m += bytes([len(l)]) + l.encode()\n"
            "    m += b'\\0' + struct.pack('>HH', 1, 1)\n"
            "    return struct.pack('>H', len(m)) + m\n"
            "s = socket.create_connection(('127.0.0.53', 53), timeout=5)\n"
            "s.sendall(q('unlisted.example', 1) + q('PKGS.Paldron.TEST', 2) + q('x.example', 3))\n"
            "buf = b''\n"
            "for _ in range(3):\n"
            "    while len(buf) < 2 or len(buf) < 2 + struct.unpack('>H', buf[:2])[0]:\n"
            "        buf += s.recv(4096)\n"
            "    n = struct.unpack('>H', buf[:2])[0]\n"
            "    m, buf = buf[2:2 + n], buf[2 + n:]\n"
            "    qid, flags, qd, an = struct.unpack('>HHHH', m[:8])\n"
            "    a = socket.inet_ntoa(m[-4:]) if an else '-'\n"
            "    print(qid, flags & 15, an, a)\n"))
        r, obj = self.run_json(["python3", "src/dnstcp.py"], pol)
        self.assertRun(r, 0, "resolve unlisted.example (not in allow_hosts) [live]",
                       absent=["paldron: deny"])
        self.assertEqual(obj["stdout"], "1 3 0 -\n2 0 1 127.0.0.21\n3 3 0 -\n", obj)

    def test_questions_over_the_rate_are_refused(self):
        pol = self.net_policy([self.pkgs_host()], binaries=("python3",))
        self.ws.write("src/flood.py", ns.DNS_FLOOD)
        r, obj = self.run_json(["python3", "src/flood.py", "600"], pol)
        self.assertRun(r, 0, "resolve (questions) (more than 200 DNS questions a second) [live]",
                       absent=["paldron: deny"])
        counts = dict(line.split("=") for line in obj["stdout"].split())
        noerror, refused = int(counts.get("rcode0", 0)), int(counts.get("rcode5", 0))
        self.assertGreaterEqual(noerror, 200, obj)
        self.assertGreater(refused, 0, obj)
        self.assertEqual(noerror + refused, 600, obj)

    def test_a_raw_udp_question_names_its_program(self):
        pol = self.net_policy([self.pkgs_host()], binaries=("python3",))
        self.ws.write("src/dnsq.py", ns.DNS_CLIENT)
        r, obj = self.run_json(["python3", "src/dnsq.py", "raw.example", "127.0.0.53", "udp"],
                               pol)
        self.assertRun(r, 0, "paldron: blocked: python3 resolve raw.example (not in allow_hosts)")


class HostResolverTest(NetBase):
    """The launcher's lookups go to the host's resolver, here a stub DNS
    server the test runs, named by a private /etc/resolv.conf (a mount
    namespace made as root, then paldron as the user): denied names never
    reach it, an allowed name known only to it does."""

    @classmethod
    def setUpClass(cls):
        cls.stub = cls.server = None
        if SETUP_SKIP:
            return
        try:
            cls.stub = ns.DNSStub(STUB_DNS, {DNSONLY: DNSONLY_ADDR})
        except OSError as e:
            cls.why = "cannot serve DNS on %s:53: %s" % (STUB_DNS, e)
            return
        cls.server = ns.HTTPServer(DNSONLY_ADDR, routes={}, prefix_routes=echo_route(BODY_DNSONLY))

    @classmethod
    def tearDownClass(cls):
        for s in (cls.stub, cls.server):
            if s:
                s.close()

    def setUp(self):
        super().setUp()
        if self.stub is None:
            skip(self, self.why)
        if shutil.which("unshare") is None:
            skip(self, "unshare is not installed")

    def run_resolv(self, argv, policy, env=None):
        """paldron exec --json as the user, with /etc/resolv.conf naming the stub."""
        pol = self.ws.policy(policy)
        rc = os.path.join(self.ws.base, "resolv.conf")
        with open(rc, "w") as f:
            f.write("nameserver %s\noptions timeout:2 attempts:1\n" % STUB_DNS)
        self.ws._own()
        u = self.ws.user
        cmd = ["unshare", "-m", "--propagation", "private", "sh", "-c",
               'mount --bind "$0" /etc/resolv.conf && exec "$@"', rc,
               "setpriv", "--reuid", str(u.pw_uid), "--regid", str(u.pw_gid), "--clear-groups",
               PALDRON, "exec", "--policy", pol, "--json", "--"] + list(argv)
        p = subprocess.run(cmd, cwd=self.ws.path, env=self.ws.env(env), stdin=subprocess.DEVNULL,
                           stdout=subprocess.PIPE, stderr=subprocess.PIPE, timeout=120)
        r = Result(p.returncode, p.stdout.decode("utf-8", "replace"),
                   p.stderr.decode("utf-8", "replace"))
        try:
            return r, json.loads(r.out)
        except ValueError:
            self.fail("no JSON result object: %r" % r)

    def test_denied_names_never_reach_the_host_resolver(self):
        port = self.server.port
        binaries = ["getent", "python3", "curl", "sh"]
        dig = shutil.which("dig", path=RUN_PATH)
        if dig:
            binaries.append("dig")
        pol = self.net_policy(["%s:%d" % (DNSONLY, port)], binaries=binaries)
        self.ws.write("src/dnsq.py", ns.DNS_CLIENT)
        denied = ["getent-%s.example" % TOKEN, "gai-%s.example" % TOKEN,
                  "raw-%s.example" % TOKEN, "secret.evil-%s.test" % TOKEN]
        script = ["getent hosts %s; echo getent=$?" % denied[0],
                  "python3 -c \"import socket\ntry: socket.getaddrinfo('%s', 80)\n"
                  "except socket.gaierror as e: print('gai', e.errno)\"" % denied[1],
                  "python3 src/dnsq.py %s 127.0.0.53 udp" % denied[2],
                  "python3 src/dnsq.py %s 127.0.0.1 tcp" % denied[3]]
        if dig:
            denied.append("dig-%s.example" % TOKEN)
            script.append("dig +short +time=3 +tries=1 %s" % denied[-1])
        script += ["echo '#'; getent hosts %s" % DNSONLY,
                   "python3 src/dnsq.py %s 127.0.0.53 udp" % DNSONLY,
                   "curl -sS -p http://%s:%d/echo/dnsonly" % (DNSONLY, port)]
        r, obj = self.run_resolv(["sh", "-c", "; ".join(script)], pol,
                                 env={"PALDRON_DEBUG": "net"})
        self.assertRun(r, 0, "paldron: net: listeners served; 1 name(s) resolved on the host",
                       *["resolve %s (not in allow_hosts) [live]" % n for n in denied],
                       absent=["paldron: deny"])
        before, after = obj["stdout"].split("#\n")
        self.assertIn("getent=2", before, obj)
        self.assertIn("gai -2", before, obj)  # EAI_NONAME
        self.assertEqual(before.count("rcode=3 answers=0 id=ok"), 2, obj)
        self.assertEqual(after.splitlines(), [
            "%s      %s" % (DNSONLY_ADDR, DNSONLY),
            "rcode=0 answers=1 id=ok", "A %s ttl=0" % DNSONLY_ADDR,
            "%s /echo/dnsonly" % BODY_DNSONLY], obj)
        for n in denied:
            self.assertEqual(self.stub.count(n), 0, "%s reached the host's resolver" % n)
        self.assertGreaterEqual(self.stub.count(DNSONLY), 1, self.stub.asked)
        self.assertEqual(self.server.count("/echo/dnsonly"), 1)


class EnvironmentTest(NetBase):
    VARS = ["HTTP_PROXY", "HTTPS_PROXY", "ALL_PROXY", "http_proxy", "https_proxy", "all_proxy",
            "NO_PROXY", "no_proxy", "NODE_USE_ENV_PROXY", "JAVA_TOOL_OPTIONS", "GIT_SSH_COMMAND"]

    def test_every_client_is_pointed_at_the_proxy(self):
        pol = self.net_policy([self.pkgs_host()], binaries=("python3", "git", "sh"))
        self.ws.write("src/env.py", "import json, os\n"
                      "print(json.dumps({k: os.environ.get(k) for k in %r}))\n" % self.VARS)
        caller = {"HTTPS_PROXY": "http://evil.example:3128", "https_proxy": "http://evil:1",
                  "NO_PROXY": "*", "ALL_PROXY": "socks5://evil.example:1080",
                  "JAVA_TOOL_OPTIONS": "-Dcaller.option=kept"}
        r, obj = self.run_json(["sh", "-c", "python3 src/env.py; git config --get http.proxy"],
                               pol, env=caller)
        self.assertRun(r, 0, absent=["paldron: deny"])
        lines = obj["stdout"].splitlines()
        self.assertEqual(len(lines), 2, obj)
        env = json.loads(lines[0])
        url = env["HTTPS_PROXY"]
        m = PROXY_URL.match(url or "")
        self.assertIsNotNone(m, env)
        for k in self.VARS[:6]:
            self.assertEqual(env[k], url, "%s: %r" % (k, env))
        self.assertEqual((env["NO_PROXY"], env["no_proxy"]),
                         ("localhost,127.0.0.1,::1", "localhost,127.0.0.1,::1"), env)
        self.assertEqual(env["NODE_USE_ENV_PROXY"], "1", env)
        self.assertIn("-Dhttps.proxyHost=127.0.0.1", env["JAVA_TOOL_OPTIONS"] or "", env)
        self.assertIn("-Dhttps.proxyPort=%s" % m.group(1), env["JAVA_TOOL_OPTIONS"], env)
        self.assertIn("-Dhttp.proxyHost=127.0.0.1", env["JAVA_TOOL_OPTIONS"], env)
        # the caller's options come after the proxy's (theirs win)
        self.assertTrue(env["JAVA_TOOL_OPTIONS"].endswith(" -Dcaller.option=kept"), env)
        self.assertIn("connect %h %p", env["GIT_SSH_COMMAND"] or "", env)
        self.assertIn(PALDRON_REAL, env["GIT_SSH_COMMAND"], env)
        self.assertEqual(lines[1], url, obj)
        self.assertNotIn("evil", obj["stdout"])


    def test_the_callers_git_config_entries_are_kept(self):
        pol = self.net_policy([self.pkgs_host()], binaries=("git", "sh"))
        caller = {"GIT_CONFIG_COUNT": "1", "GIT_CONFIG_KEY_0": "user.name",
                  "GIT_CONFIG_VALUE_0": "pd-tester"}
        r, obj = self.run_json(["sh", "-c", "git config --get user.name && "
                                "git config --get http.proxy"], pol, env=caller)
        self.assertRun(r, 0, absent=["paldron: deny"])
        lines = obj["stdout"].splitlines()
        self.assertEqual(len(lines), 2, obj)
        self.assertEqual(lines[0], "pd-tester", obj)
        self.assertRegex(lines[1], PROXY_URL, obj)


PALDRON_REAL = os.path.realpath(PALDRON)


class ConnectHelperTest(NetBase):
    def test_paldron_connect_tunnels_to_an_allowed_host(self):
        pol = self.inner_paldron_policy([self.pkgs_host()], ("sh",))
        r, obj = self.run_json(["sh", "-c", "printf 'GET /echo/helper HTTP/1.0\\r\\n\\r\\n' | "
                                "%s connect pkgs.paldron.test %d" % (PALDRON, self.pkgs.port)],
                               pol, env=self.INNER_ENV)
        self.assertRun(r, 0, absent=["paldron: deny"])
        self.assertTrue(obj["stdout"].startswith("HTTP/1.0 200 OK\r\n"), obj)
        self.assertTrue(obj["stdout"].endswith("\r\n\r\n%s /echo/helper\n" % BODY_PKGS), obj)
        self.assertEqual(self.pkgs.count("/echo/helper"), 1)

    def test_paldron_connect_to_an_unlisted_host_is_denied(self):
        pol = self.inner_paldron_policy([self.pkgs_host()], ("sh",))
        r, obj = self.run_json(["sh", "-c", "printf 'GET /echo/helper-no HTTP/1.0\\r\\n\\r\\n' | "
                                "%s connect other.paldron.test %d; echo rc=$?"
                                % (PALDRON, self.other.port)], pol, env=self.INNER_ENV)
        self.assertRun(r, 2, "connect %s (not in allow_hosts) [live]" % self.other_host())
        self.assertEqual(obj["stdout"], "rc=2\n", obj)
        self.assertIn("paldron: connect: %s: %s (not in allow_hosts)"
                      % (self.other_host(), self.other_host()), obj["stderr"])
        self.assertEqual(self.other.count("/echo/helper-no"), 0)

    def test_paldron_connect_takes_only_a_well_formed_proxy_address(self):
        # an octet or a port out of range is no address (sscanf's %u wrapped
        # 4294967423 into 127 and the port + 2**32 into the port: both went
        # to 127.0.0.1), nor is one with blanks or signs
        port = self.pkgs.port
        for bad in ("http://4294967423.0.0.1:%d" % port, "http://127.0.0.1:%d" % (port + 2**32),
                    "http://127.0.0.256:%d" % port, "http://127.0.0.1:0",
                    "http:// 127.0.0.1:%d" % port, "http://+127.0.0.1:%d" % port):
            r = self.ws.run(["connect", "pkgs.paldron.test", "80"], env={"HTTPS_PROXY": bad})
            self.assertRun(r, 1, "paldron: connect: no proxy in the environment")
        r = self.ws.run(["connect", "pkgs.paldron.test", "80"],
                        env={"HTTPS_PROXY": "http://127.0.0.1:%d/" % port})
        self.assertRun(r, 1, "paldron: connect: the run's proxy: ",
                       absent=["no proxy in the environment"])


class LifecycleTest(NetBase):
    LOOP = r'''
import sys, time, urllib.request
url, log = sys.argv[2], "src/ticks.log"
while True:
    try:
        with urllib.request.urlopen(url, timeout=2) as r:
            r.read()
        with open(log, "a") as f:
            f.write("tick\n")
    except Exception:
        pass
    time.sleep(0.05)
'''

    def test_launcher_killed_mid_run_leaves_no_network(self):
        marker = "pd-netkill-%s" % secrets.token_hex(4)
        self.ws.write("src/loop.py", self.LOOP)
        pol = self.ws.policy(self.net_policy([self.pkgs_host()], binaries=("python3",)))
        path = "/echo/tick-%s" % marker
        u = self.ws.user
        self.ws._own()
        proc = subprocess.Popen(
            ["setpriv", "--reuid", str(u.pw_uid), "--regid", str(u.pw_gid), "--clear-groups",
             PALDRON, "exec", "--policy", pol, "--", "python3", "src/loop.py", marker,
             "http://%s%s" % (self.pkgs_host(), path)],
            cwd=self.ws.path, env=self.ws.env(), stdin=subprocess.DEVNULL,
            stdout=subprocess.DEVNULL, stderr=subprocess.PIPE)
        self.addCleanup(proc.stderr.close)
        self.addCleanup(lambda: proc.poll() is None and proc.kill())
        deadline = time.monotonic() + 20
        while self.pkgs.count(path) < 3 and time.monotonic() < deadline and proc.poll() is None:
            time.sleep(0.05)
        self.assertGreaterEqual(self.pkgs.count(path), 3, "the run never reached the server: %s"
                                % (proc.stderr.read().decode() if proc.poll() is not None else ""))
        self.assertTrue(user_processes(u.pw_uid, marker), "the script is not running")
        os.kill(proc.pid, signal.SIGKILL)
        proc.wait(10)
        self.assertEqual(proc.returncode, -signal.SIGKILL)
        deadline = time.monotonic() + 5
        while user_processes(u.pw_uid, marker) and time.monotonic() < deadline:
            time.sleep(0.05)
        self.assertEqual(user_processes(u.pw_uid, marker), [], "the run outlived the launcher")
        time.sleep(0.3)
        seen, ticks = self.pkgs.count(path), self.ws.read("src/ticks.log").count("tick")
        time.sleep(1.5)
        self.assertEqual(self.pkgs.count(path), seen, "requests after the launcher died")
        self.assertEqual(self.ws.read("src/ticks.log").count("tick"), ticks)
        self.assertGreaterEqual(ticks, 3)


class NoNamespaceTest(NetBase):
    def test_allow_hosts_without_namespaces_is_an_error(self):
        pol = self.net_policy([self.pkgs_host()], namespaces=False)
        r = self.exec(["curl", "-sS", "http://%s/" % self.pkgs_host()], policy=pol)
        self.assertRun(r, 1, "allow_hosts", "namespaces = false",
                       "set allow_hosts_without_namespace = true", absent=[BODY_PKGS])
        self.assertNotIn("[EXIT CODE]", r.out)

    WARNING = ("paldron: warning: allow_hosts_without_namespace = true: allow_hosts is held "
               "by the live gate's checks of connect and name lookups only")

    def fallback_policy(self):
        return self.net_policy([self.pkgs_host()], binaries=("curl", "sh"), namespaces=False,
                               allow_hosts_without_namespace=True)

    def test_fallback_reaches_an_allowed_host_directly(self):
        path = "/echo/fallback-%s" % TOKEN
        r, obj = self.run_json(["sh", "-c", "echo proxy=${HTTPS_PROXY:-none}; curl -sS "
                                "--max-time 10 http://%s%s" % (self.pkgs_host(), path)],
                               self.fallback_policy())
        self.assertRun(r, 0, self.WARNING, absent=["paldron: deny", "seccomp"])
        self.assertEqual(obj["stdout"], "proxy=none\n%s %s\n" % (BODY_PKGS, path), obj)
        # straight to the host's server, not through any proxy
        self.assertEqual(self.pkgs.last().path, path)

    def test_fallback_denies_an_unlisted_host(self):
        r, obj = self.run_json(["sh", "-c", "curl -sS --max-time 10 http://%s/echo/fb-denied"
                                % self.other_host()], self.fallback_policy())
        self.assertRun(r, 2, self.WARNING,
                       "paldron: deny: curl resolve other.paldron.test (not in allow_hosts) [live]")
        self.assertEqual(obj["command"]["exit"], 6, obj)  # could not resolve
        self.assertIn("Could not resolve host: other.paldron.test", obj["stderr"], obj)
        self.assertEqual(self.other.count("/echo/fb-denied"), 0)
        # the warning on every run
        r, obj = self.run_json(["sh", "-c", "true"], self.fallback_policy())
        self.assertRun(r, 0, self.WARNING)


class RefusedNamespaceTest(NetBase):
    """A host that refuses namespaces at run time (Ubuntu's AppArmor rule,
    Docker's seccomp profile), played by tests/probe/no_userns: allow_hosts
    is an error naming the cause, unless the policy allows the fallback."""

    NO_USERNS = os.path.join(os.environ.get("PALDRON_BINARY_DIR", ""), "tests", "probe",
                             "no_userns")

    def setUp(self):
        super().setUp()
        if not os.path.exists(self.NO_USERNS):
            skip(self, "no_userns not built at %s" % self.NO_USERNS)

    def run_refused(self, argv, policy):
        pol = self.ws.policy(policy)
        return self.ws.run([PALDRON, "exec", "--policy", pol, "--"] + argv, prog=self.NO_USERNS)

    def test_refused_namespaces_are_an_error(self):
        path = "/echo/refused-%s" % TOKEN
        r = self.run_refused(["curl", "-sS", "http://%s%s" % (self.pkgs_host(), path)],
                             self.net_policy([self.pkgs_host()]))
        self.assertRun(r, 1, "namespaces unavailable: unshare(",
                       "Operation not permitted", "allow_hosts needs the run's own network "
                       "namespace", "set allow_hosts_without_namespace = true",
                       absent=["[EXIT CODE]", BODY_PKGS])
        self.assertEqual(self.pkgs.count(path), 0)

    def test_refused_namespaces_fall_back_when_allowed(self):
        path = "/echo/refused-fb-%s" % TOKEN
        pol = self.net_policy([self.pkgs_host()], allow_hosts_without_namespace=True)
        r = self.run_refused(["sh", "-c", "curl -sS --max-time 10 http://%s%s; "
                              "curl -sS --max-time 10 http://%s/echo/refused-other"
                              % (self.pkgs_host(), path, self.other_host())], pol)
        # the warning names the host's refusal; the allowed host is reached
        # directly, the other one is refused by the live gate
        self.assertRun(r, 2, NoNamespaceTest.WARNING, "(no network namespace: unshare(",
                       "Operation not permitted)", "%s %s" % (BODY_PKGS, path),
                       "paldron: deny: curl resolve other.paldron.test (not in allow_hosts) "
                       "[live]",
                       # the coverage line says what holds the network instead
                       "a loopback-only network (allow_hosts is held by the live gate alone)",
                       absent=["non-UNIX sockets are refused instead"])
        self.assertEqual(self.pkgs.last().path, path)
        self.assertEqual(self.other.count("/echo/refused-other"), 0)


class LoadTest(NetBase):
    def test_wildcard_on_a_top_level_domain_fails_at_load(self):
        pol = self.ws.policy('allow_network = false\nallow_hosts = ["*.com"]\n'
                             'allow_binaries = ["curl"]\n')
        r = self.ws.run(["exec", "--policy", pol, "--", "curl", "-sS", "http://x.com/"])
        self.assertRun(r, 1, "paldron: policy malformed: allow_hosts entry '*.com': a wildcard on "
                       "a top-level domain matches every name under it (%s:2)" % pol)
        self.assertNotIn("[EXIT CODE]", r.out)


if __name__ == "__main__":
    main()
