"""The preload survives the tricks: an empty or scrubbed environment (env -i,
env -u LD_PRELOAD, execve with {}), forged settings (PALDRON_AUDIT=1, another
PALDRON_RUN) and programs that close every inherited descriptor before exec
(Python's subprocess): every descendant still loads the gate, with this run's
policy, and its denials still reach the launcher's socket.
"""
import os
import sys

sys.dont_write_bytecode = True  # no __pycache__ in the source tree
sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "preload"))
import preload_fixture as pf  # noqa: E402

POLICY = """allow_paths = ["src/"]
allow_binaries = []
"""
SECRET = "TOKEN=hunter2\n"


class Survival(pf.PreloadTest):
    def setUp(self):
        super().setUp()
        self.sb = self.sandbox(POLICY)
        self.sb.write("src/.env", SECRET)

    def unchanged(self):
        self.assertEqual(self.sb.read("src/.env"), SECRET)

    def test_env_i_does_not_shed_the_gate(self):
        r = self.sb.run(["env", "-i", pf.PYTHON, "-c", "print(open('src/.env').read())"])
        self.assertOut(r, 1, "Permission denied", absent=("hunter2",))
        self.assertRecord(self.sb.records(), kind="deny", op="read", path="src/.env",
                          program="python3")
        r = self.sb.run(["env", "-i", "/bin/sh", "-c", "echo x > src/.env"])
        self.assertNotEqual(r.code, 0)
        self.unchanged()

    def test_env_u_does_not_shed_the_gate(self):
        r = self.sb.run(["env", "-u", "LD_PRELOAD", "-u", "PALDRON_RUN", "-u", "PALDRON_PRELOAD",
                         "sh", "-c", "echo x > src/.env"])
        self.assertNotEqual(r.code, 0, repr(r))
        self.assertIn("Permission denied", r.err)
        self.unchanged()
        self.assertRecord(self.sb.records(), kind="deny", op="write", path="src/.env",
                          program="sh")

    def test_execve_with_an_empty_environment(self):
        code = "import os; os.execve('/bin/sh', ['sh', '-c', 'echo x > src/.env'], {})"
        r = self.sb.run([pf.PYTHON, "-c", code])
        self.assertNotEqual(r.code, 0, repr(r))
        self.unchanged()
        self.assertRecord(self.sb.records(), kind="deny", program="sh")

    def test_the_child_environment_is_doctored(self):
        code = ("import os, subprocess; "
                "print(subprocess.run(['/usr/bin/env'], env={'LD_PRELOAD': '/lib/x86_64-linux-gnu/libm.so.6', "
                "'PALDRON_AUDIT': '1', 'PALDRON_RUN': '/tmp/forged', 'KEEP': 'me'}, "
                "capture_output=True, text=True).stdout)")
        r = self.sb.run([pf.PYTHON, "-c", code])
        self.assertOut(r, 0, "KEEP=me", "LD_PRELOAD=%s:/lib/x86_64-linux-gnu/libm.so.6" % pf.PRELOAD,
                       "PALDRON_RUN=%s\n" % self.sb.run_dir, "PALDRON_PRELOAD=%s" % pf.PRELOAD,
                       absent=("PALDRON_AUDIT", "/tmp/forged"))

    def test_forged_audit_mode_does_not_turn_the_gate_off(self):
        r = self.sb.run(["env", "PALDRON_AUDIT=1", "sh", "-c", "echo x > src/.env"])
        self.assertNotEqual(r.code, 0, repr(r))
        self.unchanged()
        self.assertRecord(self.sb.records(), kind="deny")
        self.assertNoRecord(self.sb.records(), kind="audit")

    def test_forged_policy_directory_is_ignored(self):
        forged = os.path.join(self.sb.outside, "run")
        os.mkdir(forged)
        with open(os.path.join(forged, "policy.compiled"), "w") as f:
            f.write("garbage\n")
        r = self.sb.run(["env", "PALDRON_RUN=" + forged, "sh", "-c", "echo ok > src/fine.txt; "
                         "echo x > src/.env"])
        self.assertIn("Permission denied", r.err)
        self.assertEqual(self.sb.read("src/fine.txt"), "ok\n")
        self.unchanged()
        self.assertRecord(self.sb.records(), kind="deny", path="src/.env")

    def test_denial_in_a_grandchild_that_lost_every_descriptor_reaches_the_launcher(self):
        # subprocess closes every inherited descriptor (close_fds=True is the
        # default): the grandchild finds the socket again by its path
        inner = "import subprocess; subprocess.run(['sh', '-c', 'echo x > src/.env'], close_fds=True)"
        outer = "import subprocess, sys; subprocess.run([sys.executable, '-c', %r], close_fds=True)" % inner
        r = self.sb.run([pf.PYTHON, "-c", outer])
        self.assertIn("Permission denied", r.err)
        self.unchanged()
        rec = self.assertRecord(self.sb.records(), kind="deny", op="write", path="src/.env",
                                program="sh", reason="secret")
        self.assertEqual(rec["argv"], ["sh", "-c", "echo x > src/.env"])

    def test_spawn_with_an_empty_environment(self):
        r = self.sb.run([pf.tool("spawn_user"), "-e", "/bin/sh", "-c", "echo x > src/.env"])
        self.assertNotEqual(r.code, 0, repr(r))
        self.unchanged()
        self.assertRecord(self.sb.records(), kind="deny", program="sh")


if __name__ == "__main__":
    pf.main()
