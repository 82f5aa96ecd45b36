"""Issue 15, item 1: the run's private files on a tmpfs that is not writable
inside the sandbox. With the run's own mount namespace the run directory
(temp home, compiled policy, report socket) is made in /dev/shm
(launcher/exec/exec_run.c rundir_in_shm) unless the caller set $TMPDIR: inside,
it is bound back read-only with only the temp home writable, and the host's
/dev/shm is never writable (the run has a private one); it is gone after the run. Where the host refuses
the namespaces, the run directory stays in $TMPDIR as before; where the early
check admitted them and the child's mount namespace is refused after all,
the run fails closed.

Raw system calls (no live gate) so that the kernel's answer is what is
tested. Real runs of the paldron binary as the unprivileged test user."""

import errno
import os
import re
import time

from harness import PALDRON, main, sanitized_build, skip, valgrind_wrapped
from test_exec_namespaces import NO_USERNS, NsBase

SCRIPT = r'''
import os
home = os.environ["HOME"]
run = os.path.dirname(home)
print("home: " + home)

def create(path):
    fd, e = sc("openat", -100, path.encode(), os.O_WRONLY | os.O_CREAT | os.O_CLOEXEC, 0o600)
    if fd >= 0:
        os.close(fd)
    return res(fd, e)

print("policy: " + raw_append(os.path.join(run, "policy.compiled")))
print("new-in-run: " + create(os.path.join(run, "planted")))
print("home-file: " + create(os.path.join(home, "x")))
print("shm-file: " + create("/dev/shm/pd-run-dir-test"))
'''


class RunDirectoryTest(NsBase):
    def run_script(self, prog=None, prefix=()):
        self.ws.write("src/rd.py", self.raw(SCRIPT))
        pol = self.ws.policy(self.pol())
        args = list(prefix) + ["exec", "--policy", pol, "--", "python3", "src/rd.py"]
        return self.ws.run(args, prog=prog)

    @staticmethod
    def raw(body):
        from test_exec_namespaces import raw_script
        return raw_script(body)

    def field(self, r, key):
        m = re.search(r"^%s: (.*)$" % re.escape(key), self.stdout(r), re.M)
        self.assertIsNotNone(m, "no %s line\n%r" % (key, r))
        return m.group(1)

    def res(self, r, key):
        ret, err = self.field(r, key).split()[:2]
        return int(ret), int(err)

    def test_on_dev_shm_read_only_inside_and_gone_after(self):
        r = self.run_script()
        self.assertRun(r, 0, "[EXIT CODE] 0 (success)", absent=["paldron: deny", "no namespaces"])
        home = self.field(r, "home")
        run = os.path.dirname(home)
        self.assertTrue(home.endswith("/reeve-sandbox-home"), home)
        if sanitized_build() or valgrind_wrapped():
            # no namespace helper in sanitizer builds and under valgrind: $TMPDIR
            print("SKIP: sanitizer build or valgrind: the run directory stays in $TMPDIR")
            self.assertTrue(run.startswith("/tmp/paldron-run-"), run)
        else:
            self.assertTrue(run.startswith("/dev/shm/paldron-run-"), run)
        # the compiled policy and the run directory: the kernel refuses
        self.assertRefused(r, self.res(r, "policy"), "append to policy.compiled",
                           (errno.EROFS, errno.EACCES))
        self.assertRefused(r, self.res(r, "new-in-run"), "create in the run directory",
                           (errno.EROFS, errno.EACCES))
        # the temp home and the run's own /dev/shm are writable
        self.assertEqual(self.res(r, "home-file"), (0, 0), repr(r))
        self.assertEqual(self.res(r, "shm-file"), (0, 0), repr(r))
        # nothing of it on the host afterwards
        self.assertFalse(os.path.lexists(run), run)
        self.assertFalse(os.path.lexists("/dev/shm/pd-run-dir-test"))

    def test_a_tmpdir_the_caller_set_is_used(self):
        tmp = os.path.join(self.ws.base, "tmp")
        os.mkdir(tmp)
        self.ws._own()
        self.ws.write("src/rd.py", self.raw(SCRIPT))
        pol = self.ws.policy(self.pol())
        r = self.ws.run(["exec", "--policy", pol, "--", "python3", "src/rd.py"],
                        env={"TMPDIR": tmp})
        self.assertRun(r, 0, "[EXIT CODE] 0 (success)", absent=["paldron: deny"])
        run = os.path.dirname(self.field(r, "home"))
        self.assertTrue(run.startswith(os.path.realpath(tmp) + "/paldron-run-"), run)
        self.assertRefused(r, self.res(r, "policy"), "append to policy.compiled",
                           (errno.EROFS, errno.EACCES))
        self.assertEqual(self.res(r, "home-file"), (0, 0), repr(r))
        self.assertFalse(os.path.lexists(run), run)

    def test_refused_namespaces_keep_it_in_tmpdir(self):
        if not os.path.exists(NO_USERNS):
            skip(self, "no_userns not built at %s" % NO_USERNS)
        r = self.run_script(prog=NO_USERNS, prefix=[PALDRON])
        self.assertRun(r, 0, "paldron: coverage: no namespaces (", absent=["paldron: deny"])
        run = os.path.dirname(self.field(r, "home"))
        self.assertTrue(run.startswith("/tmp/paldron-run-"), run)
        # Landlock alone: the run directory is still out of reach
        self.assertRefused(r, self.res(r, "policy"), "append to policy.compiled",
                           (errno.EACCES,))
        self.assertRefused(r, self.res(r, "new-in-run"), "create in the run directory",
                           (errno.EACCES,))
        self.assertEqual(self.res(r, "home-file"), (0, 0), repr(r))
        self.assertFalse(os.path.lexists(run), run)
        try:
            os.unlink("/dev/shm/pd-run-dir-test")  # the host's /dev/shm, as before
        except FileNotFoundError:
            pass

    def test_mount_namespace_refused_after_the_early_check_fails_closed(self):
        if not os.path.exists(NO_USERNS):
            skip(self, "no_userns not built at %s" % NO_USERNS)
        if sanitized_build() or valgrind_wrapped():
            skip(self, "sanitizer build or valgrind: no early check to pass")
        before = set(os.listdir("/dev/shm"))
        pol = self.ws.policy(self.pol(["touch"]))
        r = self.ws.run(["--mount", PALDRON, "exec", "--policy", pol, "--", "sh", "-c",
                         "touch src/ran.txt"], prog=NO_USERNS)
        self.assertRun(r, 1, "unshare(mount): Operation not permitted",
                       absent=["[EXIT CODE] 0", "paldron: deny"])
        self.assertFalse(self.ws.exists("src/ran.txt"))
        # other tests' runs come and go meanwhile; a directory left behind stays
        deadline = time.monotonic() + 20
        while True:
            left = [n for n in set(os.listdir("/dev/shm")) - before
                    if n.startswith("paldron-run-")]
            if not left or time.monotonic() > deadline:
                break
            time.sleep(0.2)
        self.assertEqual(left, [], "run directory left behind")


if __name__ == "__main__":
    main()
