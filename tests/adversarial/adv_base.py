"""Shared fixtures of the adversarial suite (tests/adversarial/README.md).

Every case plays a steered agent that wants out of `paldron exec`, run for
real as the unprivileged test user (the integration harness's
Workspace(as_user=True)), and is judged by the state of the world afterwards
AND by the exit code:

- AdvCase.setUp lays out a temp dir: a workspace (ws/) with planted secrets
  (.env, src/.env.local, src/deploy.pem, src/keys/id_rsa, src/secrets/token),
  a git repository with a hook and .gitmodules, a fake home (home/, passed as
  HOME to paldron: ~/.ssh/id_rsa, ~/.bashrc, ~/.profile, ~/.config/autostart)
  and a folder outside (outside/canary.txt); one more secret is a
  secret-looking variable of paldron's own environment. Then it takes a
  snapshot of everything the run must not change.
- assertWorld(r, codes) checks the exit code, that no secret value (raw,
  base64, hex) is in the output or in any file the run left (the temp dir,
  the host's /tmp, /var/tmp and /dev/shm), that the snapshot is unchanged and
  that no process of the run is left.
- Host servers (TcpCounter, UdpCounter, UnixCounter, ...) listen in the host's
  namespaces and count what reaches them.

A case that cannot run here prints "SKIP <test>: <why>" (skip()); a case is
never faked into a pass."""

import base64
import ctypes
import hashlib
import os
import platform
import pty
import re
import secrets
import select
import shutil
import signal
import socket
import stat
import subprocess
import sys
import threading
import time
import unittest

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.join(HERE, "..", "integration"))

from harness import (BINARY_DIR, PALDRON, RUN_PATH, SOURCE_DIR, Result, Workspace,  # noqa: E402,F401
                     chown_tree, main, skip)

PROBE_DIR = os.path.join(BINARY_DIR, "tests", "probe")
LOADER = "/lib64/ld-linux-x86-64.so.2" if platform.machine() == "x86_64" else \
    "/lib/ld-linux-aarch64.so.1"
FORBIDDEN = "/usr/bin/touch"  # the program no policy of the suite allows
DENY_GLOBS = [".env", ".env.*", "*.pem", "**/secrets/**"]
BASE_BINARIES = ["sh", "python3", "cat"]

# System call numbers for the raw calls made through ctypes (no libc wrapper,
# so no preload sees them).
SYSCALLS = {
    "x86_64": dict(read=0, write=1, close=3, ioctl=16, socket=41, connect=42, sendto=44,
                   execve=59, kill=62, ptrace=101, openat=257, mkdirat=258, unlinkat=263,
                   linkat=265, symlinkat=266, process_vm_readv=310, renameat2=316,
                   memfd_create=319, execveat=322, umount2=166),
    "aarch64": dict(read=63, write=64, close=57, ioctl=29, socket=198, connect=203,
                    sendto=206, execve=221, kill=129, ptrace=117, openat=56, mkdirat=34,
                    unlinkat=35, linkat=37, symlinkat=36, process_vm_readv=270,
                    renameat2=276, memfd_create=279, execveat=281, umount2=39),
}

# Prelude of every Python script the suite runs inside the sandbox: raw system
# calls through libc's syscall() (the live gate does not interpose it), and a
# tally: each attempt prints "label: ret errno"; finish() exits 0 when any
# attempt succeeded, 1 when all were refused (the command's own failure).
PY_PRELUDE = r'''
import ctypes, errno, os, socket, sys
NR = @NR@
libc = ctypes.CDLL(None, use_errno=True)
libc.syscall.restype = ctypes.c_long
AT_FDCWD = -100
_ok = []

def sc(name, *args):
    ctypes.set_errno(0)
    r = libc.syscall(ctypes.c_long(NR[name]),
                     *[ctypes.c_long(a) if isinstance(a, int) else a for a in args])
    return r, (ctypes.get_errno() if r < 0 else 0)

def attempt(label, fn, *args):
    """Run fn(*args); print "label: 0 0 [data]" or "label: -1 errno"."""
    try:
        r = fn(*args)
    except OSError as e:
        print("%s: -1 %s" % (label, e.errno), flush=True)
        return None
    except Exception as e:
        print("%s: -1 exc %r" % (label, e), flush=True)
        return None
    if isinstance(r, tuple) and len(r) == 2 and isinstance(r[0], int) and r[0] < 0:
        print("%s: -1 %d" % (label, r[1]), flush=True)
        return None
    print("%s: 0 0" % label, flush=True)
    _ok.append(label)
    return r

def finish():
    sys.stdout.flush()
    sys.exit(0 if _ok else 1)

def raw_open(path, flags, mode=0o644, dirfd=AT_FDCWD):
    return sc("openat", dirfd, path.encode(), flags | os.O_CLOEXEC, mode)

def raw_read(path, dirfd=AT_FDCWD):
    fd, e = raw_open(path, os.O_RDONLY, 0, dirfd)
    if fd < 0:
        return fd, e
    buf = ctypes.create_string_buffer(65536)
    n, e = sc("read", fd, buf, 65536)
    os.close(fd)
    if n < 0:
        return n, e
    return buf.raw[:n]

def raw_write(path, data, flags=os.O_WRONLY | os.O_CREAT | os.O_TRUNC, dirfd=AT_FDCWD):
    fd, e = raw_open(path, flags, 0o644, dirfd)
    if fd < 0:
        return fd, e
    n, e = sc("write", fd, data, len(data))
    os.close(fd)
    return (n, e) if n < 0 else n

def libc_fn(name, restype=ctypes.c_int):
    f = getattr(libc, name)
    f.restype = restype
    return f

def cchk(r):
    """A libc call's int result: (r, errno) on failure, r otherwise."""
    return (r, ctypes.get_errno()) if r < 0 else r

def cargv(words):
    arr = (ctypes.c_char_p * (len(words) + 1))()
    arr[:-1] = [w.encode() if isinstance(w, str) else w for w in words]
    arr[-1] = None
    return arr
'''

# Prelude of every sh script: chk runs a probe and fails when it printed
# "-1 <errno>" (so a refused attempt is the command's own failure).
SH_PRELUDE = ('chk() { o=$("$@" 2>&1); printf "%s\\n" "$o"; '
              'case "$o" in "-1 "*|"") return 1;; esac; return 0; }; ')

# git's own bookkeeping in .git (objects, refs, the index...): git commands
# of a run change it legitimately; config, hooks, info and the rest are watched
STATE_EXCLUDED_GIT = ("objects", "refs", "logs", "index", "COMMIT_EDITMSG", "ORIG_HEAD",
                      "FETCH_HEAD", "packed-refs")


def landlock_abi():
    if platform.system() != "Linux" or platform.machine() not in ("x86_64", "aarch64"):
        return 0
    libc = ctypes.CDLL(None, use_errno=True)
    libc.syscall.restype = ctypes.c_long
    abi = libc.syscall(ctypes.c_long(444), None, ctypes.c_size_t(0), ctypes.c_uint32(1))
    return abi if abi > 0 else 0


def pid_alive(pid):
    try:
        with open("/proc/%d/stat" % pid) as f:
            state = f.read().rsplit(")", 1)[1].split()[0]
    except (OSError, IndexError):
        return False
    return state not in ("Z", "X")


def proc_state(pid):
    try:
        with open("/proc/%d/stat" % pid) as f:
            return f.read().rsplit(")", 1)[1].split()[0]
    except (OSError, IndexError):
        return None


def proc_status(pid, key):
    try:
        with open("/proc/%d/status" % pid) as f:
            for line in f:
                if line.startswith(key + ":"):
                    return line.split(":", 1)[1].strip()
    except OSError:
        pass
    return None


def processes_of(uid, pred):
    """Pids of living processes of uid for which pred(pid, cmdline, environ, cwd) holds."""
    found = []
    for name in os.listdir("/proc"):
        if not name.isdigit():
            continue
        pid = int(name)
        try:
            if os.stat("/proc/" + name).st_uid != uid:
                continue
            with open("/proc/%s/cmdline" % name, "rb") as f:
                cmd = f.read().replace(b"\0", b" ").decode("utf-8", "replace")
            try:
                with open("/proc/%s/environ" % name, "rb") as f:
                    env = f.read().decode("utf-8", "replace")
            except OSError:
                env = ""
            try:
                cwd = os.readlink("/proc/%s/cwd" % name)
            except OSError:
                cwd = ""
        except OSError:
            continue
        if pid_alive(pid) and pred(pid, cmd, env, cwd):
            found.append(pid)
    return found


def wait_until(cond, seconds, step=0.05):
    until = time.monotonic() + seconds
    while time.monotonic() < until:
        if cond():
            return True
        time.sleep(step)
    return cond()


def toml_list(items):
    return "[%s]" % ", ".join('"%s"' % i for i in items)


def shq(text):
    return "'" + text.replace("'", "'\\''") + "'"


def needles(value):
    """The byte strings that give a secret value away: raw, hex, base64 at
    every alignment (the core that does not depend on the neighbours)."""
    raw = value.encode()
    out = {raw, raw.hex().encode(), raw.hex().upper().encode()}
    for k in range(3):
        enc = base64.b64encode(b"\0" * k + raw)
        out.add(enc[4:len(enc) - 4])
    return out


# --- host servers ------------------------------------------------------------
class _Counter:
    """A listener in the host's namespaces, served by a thread; counts what
    reaches it (connections, datagrams, bytes)."""

    def __init__(self):
        self.hits = 0
        self.data = b""
        self._stop = False
        self._t = threading.Thread(target=self._serve, daemon=True)

    def start(self):
        self._t.start()
        return self

    def close(self):
        self._stop = True
        try:
            self.sock.close()
        except OSError:
            pass
        self._t.join(2)

    def reset(self):
        time.sleep(0.1)
        self.hits, self.data = 0, b""

    def settle(self):
        """Give in-flight packets time to arrive before counting."""
        time.sleep(0.3)
        return self.hits


class _StreamCounter(_Counter):
    """A listening stream socket (self.sock): each connection is a hit and
    its first bytes are kept."""

    def _serve(self):
        while not self._stop:
            try:
                c, _ = self.sock.accept()
            except (socket.timeout, OSError):
                continue
            self.hits += 1
            c.settimeout(0.3)
            try:
                self.data += c.recv(65536)
            except OSError:
                pass
            c.close()


class TcpCounter(_StreamCounter):
    def __init__(self, family=socket.AF_INET, addr="127.0.0.1", port=0):
        super().__init__()
        self.sock = socket.socket(family, socket.SOCK_STREAM)
        self.sock.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
        self.sock.bind((addr, port))
        self.sock.listen(64)
        self.sock.settimeout(0.2)
        self.addr, self.port = addr, self.sock.getsockname()[1]


class UdpCounter(_Counter):
    def __init__(self, family=socket.AF_INET, addr="127.0.0.1", port=0):
        super().__init__()
        self.sock = socket.socket(family, socket.SOCK_DGRAM)
        self.sock.bind((addr, port))
        self.sock.settimeout(0.2)
        self.addr, self.port = addr, self.sock.getsockname()[1]

    def _serve(self):
        while not self._stop:
            try:
                d = self.sock.recv(65536)
            except (socket.timeout, OSError):
                continue
            self.hits += 1
            self.data += d


class UnixCounter(_StreamCounter):
    """A pathname (path) or abstract (name, no leading NUL) stream socket."""

    def __init__(self, path=None, abstract=None):
        super().__init__()
        self.sock = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
        self.sock.bind(path if path else "\0" + abstract)
        if path:
            os.chmod(path, 0o666)
        self.sock.listen(64)
        self.sock.settimeout(0.2)
        self.path, self.abstract = path, abstract


class NetlinkCounter(_Counter):
    """A NETLINK_USERSOCK socket of the host (root) that counts messages."""

    def __init__(self):
        super().__init__()
        self.sock = socket.socket(socket.AF_NETLINK, socket.SOCK_RAW, 2)
        self.portid = 0x50440000 + secrets.randbelow(0xffff)
        self.sock.bind((self.portid, 0))
        self.sock.settimeout(0.2)

    def _serve(self):
        while not self._stop:
            try:
                d = self.sock.recv(65536)
            except (socket.timeout, OSError):
                continue
            self.hits += 1
            self.data += d


# --- the case base -------------------------------------------------------------
class AdvCase(unittest.TestCase):
    """A fresh world per case; see the module docstring."""

    needs_landlock = 4
    maxDiff = None

    # --- layout ---------------------------------------------------------------
    def setUp(self):
        if landlock_abi() < self.needs_landlock:
            skip(self, "needs Landlock ABI >= %d (this kernel: %d)"
                 % (self.needs_landlock, landlock_abi()))
        if platform.machine() not in SYSCALLS:
            skip(self, "raw system call numbers not known for %s" % platform.machine())
        if not os.path.exists(PALDRON):
            self.fail("paldron binary not found at %s (set PALDRON_BINARY_DIR)" % PALDRON)
        try:
            self.ws = Workspace(as_user=True)
        except unittest.SkipTest as e:
            skip(self, str(e))
        self.addCleanup(self.ws.close)
        self.addCleanup(self._kill_stragglers)
        self.markers = set()
        self.user = self.ws.user
        self.uid, self.gid = self.user.pw_uid, self.user.pw_gid
        self.base = self.ws.base
        self.wsp = self.ws.path
        self.home = self.ws.home
        self.outside = self.ws.outside
        self.cache = os.path.join(self.base, "cache")
        os.mkdir(self.cache)
        self.t0 = time.time()
        # a number for the command lines of this case's processes (sleep N)
        self.nonce = 100000 + secrets.randbelow(800000)
        tag = secrets.token_hex(10)
        # the planted secrets: name -> value; every one is looked for everywhere
        self.secret = {
            "env": "PLDRADV_ENV_%s" % tag,
            "local": "PLDRADV_LOCAL_%s" % tag,
            "pem": "PLDRADV_PEM_%s" % tag,
            "keydir": "PLDRADV_KEYDIR_%s" % tag,
            "dir": "PLDRADV_DIR_%s" % tag,
            "ssh": "PLDRADV_SSH_%s" % tag,
            "var": "PLDRADV_VAR_%s" % tag,
        }
        s = self.secret
        self.secret_files = {
            ".env": "API_TOKEN=%s\n" % s["env"],
            "src/.env.local": "DB_PASSWORD=%s\n" % s["local"],
            "src/deploy.pem": "-----BEGIN PRIVATE KEY-----\n%s\n-----END PRIVATE KEY-----\n"
                              % s["pem"],
            "src/keys/id_rsa": "-----BEGIN OPENSSH PRIVATE KEY-----\n%s\n" % s["keydir"],
            "src/secrets/token": "%s\n" % s["dir"],
        }
        for rel, text in self.secret_files.items():
            self.ws.write(rel, text, mode=0o600)
        self.ws.write("README.md", "# a project an agent works on\n")
        self.ws.write("src/plain.txt", "plain text\n")
        self.ws.write("src/main.py", "print('hello')\n")
        self.canary = "canary %s\n" % tag
        with open(os.path.join(self.outside, "canary.txt"), "w") as f:
            f.write(self.canary)
        # the fake home: HOME of paldron (its anchored secrets and dotfiles)
        self.ssh_key = os.path.join(self.home, ".ssh", "id_rsa")
        for rel, text, mode in [
                (".ssh/id_rsa", "-----BEGIN OPENSSH PRIVATE KEY-----\n%s\n" % s["ssh"], 0o600),
                (".bashrc", "# bashrc %s\n" % tag, 0o644),
                (".profile", "# profile %s\n" % tag, 0o644),
                (".gitconfig", "[user]\n\tname = Dev\n", 0o644),
                (".config/autostart/.keep", "", 0o644)]:
            p = os.path.join(self.home, rel)
            os.makedirs(os.path.dirname(p), exist_ok=True)
            with open(p, "w") as f:
                f.write(text)
            os.chmod(p, mode)
        os.chmod(os.path.join(self.home, ".ssh"), 0o700)
        self._git_repo()
        self.probes = self._copy_probes()
        chown_tree(self.base, self.user)
        self.policy_path = self.ws.policy("")
        self.secret_inodes = set()
        for rel in self.secret_files:
            st = os.stat(self.p(rel))
            self.secret_inodes.add((st.st_dev, st.st_ino))
        st = os.stat(self.ssh_key)
        self.secret_inodes.add((st.st_dev, st.st_ino))
        self.rebaseline()

    def _git_repo(self):
        git = shutil.which("git", path=RUN_PATH)
        self.ws.write(".gitmodules", '[submodule "lib"]\n\tpath = lib\n'
                      '\turl = https://example.invalid/lib.git\n')
        if git is None:
            os.makedirs(self.p(".git/hooks"))
            with open(self.p(".git/config"), "w") as f:
                f.write("[core]\n\tbare = false\n")
            with open(self.p(".git/HEAD"), "w") as f:
                f.write("ref: refs/heads/main\n")
            os.makedirs(self.p(".git/objects"))
            os.makedirs(self.p(".git/refs"))
        else:
            env = {"PATH": RUN_PATH, "HOME": self.base, "GIT_CONFIG_NOSYSTEM": "1"}
            for args in (["init", "-q", "-b", "main"], ["config", "user.name", "Dev"],
                         ["config", "user.email", "dev@example.invalid"],
                         ["add", "README.md", "src/plain.txt", ".gitmodules"],
                         ["commit", "-q", "-m", "initial"]):
                subprocess.run([git, "-c", "safe.directory=*", "-C", self.wsp] + args, check=True, env=env,
                               stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
            for n in os.listdir(self.p(".git/hooks")):
                os.unlink(self.p(".git/hooks/" + n))
        with open(self.p(".git/hooks/pre-commit"), "w") as f:
            f.write("#!/bin/sh\necho the user's own hook\n")
        os.chmod(self.p(".git/hooks/pre-commit"), 0o755)

    def _copy_probes(self):
        """The probes in bin/ of the workspace: readable, not a writable root
        (so their entries by path grant no execution on src/)."""
        out = {}
        os.mkdir(self.p("bin"))
        for name in ("probe", "probe_static"):
            src = os.path.join(PROBE_DIR, name)
            if not os.path.exists(src):
                skip(self, "probe not built at %s" % src)
            dst = self.p("bin/" + name)
            shutil.copy(src, dst)
            os.chmod(dst, 0o755)
            out[name] = dst
        return out

    def p(self, rel):
        return os.path.join(self.wsp, rel)

    def own(self):
        """Give what the test laid out since setUp to the test user, then
        take the snapshot again."""
        chown_tree(self.base, self.user)
        self.rebaseline()

    # --- the snapshot -----------------------------------------------------------
    def _excluded(self, rel):
        if rel in ("policy.toml", "cache") or rel.startswith("cache/"):
            return True
        if rel == "ws/src" or rel.startswith("ws/src/"):
            # the writable root: only its secrets (and their folders) are watched
            watched = set()
            for s in self.secret_files:
                while s.startswith("src/"):
                    watched.add("ws/" + s)
                    s = os.path.dirname(s)
            return rel not in watched
        if rel.startswith("ws/.git/"):
            first = rel[len("ws/.git/"):].split("/", 1)[0]
            if first in STATE_EXCLUDED_GIT or first.endswith(".lock"):
                return True
        return rel in self.extra_excluded

    extra_excluded = ()

    def snapshot(self):
        snap = {}
        for root, dirs, files in os.walk(self.base):
            for n in sorted(dirs + files):
                path = os.path.join(root, n)
                rel = os.path.relpath(path, self.base)
                if self._excluded(rel):
                    continue
                try:
                    st = os.lstat(path)
                except FileNotFoundError:
                    continue
                if stat.S_ISLNK(st.st_mode):
                    what = "link:" + os.readlink(path)
                elif stat.S_ISREG(st.st_mode):
                    h = hashlib.sha256()
                    with open(path, "rb") as f:
                        for chunk in iter(lambda: f.read(1 << 20), b""):
                            h.update(chunk)
                    what = "file:" + h.hexdigest()
                elif stat.S_ISDIR(st.st_mode):
                    what = "dir"
                else:
                    what = "other:%o" % stat.S_IFMT(st.st_mode)
                if what == "dir":
                    # a folder's own times and size follow its entries (a lock
                    # file git made and removed); the entries are compared
                    snap[rel] = (what, oct(st.st_mode), st.st_uid, st.st_gid, 0, 0,
                                 st.st_ino, 0, 0)
                    continue
                snap[rel] = (what, oct(st.st_mode), st.st_uid, st.st_gid, st.st_size,
                             st.st_nlink, st.st_ino, st.st_mtime_ns, st.st_ctime_ns)
        return snap

    def rebaseline(self):
        self.before = self.snapshot()

    def world_changes(self):
        after = self.snapshot()
        changes = []
        for rel in sorted(set(self.before) | set(after)):
            a, b = self.before.get(rel), after.get(rel)
            if a == b:
                continue
            if a is None:
                changes.append("added %s (%s)" % (rel, b[0]))
            elif b is None:
                changes.append("removed %s" % rel)
            else:
                fields = ("content", "mode", "uid", "gid", "size", "nlink", "inode", "mtime",
                          "ctime")
                diff = [f for f, x, y in zip(fields, a, b) if x != y]
                changes.append("changed %s (%s)" % (rel, ", ".join(diff)))
        return changes

    # --- leaks ----------------------------------------------------------------------
    def _leak_files(self):
        """Files the run may have left: everything under the temp dir (but the
        planted secrets themselves) and what the test user wrote into the
        host's /tmp, /var/tmp and /dev/shm since the case started."""
        for root, dirs, files in os.walk(self.base):
            for n in files:
                yield os.path.join(root, n)
        for top in ("/tmp", "/var/tmp", "/dev/shm"):
            try:
                names = os.listdir(top)
            except OSError:
                continue
            for n in names:
                path = os.path.join(top, n)
                if path == self.base:
                    continue
                try:
                    st = os.lstat(path)
                except OSError:
                    continue
                if st.st_uid != self.uid or st.st_mtime < self.t0 - 1:
                    continue
                if stat.S_ISREG(st.st_mode):
                    yield path
                elif stat.S_ISDIR(st.st_mode):
                    for root, dirs, files in os.walk(path):
                        if root.count("/") - path.count("/") > 2:
                            dirs[:] = []
                        for f in files:
                            yield os.path.join(root, f)

    def leaks(self, r=None, values=None):
        """Where a secret value shows: 'stdout'/'stderr'/file paths."""
        vals = values or list(self.secret.values())
        pats = [(v, nd) for v in vals for nd in needles(v)]
        found = []
        if r is not None:
            for name, text in (("output", r.out.encode("utf-8", "replace")),
                               ("stderr", r.err.encode("utf-8", "replace"))):
                for v, nd in pats:
                    if nd in text:
                        found.append("%s shows %s" % (name, v))
                        break
        for path in self._leak_files():
            try:
                st = os.lstat(path)
                if not stat.S_ISREG(st.st_mode) or (st.st_dev, st.st_ino) in self.secret_inodes:
                    continue
                with open(path, "rb") as f:
                    prev = b""
                    for chunk in iter(lambda: f.read(1 << 22), b""):
                        buf = prev + chunk
                        hit = next((v for v, nd in pats if nd in buf), None)
                        if hit:
                            found.append("%s holds %s" % (path, hit))
                            break
                        prev = buf[-256:]
            except OSError:
                continue
        return found

    # --- processes ----------------------------------------------------------------
    def stragglers(self, markers=()):
        base = self.base

        def pred(pid, cmd, env, cwd):
            return (base in env or base in cmd or cwd.startswith(base)
                    or any(m in cmd for m in markers))
        return processes_of(self.uid, pred)

    def _kill_stragglers(self):
        """Whatever a failed case left running goes, so the next case starts clean."""
        for pid in self.stragglers(tuple(self.markers)):
            try:
                os.kill(pid, signal.SIGKILL)
            except OSError:
                pass

    def assertNoStragglers(self, markers=(), seconds=3.0):
        self.markers.update(markers)
        wait_until(lambda: not self.stragglers(markers), seconds)
        left = self.stragglers(markers)
        desc = []
        for pid in left:
            try:
                with open("/proc/%d/cmdline" % pid, "rb") as f:
                    desc.append("%d %s" % (pid, f.read().replace(b"\0", b" ").decode()))
            except OSError:
                pass
        self.assertEqual(left, [], "processes of the run outlived it: %s" % desc)

    # --- running ------------------------------------------------------------------
    def env(self, extra=None):
        u = self.user
        env = {"PATH": RUN_PATH, "HOME": self.home, "USER": u.pw_name, "LOGNAME": u.pw_name,
               "LANG": "C.UTF-8", "XDG_CACHE_HOME": self.cache,
               # a secret-looking variable of the agent's own environment
               "OPENAI_API_KEY": self.secret["var"]}
        env.update((k, v) for k, v in os.environ.items() if k.endswith("SAN_OPTIONS"))
        if extra:
            env.update(extra)
        return env

    def as_user(self, argv):
        u = self.user
        return ["setpriv", "--reuid", str(u.pw_uid), "--regid", str(u.pw_gid),
                "--clear-groups"] + list(argv)

    def policy(self, binaries=(), allow_paths=("src/",), base_binaries=True, probes=True,
               extra="", **keys):
        """A policy text: the deny globs, network off, allow_binaries the
        suite's base programs + binaries + the probes (by path)."""
        bins = (list(BASE_BINARIES) if base_binaries else []) + list(binaries)
        if probes:
            bins += list(self.probes.values())
        keys.setdefault("allow_network", False)
        keys.setdefault("require_os_isolation", True)
        keys.setdefault("timeout_sec", 20)
        lines = ["allow_paths = %s" % toml_list(allow_paths),
                 "deny_globs = %s" % toml_list(DENY_GLOBS),
                 "allow_binaries = %s" % toml_list(bins)]
        for k, v in keys.items():
            if isinstance(v, bool):
                v = "true" if v else "false"
            elif isinstance(v, str):
                v = '"%s"' % v
            elif isinstance(v, (list, tuple)):
                v = toml_list(v)
            lines.append("%s = %s" % (k, v))
        return "\n".join(lines) + "\n" + extra

    def paldron(self, args, env=None, timeout=90, input=None, pass_fds=()):
        """Run paldron with args as the test user in the workspace."""
        t0 = time.monotonic()
        p = subprocess.run(self.as_user([PALDRON] + list(args)), cwd=self.wsp,
                           env=self.env(env), timeout=timeout,
                           input=input.encode() if isinstance(input, str) else input,
                           stdin=None if input is not None else subprocess.DEVNULL,
                           stdout=subprocess.PIPE, stderr=subprocess.PIPE, pass_fds=pass_fds)
        r = Result(p.returncode, p.stdout.decode("utf-8", "replace"),
                   p.stderr.decode("utf-8", "replace"))
        r.elapsed = time.monotonic() - t0
        return r

    def write_policy(self, text):
        with open(self.policy_path, "w") as f:
            f.write(text)
        os.chown(self.policy_path, self.uid, self.gid)
        return self.policy_path

    def exec(self, argv, policy=None, opts=(), env=None, timeout=90, pass_fds=(), **pkeys):
        pol = self.write_policy(policy if policy is not None else self.policy(**pkeys))
        return self.paldron(["exec", "--policy", pol] + list(opts) + ["--"] + list(argv),
                            env=env, timeout=timeout, pass_fds=pass_fds)

    def sh(self, script, binaries=(), **kw):
        """sh -c with the chk prelude; the argv gate sees only `sh -c CODE`."""
        pkeys = {k: kw.pop(k) for k in list(kw) if k not in ("policy", "opts", "env", "timeout",
                                                              "pass_fds")}
        if "policy" not in kw:
            kw["policy"] = self.policy(binaries=binaries, **pkeys)
        return self.exec(["sh", "-c", SH_PRELUDE + script], **kw)

    def py(self, body, binaries=(), name="adv.py", args=(), **kw):
        """A Python script with the raw prelude, written to src/ and run by
        python3 (the argv gate sees only `python3 src/NAME`)."""
        nr = SYSCALLS[platform.machine()]
        text = PY_PRELUDE.replace("@NR@", repr(nr)) + "\n" + body
        path = self.p("src/" + name)
        with open(path, "w") as f:
            f.write(text)
        os.chown(path, self.uid, self.gid)
        pkeys = {k: kw.pop(k) for k in list(kw) if k not in ("policy", "opts", "env", "timeout",
                                                              "pass_fds")}
        if "policy" not in kw:
            kw["policy"] = self.policy(binaries=binaries, **pkeys)
        return self.exec(["python3", "src/" + name] + list(args), **kw)

    def pty_run(self, argv, env=None, timeout=60, after=""):
        """Run argv (as the test user) on a new pseudo-terminal, its
        controlling terminal. Afterwards the session leader reads what is
        waiting in the terminal's input for 1 s and prints "LEFT[...]"."""
        reader = ("import os, select, subprocess, sys, termios\n"
                  "argv = sys.argv[1:]\n"
                  "rc = subprocess.run(argv).returncode\n"
                  "print('PALDRON-EXIT', rc, flush=True)\n"
                  "got = b''\n"
                  "while select.select([0], [], [], 1.0)[0]:\n"
                  "    chunk = os.read(0, 4096)\n"
                  "    if not chunk: break\n"
                  "    got += chunk\n"
                  "print('LEFT[%r]' % got, flush=True)\n")
        cmd = self.as_user(["/usr/bin/python3", "-c", reader] + list(argv))
        pid, master = pty.fork()
        if pid == 0:
            try:
                os.chdir(self.wsp)
                os.execve("/usr/bin/setpriv", cmd, self.env(env))
            finally:
                os._exit(127)
        out = b""
        until = time.monotonic() + timeout
        while time.monotonic() < until:
            ready, _, _ = select.select([master], [], [], 1.0)
            if not ready:
                if os.waitpid(pid, os.WNOHANG)[0]:
                    pid = 0
                    break
                continue
            try:
                chunk = os.read(master, 65536)
            except OSError:
                break
            if not chunk:
                break
            out += chunk
        if pid:
            try:
                _, status = os.waitpid(pid, 0)
            except ChildProcessError:
                pass
        os.close(master)
        return out.decode("utf-8", "replace")

    # --- assertions -----------------------------------------------------------------
    def assertWorld(self, r, codes=(1, 2), leaked_ok=(), changed_ok=(), markers=(),
                    stragglers=True):
        """The exit code is one of codes; no secret leaked into the output or
        a file; nothing watched changed; no process of the run is left."""
        what = repr(r)[-6000:]
        self.assertNotIn("[SANDBOX ERROR]", r.out, what)
        leaks = [x for x in self.leaks(r) if not any(ok in x for ok in leaked_ok)]
        self.assertEqual(leaks, [], "SECRET LEAKED\n" + what)
        changes = [c for c in self.world_changes() if not any(ok in c for ok in changed_ok)]
        self.assertEqual(changes, [], "THE WORLD CHANGED\n" + what)
        if stragglers:
            self.assertNoStragglers(markers)
        self.assertIn(r.code, codes, "exit %d, expected one of %s\n%s" % (r.code, codes, what))

    def assertAbsent(self, *paths):
        for path in paths:
            self.assertFalse(os.path.lexists(path), "%s exists" % path)

    def stdout_lines(self, r):
        m = re.search(r"\[STDOUT\]\n(.*?)\n\n(?:\[STDERR\]\n|\[EXIT CODE\]|\[TRUNCATED|\[TIMEOUT)",
                      r.out, flags=re.S)
        return m.group(1).splitlines() if m else []

    def results(self, r):
        """The prelude's "label: ret errno" lines as {label: (ret, errno)}."""
        out = {}
        for line in self.stdout_lines(r):
            m = re.match(r"^(.+?): (-?\d+) (\S+)", line)
            if m:
                out[m.group(1)] = (int(m.group(2)), m.group(3))
        return out

    def assertAllRefused(self, r, labels=None):
        res = self.results(r)
        self.assertTrue(res, "no attempt reported\n" + repr(r)[-4000:])
        for label in labels or res:
            self.assertIn(label, res, repr(r)[-4000:])
            self.assertEqual(res[label][0], -1, "%s succeeded\n%s" % (label, repr(r)[-4000:]))

    def global_ipv4(self):
        ip = shutil.which("ip", path=RUN_PATH)
        if ip is None:
            return None
        out = subprocess.run([ip, "-o", "-4", "addr", "show", "scope", "global"],
                             capture_output=True, text=True).stdout
        m = re.search(r"\binet (\d+\.\d+\.\d+\.\d+)/", out)
        return m.group(1) if m else None

    def server(self, counter):
        counter.start()
        self.addCleanup(counter.close)
        return counter

    def need(self, *programs):
        found = []
        for prog in programs:
            path = shutil.which(prog, path=RUN_PATH)
            if path is None:
                skip(self, "%s is not installed" % prog)
            found.append(path)
        return found[0] if len(found) == 1 else found

    def gcc(self):
        return self.need("gcc")

    def build_so(self, name, csrc, extra=()):
        """Compile csrc into src/NAME (a shared library) as root."""
        gcc = self.gcc()
        c = os.path.join(self.outside, os.path.basename(name) + ".c")
        with open(c, "w") as f:
            f.write(csrc)
        out = self.p("src/" + name)
        subprocess.run([gcc, "-shared", "-fPIC", "-o", out, c] + list(extra), check=True,
                       stdout=subprocess.DEVNULL, stderr=subprocess.PIPE)
        os.unlink(c)
        return out


# A constructor that records, with raw system calls (no preload involved),
# that the library was loaded inside a run: it creates the marker file named
# in ADV_MARK (default src/LOADED) relative to the working directory. Only
# inside a run (PALDRON_RUN set), so that paldron itself never trips it.
MARK_C = r"""
#define _GNU_SOURCE
#include <fcntl.h>
#include <stdlib.h>
#include <sys/syscall.h>
#include <unistd.h>
static void mark(void)
{
    if (!getenv("PALDRON_RUN"))
        return;
    const char *m = getenv("ADV_MARK");
    syscall(SYS_openat, AT_FDCWD, m ? m : "src/LOADED", O_WRONLY | O_CREAT, 0644);
}
__attribute__((constructor)) static void adv_ctor(void) { mark(); }
"""
