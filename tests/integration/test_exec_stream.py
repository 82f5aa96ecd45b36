"""`paldron exec --stream`: the command's output reaches paldron's stdout and
stderr as it comes, redacted on the fly (a secret split across two writes is
still caught), then the [EXIT CODE] line and the verdict lines as in capture
mode. Real runs as the unprivileged user; paldron's stdout is read as it
arrives, so the test sees what a caller sees."""

import os
import subprocess
import threading
import time

from harness import PALDRON, main
from test_exec_result import ExecBase, example_policy

SECRET = "zq8Kp2mXv7Lr4Tn9Wc3Yb6Hd"
AWS_KEY = "AKIAQWERTYUIOPASDFGH"


class StreamTest(ExecBase):
    def setUp(self):
        super().setUp()
        # a denied file of the workspace: its value is a known secret
        self.ws.write(".env", "API_TOKEN=%s\n" % SECRET)

    def policy(self, **keys):
        return example_policy(binaries=["sh", "python3", "sleep"], **keys)

    def script(self, rel, text):
        self.ws.write(rel, text)
        return rel

    def popen(self, argv, policy=None, opts=("--stream",)):
        """Start paldron as the test user with stdout and stderr on pipes."""
        pol = self.ws.policy(policy if policy is not None else self.policy())
        u = self.ws.user
        self.ws._own()
        cmd = ["setpriv", "--reuid", str(u.pw_uid), "--regid", str(u.pw_gid), "--clear-groups",
               PALDRON, "exec", "--policy", pol] + list(opts) + ["--"] + list(argv)
        p = subprocess.Popen(cmd, cwd=self.ws.path, env=self.ws.env(), stdin=subprocess.DEVNULL,
                             stdout=subprocess.PIPE, stderr=subprocess.PIPE)
        self.addCleanup(p.stderr.close)
        self.addCleanup(p.stdout.close)
        self.addCleanup(lambda: p.poll() is None and p.kill())
        return p

    def test_output_arrives_while_the_command_runs(self):
        rel = self.script("src/slow.py", "import sys, time\n"
                          "print('start', flush=True)\n"
                          "time.sleep(3)\n"
                          "print('end', flush=True)\n")
        t0 = time.monotonic()
        p = self.popen(["python3", rel])
        err = []
        reader = threading.Thread(target=lambda: err.append(p.stderr.read()))
        reader.start()
        first = p.stdout.readline()
        arrived = time.monotonic() - t0
        # the behaviour: "start" is read while the command still sleeps (paldron
        # has not exited); the bound is generous, the order is the point
        still_running = p.poll() is None
        rest = p.stdout.read()
        code = p.wait(timeout=60)
        reader.join()
        self.assertEqual(first, b"start\n", rest)
        self.assertTrue(still_running, "start arrived only after paldron exited")
        self.assertLess(arrived, 2.5, "start took %.2f s" % arrived)
        self.assertEqual(rest, b"end\n[EXIT CODE] 0 (success)\n")
        self.assertEqual(code, 0, err)
        self.assertEqual(err[0], b"")

    def test_capture_mode_still_holds_everything(self):
        # the same script without --stream: nothing arrives before the command ended
        rel = self.script("src/slow.py", "import time\nprint('start', flush=True)\n"
                          "time.sleep(2)\nprint('end')\n")
        t0 = time.monotonic()
        p = self.popen(["python3", rel], opts=())
        first = p.stdout.readline()
        waited = time.monotonic() - t0
        rest = p.stdout.read()
        self.assertEqual(p.wait(timeout=60), 0)
        self.assertEqual(first, b"[STDOUT]\n")
        self.assertGreaterEqual(waited, 1.9)
        self.assertEqual(rest, b"start\nend\n\n[EXIT CODE] 0 (success)\n")

    def test_secret_split_across_writes_is_redacted(self):
        half = len(SECRET) // 2
        rel = self.script("src/leak.py", "import sys, time\n"
                          "w = sys.stdout.write\n"
                          "w('token: %s'); sys.stdout.flush(); time.sleep(0.5)\n"
                          "w('%s and key %s'); sys.stdout.flush(); time.sleep(0.5)\n"
                          "w('%s done\\n')\n"
                          % (SECRET[:half], SECRET[half:], AWS_KEY[:7], AWS_KEY[7:]))
        r = self.exec(["python3", rel], policy=self.policy(), opts=["--stream"])
        self.assertRun(r, 2, "paldron: deny: output exposes a secret value from file",
                       "(known-value) [stdout]",
                       "paldron: deny: output exposes a credential (aws-access-key-id) [stdout]",
                       "paldron: denied: 2 findings; the command itself exited 0",
                       absent=[SECRET[:6], SECRET[-6:], AWS_KEY[:8], AWS_KEY[-8:]])
        self.assertEqual(r.out, "token: [REDACTED:known-value] and key "
                         "[REDACTED:aws-access-key-id] done\n[EXIT CODE] 0 (success)\n")

    def test_secret_split_in_a_slow_loop_one_byte_per_write(self):
        rel = self.script("src/drip.py", "import sys, time\n"
                          "for c in 'v=%s;\\n':\n"
                          "    sys.stderr.write(c); sys.stderr.flush(); time.sleep(0.02)\n"
                          % SECRET)
        r = self.exec(["python3", rel], policy=self.policy(), opts=["--stream"])
        self.assertRun(r, 2, "(known-value) [stderr]", "the command itself exited 0",
                       absent=[SECRET[:4], SECRET[-4:]])
        self.assertTrue(r.err.startswith("v=[REDACTED:known-value];\n"), r.err)

    def test_the_command_exit_status_is_on_the_verdict_line(self):
        rel = self.script("src/fail.py", "import sys\nprint('key %s')\nsys.exit(3)\n" % AWS_KEY)
        r = self.exec(["python3", rel], policy=self.policy(), opts=["--stream"])
        self.assertRun(r, 2, "key [REDACTED:aws-access-key-id]\n[EXIT CODE] 3\n",
                       "paldron: denied: 1 finding; the command itself exited 3", absent=[AWS_KEY])
        # a clean failure: broken, as in capture mode
        r = self.exec(["sh", "-c", "echo partial; exit 4"], policy=self.policy(), opts=["--stream"])
        self.assertRun(r, 1, "paldron: command exited 4", absent=["denied:"])
        self.assertEqual(r.out, "partial\n[EXIT CODE] 4\n")

    def test_stderr_stays_on_stderr(self):
        r = self.exec(["sh", "-c", "echo to-out; echo to-err >&2; printf no-newline"],
                      policy=self.policy(), opts=["--stream"])
        self.assertRun(r, 0)
        # a last line without its newline gets one before the block's line
        self.assertEqual(r.out, "to-out\nno-newline\n[EXIT CODE] 0 (success)\n")
        self.assertEqual(r.err, "to-err\n")

    def test_timeout_keeps_what_was_streamed(self):
        r = self.exec(["sh", "-c", "echo before; sleep 30"], policy=self.policy(timeout_sec=1),
                      opts=["--stream"])
        self.assertRun(r, 1, "paldron: command timed out after 1 s")
        self.assertEqual(r.out, "before\n[TIMEOUT] Command killed after exceeding time limit\n"
                         "[EXIT CODE] -1\n")

    def test_reader_going_away_ends_the_run(self):
        # paldron's stdout closes after the first line: the run ends (as a bare
        # command would die of SIGPIPE), and paldron says why on stderr
        p = self.popen(["sh", "-c", "i=0; while [ $i -lt 600 ]; do echo line $i; sleep 0.05; "
                        "i=$((i+1)); done"])
        self.assertEqual(p.stdout.readline(), b"line 0\n")
        p.stdout.close()
        t0 = time.monotonic()
        code = p.wait(timeout=60)
        err = p.stderr.read().decode()
        self.assertLess(time.monotonic() - t0, 20, err)
        self.assertEqual(code, 1, err)
        self.assertIn("paldron: interrupted by SIGPIPE", err)

    def test_refused_combinations(self):
        for opts, words in ((["--stream", "--interactive"], "--stream and --interactive"),
                            (["--stream", "--routed"], "--stream and --routed")):
            r = self.exec(["sh", "-c", "touch src/ran"], policy=self.policy(), opts=opts)
            self.assertRun(r, 1, "paldron: " + words + " exclude each other")
            self.assertEqual(r.out, "")
            self.assertEqual(r.err.count("\n"), 1, r.err)
        r = self.exec(["sh", "-c", "touch src/ran"], policy=self.policy(jev_verdict=True),
                      opts=["--stream"])
        self.assertRun(r, 1, "paldron: --stream cannot be used with jev_verdict = true")
        self.assertEqual(r.err.count("\n"), 1, r.err)
        self.assertFalse(self.ws.exists("src/ran"))


if __name__ == "__main__":
    main()
