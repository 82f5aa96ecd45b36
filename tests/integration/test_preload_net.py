"""The preload's network gate: with allow_network = false, connect and bind on
IP sockets fail with EACCES, sendto and sendmsg with EPERM, and a name lookup
with EAI_FAIL; a listener on 127.0.0.1 receives nothing. UNIX sockets are not
network (binding one creates a file, judged as such). With allow_network = true
everything goes through.
"""
import os
import socket
import sys
import threading

sys.dont_write_bytecode = True  # no __pycache__ in the source tree
sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "preload"))
import preload_fixture as pf  # noqa: E402

OFF = 'allow_paths = ["src/"]\nallow_network = false\n'
ON = 'allow_paths = ["src/"]\nallow_network = true\n'
EAI_FAIL = "-4"


class Listener:
    """A TCP and a UDP socket on 127.0.0.1 (outside the preload) that count
    what reaches them."""

    def __init__(self):
        self.tcp = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
        self.tcp.bind(("127.0.0.1", 0))
        self.tcp.listen(8)
        self.tcp.settimeout(0.1)
        self.udp = socket.socket(socket.AF_INET, socket.SOCK_DGRAM)
        self.udp.bind(("127.0.0.1", 0))
        self.udp.settimeout(0.1)
        self.port = self.tcp.getsockname()[1]
        self.uport = self.udp.getsockname()[1]
        self.accepted = 0
        self.datagrams = 0
        self.stop = False
        self.t = threading.Thread(target=self.loop, daemon=True)
        self.t.start()

    def loop(self):
        while not self.stop:
            try:
                c, _ = self.tcp.accept()
                self.accepted += 1
                c.close()
            except socket.timeout:
                pass
            try:
                self.udp.recv(100)
                self.datagrams += 1
            except socket.timeout:
                pass

    def close(self):
        self.stop = True
        self.t.join()
        self.tcp.close()
        self.udp.close()


class Network(pf.PreloadTest):
    def setUp(self):
        super().setUp()
        self.l = Listener()
        self.addCleanup(self.l.close)

    def settle(self):
        import time
        time.sleep(0.3)

    def test_network_off(self):
        sb = self.sandbox(OFF)
        r = sb.probe("connect", "127.0.0.1", self.l.port)
        self.assertDenied(r)
        rec = self.assertRecord(sb.records(), kind="deny", op="connect",
                                path="127.0.0.1:%d" % self.l.port, reason="network disabled",
                                key="allow_network", program="python3")
        self.assertEqual(rec["pattern"], "")
        r = sb.probe("connect", "::1", self.l.port)
        self.assertDenied(r)
        r = sb.probe("bind", "127.0.0.1", 0)
        self.assertDenied(r)
        self.assertRecord(sb.records(), kind="deny", op="bind")
        r = sb.probe("sendto", "127.0.0.1", self.l.uport)
        self.assertDenied(r, pf.EPERM)
        self.assertRecord(sb.records(), kind="deny", op="send")
        r = sb.probe("sendmsg", "127.0.0.1", self.l.uport)
        self.assertDenied(r, pf.EPERM)
        r = sb.probe("getaddrinfo", "example.invalid")
        self.assertEqual(r.out.strip(), "fail gai " + EAI_FAIL, repr(r))
        self.assertRecord(sb.records(), kind="deny", op="resolve", path="example.invalid")
        for name in ("localhost", "127.0.0.1", "::1"):
            r = sb.probe("getaddrinfo", name)
            self.assertEqual(r.out.strip(), "ok", repr(r))
        self.settle()
        self.assertEqual(self.l.accepted, 0)
        self.assertEqual(self.l.datagrams, 0)

    def test_python_socket_is_refused(self):
        sb = self.sandbox(OFF)
        code = "import socket; socket.create_connection(('127.0.0.1', %d))" % self.l.port
        r = sb.run([pf.PYTHON, "-c", code])
        self.assertOut(r, 1, "PermissionError")
        self.settle()
        self.assertEqual(self.l.accepted, 0)

    def test_unix_sockets_are_not_network(self):
        sb = self.sandbox(OFF)
        os.mkdir(sb.path("src"))
        r = sb.probe("bind_unix", "src/ok.sock")
        self.assertAllowed(r)
        # (a secret by name alone: a missing *.pem may be created, issue 11)
        r = sb.probe("bind_unix", "src/x.key")
        self.assertDenied(r)
        self.assertRecord(sb.records(), kind="deny", op="create", path="src/x.key")
        self.assertFalse(sb.exists("src/x.key"))

    def test_network_on(self):
        sb = self.sandbox(ON)
        r = sb.probe("connect", "127.0.0.1", self.l.port)
        self.assertAllowed(r)
        r = sb.probe("sendto", "127.0.0.1", self.l.uport)
        self.assertAllowed(r)
        r = sb.probe("bind", "127.0.0.1", 0)
        self.assertAllowed(r)
        self.settle()
        self.assertEqual(self.l.accepted, 1)
        self.assertEqual(self.l.datagrams, 1)
        self.assertNoRecord(sb.records(), kind="deny")


if __name__ == "__main__":
    pf.main()
