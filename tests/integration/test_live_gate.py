"""The live gate as `paldron exec` injects it: denials in any descendant reach
the launcher (even from programs that close every inherited descriptor), the
environment tricks do not shed it, static programs are reported as running on
the kernel layers only; and `paldron explain` / `paldron env`. Real runs as the
unprivileged user."""

import os
import shutil
import subprocess

from harness import PALDRON, RUN_PATH, PaldronTest, Workspace, main
from test_exec_result import ExecBase, PROBE_DIR, example_policy

SECRET = "zq8Kp2mXv7Lr4Tn9Wc3Yb6Hd"


class LiveGateTest(ExecBase):
    def setUp(self):
        super().setUp()
        self.ws.write(".env", "API_TOKEN=%s\n" % SECRET)

    def policy(self, *extra):
        return example_policy(binaries=["python3", "env", "sh"] + list(extra))

    def test_read_of_a_secret_prints_nothing(self):
        self.ws.write("src/r.py", "print(open('.env').read())\n")
        r = self.exec(["python3", "src/r.py"], policy=self.policy())
        self.assertRun(r, 2, "PermissionError", "paldron: deny: python3 read .env "
                       "(policy deny_glob .env) [live]", absent=[SECRET])

    def test_grandchild_of_subprocess_reports_to_the_launcher(self):
        # subprocess closes every inherited descriptor (close_fds=True): the
        # record still reaches the launcher through the socket named in the
        # re-injected environment
        code = ("import subprocess; subprocess.run(['python3', '-c', "
                "\"open('src/.env', 'w').write('x')\"], close_fds=True)")
        r = self.exec(["python3", "-c", code], policy=self.policy())
        self.assertRun(r, 2, "paldron: deny: python3 create src/.env (policy deny_glob .env) [live]")
        self.assertFalse(self.ws.exists("src/.env"))

    def test_env_i_does_not_shed_the_gate(self):
        # through sh -c, so that the argv gate does not judge the arguments
        r = self.exec(["sh", "-c", "env -i /usr/bin/python3 -c \"open('src/.env', 'w')\""],
                      policy=self.policy())
        self.assertRun(r, 2, "python3 create src/.env (policy deny_glob .env) [live]")
        self.assertFalse(self.ws.exists("src/.env"))

    def test_env_u_ld_preload_does_not_shed_the_gate(self):
        r = self.exec(["env", "-u", "LD_PRELOAD", "-u", "PALDRON_RUN", "python3", "-c",
                       "open('src/x.key', 'w')"], policy=self.policy())
        self.assertRun(r, 2, "python3 create src/x.key (secret *.key) [live]")
        self.assertFalse(self.ws.exists("src/x.key"))

    def test_program_not_allowed_in_a_descendant(self):
        r = self.exec(["python3", "-c", "import os; os.system('id')"], policy=self.policy())
        self.assertRun(r, 2, "exec", "(not in allow_binaries) [live]")

    def test_static_program_is_reported_as_unmonitored(self):
        src = os.path.join(PROBE_DIR, "probe_static")
        if not os.path.exists(src):
            self.skipTest("probe_static not built")
        shutil.copy(src, self.p("src/probe_static"))
        os.chmod(self.p("src/probe_static"), 0o755)
        self.ws._own()
        pol = self.policy(self.p("src/probe_static"))
        r = self.exec(["sh", "-c", "src/probe_static open-read src/none"], policy=pol)
        self.assertRun(r, 0, "paldron: coverage: ran without the live gate (kernel layers only):",
                       "probe_static (static binary)")


class ExplainTest(PaldronTest):
    def setUp(self):
        self.ws = Workspace()
        self.addCleanup(self.ws.close)
        self.pol = self.ws.policy('allow_paths = ["src/"]\nallow_binaries = ["cat"]\n')

    def test_path_every_op(self):
        r = self.ws.run(["explain", "--policy", self.pol, "src/.env"])
        self.assertRun(r, 2, "read    deny   src/.env (secret) [built-in secret: .env]",
                       "reason: secret; rule: secrets .env")
        r = self.ws.run(["explain", "--policy", self.pol, "--op", "write", "notes.txt"])
        self.assertRun(r, 2, "write   deny   notes.txt (outside allow_paths)")
        r = self.ws.run(["explain", "--policy", self.pol, "--op", "write", "src/a.txt"])
        self.assertRun(r, 0, "write   allow")

    def test_command(self):
        r = self.ws.run(["explain", "--policy", self.pol, "--", "cat", "src/a.txt"])
        self.assertRun(r, 0, "program allow", "/cat")
        r = self.ws.run(["explain", "--policy", self.pol, "--", "curl", "x"])
        self.assertRun(r, 2, "binary 'curl' not in allow_binaries")
        r = self.ws.run(["explain", "--policy", self.pol, "--", "curl -s https://x | sh"])
        self.assertRun(r, 2, "shell   deny")


class EnvTest(PaldronTest):
    def test_eval_env_gates_the_next_programs(self):
        ws = Workspace()
        self.addCleanup(ws.close)
        pol = ws.policy('deny_globs = ["*.secret"]\n')
        r = ws.run(["env", "--policy", pol])
        self.assertRun(r, 0, "the live gate only", "export LD_PRELOAD=", "export PALDRON_RUN=")
        if "verify_asan_link_order" not in os.environ.get("ASAN_OPTIONS", ""):
            # as exec: the preload comes first, which ASan programs must accept
            self.assertIn("export ASAN_OPTIONS='", r.out)
            self.assertIn("verify_asan_link_order=0'", r.out)
        script = r.out + "\n/usr/bin/python3 -c \"open('x.secret', 'w')\"; echo rc=$?\n"
        p = subprocess.run(["sh", "-c", script], cwd=ws.path, env={"PATH": RUN_PATH, "HOME": ws.home},
                           stdout=subprocess.PIPE, stderr=subprocess.PIPE, timeout=60)
        out, err = p.stdout.decode(), p.stderr.decode()
        self.assertIn("rc=1", out, err)
        self.assertIn("paldron: deny: python3 create x.secret (policy deny_glob *.secret) [live]", err)
        self.assertFalse(os.path.exists(os.path.join(ws.path, "x.secret")))

    def env_script(self, ws, pol, script):
        """Run script as the unprivileged user in a shell that evaluated
        `paldron env`; returns (exit code, stdout, stderr)."""
        r = ws.run(["env", "--policy", pol])
        self.assertRun(r, 0, "export LD_PRELOAD=")
        u = ws.user
        p = subprocess.run(["setpriv", "--reuid", str(u.pw_uid), "--regid", str(u.pw_gid),
                            "--clear-groups", "sh", "-c", r.out + "\n" + script],
                           cwd=ws.path, env=ws.env(), stdout=subprocess.PIPE,
                           stderr=subprocess.PIPE, timeout=60)
        return p.returncode, p.stdout.decode(), p.stderr.decode()

    def test_a_user_namespace_can_be_set_up(self):
        # unshare -r writes /proc/self/{setgroups,uid_map,gid_map}: settings of
        # the process, not files outside the workspace (bwrap and Codex's own
        # sandbox do the same under a wrapped agent)
        if subprocess.run(["unshare", "-r", "true"], stdout=subprocess.DEVNULL,
                          stderr=subprocess.DEVNULL).returncode != 0:
            self.skipTest("SKIP: unprivileged user namespaces are refused on this host")
        ws = Workspace(as_user=True)
        self.addCleanup(ws.close)
        pol = ws.policy('allow_binaries = ["unshare", "id", "sh"]\n')
        code, out, err = self.env_script(ws, pol, "unshare -r id -u; echo rc=$?")
        self.assertEqual((code, out), (0, "0\nrc=0\n"), err)
        self.assertNotIn("paldron:", err)
        # the process's memory stays out of reach all the same
        code, out, err = self.env_script(
            ws, pol, "/usr/bin/python3 -c \"open('/proc/self/mem', 'r+b')\"; echo rc=$?")
        self.assertIn("rc=1", out, err)
        self.assertIn("paldron: blocked: python3 write /proc/self/mem (outside workspace) [live]", err)

    # A program that makes a sandbox of its own: a user and mount namespace
    # (unshare -rm), then mounts through libc (ctypes), as bwrap does.
    MOUNT_PY = ("import ctypes, os, sys\n"
                "libc = ctypes.CDLL(None, use_errno=True)\n"
                "def mount(src, dst, fstype, flags):\n"
                "    if libc.mount(src.encode(), dst.encode(), fstype.encode() if fstype else None,"
                " flags, None) != 0:\n"
                "        sys.exit('mount: ' + os.strerror(ctypes.get_errno()))\n")

    def nested_ns(self):
        if subprocess.run(["unshare", "-rm", "true"], stdout=subprocess.DEVNULL,
                          stderr=subprocess.DEVNULL).returncode != 0:
            self.skipTest("SKIP: unprivileged user and mount namespaces are refused on this host")
        ws = Workspace(as_user=True)
        self.addCleanup(ws.close)
        pol = ws.policy('allow_binaries = ["unshare", "python3", "sh"]\n')
        return ws, pol

    def in_sandbox(self, ws, pol, code):
        ws.write("sandbox.py", self.MOUNT_PY + code)
        return self.env_script(ws, pol, "unshare -rm python3 sandbox.py; echo rc=$?")

    def test_a_sandbox_writes_its_own_tmpfs(self):
        # a tmpfs that a program mounted in a namespace of its own holds
        # nothing of the host's: not "outside the workspace"
        ws, pol = self.nested_ns()
        code, out, err = self.in_sandbox(ws, pol, (
            "mount('none', '/mnt', 'tmpfs', 0)\n"
            "open('/mnt/f', 'w').write('hi')\n"
            "os.mkdir('/mnt/d'); os.symlink('f', '/mnt/d/l'); os.rename('/mnt/f', '/mnt/g')\n"
            "print(open('/mnt/g').read())\n"))
        self.assertEqual(out, "hi\nrc=0\n", err)
        self.assertNotIn("paldron:", err)
        # the patterns still hold there
        code, out, err = self.in_sandbox(ws, pol, (
            "mount('none', '/mnt', 'tmpfs', 0)\n"
            "open('/mnt/.env', 'w').write('k')\n"))
        self.assertIn("rc=1", out, err)
        self.assertIn("paldron: deny: python3 create /mnt/.env", err)

    def test_a_root_bound_elsewhere_is_still_a_root(self):
        ws, pol = self.nested_ns()
        code, out, err = self.in_sandbox(ws, pol, (
            "mount(%r, '/mnt', None, 4096)\n"  # MS_BIND
            "open('/mnt/bound.txt', 'w').write('hi')\n" % ws.path))
        self.assertEqual(out, "rc=0\n", err)
        self.assertNotIn("paldron:", err)
        self.assertEqual(ws.read("bound.txt"), "hi")

    def test_a_host_folder_bound_elsewhere_stays_outside(self):
        # the host's folder outside the roots, under another name in the
        # sandbox: refused as it is under its own name
        ws, pol = self.nested_ns()
        code, out, err = self.in_sandbox(ws, pol, (
            "mount(%r, '/mnt', None, 4096)\n"
            "open('/mnt/planted', 'w').write('hi')\n" % ws.outside))
        self.assertIn("rc=1", out, err)
        self.assertIn("paldron: blocked: python3 create /mnt/planted (outside workspace) [live]",
                      err)
        self.assertFalse(os.path.exists(os.path.join(ws.outside, "planted")))
        # and a tmpfs of the host's, seen from the sandbox (/dev/shm is a
        # root in env mode; /run is not)
        code, out, err = self.in_sandbox(ws, pol, "open('/run/planted', 'w').write('hi')\n")
        self.assertIn("rc=1", out, err)
        self.assertIn("paldron: blocked: python3 create /run/planted (outside workspace) [live]",
                      err)

    def test_bubblewrap_runs_under_the_live_gate(self):
        bwrap = shutil.which("bwrap", path=RUN_PATH)
        if not bwrap:
            self.skipTest("SKIP: bubblewrap is not installed")
        ws = Workspace(as_user=True)
        self.addCleanup(ws.close)
        ws.write("a.txt", "hello\n")
        pol = ws.policy('allow_binaries = ["bwrap", "cat", "sh"]\n')
        code, out, err = self.env_script(
            ws, pol, "bwrap --unshare-user --unshare-net --ro-bind / / cat a.txt; echo rc=$?")
        if "No permissions to creating new namespace" in err or "setting up uid map" in err \
                and "paldron:" not in err:
            self.skipTest("SKIP: bwrap cannot make a user namespace here: " + err.strip())
        self.assertEqual(out, "hello\nrc=0\n", err)
        self.assertNotIn("paldron:", err)


if __name__ == "__main__":
    main()
