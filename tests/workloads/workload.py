"""Shared fixture of the workload suite (README.md beside this file).

Every job is a shell script run twice on the same scratch project, as the
unprivileged test user: once bare, once under `paldron exec` with a realistic
policy. Both runs start from the same pristine copy of the project, at the same
absolute path, so the two results can be compared byte for byte: the exit
status, and a manifest of the resulting files (relative path, type, mode, size,
content hash, link target; caches and timestamps left out).

A job passes when the bare run succeeds, the run under exec ends with the
same exit status and verdict allow (paldron exit 0, no `paldron: deny` line),
and the two manifests are equal."""

import difflib
import fnmatch
import hashlib
import os
import re
import shutil
import stat
import subprocess
import sys
import time
import unittest

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.join(HERE, "..", "integration"))

import harness  # noqa: E402
from harness import PALDRON, RUN_PATH, PaldronTest, Workspace, skip  # noqa: E402,F401
from test_exec_result import landlock_abi  # noqa: E402

# Names never compared, at any depth: caches.
IGNORE_NAMES = {"__pycache__", ".pytest_cache", ".mypy_cache", ".cache"}
IGNORE_SUFFIXES = (".pyc", ".pyo")

# Run at the start of every job, inside the job's own shell: the settings that
# make two runs of the same job produce the same bytes (fixed commit dates), set
# by the job itself so that Paldron's environment filter cannot change them.
PRELUDE = """set -e
export TZ=UTC LC_ALL=C.UTF-8
export GIT_AUTHOR_NAME='Work Load' GIT_AUTHOR_EMAIL=wl@example.invalid
export GIT_COMMITTER_NAME='Work Load' GIT_COMMITTER_EMAIL=wl@example.invalid
export GIT_AUTHOR_DATE='2024-01-02T03:04:05Z' GIT_COMMITTER_DATE='2024-01-02T03:04:05Z'
export GIT_CONFIG_NOSYSTEM=1
"""

POLICY = """allow_paths = ["."]
deny_globs = [".env", "*.pem"]
allow_network = false
allow_binaries = [%(binaries)s]
timeout_sec = %(timeout)d
cpu_time_sec = %(timeout)d
%(extra)s"""


def which(name):
    """The program `name` along the harness's fixed PATH, or None."""
    return shutil.which(name, path=RUN_PATH)


def manifest(root, volatile=(), ignore=()):
    """{relative path: (type, mode, size, sha256, link target)} of the tree.

    volatile: fnmatch patterns (on the relative path; `*` spans `/`) whose
    content holds stat data or times; only their type and mode are kept.
    ignore: patterns left out entirely (with everything under them)."""
    out = {}
    for dirpath, dirs, files in os.walk(root):
        rel_dir = os.path.relpath(dirpath, root)
        keep = []
        for d in sorted(dirs):
            rel = os.path.normpath(os.path.join(rel_dir, d))
            if d in IGNORE_NAMES or any(fnmatch.fnmatch(rel, p) for p in ignore):
                continue
            full = os.path.join(dirpath, d)
            if os.path.islink(full):
                files.append(d)     # a link to a directory: an entry, not walked
                continue
            st = os.lstat(full)
            out[rel] = ("dir", oct(stat.S_IMODE(st.st_mode)), None, None, None)
            keep.append(d)
        dirs[:] = keep
        for n in sorted(files):
            rel = os.path.normpath(os.path.join(rel_dir, n))
            if n.endswith(IGNORE_SUFFIXES) or any(fnmatch.fnmatch(rel, p) for p in ignore):
                continue
            full = os.path.join(dirpath, n)
            st = os.lstat(full)
            mode = oct(stat.S_IMODE(st.st_mode))
            if stat.S_ISLNK(st.st_mode):
                out[rel] = ("link", None, None, None, os.readlink(full))
            elif stat.S_ISREG(st.st_mode):
                if any(fnmatch.fnmatch(rel, p) for p in volatile):
                    out[rel] = ("file", mode, None, None, None)
                    continue
                h = hashlib.sha256()
                with open(full, "rb") as f:
                    for chunk in iter(lambda: f.read(1 << 20), b""):
                        h.update(chunk)
                out[rel] = ("file", mode, st.st_size, h.hexdigest()[:16], None)
            elif stat.S_ISFIFO(st.st_mode):
                out[rel] = ("fifo", mode, None, None, None)
            elif stat.S_ISSOCK(st.st_mode):
                out[rel] = ("socket", mode, None, None, None)
            else:
                out[rel] = ("other", mode, None, None, None)
    return out


def small_text(path):
    try:
        if os.path.islink(path) or os.path.getsize(path) > 8192:
            return None
        with open(path, "rb") as f:
            data = f.read()
        return data.decode("utf-8").splitlines() if b"\0" not in data else None
    except (OSError, UnicodeDecodeError):
        return None


def manifest_diff(bare, sandboxed, limit=25, bare_root=None, exec_root=None):
    """Lines naming every difference between two manifests (at most limit);
    with both roots, small text files that differ are shown as a diff."""
    lines = []
    for rel in sorted(set(bare) | set(sandboxed)):
        a, b = bare.get(rel), sandboxed.get(rel)
        if a == b:
            continue
        if b is None:
            lines.append("  missing under exec: %s %s" % (rel, fmt_entry(a)))
        elif a is None:
            lines.append("  only under exec:    %s %s" % (rel, fmt_entry(b)))
        else:
            lines.append("  differs:            %s bare %s, exec %s" % (rel, fmt_entry(a), fmt_entry(b)))
            if bare_root and exec_root:
                ta = small_text(os.path.join(bare_root, rel))
                tb = small_text(os.path.join(exec_root, rel))
                if ta is not None and tb is not None:
                    d = list(difflib.unified_diff(ta, tb, "bare", "exec", lineterm="", n=0))[2:]
                    lines.extend("      " + l for l in d[:12])
    if len(lines) > limit:
        lines = lines[:limit] + ["  ... and %d more" % (len(lines) - limit)]
    return lines


def fmt_entry(e):
    kind, mode, size, digest, target = e
    if kind == "link":
        return "link -> %s" % target
    parts = [kind, mode or ""]
    if size is not None:
        parts.append("%d bytes" % size)
    if digest:
        parts.append(digest)
    return " ".join(p for p in parts if p)


EXIT_RE = re.compile(r"^\[EXIT CODE\] (\d+)", re.M)
PALDRON_LINE_RE = re.compile(r"^paldron: .*$", re.M)


class Run:
    def __init__(self, code, out, err, seconds):
        self.code, self.out, self.err, self.seconds = code, out, err, seconds
        self.both = out + err

    def inner_code(self):
        """The command's own exit status from the result block (last one)."""
        found = EXIT_RE.findall(self.out)
        return int(found[-1]) if found else None

    def inner_stderr(self):
        """The command's own stderr from the result block ("" if none)."""
        m = re.search(r"^\[STDERR\]\n(.*?)\n?\[EXIT CODE\]", self.out, re.M | re.S)
        return m.group(1) if m else ""

    def paldron_lines(self):
        return PALDRON_LINE_RE.findall(self.both)


def tail(text, n=25):
    lines = text.rstrip("\n").splitlines()
    if len(lines) > n:
        lines = ["..."] + lines[-n:]
    return "\n".join("    | " + l for l in lines)


class WorkloadTest(PaldronTest):
    """A scratch project (self.ws.path) owned by the test user; job() runs a
    script there bare and under exec and compares."""

    maxDiff = None

    def setUp(self):
        if landlock_abi() < 4:
            skip(self, "needs Landlock ABI >= 4 (this kernel: %d)" % landlock_abi())
        try:
            self.ws = Workspace(as_user=True)
        except unittest.SkipTest as e:
            skip(self, str(e))
        self.addCleanup(self.ws.close)
        self.uid = self.ws.user.pw_uid

    # -- project layout -------------------------------------------------
    def p(self, rel=""):
        return os.path.join(self.ws.path, rel) if rel else self.ws.path

    def files(self, mapping):
        """Write {relative path: text} into the project."""
        for rel, text in mapping.items():
            mode = None
            if isinstance(text, tuple):
                text, mode = text
            self.ws.write(rel, text, mode=mode)

    def need(self, *programs):
        """Skip (with the SKIP line) unless every program is on PATH.
        tests/setup.sh installs them all, so this only fires on a machine set
        up some other way."""
        for prog in programs:
            if not which(prog):
                skip(self, "%s is not installed (tests/setup.sh installs it)" % prog)

    def as_user(self, argv, cwd=None, env=None, timeout=300):
        """Run argv as the test user in the project (setup steps, not judged)."""
        u = self.ws.user
        cmd = ["setpriv", "--reuid", str(u.pw_uid), "--regid", str(u.pw_gid),
               "--clear-groups"] + list(argv)
        self.ws._own()
        p = subprocess.run(cmd, cwd=cwd or self.p(), env=self.ws.env(env),
                           stdin=subprocess.DEVNULL, stdout=subprocess.PIPE,
                           stderr=subprocess.PIPE, timeout=timeout)
        if p.returncode != 0:
            self.fail("setup step %r failed (%d):\n%s%s" % (argv, p.returncode,
                      p.stdout.decode(errors="replace"), p.stderr.decode(errors="replace")))
        return p.stdout.decode(errors="replace")

    # -- the two runs ---------------------------------------------------
    def policy_text(self, binaries, timeout, extra):
        return POLICY % {
            "binaries": ", ".join('"%s"' % b for b in binaries),
            "timeout": timeout,
            "extra": "".join("%s = %s\n" % kv for kv in extra.items()),
        }

    def run_bare(self, script, env, timeout):
        u = self.ws.user
        self.ws._own()
        cmd = ["setpriv", "--reuid", str(u.pw_uid), "--regid", str(u.pw_gid),
               "--clear-groups", "sh", "-c", script]
        t0 = time.monotonic()
        try:
            p = subprocess.run(cmd, cwd=self.p(), env=self.ws.env(env),
                               stdin=subprocess.DEVNULL, stdout=subprocess.PIPE,
                               stderr=subprocess.PIPE, timeout=timeout + 30)
        except subprocess.TimeoutExpired:
            self.fail("the bare run timed out after %ds: the job itself is broken" % timeout)
        return Run(p.returncode, p.stdout.decode("utf-8", "replace"),
                   p.stderr.decode("utf-8", "replace"), time.monotonic() - t0)

    def run_exec(self, script, binaries, env, timeout, extra):
        pol = self.ws.policy(self.policy_text(binaries, timeout, extra))
        t0 = time.monotonic()
        try:
            r = self.ws.run(["exec", "--policy", pol, "--", "sh", "-c", script],
                            env=env, timeout=timeout + 60)
        except subprocess.TimeoutExpired:
            self.fail("paldron exec did not end %ds after the policy's timeout" % 60)
        return Run(r.code, r.out, r.err, time.monotonic() - t0)

    def job(self, script, binaries, env=None, volatile=(), ignore=(), timeout=300,
            extra=None, check=None, prelude=True):
        """Run script bare and under exec from the same pristine project;
        assert same exit status, verdict allow and same files.

        binaries: allow_binaries (every program the job starts, "sh" added);
        volatile/ignore: see manifest(); extra: more policy keys {key: toml};
        check(root): an optional extra assertion on the bare result tree;
        prelude=False: the script runs as written (it must then be deterministic)."""
        name = self.id().rsplit(".", 1)[-1]
        binaries = ["sh"] + [b for b in binaries if b != "sh"]
        if prelude:
            script = PRELUDE + script
        pristine = os.path.join(self.ws.base, "pristine")
        self.ws._own()
        subprocess.run(["cp", "-a", self.p(), pristine], check=True)

        bare = self.run_bare(script, env, timeout)
        if bare.code != 0:
            self.fail("%s: the bare run failed (exit %d): the job itself is broken\n%s\n%s"
                      % (name, bare.code, tail(bare.out), tail(bare.err)))
        if check:
            check(self.p())
        m_bare = manifest(self.p(), volatile, ignore)

        bare_tree = os.path.join(self.ws.base, "bare-result")
        os.rename(self.p(), bare_tree)
        subprocess.run(["cp", "-a", pristine, self.p()], check=True)
        sand = self.run_exec(script, binaries, env, timeout, extra or {})
        m_exec = manifest(self.p(), volatile, ignore)
        print("WORKLOAD %s: bare %.2fs, exec %.2fs, %d files" % (name, bare.seconds, sand.seconds,
              len(m_bare)), file=sys.stderr)
        for line in sorted(set(sand.paldron_lines())):
            if not line.startswith(("paldron: deny", "paldron: command exited")):
                print("  " + line, file=sys.stderr)    # e.g. blocked, coverage: for the log

        problems = []
        inner = sand.inner_code()
        if sand.code != 0:
            problems.append("paldron exited %d (want 0, allow)" % sand.code)
        if inner != bare.code:
            problems.append("command exit status under exec %s, bare %d" % (inner, bare.code))
        denies = [l for l in sand.paldron_lines() if l.startswith("paldron: deny")]
        if denies:
            problems.append("deny lines:\n" + "\n".join("    " + l for l in denies))
        # what the command printed on stderr under exec that it did not print
        # bare (numbers aside): a warning of a broken tool, e.g. a thread that
        # could not start
        norm = lambda t: {re.sub(r"\d+", "N", l).rstrip() for l in t.splitlines() if l.strip()}
        new_err = sorted(norm(sand.inner_stderr()) - norm(bare.err))
        if new_err:
            problems.append("stderr lines not printed bare:\n" + "\n".join(
                "    " + l for l in new_err[:10]))
        diff = manifest_diff(m_bare, m_exec, bare_root=bare_tree, exec_root=self.p())
        if diff:
            problems.append("files differ from the bare run:\n" + "\n".join(diff))
        if problems:
            others = [l for l in sand.paldron_lines() if not l.startswith("paldron: deny")]
            msg = "%s under paldron exec is not transparent:\n- %s" % (name, "\n- ".join(problems))
            if others:
                msg += "\nother paldron lines:\n" + "\n".join("    " + l for l in others)
            msg += "\nexec stdout (tail):\n%s\nexec stderr (tail):\n%s" % (tail(sand.out, 40),
                                                                        tail(sand.err, 15))
            self.fail(msg)
        return bare, sand


def main():
    harness.main()
