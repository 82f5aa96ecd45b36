"""`paldron exec` over the capture cap: each stream keeps its first 256 KiB and
its last 768 KiB (the test summary is at the end), with one line between them
that counts exactly the bytes left out. The output scan sees every byte, also
the dropped ones, and a secret that straddles a cut is redacted whole. Real
runs as the unprivileged user."""

import re

from harness import main
from test_exec_result import ExecBase, example_policy

SECRET = "zq8Kp2mXv7Lr4Tn9Wc3Yb6Hd"
CUT = re.compile(r"^\[\.\.\. (\d+) bytes dropped \.\.\.\] \[TRUNCATED: output exceeded 1048576 "
                 r"bytes\]$", re.M)
HEAD, TAIL = 262144, 786432


class HeadTailTest(ExecBase):
    def setUp(self):
        super().setUp()
        self.ws.write(".env", "API_TOKEN=%s\n" % SECRET)

    def policy(self):
        return example_policy(binaries=["python3"])

    def section(self, r, title, nxt):
        """The text of a block section (without the newline the block adds)."""
        body = r.out.split(title + "\n", 1)[1]
        return body.split("\n" + nxt, 1)[0]

    def test_numbered_lines_keep_start_and_end_with_exact_count(self):
        n = 250000  # 13 bytes a line: 3.25 MB
        self.ws.write("src/lines.py", "import sys\nw = sys.stdout.write\n"
                      "for i in range(%d):\n    w('line %%07d\\n' %% i)\n"
                      "print('== 5 passed, 0 failed ==')\n" % n)
        r = self.exec(["python3", "src/lines.py"], policy=self.policy())
        self.assertRun(r, 0, "[STDOUT]\nline 0000000\nline 0000001\n",
                       "== 5 passed, 0 failed ==\n\n[EXIT CODE] 0 (success)")
        total = n * 13 + len("== 5 passed, 0 failed ==\n")
        text = self.section(r, "[STDOUT]", "[EXIT CODE]")
        m = CUT.search(text)
        self.assertIsNotNone(m, text[HEAD - 100:HEAD + 200])
        self.assertEqual(len(CUT.findall(r.out)), 1)
        head, tail = text[:m.start()], text[m.end() + 1:]
        # whole lines on both sides of the cut
        self.assertTrue(head.endswith("\n") and tail.startswith("line "), (head[-30:], tail[:30]))
        self.assertLessEqual(len(head), HEAD)
        self.assertLessEqual(len(tail), TAIL)
        self.assertGreater(len(head) + len(tail), HEAD + TAIL - 2 * 4096)
        dropped = int(m.group(1))
        self.assertEqual(dropped, total - len(head) - len(tail))
        # the lines themselves: none missing at the edges of what is shown
        first_tail = int(tail.split("\n", 1)[0].split()[1])
        last_head = int(head.rstrip("\n").rsplit("\n", 1)[1].split()[1])
        self.assertEqual((first_tail - last_head - 1) * 13, dropped)

    def test_a_secret_straddling_the_cut_is_redacted_whole(self):
        # 'a' * (HEAD - 10), then the secret across the 256 KiB mark, then 2 MB more
        self.ws.write("src/straddle.py", "import sys\nw = sys.stdout.write\n"
                      "w('a' * %d + '%s' + '\\n')\n"
                      "for i in range(160000):\n    w('line %%07d\\n' %% i)\n"
                      % (HEAD - 10, SECRET))
        r = self.exec(["python3", "src/straddle.py"], policy=self.policy())
        self.assertRun(r, 2, "paldron: deny: output exposes a secret value from file",
                       "(known-value) [stdout]", "line 0159999\n",
                       absent=[SECRET[:5], SECRET[-5:]])
        text = self.section(r, "[STDOUT]", "[EXIT CODE]")
        head = text[:CUT.search(text).start()]
        # the cut falls inside the redaction tag, never inside the secret
        self.assertTrue(head.startswith("a" * (HEAD - 10) + "[REDA"), head[-40:])

    def test_a_secret_in_the_dropped_middle_still_denies(self):
        self.ws.write("src/middle.py", "import sys\nw = sys.stdout.write\n"
                      "for i in range(240000):\n"
                      "    w('line %%07d\\n' %% i)\n"
                      "    if i == 120000: w('token=%s\\n')\n" % SECRET)
        r = self.exec(["python3", "src/middle.py"], policy=self.policy())
        self.assertRun(r, 2, "(known-value) [stdout]", "line 0000000\n", "line 0239999\n",
                       "paldron: denied: 1 finding; the command itself exited 0",
                       absent=[SECRET, "token="])
        self.assertIsNotNone(CUT.search(r.out))

    def test_stderr_is_cut_the_same_way(self):
        self.ws.write("src/err.py", "import sys\nw = sys.stderr.write\n"
                      "for i in range(200000):\n    w('e%07d\\n' % i)\n")
        r = self.exec(["python3", "src/err.py"], policy=self.policy())
        self.assertRun(r, 0, "[STDERR]\ne0000000\n", "e0199999\n\n[EXIT CODE] 0 (success)")
        text = self.section(r, "[STDERR]", "[EXIT CODE]")
        m = CUT.search(text)
        self.assertIsNotNone(m)
        head, tail = text[:m.start()], text[m.end() + 1:]
        self.assertEqual(int(m.group(1)), 200000 * 9 - len(head) - len(tail))

    def test_at_the_cap_nothing_is_cut(self):
        self.ws.write("src/exact.py", "import sys\nsys.stdout.write('x' * 1048576)\n")
        r = self.exec(["python3", "src/exact.py"], policy=self.policy())
        self.assertRun(r, 0, absent=["bytes dropped", "[TRUNCATED"])
        self.assertEqual(r.out, "[STDOUT]\n" + "x" * 1048576 + "\n[EXIT CODE] 0 (success)\n")


if __name__ == "__main__":
    main()
