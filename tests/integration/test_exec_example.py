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
        # the README's demo command: the live gate refuses the write itself
        r = self.demo("policy.toml", "src/leak.py")
        self.assertRun(r, 2, "PermissionError: [Errno 13] Permission denied: 'src/.env'",
                       "[EXIT CODE] 1\n", absent=["wrote src/.env", "command exited"])
        self.assertEqual(r.err, "paldron: deny: python3 create src/.env (policy deny_glob .env) "
                         "[live]\npaldron: denied: 1 finding; the command itself exited 1\n")
        self.assertFalse(self.ws.exists("src/.env"))
        # a src/.env that is already there is not overwritten either
        self.ws.write("src/.env", "API_KEY=original\n")
        r = self.demo("policy.toml", "src/leak.py")
        self.assertRun(r, 2, "paldron: deny: python3 write src/.env (policy deny_glob .env) "
                       "[live]", absent=["wrote src/.env"])
        self.assertEqual(self.ws.read("src/.env"), "API_KEY=original\n")

    def test_write_outside_src_never_happens(self):
        r = self.ws.run(["exec", "--policy", "policy.toml", "--", "python3", "-c",
                         "open('.env','w')"])
        # the code is not a path: it runs, and the live gate refuses the open
        self.assertRun(r, 2, "paldron: deny: python3 create .env (policy deny_glob .env) [live]",
                       absent=["(outside allow_paths)"])
        self.assertFalse(self.ws.exists(".env"))
        r = self.ws.run(["exec", "--policy", "policy.toml", "--", "python3", "-c",
                         "open('.env', 'w')"])
        self.assertRun(r, 2, "PermissionError: [Errno 13] Permission denied: '.env'",
                       "paldron: deny: python3 create .env (policy deny_glob .env) [live]",
                       "[EXIT CODE] 1", absent=["command exited"])
        self.assertFalse(self.ws.exists(".env"))
        # with the live gate only logging, the kernel refuses the write
        r = self.ws.run(["exec", "--policy", "policy.toml", "--audit", "--", "python3", "-c",
                         "open('.env', 'w')"])
        self.assertRun(r, 1, "PermissionError: [Errno 13] Permission denied: '.env'",
                       "paldron: audit: would deny: python3 create .env (policy deny_glob .env) "
                       "[live]", "paldron: command exited 1", absent=["paldron: deny"])
        self.assertFalse(self.ws.exists(".env"))

    def test_mac_policy_is_degraded_but_still_denies(self):
        # no kernel boundary, but the live gate still refuses the write
        r = self.demo("policy.mac.toml", "src/leak.py")
        self.assertRun(r, 2, "paldron: warning: running without OS isolation: the argv gate, "
                       "the live gate in dynamically linked programs, the post-run scan and "
                       "the output scan run; no kernel boundary",
                       "paldron: deny: python3 create src/.env (policy deny_glob .env) [live]",
                       "PermissionError", absent=["wrote src/.env"])
        self.assertFalse(self.ws.exists("src/.env"))


if __name__ == "__main__":
    main()
