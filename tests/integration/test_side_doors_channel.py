"""Issue 10, item 5: the live gate's report channel cannot be starved.

A program that uses up its descriptors, or closes the preload's socket, is
still refused and the run is still a deny (the record goes over the socket the
library opens for its first record, or its fallback line on stderr is counted
by the launcher). A process that sends no record holds no descriptor of the
preload's (a child started with close_fds lists the same fds as bare). A flood of denied calls keeps the launcher's memory flat and ends in
a summary line. Real runs as the unprivileged test user."""

import re
import sys

from harness import PALDRON, main
from test_exec_result import ExecBase, example_policy


# Use up every descriptor (EMFILE), then try to create src/.env.
EXHAUST = r"""
import errno, os, sys
if len(sys.argv) > 1 and sys.argv[1] == 'close-all':
    # also close whatever the preload keeps open: nothing left to report with
    os.closerange(3, 1 << 16)
fds = []
try:
    while True:
        fds.append(os.open('/dev/null', os.O_RDONLY))
except OSError as e:
    assert e.errno == errno.EMFILE, e
try:
    open('src/.env', 'w').write('x')
    print('WROTE')
except PermissionError:
    print('REFUSED')
except OSError as e:
    print('OTHER', e)
"""

FLOOD = r"""
n = 0
for i in range(100000):
    try:
        open('src/.env.%d' % i, 'w')
    except PermissionError:
        n += 1
print('refused', n)
"""


# A child started with close_fds lists its descriptors (CPython's
# test_subprocess.test_pass_fds_redirected does the same), and so does the
# parent: a process that gated nothing has no descriptor of the preload's.
LIST_FDS = r"""
import os, subprocess, sys
child = "import os; print('child', sorted(int(n) for n in os.listdir('/proc/self/fd')))"
subprocess.run([sys.executable, '-c', child], close_fds=True, check=True)
print('parent', sorted(int(n) for n in os.listdir('/proc/self/fd')))
"""


class ChannelTest(ExecBase):
    def policy(self, **keys):
        return example_policy(binaries=["python3"], **keys)

    def test_exhausted_descriptors_still_deny(self):
        self.ws.write("src/exhaust.py", EXHAUST)
        r = self.exec(["python3", "src/exhaust.py"], policy=self.policy())
        self.assertRun(r, 2, "REFUSED",
                       "python3 create src/.env (policy deny_glob .env) [live]",
                       absent=["WROTE"])
        self.assertFalse(self.ws.exists("src/.env"))

    def test_fallback_line_counts_as_a_denial(self):
        # no socket and no descriptor to open one: the preload can only print
        # its fallback line; the launcher finds it in the captured stderr
        self.ws.write("src/exhaust.py", EXHAUST)
        r = self.exec(["python3", "src/exhaust.py", "close-all"], policy=self.policy())
        self.assertRun(r, 2, "REFUSED",
                       "python3 create src/.env (policy deny_glob .env) [live]",
                       absent=["WROTE"])
        self.assertFalse(self.ws.exists("src/.env"))
        # the verdict line, not only the echo of the program's stderr
        self.assertRegex(r.err, r"(?m)^paldron: deny: .*python3 create src/\.env")

    def test_no_extra_descriptor_until_a_record_is_sent(self):
        self.ws.write("src/fds.py", LIST_FDS)
        bare = self.ws.run(["src/fds.py"], prog="python3")
        self.assertEqual(bare.code, 0, repr(bare))
        r = self.exec(["python3", "src/fds.py"], policy=self.policy())
        self.assertEqual(r.code, 0, repr(r))

        def lines(res):
            return [ln for ln in res.out.splitlines() if ln.startswith(("child ", "parent "))]
        self.assertEqual(len(lines(bare)), 2, repr(bare))
        self.assertEqual(lines(r), lines(bare), repr(r))

    def rss_kib(self, argv, policy):
        """Run paldron exec under /usr/bin/time; (result, max RSS in KiB)."""
        pol = self.ws.policy(policy)
        r = self.ws.run(["-f", "MAXRSS=%M", PALDRON, "exec", "--policy", pol, "--"]
                        + argv, prog="/usr/bin/time", timeout=300)
        m = re.search(r"MAXRSS=(\d+)", r.err)
        self.assertIsNotNone(m, repr(r))
        return r, int(m.group(1))

    def test_flood_keeps_memory_flat_and_says_so(self):
        self.ws.write("src/flood.py", FLOOD)
        self.ws.write("src/few.py", FLOOD.replace("100000", "10"))
        pol = self.policy(timeout_sec=120, cpu_time_sec=120, output_scan=False)
        _, base = self.rss_kib(["python3", "src/few.py"], pol)
        r, flood = self.rss_kib(["python3", "src/flood.py"], pol)
        self.assertEqual(r.code, 2, repr(r)[-3000:])
        self.assertIn("refused 100000", r.out, repr(r)[-3000:])
        self.assertRegex(r.err, r"paldron: \d+ live records dropped \(flood\)",
                         r.err[-3000:])
        # every distinct record is not a line of its own
        self.assertLess(r.err.count("\n"), 5000, r.err[-3000:])
        print("max RSS: %d KiB (10 denials), %d KiB (100000)" % (base, flood), file=sys.stderr)
        # 100000 distinct records kept would cost tens of MiB
        self.assertLess(flood - base, 16 * 1024,
                        "launcher max RSS grew from %d to %d KiB" % (base, flood))


if __name__ == "__main__":
    main()
