"""The preload's modes: pass-through when no PALDRON_RUN is set (an unrelated
process changes nothing), fail closed when the policy cannot be loaded (every
gated call denied, one message, one "error" record), audit mode (nothing denied,
"audit" records), PALDRON_DEBUG's trace, and the stderr line when no launcher
listens on report.sock.
"""
import os
import shutil
import subprocess
import sys

sys.dont_write_bytecode = True  # no __pycache__ in the source tree
sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "preload"))
import preload_fixture as pf  # noqa: E402

POLICY = """allow_paths = ["src/"]
allow_binaries = ["sh", "cat", "python3", "echo"]
"""
SECRET = "TOKEN=hunter2\n"
CLOSED = "; denying every file, network and exec call"


class Modes(pf.PreloadTest):
    def setUp(self):
        super().setUp()
        self.sb = self.sandbox(POLICY)
        self.sb.write("src/.env", SECRET)
        self.sb.write("src/a.txt", "hello\n")

    def test_no_paldron_run_passes_everything_through(self):
        sb = self.sb
        env = sb.env(preload=False)
        env["LD_PRELOAD"] = pf.PRELOAD
        r = sb.run(["sh", "-c", "cat src/.env; echo y > src/.env; /usr/bin/id -u; env"], env=env)
        self.assertOut(r, 0, "hunter2", absent=("paldron:", "PALDRON_RUN"))
        self.assertEqual(r.err, "")
        self.assertEqual(sb.read("src/.env"), "y\n")
        self.assertEqual(sb.records(), [])
        r = sb.probe("connect", "127.0.0.1", "9", env=env)
        self.assertNotIn("fail 13", r.out)

    def closed(self, sb, why):
        """Every gated call is refused; the message and the record say why."""
        msg = "paldron: preload: cannot load policy %s: " % sb.compiled
        r = sb.run(["cat", "src/a.txt"])
        self.assertOut(r, 1, "Permission denied", absent=("hello",))
        self.assertIn(msg + why + CLOSED, r.err)
        self.assertEqual(r.err.count("paldron: preload: cannot load policy"), 1, r.err)
        self.assertRecord(sb.records(), kind="error", op="init", path=sb.compiled, reason=why)
        # python3 cannot even start (its reads are refused): use the shells
        r = sb.run(["sh", "-c", "echo x > src/new.txt"])
        self.assertIn("Permission denied", r.err)
        self.assertFalse(sb.exists("src/new.txt"))
        r = sb.run(["sh", "-c", "/usr/bin/echo ran"])
        self.assertOut(r, 126, "Permission denied", absent=("ran",))
        r = sb.run(["bash", "-c", "echo > /dev/tcp/127.0.0.1/9"])
        self.assertOut(r, 1, "Permission denied")

    def test_missing_policy_denies_everything(self):
        os.unlink(self.sb.compiled)
        self.closed(self.sb, "No such file or directory")

    def test_corrupt_policy_denies_everything(self):
        with open(self.sb.compiled, "w") as f:
            f.write("paldron-compiled 1\nworkspace /x\n")
        self.closed(self.sb, "truncated or incomplete compiled policy")
        with open(self.sb.compiled, "w") as f:
            f.write("#!/bin/sh\n")
        self.closed(self.sb, "not a compiled policy (bad header)")

    def test_policy_that_is_a_directory_denies_everything(self):
        os.unlink(self.sb.compiled)
        os.mkdir(self.sb.compiled)
        self.closed(self.sb, "not a regular file")

    def test_unreadable_policy_denies_everything(self):
        sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
        import harness
        user = harness.unprivileged_user()
        if user is None or not shutil.which("setpriv"):
            pf.skip(self, "needs root to create %s and setpriv" % harness.TEST_USER)
        os.chmod(self.sb.compiled, 0o600)
        os.chmod(self.sb.base, 0o755)
        for d in (self.sb.run_dir, self.sb.ws, self.sb.path("src")):
            os.chmod(d, 0o755)
        os.chmod(self.sb.path("src/a.txt"), 0o644)
        cmd = ["setpriv", "--reuid", str(user.pw_uid), "--regid", str(user.pw_gid),
               "--clear-groups", "cat", "src/a.txt"]
        r = self.sb.run(cmd)
        self.assertOut(r, 1, "Permission denied", absent=("hello",))
        self.assertIn("cannot load policy %s: Permission denied%s" % (self.sb.compiled, CLOSED), r.err)

    def test_audit_mode_denies_nothing_and_reports_everything(self):
        sb = self.sb
        r = sb.run(["sh", "-c", "cat src/.env; /usr/bin/id -u"], audit=True)
        self.assertOut(r, 0, "hunter2", "0")
        recs = sb.records()
        self.assertRecord(recs, kind="audit", op="read", path="src/.env", reason="secret")
        self.assertRecord(recs, kind="audit", op="exec", path="/usr/bin/id")
        self.assertNoRecord(recs, kind="deny")

    def test_debug_traces_every_gated_call(self):
        r = self.sb.run(["cat", "src/a.txt", "src/.env"], debug=True)
        self.assertEqual(r.code, 1)
        self.assertRegex(r.err, r"paldron-preload\[\d+\]: cat read src/a.txt -> allow\n")
        self.assertRegex(r.err, r"paldron-preload\[\d+\]: cat read src/.env -> deny \(secret \.env\)\n")

    def test_without_a_launcher_the_denial_is_printed(self):
        sb = self.sandbox(POLICY, report=False)
        sb.write("src/.env", SECRET)
        r = sb.run(["cat", "src/.env"])
        self.assertOut(r, 1, "paldron: deny: cat read src/.env (secret .env) [live]\n")
        r = sb.run(["sh", "-c", "/usr/bin/id"])
        self.assertIn("paldron: deny: sh exec /usr/bin/id (not in allow_binaries) [live]", r.err)
        shutil.copy(pf.tool("static_hello"), sb.path("src/st"))
        sb2 = self.sandbox("allow_binaries = []\n", report=False)
        shutil.copy(pf.tool("static_hello"), sb2.path("st"))
        r = sb2.run(["sh", "-c", "./st"])
        self.assertOut(r, 0, "static",
                       # no launcher, so no kernel layers: nothing else gates it
                       "paldron: unmonitored: sh exec ./st (static binary) [not gated: no kernel "
                       "layers in this mode]")


if __name__ == "__main__":
    pf.main()
