"""Shared fixture of the preload integration tests (tests/integration/test_preload_*.py).

A Sandbox is a temp workspace, home and run directory: the run directory holds
policy.compiled (written by tests/preload's pdcompile, as the launcher writes it)
and, unless report=False, report.sock, a UNIX datagram socket this process binds
and drains on a thread, as the launcher does. Sandbox.run() starts a real program
with LD_PRELOAD and the PALDRON_* settings; Sandbox.records() returns the decoded
records (policy/report.h). Programs run with a fixed PATH and /usr/bin/python3.

Helpers are taken from ${PALDRON_BINARY_DIR}/tests/preload; when tests/CMakeLists.txt
does not build them (yet), they are compiled here with cc into the same place.
"""

import array
import fcntl
import os
import shutil
import socket
import subprocess
import sys
import tempfile
import termios
import threading
import time
import unittest

HERE = os.path.dirname(os.path.abspath(__file__))
SOURCE_DIR = os.environ.get("PALDRON_SOURCE_DIR") or os.path.abspath(os.path.join(HERE, "..", ".."))
BINARY_DIR = os.path.abspath(os.environ.get("PALDRON_BINARY_DIR") or os.path.join(SOURCE_DIR, "build"))
PRELOAD = os.path.join(BINARY_DIR, "launcher", "libpaldron_preload.so")
TOOLS = os.path.join(BINARY_DIR, "tests", "preload")
CPROBE = os.path.join(HERE, "cprobe.py")
PYTHON = "/usr/bin/python3"
RUN_PATH = "/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin"

STRICT = ["-std=c17", "-D_GNU_SOURCE", "-O2", "-Wall", "-Wextra", "-Werror"]

EACCES = "13"
EPERM = "1"

_built = {}
_lock = threading.Lock()


def skip(test, why):
    """Print the SKIP line the house rules ask for, then skip."""
    print("SKIP %s: %s" % (test.id(), why), file=sys.stderr)
    test.skipTest(why)


def tool(name):
    """Path of a helper program of tests/preload, built here if needed."""
    with _lock:
        if name in _built:
            return _built[name]
        path = os.path.join(TOOLS, name)
        if not os.access(path, os.X_OK):
            os.makedirs(TOOLS, exist_ok=True)
            src = os.path.join(HERE, name + ".c")
            cmd = ["cc"] + STRICT + ["-I" + SOURCE_DIR, src, "-o", path]
            if name == "pdcompile":
                cmd += [os.path.join(BINARY_DIR, "policy", "libpaldron_policy.a"),
                        "-linih", "-lcjson", "-lm"]
            elif name == "thread_opener":
                cmd += ["-pthread"]
            elif name == "static_hello":
                cmd += ["-static"]
            subprocess.run(cmd, check=True)
        _built[name] = path
        return path


def decode(data):
    """policy/report.c's pd_report_decode, for the tests."""
    fields = data.decode("utf-8", "replace").split("\t")
    out = []
    for f in fields:
        s, k = [], 0
        while k < len(f):
            c = f[k]
            if c == "\\":
                k += 1
                s.append({"\\": "\\", "t": "\t", "n": "\n"}[f[k]])
            else:
                s.append(c)
            k += 1
        out.append("".join(s))
    assert out[0] == "PDR1", data
    keys = ["kind", "op", "path", "resolved", "key", "pattern", "reason", "pid", "program"]
    rec = dict(zip(keys, out[1:10]))
    rec["pid"] = int(rec["pid"])
    rec["argv"] = out[10:]
    return rec


class Result:
    def __init__(self, code, out, err):
        self.code, self.out, self.err = code, out, err

    def __repr__(self):
        return "exit %d\n--- stdout\n%s\n--- stderr\n%s" % (self.code, self.out, self.err)


class Sandbox:
    """A workspace with a compiled policy and (optionally) a report socket."""

    def __init__(self, policy="", report=True, roots=(), compile_policy=True):
        self.base = tempfile.mkdtemp(prefix="pdp-", dir="/tmp")
        self.ws = os.path.join(self.base, "ws")
        self.home = os.path.join(self.base, "home")
        self.run_dir = os.path.join(self.base, "run")
        self.outside = os.path.join(self.base, "outside")
        for d in (self.ws, self.home, self.run_dir, self.outside):
            os.mkdir(d)
        self.policy_path = os.path.join(self.base, "policy.toml")
        self.compiled = os.path.join(self.run_dir, "policy.compiled")
        with open(self.policy_path, "w") as f:
            f.write(policy)
        if compile_policy:
            r = subprocess.run([tool("pdcompile"), self.policy_path, self.ws, self.home,
                                self.compiled] + list(roots),
                               env={"PATH": RUN_PATH}, capture_output=True, text=True)
            if r.returncode != 0:
                raise AssertionError("pdcompile: " + r.stderr)
        self._records = []
        self._sock = None
        if report:
            self._sock = socket.socket(socket.AF_UNIX, socket.SOCK_DGRAM)
            self._sock.bind(os.path.join(self.run_dir, "report.sock"))
            self._sock.settimeout(0.05)
            self._stop = False
            self._reader = threading.Thread(target=self._drain, daemon=True)
            self._reader.start()

    def _drain(self):
        while not self._stop:
            try:
                data = self._sock.recv(65536)
            except socket.timeout:
                continue
            except OSError:
                return
            self._records.append(decode(data))

    def close(self):
        if self._sock is not None:
            self._stop = True
            self._reader.join()
            self._sock.close()
        shutil.rmtree(self.base, ignore_errors=True)

    def __enter__(self):
        return self

    def __exit__(self, *exc):
        self.close()

    # ---- files -----------------------------------------------------------
    def path(self, rel):
        return os.path.join(self.ws, rel)

    def write(self, rel, text, mode=None):
        p = self.path(rel)
        os.makedirs(os.path.dirname(p), exist_ok=True)
        with open(p, "w") as f:
            f.write(text)
        if mode is not None:
            os.chmod(p, mode)
        return p

    def read(self, rel):
        with open(self.path(rel)) as f:
            return f.read()

    def exists(self, rel):
        return os.path.lexists(self.path(rel))

    # ---- running ---------------------------------------------------------
    def env(self, extra=None, audit=False, debug=False, preload=True):
        env = {"PATH": RUN_PATH, "HOME": self.home, "LANG": "C.UTF-8", "PWD": self.ws}
        if preload:
            env.update(LD_PRELOAD=PRELOAD, PALDRON_PRELOAD=PRELOAD, PALDRON_RUN=self.run_dir)
        if audit:
            env["PALDRON_AUDIT"] = "1"
        if debug:
            env["PALDRON_DEBUG"] = "1"
        if extra:
            env.update(extra)
        return env

    def run(self, args, env=None, input=None, cwd=None, timeout=120, **kw):
        """Run args under the preload in the workspace; returns Result."""
        self.records(clear=True)
        p = subprocess.run(args, cwd=cwd or self.ws, env=env if env is not None else self.env(**kw),
                           input=input.encode() if isinstance(input, str) else input,
                           stdout=subprocess.PIPE, stderr=subprocess.PIPE, timeout=timeout,
                           stdin=None if input is not None else subprocess.DEVNULL)
        return Result(p.returncode, p.stdout.decode("utf-8", "replace"),
                      p.stderr.decode("utf-8", "replace"))

    def probe(self, *args, **kw):
        """Run tests/preload/cprobe.py (one libc call by name, "ok" / "fail <errno>")."""
        return self.run([PYTHON, CPROBE] + [str(a) for a in args], **kw)

    def _queued(self):
        buf = array.array("i", [0])
        fcntl.ioctl(self._sock.fileno(), termios.FIONREAD, buf)
        return buf[0]

    def records(self, clear=False):
        """The records received since the last run. Every record is sent
        before the program exits, so once the socket's queue is empty (and
        the reader had a moment to store the last one) all are here."""
        if self._sock is None:
            return []
        end = time.time() + 5
        while self._queued() and time.time() < end:
            time.sleep(0.01)
        time.sleep(0.02)
        if clear:
            self._records.clear()
            return []
        return list(self._records)


class PreloadTest(unittest.TestCase):
    """Base class: assertions that read like the house rules."""

    def setUp(self):
        if not os.path.exists(PRELOAD):
            self.fail("preload not built at %s (set PALDRON_BINARY_DIR)" % PRELOAD)

    def sandbox(self, policy="", **kw):
        sb = Sandbox(policy, **kw)
        self.addCleanup(sb.close)
        return sb

    def assertOut(self, r, code, *fragments, absent=()):
        self.assertEqual(r.code, code, repr(r))
        for frag in fragments:
            self.assertIn(frag, r.out + r.err, repr(r))
        for frag in absent:
            self.assertNotIn(frag, r.out + r.err, repr(r))

    def assertDenied(self, r, errno_=EACCES):
        """A cprobe call that was refused with errno_."""
        self.assertEqual(r.out.strip().splitlines()[-1:], ["fail " + errno_], repr(r))

    def assertAllowed(self, r):
        self.assertEqual(r.code, 0, repr(r))
        self.assertTrue(r.out.strip().splitlines()[-1:] == ["ok"], repr(r))

    def assertRecord(self, recs, **want):
        """One record has every field in want (argv0 checks argv[0])."""
        for rec in recs:
            if all((rec["argv"][:1] == [v]) if k == "argv0" else rec.get(k) == v
                   for k, v in want.items()):
                return rec
        self.fail("no record with %r in %r" % (want, recs))

    def assertNoRecord(self, recs, **want):
        for rec in recs:
            if all(rec.get(k) == v for k, v in want.items()):
                self.fail("unexpected record %r" % rec)


def main():
    unittest.main(verbosity=2)
