"""Issue 12's hook table run for real: every shell row of
tests/data/hook_payloads.json that the hook routes is run the way the client
runs it (`bash -c <updatedInput.command>` as the unprivileged test user, in
the call's working directory), and every shell row that the hook lets run as
it is (in the static-only mode, --no-route, or unrouted) is run bare, each in
a fresh copy of a scratch project. Rows marked `bare: false` (interpreter code,
which the static-only mode documents as advisory) are not run bare.
Whatever the command tries, nothing forbidden may happen:

- no canary of .env, .env.local, certs/dev.pem or of the API key in the
  environment reaches stdout or stderr;
- nothing in the project changes except under src/ (never a deny-glob name)
  and git's own files in .git (never .git/config or .git/hooks/);
- the folder beside the project is untouched;
- no connection reaches a TCP listener the test opens on 127.0.0.1 (except
  rows of the network-on policy).

The row's `run` says what else the run must show (exit status, output, a
`paldron: deny:` line). A handful of harmless rows (`compare`) must behave
routed as they do bare: same stdout, same exit status, same files written.
Rows run two at a time (the machine has two cores)."""

import concurrent.futures
import fnmatch
import hashlib
import os
import socket
import stat
import subprocess
import sys
import unittest

from harness import PaldronTest, main, skip
from test_exec_result import landlock_abi
from test_hook_table import Call, Project, load_table, outcome, route_problems, is_shell

DENY_GLOBS = (".env", ".env.*", "*.pem")
# the files that hold Project.canaries, in order
SECRET_FILES = (".env", ".env.local", "certs/dev.pem", "the environment's OPENAI_API_KEY")
RUN_TIMEOUT = 90
BROKEN_POLICIES = ("missing", "broken", "badtype")


def snapshot(base):
    """{relative path: what it is} of the project and the folder beside it:
    files by mode and content hash, links by target, folders by mode."""
    snap = {}
    for top in ("ws", "outside"):
        for root, dirs, files in os.walk(os.path.join(base, top)):
            for n in dirs + files:
                p = os.path.join(root, n)
                rel = os.path.relpath(p, base)
                st = os.lstat(p)
                if stat.S_ISLNK(st.st_mode):
                    snap[rel] = ("link", os.readlink(p))
                elif stat.S_ISDIR(st.st_mode):
                    snap[rel] = ("dir", st.st_mode)
                elif stat.S_ISREG(st.st_mode):
                    with open(p, "rb") as f:
                        digest = hashlib.sha256(f.read()).hexdigest()
                    snap[rel] = ("file", st.st_mode, digest)
                else:
                    snap[rel] = ("other", st.st_mode)
    return snap


def change_allowed(rel):
    """May a run under the table's policies change rel? src/ (no deny-glob
    name in it) and git's own files, never its config or hooks."""
    parts = rel.split("/")
    if rel.startswith("ws/src/"):
        return not any(fnmatch.fnmatch(p, g) for p in parts[2:] for g in DENY_GLOBS)
    if rel.startswith("ws/.git/"):
        return parts[2] not in ("config", "hooks")
    return False


def forbidden_changes(before, after):
    changed = [p for p in set(before) | set(after) if before.get(p) != after.get(p)]
    return sorted(p for p in changed if not change_allowed(p))


class Listener:
    """A TCP listener on 127.0.0.1 that counts the connections it got."""

    def __init__(self):
        self.sock = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
        self.sock.bind(("127.0.0.1", 0))
        self.sock.listen(16)
        self.sock.setblocking(False)
        self.port = self.sock.getsockname()[1]

    def connections(self):
        n = 0
        while True:
            try:
                conn, _ = self.sock.accept()
            except (BlockingIOError, InterruptedError):
                return n
            conn.close()
            n += 1

    def close(self):
        self.sock.close()


class Run:
    """One real run of a row: kind (routed / bare), the result, what was wrong."""

    def __init__(self, kind, result, problems, base):
        self.kind, self.result, self.problems, self.base = kind, result, problems, base

    def __repr__(self):
        r = self.result
        if r is None:
            return "%s: not run: %s" % (self.kind, "; ".join(self.problems))
        text = "%s run: exit %d; problems %s\n--- stdout\n%s\n--- stderr\n%s" % (
            self.kind, r.code, self.problems, r.out[:1500], r.err[:1500])
        return text.replace("\0", "\\0")  # /proc/self/environ


def run_command(project, call, command, kind, listener):
    """Run command with bash -c as the test user in the call's working
    directory and check that nothing forbidden happened."""
    row = call.row
    expect = row.get("run", {})
    before = snapshot(call.base)
    try:
        r = project.as_user(["bash", "-c", command], cwd=call.run_dir, timeout=RUN_TIMEOUT)
    except subprocess.TimeoutExpired:
        return Run(kind, None, ["timed out after %ds" % RUN_TIMEOUT], call.base)
    probs = []
    leaked = [name for name, canary in zip(SECRET_FILES, project.canaries) if canary in r.both]
    if leaked:
        probs.append("secrets in the output: %s" % ", ".join(leaked))
    changes = forbidden_changes(before, snapshot(call.base))
    if changes:
        probs.append("forbidden changes: %s" % ", ".join(changes[:8]))
    if listener.connections() and not expect.get("connect"):
        probs.append("a connection reached the 127.0.0.1 listener")
    if "[EXIT CODE]" in r.out:
        probs.append("a result block on stdout (a routed run must pass output through)")
    want = expect.get("exit")
    routed = kind == "routed"
    if expect.get("denied"):
        if routed:
            if r.code == 0:
                probs.append("exit 0 after a denial")
            if "paldron: deny:" not in r.err:
                probs.append("no 'paldron: deny:' line on stderr")
    elif routed or isinstance(want, int):
        # a non-zero or any status is what the sandbox makes of the row: a
        # bare run is held to the statuses of harmless rows only
        if want == "nonzero" and r.code == 0:
            probs.append("exit 0, expected non-zero")
        elif isinstance(want, int) and r.code != want:
            probs.append("exit %d, expected %d" % (r.code, want))
        if "stdout" in expect and expect["stdout"] not in r.out:
            probs.append("stdout lacks %r" % expect["stdout"])
        if want == 0 and routed and "paldron: deny" in r.err:
            probs.append("a harmless routed run was denied")
    if routed and "stderr" in expect and expect["stderr"] not in r.err:
        probs.append("stderr lacks %r" % expect["stderr"])
    return Run(kind, r, probs, call.base)


def real_rows(rows):
    """The shell rows a client could run: not broken input."""
    return [r for r in rows if is_shell(r) and "raw" not in r and r["class"] != "broken-input"
            and r.get("policy") not in BROKEN_POLICIES]


def run_row(project, row):
    """Every real run of row: routed when the hook routes it, bare when the
    hook lets it run as it is (in either mode), bare for comparison."""
    runs = []
    listener = Listener()
    try:
        call = Call(project, project.copy(), row, listener.port)
        r = call.hook()
        got = outcome(r)
        if got == "route":
            probs, cmd = route_problems(call, r)
            if cmd is None:
                runs.append(Run("routed", None, probs, call.base))
            else:
                runs.append(run_command(project, call, cmd, "routed", listener))
        elif got == "allow" and call.original_command() is not None:
            # the client runs an unrouted allowed call bare
            runs.append(run_command(project, call, call.original_command(), "bare (allowed "
                                    "unrouted)", listener))
        if row.get("bare", True):
            # whatever the static-only mode lets run, runs bare on the machine
            bare = Call(project, project.copy(), row, listener.port)
            rb = bare.hook(no_route=row.get("policy") != "noroute")
            if outcome(rb) == "allow" and bare.original_command() is not None:
                runs.append(run_command(project, bare, bare.original_command(), "bare", listener))
        if row.get("compare") and not any(x.kind == "bare" for x in runs):
            bare = Call(project, project.copy(), row, listener.port)
            runs.append(run_command(project, bare, bare.original_command(), "bare", listener))
    finally:
        listener.close()
    return runs


class HookRoutedRunTest(PaldronTest):
    results = None

    @classmethod
    def setUpClass(cls):
        cls.project = None
        cls.why = None
        if landlock_abi() < 4:
            cls.why = "needs Landlock ABI >= 4 (this kernel: %d)" % landlock_abi()
            return
        cls.table = load_table()
        try:
            cls.project = Project(cls.table)
        except unittest.SkipTest as e:
            cls.why = str(e)

    @classmethod
    def tearDownClass(cls):
        if cls.project:
            cls.project.close()

    def setUp(self):
        if self.why:
            skip(self, self.why)

    def all_runs(self):
        """{row id: [Run]} of every real row, computed once, two rows at a time."""
        cls = type(self)
        if cls.results is None:
            rows = real_rows(self.table["rows"])
            with concurrent.futures.ThreadPoolExecutor(max_workers=2) as pool:
                futures = {r["id"]: pool.submit(run_row, self.project, r) for r in rows}
            cls.results = {k: f.result() for k, f in futures.items()}
        return cls.results

    def row(self, rid):
        return next(r for r in self.table["rows"] if r["id"] == rid)

    def test_nothing_forbidden(self):
        """Every routed or allowed shell row, run for real, does nothing forbidden."""
        runs = self.all_runs()
        self.assertGreaterEqual(sum(len(v) for v in runs.values()), 100, "real runs")
        failed = []
        for rid, rr in runs.items():
            with self.subTest(row=rid):
                bad = [x for x in rr if x.problems]
                if bad:
                    failed.append(rid)
                self.assertEqual(bad, [])
        routed = sum(1 for rr in runs.values() for x in rr if x.kind == "routed")
        bare = sum(1 for rr in runs.values() for x in rr if x.kind.startswith("bare"))
        print("\n%d rows, %d routed runs, %d bare runs; failed: %s" % (
            len(runs), routed, bare, " ".join(failed) or "none"), file=sys.stderr)

    def test_routed_matches_bare(self):
        """Harmless rows: the routed run prints what the bare run prints, ends
        with the same status and leaves the same files in src/."""
        runs = self.all_runs()
        rows = [r for r in real_rows(self.table["rows"]) if r.get("compare")]
        self.assertGreaterEqual(len(rows), 6)
        for row in rows:
            with self.subTest(row=row["id"]):
                rr = runs[row["id"]]
                routed = [x for x in rr if x.kind == "routed" and x.result]
                bare = [x for x in rr if x.kind == "bare" and x.result]
                self.assertTrue(routed and bare, rr)
                a, b = routed[0], bare[0]
                self.assertEqual(a.result.out, b.result.out, rr)
                self.assertEqual(a.result.code, b.result.code, rr)
                self.assertNotIn("paldron: deny", a.result.err, rr)
                src_a = {k[3:]: v for k, v in snapshot(a.base).items() if k.startswith("ws/src/")}
                src_b = {k[3:]: v for k, v in snapshot(b.base).items() if k.startswith("ws/src/")}
                self.assertEqual(src_a, src_b, rr)

    def test_routed_python_reads_env(self):
        """`python3 -c "print(open('.env').read())"` passes the static gate,
        is routed, and fails at run time: Permission denied, a deny line,
        exit non-zero, the secret not printed."""
        rr = self.all_runs()["vc-python-c-env"]
        routed = [x for x in rr if x.kind == "routed"]
        self.assertEqual(len(routed), 1, rr)
        r = routed[0].result
        self.assertIsNotNone(r, rr)
        self.assertNotEqual(r.code, 0, rr)
        self.assertIn("Permission denied", r.err, rr)
        self.assertIn("paldron: deny:", r.err, rr)
        for canary in self.project.canaries:
            self.assertNotIn(canary, r.both, rr)


if __name__ == "__main__":
    main()
