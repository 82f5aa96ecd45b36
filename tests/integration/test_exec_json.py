"""`paldron exec --json`: one JSON result object on stdout instead of the
result block - allow, deny (a live denial, a secret in the output, the argv
gate before the run), broken (a failing command, a timeout, a missing
program) - with the same exit codes and the same verdict lines on stderr.
Real runs as the unprivileged user."""

import json

from harness import main
from test_exec_result import ExecBase, example_policy

SECRET = "zq8Kp2mXv7Lr4Tn9Wc3Yb6Hd"
KEYS = {"verdict", "exit", "command", "stdout", "stderr", "stdout_dropped", "stderr_dropped",
        "findings", "warnings", "error"}
COMMAND_KEYS = {"started", "exit", "signal", "timed_out", "interrupted"}


class JsonTest(ExecBase):
    def policy(self, **keys):
        return example_policy(binaries=["sh", "sleep", "python3", "cat"], **keys)

    def run_json(self, argv, code, policy=None):
        r = self.exec(argv, policy=policy or self.policy(), opts=["--json"])
        self.assertEqual(r.code, code, repr(r))
        self.assertEqual(r.out.count("\n"), 1, "one object, one line: " + r.out)
        obj = json.loads(r.out)
        self.assertEqual(set(obj), KEYS, obj)
        self.assertEqual(set(obj["command"]), COMMAND_KEYS, obj)
        self.assertEqual(obj["exit"], code)
        self.assertNotIn("[EXIT CODE]", r.out)
        return obj, r

    def test_allow(self):
        obj, r = self.run_json(["sh", "-c", "echo out; echo err >&2"], 0)
        self.assertEqual(obj["verdict"], "allow")
        self.assertEqual(obj["command"], {"started": True, "exit": 0, "signal": None,
                                          "timed_out": False, "interrupted": None})
        self.assertEqual((obj["stdout"], obj["stderr"]), ("out\n", "err\n"))
        self.assertEqual((obj["stdout_dropped"], obj["stderr_dropped"]), (0, 0))
        self.assertEqual((obj["findings"], obj["warnings"], obj["error"]), ([], [], None))
        self.assertEqual(r.err, "")

    def test_live_denial(self):
        obj, r = self.run_json(["sh", "-c", "echo x > src/.env; echo after"], 2)
        self.assertEqual(obj["verdict"], "deny")
        msg = "sh create src/.env (policy deny_glob .env) [live]"
        self.assertEqual([f["message"] for f in obj["findings"]], [msg])
        # sh goes on after the refused redirect: its own status is 0
        self.assertEqual(obj["command"]["exit"], 0, obj)
        self.assertEqual(obj["stdout"], "after\n")
        self.assertIn("cannot create src/.env", obj["stderr"])
        # stderr keeps the lines a human reads
        self.assertIn("paldron: deny: " + msg, r.err)
        self.assertIn("paldron: denied: 1 finding; the command itself exited 0", r.err)

    def test_secret_in_the_output_is_redacted_in_the_object(self):
        self.ws.write(".env", "API_TOKEN=%s\n" % SECRET)
        self.ws.write("src/v.txt", "value %s\n" % SECRET)
        obj, r = self.run_json(["cat", "src/v.txt"], 2)
        self.assertEqual(obj["verdict"], "deny")
        self.assertEqual(obj["stdout"], "value [REDACTED:known-value]\n")
        self.assertEqual(len(obj["findings"]), 1)
        self.assertIn("(known-value) [stdout]", obj["findings"][0]["message"])
        self.assertNotIn(SECRET, r.out + r.err)

    def test_argv_gate_deny_before_the_run(self):
        self.ws.write(".env", "API_TOKEN=%s\n" % SECRET)
        obj, r = self.run_json(["cat", ".env"], 2)
        self.assertEqual(obj["verdict"], "deny")
        self.assertEqual(obj["command"]["started"], False)
        self.assertIsNone(obj["command"]["exit"])
        self.assertEqual((obj["stdout"], obj["stderr"]), ("", ""))
        self.assertEqual(len(obj["findings"]), 1)
        self.assertIn(".env", obj["findings"][0]["message"])
        self.assertIn("paldron: deny: " + obj["findings"][0]["message"], r.err)

    def test_program_outside_allow_binaries(self):
        obj, r = self.run_json(["ls"], 2)
        self.assertEqual(obj["verdict"], "deny")
        self.assertIn("allow_binaries", obj["findings"][0]["message"])

    def test_broken_command_exits_3(self):
        obj, r = self.run_json(["sh", "-c", "echo partial; exit 3"], 1)
        self.assertEqual(obj["verdict"], "broken")
        self.assertEqual(obj["command"]["exit"], 3)
        self.assertEqual(obj["error"], "command exited 3")
        self.assertEqual(obj["stdout"], "partial\n")
        self.assertEqual(obj["findings"], [])
        self.assertIn("paldron: command exited 3", r.err)

    def test_killed_by_a_signal(self):
        obj, _ = self.run_json(["sh", "-c", "kill -9 $$"], 1)
        self.assertEqual(obj["command"]["signal"], "SIGKILL")
        self.assertIsNone(obj["command"]["exit"])

    def test_timeout(self):
        obj, r = self.run_json(["sh", "-c", "echo before; sleep 30"], 1,
                               policy=self.policy(timeout_sec=1))
        self.assertEqual(obj["verdict"], "broken")
        self.assertTrue(obj["command"]["timed_out"])
        self.assertIsNone(obj["command"]["exit"])
        self.assertEqual(obj["stdout"], "before\n")
        self.assertEqual(obj["error"], "command timed out after 1 s (its processes were stopped)")

    def test_missing_program(self):
        obj, r = self.run_json(["no-such-tool"], 1,
                               policy=example_policy(binaries=["no-such-tool"]))
        self.assertEqual(obj["verdict"], "broken")
        self.assertFalse(obj["command"]["started"])
        self.assertEqual(obj["error"],
                         'sandbox: exec: "no-such-tool": executable file not found in $PATH')
        self.assertIn("paldron: sandbox: exec:", r.err)
        self.assertNotIn("[SANDBOX ERROR]", r.out)

    def test_bytes_that_are_not_text(self):
        obj, _ = self.run_json(["python3", "-c", "import sys; sys.stdout.buffer.write("
                                "b'a\\x00b\\xff\\xfec\\n')"], 0)
        self.assertEqual(obj["stdout"], "a\x00b\ufffd\ufffdc\n")

    def test_cut_output_counts_what_was_dropped(self):
        obj, _ = self.run_json(["python3", "-c", "import sys\nfor i in range(200000): "
                                "sys.stdout.write('l%07d\\n' % i)"], 0)
        self.assertGreater(obj["stdout_dropped"], 0)
        head, marker_tail = obj["stdout"].split("[... ", 1)
        n, tail = marker_tail.split(" bytes dropped ...]\n", 1)
        self.assertEqual(int(n), obj["stdout_dropped"])
        self.assertEqual(len(head) + len(tail) + int(n), 200000 * 9)
        self.assertTrue(head.startswith("l0000000\n") and tail.endswith("l0199999\n"))

    def test_refused_combinations_and_usage_errors(self):
        for opt in ("--stream", "--interactive", "--routed"):
            r = self.exec(["sh", "-c", "touch src/ran"], policy=self.policy(),
                          opts=["--json", opt])
            self.assertRun(r, 1, "paldron: --json and %s exclude each other" % opt)
            self.assertEqual((r.out, r.err.count("\n")), ("", 1), repr(r))
        # a bad policy: one line on stderr, no object
        r = self.exec(["sh", "-c", "true"], policy="bogus_key = 1\n", opts=["--json"])
        self.assertRun(r, 1, "bogus_key")
        self.assertEqual(r.out, "")
        self.assertFalse(self.ws.exists("src/ran"))


if __name__ == "__main__":
    main()
