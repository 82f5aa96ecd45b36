"""Refusals by the kernel layers are reported (issue 14, item 3): a call the
live gate let through and Landlock, the seccomp filter or the namespace floor
refused is recorded by the preload, which sees the real call's error, as

    paldron: blocked: <program> <op> <path> (<layer>: <why>) [live] (<narrow fix>)

in the verdict lines, in --log (kind "blocked", rule.key the layer), in the
PALDRON_DEBUG=1 trace and in --audit (with the smallest change), and counted:
"paldron: N call(s) blocked by the kernel layers". It is information, not a
denial, unless strict = true. A call the file permissions refuse (as they would
bare) is never blamed on the sandbox, and the caller sees the kernel's error
unchanged. A static program (no preload) reports nothing: the coverage line
says it ran on the kernel layers only.

Run for real as the unprivileged test user. The paths reach the command
through the environment or `sh -c`, so that the argv gate does not refuse
them before the kernel layers are reached."""

import errno
import json
import os
import re
import shutil
import socket
import subprocess
import tempfile

from harness import PALDRON, RUN_PATH, main, skip
from test_exec_result import PROBE_DIR, ExecBase, example_policy

READ_ERRNO = """import os, sys
try:
    open(os.environ["F"]).read()
    print("errno 0")
except OSError as e:
    print("errno", e.errno)
"""

COUNT = re.compile(r"paldron: (\d+) call\(s\) blocked by the kernel layers")


class KernelBase(ExecBase):
    def setUp(self):
        super().setUp()
        # a file outside every readable root, that the user may read
        self.notes = os.path.join(self.ws.outside, "notes.txt")
        with open(self.notes, "w") as f:
            f.write("notes\n")
        self.ws.write("src/read.py", READ_ERRNO)

    def read(self, path, policy=None, opts=(), env=None):
        e = {"F": path}
        e.update(env or {})
        return self.exec(["python3", "src/read.py"], policy=policy, opts=opts, env=e)

    def errno_of(self, r):
        m = re.search(r"\[STDOUT\]\nerrno (\d+)\n", r.out)
        self.assertIsNotNone(m, repr(r))
        return int(m.group(1))

    def count(self, r):
        m = COUNT.search(r.err)
        return int(m.group(1)) if m else 0

    def bare(self, code, env):
        """Run python3 -c code as the test user without paldron."""
        u = self.ws.user
        e = {"PATH": RUN_PATH, "HOME": u.pw_dir, "LANG": "C.UTF-8"}
        e.update(env)
        p = subprocess.run(["setpriv", "--reuid", str(u.pw_uid), "--regid", str(u.pw_gid),
                            "--clear-groups", "python3", "-c", code], env=e, cwd=self.ws.path,
                           stdout=subprocess.PIPE, stderr=subprocess.PIPE, timeout=60)
        return p.stdout.decode()


class LandlockTest(KernelBase):
    def test_read_outside_the_readable_roots(self):
        r = self.read(self.notes)
        line = ("paldron: blocked: python3 read %s (landlock: outside the readable roots) "
                "[live] (add \"%s\" to read_paths)" % (self.notes, self.ws.outside))
        self.assertRun(r, 0, line, "paldron: 1 call(s) blocked by the kernel layers",
                       "[EXIT CODE] 0 (success)", absent=["paldron: deny"])
        # the caller sees the kernel's error
        self.assertEqual(self.errno_of(r), errno.EACCES, r)
        # and the same read bare succeeds: it is the sandbox's refusal
        self.assertEqual(self.bare(READ_ERRNO, {"F": self.notes}).strip(), "errno 0")

    def test_cat_in_the_home_has_no_narrow_fix(self):
        # the user's home itself is never advised: the line has no fix
        home = self.ws.user.pw_dir
        path = os.path.join(home, "paldron-kernel-notes.txt")
        with open(path, "w") as f:
            f.write("x\n")
        os.chown(path, self.uid, self.ws.user.pw_gid)
        self.addCleanup(os.unlink, path)
        r = self.exec(["sh", "-c", 'cat "$F"; echo "cat=$?"'],
                      policy=example_policy(binaries=["sh", "cat"]), env={"F": path})
        self.assertRun(r, 0, "cat=1", "Permission denied",
                       "paldron: blocked: cat read %s (landlock: outside the readable roots) "
                       "[live]\n" % path, absent=["to read_paths"])
        r = self.exec(["sh", "-c", 'cat "$F"'], policy=example_policy(binaries=["sh", "cat"]),
                      env={"F": path}, opts=["--audit"])
        self.assertRun(r, 1, "paldron: audit: blocked by the kernel: cat read %s "
                       "(landlock: outside the readable roots) [live]\n"
                       "paldron: audit:   smallest change: none narrow" % path)

    def test_exec_outside_the_exec_roots(self):
        # no allow_binaries: programs run from the system folders, the
        # writable roots and the command itself; tools/ is only readable
        self.ws.write("tools/t.sh", "#!/bin/sh\necho ran\n", mode=0o755)
        pol = example_policy(binaries=[]).replace("allow_binaries = []\n", "")
        r = self.exec(["sh", "-c", "./tools/t.sh; echo rc=$?"], policy=pol)
        self.assertRun(r, 0, "rc=126", "paldron: blocked: sh exec %s (landlock: outside the "
                       "exec roots) [live]\n" % self.p("tools/t.sh"),
                       "paldron: 1 call(s) blocked by the kernel layers", absent=["ran\n"])
        # with --audit: why there is no narrow change
        r = self.exec(["sh", "-c", "./tools/t.sh"], policy=pol, opts=["--audit"])
        self.assertRun(r, 1, "paldron: audit:   smallest change: none narrow: programs run "
                       "from the system folders, the writable roots and the command itself")

    def test_exec_floor_under_audit(self):
        # allow_binaries set: the live gate only logs, the kernel floor still
        # refuses id; both are said, with the single binary to add
        r = self.exec(["sh", "-c", "id -u; echo rc=$?"], policy=example_policy(binaries=["sh"]),
                      opts=["--audit"])
        self.assertRun(r, 0, "rc=126",
                       "paldron: audit: would deny: sh exec /usr/bin/id (not in allow_binaries)",
                       "paldron: audit: blocked by the kernel: sh exec /usr/bin/id (landlock: "
                       "outside the exec roots) [live]\n"
                       "paldron: audit:   smallest change: add \"id\" to allow_binaries\n")
        self.assertGreaterEqual(self.count(r), 1, r)

    def test_log_debug_and_strict(self):
        log = os.path.join(self.ws.base, "run.jsonl")
        r = self.read(self.notes, opts=["--log", log], env={"PALDRON_DEBUG": "1"})
        self.assertRun(r, 0, "paldron-preload[", "]: python3 read %s -> blocked (landlock: "
                       "outside the readable roots)" % self.notes)
        with open(log) as f:
            recs = [json.loads(line) for line in f]
        blocked = [x for x in recs if x["kind"] == "blocked"]
        self.assertEqual(len(blocked), 1, recs)
        rec = blocked[0]
        self.assertEqual((rec["op"], rec["path"], rec["resolved"], rec["rule"]["key"],
                          rec["reason"], rec["program"]),
                         ("read", self.notes, self.notes, "landlock",
                          "landlock: outside the readable roots", "python3"))
        # strict = true: the refusal denies the run
        r = self.read(self.notes, policy=example_policy(strict=True))
        self.assertRun(r, 2, "paldron: deny: python3 read %s (landlock: outside the readable "
                       "roots) [live]" % self.notes,
                       "paldron: 1 call(s) blocked by the kernel layers (strict = true")


class PermissionTest(KernelBase):
    """The file permissions refuse, as they would bare: nothing is blamed."""

    def root_file(self, path):
        with open(path, "w") as f:
            f.write("root only\n")
        os.chmod(path, 0o600)
        own = self.ws._own

        def own_but_this():  # the harness gives the user everything in the base
            own()
            os.chown(path, 0, 0)
        self.ws._own = own_but_this
        own_but_this()

    def test_root_file_in_the_workspace(self):
        path = self.p("src/root.txt")
        self.root_file(path)
        r = self.read(path)
        self.assertRun(r, 0, "[EXIT CODE] 0 (success)",
                       absent=["paldron: blocked", "blocked by the kernel"])
        self.assertEqual(self.errno_of(r), errno.EACCES)
        # the same errno bare
        self.assertEqual(self.bare(READ_ERRNO, {"F": path}).strip(), "errno %d" % errno.EACCES)

    def test_root_file_outside_the_roots(self):
        # Landlock would refuse it too, but so do the permissions: not blamed
        path = os.path.join(self.ws.outside, "root.txt")
        self.root_file(path)
        r = self.read(path, env={"PALDRON_DEBUG": "1"})
        self.assertRun(r, 0, absent=["paldron: blocked", "-> blocked", "blocked by the kernel"])
        self.assertEqual(self.errno_of(r), errno.EACCES)
        self.assertEqual(self.bare(READ_ERRNO, {"F": path}).strip(), "errno %d" % errno.EACCES)

    def test_missing_file_is_no_refusal(self):
        r = self.read(os.path.join(self.ws.outside, "missing.txt"))
        self.assertRun(r, 0, absent=["paldron: blocked"])
        self.assertEqual(self.errno_of(r), errno.ENOENT)


class TmpWorkspaceTest(KernelBase):
    def test_workspace_under_tmp_is_read_only_outside_the_roots(self):
        # the private /tmp binds a workspace under /tmp back read-only bar its
        # writable roots: the EROFS is the namespace's, said with the fix
        u = self.ws.user
        d = tempfile.mkdtemp(prefix="paldron-kr-", dir="/tmp")
        try:
            os.makedirs(os.path.join(d, "src"))
            with open(os.path.join(d, "policy.toml"), "w") as f:
                f.write('allow_paths = ["src/"]\nallow_binaries = ["python3"]\n')
            for root, dirs, files in os.walk(d):
                for n in dirs + files + ["."]:
                    os.chown(os.path.join(root, n), u.pw_uid, u.pw_gid)
            os.chmod(d, 0o755)
            code = ("import os\ntry:\n    os.mkdir('.cache_dir')\nexcept OSError as e:\n"
                    "    print('errno', e.errno)\nopen('src/ok.txt', 'w').write('x')\n")
            e = {"PATH": RUN_PATH, "HOME": u.pw_dir, "LANG": "C.UTF-8"}
            p = subprocess.run(["setpriv", "--reuid", str(u.pw_uid), "--regid", str(u.pw_gid),
                                "--clear-groups", PALDRON, "exec", "--policy", "policy.toml",
                                "--", "python3", "-c", code], env=e, cwd=d,
                               stdout=subprocess.PIPE, stderr=subprocess.PIPE, timeout=120)
            out, err = p.stdout.decode(), p.stderr.decode()
            self.assertEqual(p.returncode, 0, out + err)
            self.assertIn("errno %d" % errno.EROFS, out)
            self.assertIn("paldron: blocked: python3 create .cache_dir (namespace: read-only) "
                          "[live] (add \".cache_dir/\" to allow_paths)", err)
            self.assertIn("paldron: 1 call(s) blocked by the kernel layers", err)
            self.assertTrue(os.path.exists(os.path.join(d, "src", "ok.txt")), err)
        finally:
            shutil.rmtree(d, ignore_errors=True)


class SeccompTest(KernelBase):
    def test_socket_with_the_network_off(self):
        # no namespaces: the seccomp filter refuses IP sockets (EPERM), once
        # said per process and family however often the program retries
        code = ("import socket\nfor i in range(3):\n    try:\n"
                "        socket.socket(socket.AF_INET, socket.SOCK_STREAM)\n"
                "    except OSError as e:\n        print('errno', e.errno)\n")
        self.ws.write("src/sock.py", code)
        pol = example_policy(namespaces=False)
        r = self.exec(["python3", "src/sock.py"], policy=pol)
        self.assertRun(r, 0, "errno %d\nerrno %d\nerrno %d\n" % ((errno.EPERM,) * 3),
                       "paldron: blocked: python3 socket AF_INET (seccomp: network off) [live]\n",
                       "paldron: 1 call(s) blocked by the kernel layers", absent=["paldron: deny"])
        self.assertEqual(r.err.count("(seccomp: network off)"), 1, r)
        r = self.exec(["python3", "src/sock.py"], policy=pol, opts=["--audit"])
        self.assertRun(r, 0, "paldron: audit: blocked by the kernel: python3 socket AF_INET "
                       "(seccomp: network off) [live]\npaldron: audit:   smallest change: "
                       "none narrow", absent=["set allow_network"])

    def test_unix_sockets_are_no_network(self):
        code = "import socket\ns = socket.socket(socket.AF_UNIX)\nprint('ok')\n"
        self.ws.write("src/unix.py", code)
        r = self.exec(["python3", "src/unix.py"], policy=example_policy(namespaces=False))
        self.assertRun(r, 0, "ok", absent=["paldron: blocked"])


class NamespaceTest(KernelBase):
    def test_masked_secret_and_read_only_under_audit(self):
        # --audit lets the live gate's calls through: the namespace floor
        # still masks the secret and keeps the protected path read-only
        if not shutil.which("git"):
            skip(self, "git not installed")
        subprocess.run(["git", "init", "-q", self.ws.path], check=True)
        self.ws.write(".env", "TOKEN=1\n")
        pol = example_policy(binaries=["sh", "cat"]).replace(
            'deny_globs = [".env", ".env.*", "*.pem", "**/secrets/**"]\n', "")
        r = self.exec(["sh", "-c", "cat .env; echo x >> .git/config; true"], policy=pol,
                      opts=["--audit"])
        self.assertRun(r, 0,
                       "paldron: audit: blocked by the kernel: cat read .env (namespace: masked "
                       "secret) [live]\npaldron: audit:   smallest change: add \".env\" to "
                       "allow_secrets",
                       "paldron: audit: blocked by the kernel: sh write .git/config (namespace: "
                       "read-only) [live]\npaldron: audit:   smallest change: add \".git/config\" "
                       "to unprotect_paths",
                       "Read-only file system", absent=["TOKEN=1"])
        self.assertEqual(self.count(r), 2, r)

    def test_host_socket_is_masked(self):
        path = os.path.join(self.ws.outside, "host.sock")
        srv = socket.socket(socket.AF_UNIX)
        srv.bind(path)
        os.chmod(path, 0o777)
        srv.listen(1)
        self.addCleanup(srv.close)
        code = ("import os, socket\ns = socket.socket(socket.AF_UNIX)\ntry:\n"
                "    s.connect(os.environ['F'])\n    print('errno 0')\n"
                "except OSError as e:\n    print('errno', e.errno)\n")
        self.ws.write("src/conn.py", code)
        r = self.exec(["python3", "src/conn.py"], env={"F": path})
        self.assertRun(r, 0, "errno %d" % errno.EACCES,
                       "paldron: blocked: python3 connect %s (namespace: host socket masked) "
                       "[live] (add \"%s\" to allow_unix_sockets)" % (path, path))


class StaticTest(KernelBase):
    def test_static_program_reports_nothing(self):
        if not os.path.exists(os.path.join(PROBE_DIR, "probe_static")):
            skip(self, "probe_static not built")
        self.copy_probes()
        r = self.exec(["sh", "-c", 'src/probe_static read-file "$F"'],
                      policy=example_policy(binaries=["sh"] + self.probe_paths()),
                      env={"F": self.notes})
        self.assertRun(r, 0, "[STDOUT]\n-1 %d\n" % errno.EACCES,
                       self.coverage_line("src/probe_static"),
                       absent=["paldron: blocked", "blocked by the kernel"])


class DegradedTest(KernelBase):
    needs_landlock = False

    def test_warning_names_what_runs(self):
        r = self.read(self.notes, policy=example_policy(require_os_isolation=False))
        self.assertRun(r, 0, "paldron: warning: running without OS isolation: the argv gate, "
                       "the live gate in dynamically linked programs, the post-run scan and the "
                       "output scan run; no kernel boundary: static binaries and raw system "
                       "calls are not stopped", absent=["paldron: blocked"])
        # no kernel layers: the read succeeds, nothing to report
        self.assertEqual(self.errno_of(r), 0)


if __name__ == "__main__":
    main()
