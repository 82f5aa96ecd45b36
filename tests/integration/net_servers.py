"""Local stand-ins for remote hosts, for the tests of allow_hosts
(test_net_hosts.py): names of a test domain mapped in /etc/hosts to
127.0.0.x and ::1, HTTP servers bound to those addresses in the host's
network namespace (the launcher reaches them; inside a run the same
addresses are the run's own loopback, so only the proxy does), a stub DNS
server that counts the questions it is asked by name, and the small
artefacts package managers fetch (a wheel, an npm tarball, a bare git
repository served over dumb HTTP).

Everything here runs as root in the test process; nothing is reached over
the internet."""

import base64
import hashlib
import http.server
import io
import json
import os
import socket
import socketserver
import struct
import subprocess
import tarfile
import threading
import zipfile

HOSTS = "/etc/hosts"
HOSTS_MARK = "# paldron test_net_hosts"
# name -> address: what "remote" hosts the tests talk to
TEST_HOSTS = [
    ("127.0.0.21", "pkgs.paldron.test"),
    ("127.0.0.22", "other.paldron.test"),
    ("169.254.169.254", "meta.paldron.test"),
    ("::1", "v6.paldron.test"),
    # the metadata address in its IPv4-mapped and NAT64 forms
    ("::ffff:169.254.169.254", "mapped.paldron.test"),
    ("64:ff9b::a9fe:a9fe", "nat64.paldron.test"),
]


def ensure_hosts(entries=TEST_HOSTS):
    """Add "ADDR NAME" lines to /etc/hosts for the names it does not map
    yet (idempotent; other lines are left as they are)."""
    with open(HOSTS) as f:
        have = set()
        for line in f:
            words = line.split("#", 1)[0].split()
            if len(words) >= 2:
                have.update((words[0], n.lower()) for n in words[1:])
    missing = [(a, n) for a, n in entries if (a, n) not in have]
    if missing:
        # appended in place: /etc/hosts may be a bind mount (containers)
        with open(HOSTS, "a") as f:
            f.write("".join("%s %s %s\n" % (a, n, HOSTS_MARK) for a, n in missing))


def resolves_to(name, addr):
    """Does the host's resolver map name to addr?"""
    try:
        return any(ai[4][0] == addr for ai in socket.getaddrinfo(name, 80, 0, socket.SOCK_STREAM))
    except socket.gaierror:
        return False


# ---- HTTP -------------------------------------------------------------------

class Request:
    def __init__(self, method, path, headers, client):
        self.method = method
        self.path = path
        self.headers = headers  # name (lower case) -> value
        self.client = client

    def __repr__(self):
        return "%s %s %r" % (self.method, self.path, self.headers)


class _Handler(http.server.SimpleHTTPRequestHandler):
    def __init__(self, request, client_address, server):
        # serve the server's root, not the test's working directory
        super().__init__(request, client_address, server,
                         directory=server.owner.root or "/nonexistent")

    def log_message(self, *args):
        pass

    def _record(self):
        srv = self.server.owner
        with srv.lock:
            srv.requests.append(Request(self.command, self.path,
                                        {k.lower(): v for k, v in self.headers.items()},
                                        self.client_address))

    def _route(self):
        srv = self.server.owner
        path = self.path.split("?", 1)[0]
        route = srv.routes.get(path)
        if route is None and srv.prefix_routes:
            for prefix, fn in srv.prefix_routes:
                if path.startswith(prefix):
                    route = fn(path)
                    break
        return route

    def do_GET(self):
        self._record()
        route = self._route()
        if route is not None:
            status, ctype, body = route
            if callable(body):
                body = body()
            self.send_response(status)
            self.send_header("Content-Type", ctype)
            self.send_header("Content-Length", str(len(body)))
            self.end_headers()
            if self.command != "HEAD":
                self.wfile.write(body)
            return
        if self.server.owner.root is None:
            self.send_error(404)
            return
        super().do_GET()

    def do_HEAD(self):
        self.do_GET()

    def do_POST(self):
        self._record()
        n = int(self.headers.get("Content-Length") or 0)
        data = self.rfile.read(n)
        self.send_response(200)
        self.send_header("Content-Length", str(len(data)))
        self.end_headers()
        self.wfile.write(data)



class HTTPServer:
    """A threaded HTTP server on addr:port (0: a free port) in the host's
    network namespace. routes: path -> (status, content type, bytes or a
    function returning them); prefix_routes: [(prefix, fn(path) -> route or
    None)]; root: a folder served for every other path. requests: what it
    was asked, in order."""

    def __init__(self, addr, root=None, routes=None, prefix_routes=None, port=0):
        self.addr = addr
        self.root = root
        self.routes = dict(routes or {})
        self.prefix_routes = list(prefix_routes or [])
        self.requests = []
        self.lock = threading.Lock()
        family = socket.AF_INET6 if ":" in addr else socket.AF_INET

        class _Server(socketserver.ThreadingMixIn, http.server.HTTPServer):
            address_family = family
            daemon_threads = True
            allow_reuse_address = True
            request_queue_size = 1024

        self.httpd = _Server((addr, port), _Handler)
        self.httpd.owner = self
        self.port = self.httpd.server_address[1]
        self.thread = threading.Thread(target=self.httpd.serve_forever, daemon=True)
        self.thread.start()

    def count(self, path=None):
        with self.lock:
            return sum(1 for r in self.requests if path is None or r.path.split("?")[0] == path)

    def paths(self):
        with self.lock:
            return [r.path for r in self.requests]

    def last(self):
        with self.lock:
            return self.requests[-1] if self.requests else None

    def close(self):
        self.httpd.shutdown()
        self.httpd.server_close()


class AcceptCounter:
    """A TCP listener on addr (a free port) that counts the connections it
    accepts and closes them: proof that nothing connected at all."""

    def __init__(self, addr):
        family = socket.AF_INET6 if ":" in addr else socket.AF_INET
        self.sock = socket.socket(family, socket.SOCK_STREAM)
        self.sock.bind((addr, 0))
        self.sock.listen(64)
        self.port = self.sock.getsockname()[1]
        self.accepted = 0
        self.lock = threading.Lock()
        threading.Thread(target=self._serve, daemon=True).start()

    def _serve(self):
        while True:
            try:
                conn, _ = self.sock.accept()
            except OSError:
                return
            with self.lock:
                self.accepted += 1
            conn.close()

    def close(self):
        try:
            self.sock.shutdown(socket.SHUT_RDWR)
        except OSError:
            pass
        self.sock.close()


class EofServer:
    """A TCP server on addr (a free port) that reads until the client's
    EOF, then answers "got N bytes" and closes: proof that a half close
    passed through."""

    def __init__(self, addr):
        self.sock = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
        self.sock.bind((addr, 0))
        self.sock.listen(16)
        self.port = self.sock.getsockname()[1]
        threading.Thread(target=self._serve, daemon=True).start()

    def _serve(self):
        while True:
            try:
                conn, _ = self.sock.accept()
            except OSError:
                return
            threading.Thread(target=self._one, args=(conn,), daemon=True).start()

    def _one(self, conn):
        with conn:
            conn.settimeout(20)
            n = 0
            try:
                while True:
                    part = conn.recv(65536)
                    if not part:
                        break
                    n += len(part)
                conn.sendall(b"got %d bytes\n" % n)
            except OSError:
                pass

    def close(self):
        try:
            self.sock.shutdown(socket.SHUT_RDWR)
        except OSError:
            pass
        self.sock.close()


# ---- DNS ---------------------------------------------------------------------

def dns_name(msg, off):
    """The name at off (no compression in questions), and the offset after it."""
    labels = []
    while True:
        n = msg[off]
        off += 1
        if n == 0:
            return ".".join(labels).lower(), off
        if n & 0xC0:
            raise ValueError("compressed name in a question")
        labels.append(msg[off:off + n].decode("ascii", "replace"))
        off += n


def dns_encode_name(name):
    out = b""
    for label in name.rstrip(".").split("."):
        out += bytes([len(label)]) + label.encode()
    return out + b"\0"


def dns_query(name, qtype=1, qid=0x5044):
    return struct.pack(">HHHHHH", qid, 0x0100, 1, 0, 0, 0) + dns_encode_name(name) + \
        struct.pack(">HH", qtype, 1)


class DNSStub:
    """A DNS server on addr:53, UDP and TCP, in the host's namespace:
    A records for the names in answers (name -> IPv4 text), NOERROR without
    data for their other types, NXDOMAIN for every other name. asked: name
    -> how many questions came for it."""

    def __init__(self, addr, answers):
        self.addr = addr
        self.answers = {k.lower(): v for k, v in answers.items()}
        self.asked = {}
        self.lock = threading.Lock()
        self.udp = socket.socket(socket.AF_INET, socket.SOCK_DGRAM)
        self.udp.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
        self.udp.bind((addr, 53))
        self.tcp = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
        self.tcp.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
        self.tcp.bind((addr, 53))
        self.tcp.listen(16)
        self.stopping = False
        for fn in (self._serve_udp, self._serve_tcp):
            threading.Thread(target=fn, daemon=True).start()

    def count(self, name):
        with self.lock:
            return self.asked.get(name.lower().rstrip("."), 0)

    def answer(self, msg):
        qid, flags, qd = struct.unpack(">HHH", msg[:6])
        name, off = dns_name(msg, 12)
        qtype, qclass = struct.unpack(">HH", msg[off:off + 4])
        question = msg[12:off + 4]
        with self.lock:
            self.asked[name] = self.asked.get(name, 0) + 1
        addr = self.answers.get(name)
        rd = flags & 0x0100
        if addr is None:
            return struct.pack(">HHHHHH", qid, 0x8080 | rd | 3, 1, 0, 0, 0) + question
        if qtype != 1:
            return struct.pack(">HHHHHH", qid, 0x8480 | rd, 1, 0, 0, 0) + question
        rr = b"\xc0\x0c" + struct.pack(">HHIH", 1, 1, 60, 4) + socket.inet_aton(addr)
        return struct.pack(">HHHHHH", qid, 0x8480 | rd, 1, 1, 0, 0) + question + rr

    def _serve_udp(self):
        while not self.stopping:
            try:
                msg, peer = self.udp.recvfrom(4096)
                self.udp.sendto(self.answer(msg), peer)
            except (OSError, ValueError, struct.error):
                if self.stopping:
                    return

    def _serve_tcp(self):
        while not self.stopping:
            try:
                conn, _ = self.tcp.accept()
            except OSError:
                return
            threading.Thread(target=self._tcp_conn, args=(conn,), daemon=True).start()

    def _tcp_conn(self, conn):
        with conn:
            try:
                while True:
                    head = conn.recv(2)
                    if len(head) < 2:
                        return
                    (n,) = struct.unpack(">H", head)
                    msg = b""
                    while len(msg) < n:
                        part = conn.recv(n - len(msg))
                        if not part:
                            return
                        msg += part
                    out = self.answer(msg)
                    conn.sendall(struct.pack(">H", len(out)) + out)
            except (OSError, ValueError, struct.error):
                return

    def close(self):
        self.stopping = True
        for s in (self.udp, self.tcp):
            try:
                s.shutdown(socket.SHUT_RDWR)
            except OSError:
                pass
            s.close()


# A DNS client for inside a run: `python3 dnsq.py NAME SERVER udp|tcp [TYPE]`
# prints "rcode=R answers=N" and one "A ADDR ttl=T" (or "AAAA ...") per
# answer record, or "error: ..." when no reply came.
DNS_CLIENT = r'''
import socket, struct, sys
name, server, proto = sys.argv[1], sys.argv[2], sys.argv[3]
qtype = int(sys.argv[4]) if len(sys.argv) > 4 else 1
q = struct.pack(">HHHHHH", 0x5044, 0x0100, 1, 0, 0, 0)
for label in name.split("."):
    q += bytes([len(label)]) + label.encode()
q += b"\0" + struct.pack(">HH", qtype, 1)
try:
    if proto == "udp":
        s = socket.socket(socket.AF_INET, socket.SOCK_DGRAM)
        s.settimeout(3)
        s.sendto(q, (server, 53))
        msg = s.recv(4096)
    else:
        s = socket.create_connection((server, 53), timeout=3)
        s.sendall(struct.pack(">H", len(q)) + q)
        buf = b""
        while len(buf) < 2 or len(buf) < 2 + struct.unpack(">H", buf[:2])[0]:
            part = s.recv(4096)
            if not part:
                break
            buf += part
        msg = buf[2:]
except OSError as e:
    print("error: %s" % e)
    sys.exit(0)
qid, flags, qd, an = struct.unpack(">HHHH", msg[:8])
print("rcode=%d answers=%d id=%s" % (flags & 15, an, "ok" if qid == 0x5044 else "bad"))
off = 12
for _ in range(qd):
    while msg[off]:
        off += 1 + msg[off]
    off += 5
for _ in range(an):
    if msg[off] & 0xC0:
        off += 2
    else:
        while msg[off]:
            off += 1 + msg[off]
        off += 1
    t, c, ttl, n = struct.unpack(">HHIH", msg[off:off + 10])
    data = msg[off + 10:off + 10 + n]
    off += 10 + n
    if t == 1:
        print("A %s ttl=%d" % (socket.inet_ntop(socket.AF_INET, data), ttl))
    elif t == 28:
        print("AAAA %s ttl=%d" % (socket.inet_ntop(socket.AF_INET6, data), ttl))
'''


# `python3 flood.py N`: N A questions for pkgs.paldron.test to 127.0.0.53
# over UDP as fast as the answers come; prints "rcodeR=COUNT" per rcode.
DNS_FLOOD = r'''
import socket, struct, sys
n = int(sys.argv[1])
s = socket.socket(socket.AF_INET, socket.SOCK_DGRAM)
s.connect(("127.0.0.53", 53))
s.settimeout(3)
counts = {}
for k in range(n):
    q = struct.pack(">HHHHHH", k, 0x0100, 1, 0, 0, 0)
    for label in "pkgs.paldron.test".split("."):
        q += bytes([len(label)]) + label.encode()
    q += b"\0" + struct.pack(">HH", 1, 1)
    s.send(q)
    try:
        while True:
            m = s.recv(4096)
            if struct.unpack(">H", m[:2])[0] == k:
                break
        rc = "rcode%d" % (m[3] & 15)
    except socket.timeout:
        rc = "timeout"
    counts[rc] = counts.get(rc, 0) + 1
print(" ".join("%s=%d" % kv for kv in sorted(counts.items())))
'''


# ---- what package managers fetch ----------------------------------------------

def make_wheel(folder, name, version="1.0"):
    """A pure-Python wheel NAME-VERSION-py3-none-any.whl in folder; returns
    (file name, sha256 hex)."""
    mod = name.replace("-", "_")
    dist = "%s-%s.dist-info" % (mod, version)
    files = {
        "%s/__init__.py" % mod: b"VALUE = 'from the test wheel'\n",
        "%s/METADATA" % dist: ("Metadata-Version: 2.1\nName: %s\nVersion: %s\n"
                               "Summary: paldron test package\n" % (name, version)).encode(),
        "%s/WHEEL" % dist: b"Wheel-Version: 1.0\nGenerator: paldron-test\n"
                           b"Root-Is-Purelib: true\nTag: py3-none-any\n",
    }
    record = ""
    for path, data in files.items():
        digest = base64.urlsafe_b64encode(hashlib.sha256(data).digest()).rstrip(b"=").decode()
        record += "%s,sha256=%s,%d\n" % (path, digest, len(data))
    record += "%s/RECORD,,\n" % dist
    files["%s/RECORD" % dist] = record.encode()
    whl = "%s-%s-py3-none-any.whl" % (mod, version)
    path = os.path.join(folder, whl)
    with zipfile.ZipFile(path, "w", zipfile.ZIP_DEFLATED) as z:
        for p, data in files.items():
            z.writestr(p, data)
    with open(path, "rb") as f:
        return whl, hashlib.sha256(f.read()).hexdigest()


def simple_index(root, name, whl, sha):
    """A PEP 503 simple index under root/simple/ naming the wheel in root/files/."""
    d = os.path.join(root, "simple", name)
    os.makedirs(d, exist_ok=True)
    with open(os.path.join(root, "simple", "index.html"), "w") as f:
        f.write('<html><body><a href="%s/">%s</a></body></html>\n' % (name, name))
    with open(os.path.join(d, "index.html"), "w") as f:
        f.write('<html><body><a href="../../files/%s#sha256=%s">%s</a></body></html>\n'
                % (whl, sha, whl))


def npm_tarball(name, version="1.0.0"):
    """The .tgz npm pack would make of a one-file package: (bytes, sha1 hex,
    sha512 integrity)."""
    files = {
        "package/package.json": json.dumps({"name": name, "version": version,
                                            "main": "index.js"}).encode(),
        "package/index.js": b"module.exports = 'from the test registry';\n",
    }
    buf = io.BytesIO()
    with tarfile.open(fileobj=buf, mode="w:gz") as t:
        for p, data in files.items():
            info = tarfile.TarInfo(p)
            info.size = len(data)
            info.mode = 0o644
            info.mtime = 1700000000
            t.addfile(info, io.BytesIO(data))
    data = buf.getvalue()
    integrity = "sha512-" + base64.b64encode(hashlib.sha512(data).digest()).decode()
    return data, hashlib.sha1(data).hexdigest(), integrity


def npm_packument(name, version, tarball_url, shasum, integrity):
    return json.dumps({
        "name": name,
        "dist-tags": {"latest": version},
        "versions": {version: {"name": name, "version": version,
                               "dist": {"tarball": tarball_url, "shasum": shasum,
                                        "integrity": integrity}}},
    }).encode()


def git_bare_repo(root, name="repo.git", text="hello from the served repo\n"):
    """root/NAME: a bare repository with one commit (README), ready for
    dumb HTTP (git update-server-info)."""
    work = os.path.join(root, "work-" + name)
    bare = os.path.join(root, name)
    env = dict(os.environ, GIT_CONFIG_GLOBAL="/dev/null", GIT_CONFIG_NOSYSTEM="1",
               GIT_AUTHOR_NAME="t", GIT_AUTHOR_EMAIL="t@x", GIT_COMMITTER_NAME="t",
               GIT_COMMITTER_EMAIL="t@x")
    run = lambda *a, **k: subprocess.run(a, check=True, env=env, stdout=subprocess.DEVNULL,
                                         stderr=subprocess.DEVNULL, **k)
    run("git", "init", "-q", "-b", "main", work)
    with open(os.path.join(work, "README"), "w") as f:
        f.write(text)
    run("git", "-C", work, "add", "README")
    run("git", "-C", work, "commit", "-qm", "init")
    run("git", "clone", "-q", "--bare", work, bare)
    run("git", "-C", bare, "update-server-info")
    return bare
