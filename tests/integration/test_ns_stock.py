"""Issue 15: the namespaces of the next run made after this one
(platform/linux/ns_stock.c, launcher/exec/exec_ns_stock.c). Real runs of the
paldron binary as the unprivileged test user: after an isolated run a kept
process names itself in <cache base>/namespaces-net.stock, holds nothing of
the run, and the next run enters exactly its namespaces and ends it; each
run's namespaces are new ones. A file naming another process is not believed
(that process lives on), and a launcher under a seccomp filter that refuses
namespaces does not take a stock made outside it."""

import os
import subprocess
import time

from harness import PALDRON, main, sanitized_build, skip, valgrind_wrapped
from test_exec_namespaces import NO_USERNS, NsBase

TITLE = "paldron: namespaces made for the next run"


def wait_until(pred, seconds=3.0):
    end = time.monotonic() + seconds
    while time.monotonic() < end:
        if pred():
            return True
        time.sleep(0.02)
    return pred()


def ns_of(pid, kind="net"):
    try:
        return os.readlink("/proc/%d/ns/%s" % (pid, kind))
    except OSError:
        return None


class NsStockTest(NsBase):
    def setUp(self):
        super().setUp()
        if valgrind_wrapped() or sanitized_build():
            skip(self, "no stock under valgrind or a sanitizer build (no raw-syscall clone)")
        self.stock = os.path.join(self.ws.base, "cache", "paldron", "namespaces-net.stock")

    def ns_run(self, prog=None):
        pol = self.ws.policy(self.pol(["readlink"]))
        r = self.ws.run(["exec", "--policy", pol, "--", "sh", "-c",
                         "readlink /proc/self/ns/net /proc/self/ns/user"], prog=prog)
        self.assertEqual(r.code, 0, repr(r))
        self.assertIn("[EXIT CODE] 0 (success)", r.out, repr(r))
        lines = [ln for ln in r.out.splitlines() if ln.startswith(("net:", "user:"))]
        return r, lines

    def named(self):
        try:
            with open(self.stock) as f:
                return int(f.read().split()[0])
        except (OSError, ValueError, IndexError):
            return None

    def kept(self, not_=None):
        """The pid the stock file names, once it names one other than not_."""
        wait_until(lambda: self.named() not in (None, not_))
        pid = self.named()
        return pid if pid != not_ else None

    def test_the_next_run_enters_the_kept_namespaces_and_ends_the_process(self):
        self.ns_run()
        k1 = self.kept()
        self.assertIsNotNone(k1, "no stock after an isolated run")
        # the kept process: the user's, nothing of the run
        with open("/proc/%d/cmdline" % k1, "rb") as f:
            cmd = f.read().rstrip(b"\0").decode()
        self.assertTrue(cmd and TITLE.startswith(cmd.split("\0")[0]), cmd)
        with open("/proc/%d/environ" % k1, "rb") as f:
            self.assertEqual(f.read().strip(b"\0"), b"", "the run's environment is shown")
        self.assertEqual(os.stat("/proc/%d" % k1).st_uid, self.uid)
        self.assertEqual(len(os.listdir("/proc/%d/fd" % k1)), 1)
        self.assertEqual(os.readlink("/proc/%d/cwd" % k1), "/")
        kept_net, kept_user = ns_of(k1), ns_of(k1, "user")
        # A namespace's number names it only while it lives: the kernel gives
        # a freed one's number to the next it makes (the first run's are gone
        # by now). So the stock's are compared with live ones: this
        # process's, and k1's, held open across the second run.
        self.assertNotEqual(kept_net, os.readlink("/proc/self/ns/net"),
                            "the stock's namespaces are new ones")
        held = os.open("/proc/%d/ns/net" % k1, os.O_RDONLY)
        self.addCleanup(os.close, held)

        _, second = self.ns_run()
        self.assertEqual(second, [kept_net, kept_user], "the run did not enter the stock")
        self.assertTrue(wait_until(lambda: ns_of(k1) is None), "the kept process lives on")
        k2 = self.kept(not_=k1)
        self.assertIsNotNone(k2, "no new stock after the run that took one")
        self.assertNotEqual(ns_of(k2), kept_net, "a stock's namespaces were used twice")

    def test_a_file_naming_another_process_is_not_believed(self):
        self.ns_run()
        k1 = self.kept()
        self.assertIsNotNone(k1)
        os.kill(k1, 9)
        self.assertTrue(wait_until(lambda: ns_of(k1) is None))
        # a process of the user's that is not a kept paldron, with its real start time
        other = subprocess.Popen(["setpriv", "--reuid=%d" % self.uid, "--regid=%d" % self.uid,
                                  "--clear-groups", "sleep", "30"])
        self.addCleanup(other.wait)
        self.addCleanup(other.kill)
        time.sleep(0.1)
        with open("/proc/%d/stat" % other.pid) as f:
            start = f.read().rsplit(")", 1)[1].split()[19]
        with open(self.stock, "w") as f:
            f.write("%d %s\n" % (other.pid, start))
        os.chown(self.stock, self.uid, -1)
        os.chmod(self.stock, 0o600)
        _, lines = self.ns_run()
        self.assertIsNone(other.poll(), "the process the file named was ended")
        self.assertNotIn(ns_of(other.pid), lines, "the run entered another process's namespaces")

    def test_a_launcher_confined_otherwise_does_not_take_it(self):
        if not os.path.exists(NO_USERNS):
            skip(self, "no_userns not built at %s" % NO_USERNS)
        self.ns_run()
        k1 = self.kept()
        self.assertIsNotNone(k1)
        pol = self.ws.policy(self.pol(["true"]))
        r = self.ws.run([PALDRON, "exec", "--policy", pol, "--", "true"], prog=NO_USERNS)
        self.assertEqual(r.code, 0, repr(r))
        self.assertIn("paldron: coverage: no namespaces (", r.err, repr(r))
        self.assertIsNotNone(ns_of(k1), "a launcher under one more seccomp filter took the stock")


if __name__ == "__main__":
    main()
