"""Shared helpers of the real-client tests (tests/clients/test_*.py).

Each test builds a scratch project in /var/tmp (a git repository with
`.paldron.toml`, `src/a.txt` and a `.env` holding a unique canary), starts a
scripted model-API stub (anthropic_stub.py / openai_stub.py) in a private
network namespace that has only loopback, and runs the real client inside that
namespace as the unprivileged user `paldron-test`, with Paldron's hook
configured the way the docs tell users to. What the model "saw" is read from
the stub's request log.

Why `paldron-test` and not root: a routed call runs `paldron exec` as the
client's user, and the sandbox is meant for an unprivileged agent (root hides
rlimits and file modes); it also spares Claude Code's IS_SANDBOX=1 escape
hatch. Why a network namespace: neither client may reach anything but the
stub, whatever telemetry or update check a new version adds.

Reuses tests/integration/harness.py (paths, the test user, SKIP lines).
"""

import json
import os
import re
import shutil
import signal
import subprocess
import sys
import tempfile
import time
import uuid

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.join(HERE, "..", "integration"))

from harness import PALDRON, RUN_PATH, skip, unprivileged_user  # noqa: E402 (after the insert)

CLIENTS_DIR = os.environ.get("PALDRON_CLIENTS_DIR") or "/var/cache/paldron-clients"
# The same policy as issue 12's reproduction, minus the programs these tests
# never call: `.env` is denied by a glob, writes go to src/ only.
POLICY = """allow_paths = ["src/"]
deny_globs = [".env", ".env.*", "*.pem", "**/secrets/**"]
allow_network = false
allow_binaries = ["ls", "cat", "git", "python3", "sh", "echo", "grep", "find", "sed"]
"""
A_TXT = "hello from src/a.txt\nsecond line\n"
CLIENT_TIMEOUT = 120  # one client run; each of ours takes a few seconds

_installed = {}  # client name -> (ok, path or reason), once per process


def client(test, name):
    """The path of client `name` ("claude-code" or "codex"), installed into
    (or found in) the cache by install.sh; SKIP with the reason otherwise."""
    if name not in _installed:
        script = os.path.join(HERE, "install.sh")
        try:
            p = subprocess.run(["sh", script, CLIENTS_DIR, name], stdout=subprocess.PIPE,
                               stderr=subprocess.PIPE, timeout=900)
        except (OSError, subprocess.TimeoutExpired) as e:
            _installed[name] = (False, "install.sh did not finish: %s" % e)
        else:
            if p.returncode != 0:
                why = p.stderr.decode(errors="replace").strip().splitlines()
                _installed[name] = (False, "%s not installable into %s: %s" % (
                    name, CLIENTS_DIR, why[-1] if why else "exit %d" % p.returncode))
            else:
                _, version, path = p.stdout.decode().split()
                print("%s %s (%s)" % (name, version, path), file=sys.stderr)
                _installed[name] = (True, path)
    ok, val = _installed[name]
    if not ok:
        skip(test, val)
    return val


def routing_present():
    """True once `paldron exec` has --routed (issue 12's routing hook)."""
    try:
        p = subprocess.run([PALDRON, "exec", "--help"], stdout=subprocess.PIPE,
                           stderr=subprocess.STDOUT, timeout=30)
    except (OSError, subprocess.TimeoutExpired):
        return False
    return b"--routed" in p.stdout


def require_basics(test):
    if os.geteuid() != 0:
        skip(test, "needs root (a network namespace for the stub, the paldron-test user)")
    if shutil.which("unshare") is None or shutil.which("nsenter") is None:
        skip(test, "unshare/nsenter (util-linux) not installed")
    if unprivileged_user() is None:
        skip(test, "cannot create the unprivileged test user")


def hook_command(paldron, policy):
    """The hook line as Paldron documents it: absolute binary, absolute policy,
    and `|| exit 2` so that a hook that cannot even start blocks the call."""
    return "'%s' check --policy '%s' --hook || exit 2" % (paldron, policy)


class Scene:
    """A scratch project plus a home directory, owned by paldron-test."""

    def __init__(self):
        self.user = unprivileged_user()
        self.base = tempfile.mkdtemp(prefix="paldron-clients-", dir="/var/tmp")
        os.chmod(self.base, 0o755)
        self.proj = os.path.join(self.base, "proj")
        self.home = os.path.join(self.base, "home")
        os.makedirs(os.path.join(self.proj, "src"))
        os.makedirs(self.home)
        self.canary = "PALDRON_CANARY_" + uuid.uuid4().hex
        self.write(".paldron.toml", POLICY)
        self.write("src/a.txt", A_TXT)
        self.write(".env", "API_KEY=%s\n" % self.canary)
        subprocess.run(["git", "init", "-q", self.proj], check=True)
        self.policy = os.path.join(self.proj, ".paldron.toml")

    def write(self, rel, text, root=None):
        p = os.path.join(root or self.proj, rel)
        os.makedirs(os.path.dirname(p), exist_ok=True)
        with open(p, "w") as f:
            f.write(text)
        return p

    def own(self):
        for root, dirs, files in os.walk(self.base):
            os.lchown(root, self.user.pw_uid, self.user.pw_gid)
            for n in dirs + files:
                os.lchown(os.path.join(root, n), self.user.pw_uid, self.user.pw_gid)

    def exists(self, rel):
        return os.path.lexists(os.path.join(self.proj, rel))

    def read(self, rel):
        with open(os.path.join(self.proj, rel)) as f:
            return f.read()

    def close(self):
        shutil.rmtree(self.base, ignore_errors=True)


class Stub:
    """A model-API stub in a new network namespace (loopback only)."""

    def __init__(self, scene, module, script):
        self.dir = os.path.join(scene.base, "stub")
        os.makedirs(self.dir, exist_ok=True)
        self.log = os.path.join(self.dir, "requests.jsonl")
        self.err = os.path.join(self.dir, "stub.stderr")
        port_file = os.path.join(self.dir, "port")
        script_file = os.path.join(self.dir, "script.json")
        with open(script_file, "w") as f:
            json.dump(script, f)
        open(self.log, "w").close()
        # unshare execs python3 directly: self.proc.pid is the stub itself,
        # whose network namespace the client joins with nsenter.
        with open(self.err, "w") as err:
            self.proc = subprocess.Popen(
                ["unshare", "--net", "--", sys.executable, os.path.join(HERE, module),
                 "--lo-up", "--script", script_file, "--log", self.log,
                 "--port-file", port_file], stdin=subprocess.DEVNULL,
                stdout=subprocess.DEVNULL, stderr=err)
        deadline = time.monotonic() + 15
        while not os.path.exists(port_file):
            if self.proc.poll() is not None or time.monotonic() > deadline:
                self.stop()
                raise RuntimeError("stub %s did not start:\n%s" % (module, self.stderr()))
            time.sleep(0.05)
        with open(port_file) as f:
            self.port = int(f.read())
        self.url = "http://127.0.0.1:%d" % self.port

    def stderr(self):
        try:
            with open(self.err) as f:
                return f.read()
        except OSError:
            return ""

    def raw(self):
        with open(self.log) as f:
            return f.read()

    def requests(self):
        return [json.loads(line) for line in self.raw().splitlines() if line.strip()]

    def summary(self):
        lines = []
        for r in self.requests():
            b = r.get("body")
            size = len(json.dumps(b)) if b is not None else 0
            lines.append("%s %s -> %s (%d bytes)" % (r["method"], r["path"], r.get("note"), size))
        return "\n".join(lines) or "(no request reached the stub)"

    def stop(self):
        if self.proc.poll() is None:
            self.proc.send_signal(signal.SIGTERM)
            try:
                self.proc.wait(timeout=10)
            except subprocess.TimeoutExpired:
                self.proc.kill()
                self.proc.wait()


class Run:
    """One client run: exit code, output, and everything needed to explain a
    failed assertion (report()). extra_logs: (path, regex or None) pairs -
    a client's debug log, filtered to the lines that matter."""

    def __init__(self, code, out, err, stub, extra_logs=()):
        self.code = code
        self.out = out
        self.err = err
        self.stub = stub
        self.extra_logs = list(extra_logs)

    def report(self):
        parts = ["client exit %s" % self.code,
                 "--- client stdout\n" + self.out[-6000:],
                 "--- client stderr\n" + self.err[-6000:],
                 "--- stub requests\n" + self.stub.summary()]
        serr = self.stub.stderr().strip()
        if serr:
            parts.append("--- stub stderr\n" + serr[-3000:])
        for path, pattern in self.extra_logs:
            try:
                with open(path, errors="replace") as f:
                    lines = f.read().splitlines()
            except OSError as e:
                lines = ["(unreadable: %s)" % e]
            if pattern is not None:
                lines = [ln for ln in lines if re.search(pattern, ln)]
            parts.append("--- %s (%s)\n%s" % (path, "lines matching %r" % pattern
                                                if pattern else "tail",
                                                "\n".join(lines[-60:])[-8000:]))
        return "\n".join(parts)


def run_in_stub_netns(stub, scene, argv, env, cwd, input=None, timeout=CLIENT_TIMEOUT):
    """Run argv as paldron-test inside the stub's network namespace."""
    scene.own()
    u = scene.user
    cmd = (["nsenter", "--target", str(stub.proc.pid), "--net", "--",
            "setpriv", "--reuid", str(u.pw_uid), "--regid", str(u.pw_gid), "--clear-groups",
            "--", "env", "-i"] + ["%s=%s" % kv for kv in sorted(env.items())] + list(argv))
    try:
        p = subprocess.run(cmd, cwd=cwd, stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                           input=input.encode() if isinstance(input, str) else input,
                           stdin=None if input is not None else subprocess.DEVNULL,
                           timeout=timeout)
        return p.returncode, p.stdout.decode("utf-8", "replace"), p.stderr.decode(
            "utf-8", "replace")
    except subprocess.TimeoutExpired as e:
        out = (e.stdout or b"").decode("utf-8", "replace")
        err = (e.stderr or b"").decode("utf-8", "replace")
        return -1, out, err + "\n(timed out after %ds)" % timeout


def base_env(scene):
    u = scene.user
    return {"PATH": RUN_PATH, "HOME": scene.home, "USER": u.pw_name, "LOGNAME": u.pw_name,
            "LANG": "C.UTF-8", "TERM": "dumb"}


def verbose(label, text):
    """PALDRON_CLIENTS_VERBOSE=1 prints what the model was shown (how the
    README's "what the model reads" lines were captured)."""
    if os.environ.get("PALDRON_CLIENTS_VERBOSE"):
        print("[%s] %s" % (label, json.dumps(text)), file=sys.stderr)


_REMINDER = re.compile(r"\s*<system-reminder>.*?</system-reminder>\s*", re.S)


def strip_reminders(text):
    """Claude Code appends <system-reminder> blocks to tool results."""
    return _REMINDER.sub("", text)
