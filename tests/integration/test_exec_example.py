"""examples/paldron-exec: the README's demo, run for real in a copy of the folder
as the unprivileged test user, with the example's own policies."""

import os
import shutil

from harness import main
from test_exec_result import EXAMPLE_DIR, ExecBase


class ExampleTest(ExecBase):
    def setUp(self):
        super().setUp()
        shutil.rmtree(self.ws.path)
        shutil.copytree(EXAMPLE_DIR, self.ws.path)
        self.ws._own()

    def demo(self, policy, script):
        return self.ws.run(["exec", "--policy", policy, "--", "python3", script])

    def test_tool_runs(self):
        r = self.demo("policy.toml", "src/tool.py")
        self.assertRun(r, 0, "[STDOUT]\ntool done\n\n[EXIT CODE] 0 (success)\n")
        self.assertEqual(r.err, "")
        self.assertEqual(self.ws.read("src/out.txt"), "via paldron")

    def test_leak_is_denied(self):
        # the README's demo command and its output
        r = self.demo("policy.toml", "src/leak.py")
        self.assertRun(r, 2, "[STDOUT]\nwrote src/.env\n\n[EXIT CODE] 0 (success)\n")
        self.assertEqual(r.err, "paldron: deny: run produced src/.env (policy deny_glob) "
                         "[deny_globs: .env]\n")
        # a second run rewrites the file that is now there
        r = self.demo("policy.toml", "src/leak.py")
        self.assertRun(r, 2, "paldron: deny: run modified src/.env (policy deny_glob)")

    def test_write_outside_src_never_happens(self):
        r = self.ws.run(["exec", "--policy", "policy.toml", "--", "python3", "-c",
                         "open('.env','w')"])
        self.assertRun(r, 2, "paldron: deny: open('.env','w') (outside allow_paths)",
                       absent=["[EXIT CODE]"])
        r = self.ws.run(["exec", "--policy", "policy.toml", "--", "python3", "-c",
                         "open('.env', 'w')"])
        self.assertRun(r, 1, "PermissionError: [Errno 13] Permission denied: '.env'",
                       "paldron: command exited 1")
        self.assertFalse(self.ws.exists(".env"))

    def test_mac_policy_is_degraded_but_still_denies(self):
        r = self.demo("policy.mac.toml", "src/leak.py")
        self.assertRun(r, 2, "paldron: warning: running without OS isolation (policy gate + "
                       "output scan only, no kernel boundary)",
                       "paldron: deny: run produced src/.env (policy deny_glob)")


if __name__ == "__main__":
    main()
