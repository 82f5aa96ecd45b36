"""Shared helpers for Paldron's integration tests.

Every integration test runs the real `paldron` binary (from PALDRON_BINARY_DIR)
on real programs. Tests are plain `unittest` modules named test_*.py; CTest runs
each file as one test. Sandbox tests run the sandboxed command as an
unprivileged user (root hides RLIMIT_NPROC and more): `unprivileged_user()`
creates it once.

Rules: every test asserts exit code AND message; a check that cannot run here
prints "SKIP <test>: <why>" and uses self.skipTest (never a silent pass).
"""

import json
import os
import pwd
import re
import shlex
import shutil
import subprocess
import sys
import tempfile
import unittest

BINARY_DIR = os.environ.get("PALDRON_BINARY_DIR") or os.path.join(
    os.path.dirname(__file__), "..", "..", "build")
SOURCE_DIR = os.environ.get("PALDRON_SOURCE_DIR") or os.path.abspath(
    os.path.join(os.path.dirname(__file__), "..", ".."))
PALDRON = os.path.abspath(os.path.join(BINARY_DIR, "launcher", "paldron"))
# A command put before paldron where Workspace.run starts it (the program,
# or the first argument of prog that is PALDRON: setpriv, time, ...), e.g.
# valgrind (tests/valgrind/run.sh). Empty: paldron runs as it is.
PALDRON_WRAPPER = shlex.split(os.environ.get("PALDRON_WRAPPER", ""))


def valgrind_wrapped():
    """Does paldron run under valgrind here (tests/valgrind/run.sh)?"""
    return any("valgrind" in os.path.basename(w) for w in PALDRON_WRAPPER)



def sanitized_build():
    """Is the paldron under test an ASan+UBSan build (PALDRON_SANITIZE)?"""
    try:
        with open(os.path.join(BINARY_DIR, "CMakeCache.txt"), encoding="utf-8") as f:
            return any(line.strip() == "PALDRON_SANITIZE:BOOL=ON" for line in f)
    except OSError:
        return False


def wrapped(cmd):
    """cmd with PALDRON_WRAPPER put before its first PALDRON (the program,
    or an argument of setpriv, time, ...); cmd itself when there is none.
    Every test that starts paldron itself starts it through this."""
    if PALDRON_WRAPPER and PALDRON in cmd:
        at = cmd.index(PALDRON)
        return cmd[:at] + PALDRON_WRAPPER + cmd[at:]
    return list(cmd)


TEST_USER = "paldron-test"
# A fixed PATH so that results do not depend on the caller's shell (no pyenv
# shims, no ~/.local/bin).
RUN_PATH = "/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin"

WORK_BASE = "/var/tmp" if os.path.isdir("/var/tmp") else None

README_POLICY = """allow_paths = ["src/", "docs/"]
deny_globs = [".env", ".env.*", "*.pem", "**/secrets/**"]
allow_network = false
allow_binaries = ["ls", "cat", "python3", "git"]
require_os_isolation = true
timeout_sec = 30
"""


def skip(test, why):
    """Print the SKIP line the house rules ask for, then skip."""
    print("SKIP %s: %s" % (test.id(), why), file=sys.stderr)
    test.skipTest(why)


def unprivileged_user():
    """Create (once) and return the pwd entry of the unprivileged test user."""
    try:
        return pwd.getpwnam(TEST_USER)
    except KeyError:
        pass
    if os.geteuid() != 0:
        return None
    subprocess.run(["useradd", "--create-home", "--shell", "/bin/sh", TEST_USER],
                   check=True, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    return pwd.getpwnam(TEST_USER)


class Result:
    def __init__(self, code, out, err):
        self.code = code
        self.out = out
        self.err = err
        self.both = out + err

    def __repr__(self):
        return "exit %d\n--- stdout\n%s\n--- stderr\n%s" % (self.code, self.out, self.err)


def chown_tree(base, user):
    """Give base and everything under it (links themselves) to user; None: leave it."""
    if user is None:
        return
    for root, dirs, files in os.walk(base):
        os.lchown(root, user.pw_uid, user.pw_gid)
        for n in dirs + files:
            try:
                os.lchown(os.path.join(root, n), user.pw_uid, user.pw_gid)
            except FileNotFoundError:
                pass  # a file of a process paldron keeps (its temporary name) went meanwhile


class Workspace:
    """A fresh workspace directory with helpers to lay out files.

    as_user=True makes the workspace owned by the unprivileged test user and
    runs paldron as that user (via setpriv)."""

    def __init__(self, as_user=False):
        self.user = unprivileged_user() if as_user else None
        if as_user and self.user is None:
            raise unittest.SkipTest("cannot create the unprivileged test user (not root)")
        # Outside /tmp, like a real project: a run gets a private /tmp of its
        # own, and what it needs from under the host's is bound back
        # read-only (tests/integration/test_exec_namespaces.py covers that).
        base = tempfile.mkdtemp(prefix="paldron-it-", dir=WORK_BASE)
        os.chmod(base, 0o755)
        self.base = base
        self.path = os.path.join(base, "ws")
        os.mkdir(self.path)
        self.home = os.path.join(base, "home")
        os.mkdir(self.home)
        self.outside = os.path.join(base, "outside")
        os.mkdir(self.outside)
        self.policy_path = os.path.join(base, "policy.toml")

    def close(self):
        shutil.rmtree(self.base, ignore_errors=True)

    def __enter__(self):
        return self

    def __exit__(self, *exc):
        self.close()

    def write(self, rel, text, mode=None):
        p = os.path.join(self.path, rel)
        os.makedirs(os.path.dirname(p), exist_ok=True)
        with open(p, "w") as f:
            f.write(text)
        if mode is not None:
            os.chmod(p, mode)
        self._own()
        return p

    def mkdir(self, rel):
        os.makedirs(os.path.join(self.path, rel), exist_ok=True)
        self._own()

    def policy(self, text):
        with open(self.policy_path, "w") as f:
            f.write(text)
        self._own()
        return self.policy_path

    def _own(self):
        chown_tree(self.base, self.user)

    def env(self, extra=None):
        env = {"PATH": RUN_PATH, "HOME": self.home, "LANG": "C.UTF-8", "PWD": self.path}
        if self.user is not None:
            env.update(HOME=self.user.pw_dir, USER=self.user.pw_name, LOGNAME=self.user.pw_name)
        else:
            env["USER"] = "root"
        env.update((k, v) for k, v in os.environ.items() if k.endswith("SAN_OPTIONS"))
        # exec's persistent cache folders go with the workspace, not into the user's home
        env["XDG_CACHE_HOME"] = os.path.join(self.base, "cache")
        if extra:
            env.update(extra)
        return env

    def run(self, args, env=None, input=None, timeout=120, cwd=None, prog=None, own=True):
        """Run paldron (or prog) with args in the workspace; returns Result.
        own=False: as the test user without the chown of the whole tree
        first (which would move every ctime)."""
        cmd = wrapped([prog or PALDRON] + list(args))
        if self.user is not None:
            if own:
                self._own()
            cmd = ["setpriv", "--reuid", str(self.user.pw_uid), "--regid",
                   str(self.user.pw_gid), "--clear-groups"] + cmd
        p = subprocess.run(cmd, cwd=cwd or self.path, env=self.env(env),
                           input=input.encode() if isinstance(input, str) else input,
                           stdout=subprocess.PIPE, stderr=subprocess.PIPE, timeout=timeout,
                           stdin=None if input is not None else subprocess.DEVNULL)
        return Result(p.returncode, p.stdout.decode("utf-8", "replace"),
                      p.stderr.decode("utf-8", "replace"))

    def exists(self, rel):
        return os.path.lexists(os.path.join(self.path, rel))

    def read(self, rel):
        with open(os.path.join(self.path, rel)) as f:
            return f.read()


class PaldronTest(unittest.TestCase):
    """Base class: asserts that read like the house rules."""

    def assertQuarantined(self, r, ws, rel):
        """The denied file rel (of workspace ws) that the run produced was
        moved out of the way, and the denial says where to: the file there
        is returned."""
        self.assertFalse(os.path.lexists(os.path.join(ws.path, rel)), "%s left in place" % rel)
        m = re.search(r"paldron: deny: run \w+ %s .*; moved to (/\S+)$" % re.escape(rel), r.err,
                      re.M)
        self.assertIsNotNone(m, "no move of %s said\n%r" % (rel, r))
        self.assertIn("/paldron/", m.group(1))
        self.assertIn("/quarantine/", m.group(1))
        self.assertTrue(m.group(1).endswith("/" + rel), m.group(1))
        self.assertTrue(os.path.lexists(m.group(1)), m.group(1))
        return m.group(1)

    def assertRun(self, r, code, *fragments, absent=()):
        self.assertEqual(r.code, code, repr(r))
        for frag in fragments:
            self.assertIn(frag, r.both, repr(r))
        for frag in absent:
            self.assertNotIn(frag, r.both, repr(r))


def main():
    if not os.path.exists(PALDRON):
        print("paldron binary not found at %s (set PALDRON_BINARY_DIR)" % PALDRON,
              file=sys.stderr)
        sys.exit(1)
    unittest.main(verbosity=2)


def loads(text):
    return json.loads(text)
