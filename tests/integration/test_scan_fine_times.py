"""Issue 15, item 5: where every scanned file system gives fine-grained change
times (Linux 6.13+ multigrain timestamps, observed on each run by
launcher/scan/scan_fine.c), the run starts without waiting for the clock's
next tick. That must never change a verdict:

- PALDRON_DEBUG=scan says which way the run started;
- a change the run makes in the very tick of the snapshot - a static program
  (no live gate, no namespace floor) writing a .env into a directory that
  was itself changed just before the run - is found, round after round;
- a file written outside Paldron just before the run, holding a secret's
  value, is not blamed on the run.

Real runs of the paldron binary as the unprivileged test user."""

import os
import platform

from harness import main
from test_exec_result import ExecBase, example_policy

SECRET = "sk-live-9fT3kW8qZ2xM5nB7vC4p"
FINE = "paldron: scan: file times are fine-grained on every scanned file system"
WAITS = "paldron: scan: the run waits for the clock's next tick"
ROUNDS = 12


def kernel_has_multigrain():
    major, minor = (int(x) for x in platform.release().split(".")[:2])
    return (major, minor) >= (6, 13)


class FineTimesTest(ExecBase):
    def setUp(self):
        super().setUp()
        self.static = self.copy_probes()[1]
        self.ws.mkdir("src/b")
        self.ws.write(".env", "API_TOKEN=%s\n" % SECRET)
        binaries = ["sh", "true"] + self.probe_paths()
        self.policy = os.path.join(self.ws.base, "policy.toml")
        with open(self.policy, "w") as f:
            # no namespace floor: the scan alone must find the write
            f.write(example_policy(binaries=binaries, namespaces=False))
        self.ws._own()

    def run_sh(self, script):
        """paldron exec -- sh -c script as the test user, without chown."""
        return self.ws.run(["exec", "--policy", self.policy, "--", "sh", "-c", script],
                           env={"PALDRON_DEBUG": "scan"}, own=False)

    def outside(self, rel, text):
        """A file written by the user outside Paldron, owned by the user."""
        path = self.p(rel)
        with open(path, "w") as f:
            f.write(text)
        os.lchown(path, self.ws.user.pw_uid, self.ws.user.pw_gid)

    def test_the_debug_line_says_how_the_run_started(self):
        r = self.run_sh("true")
        self.assertRun(r, 0, absent=["deny"])
        if kernel_has_multigrain():
            # ext4 under /tmp, /dev/shm (tmpfs): both observed fine-grained
            self.assertIn(FINE, r.err, repr(r))
        else:
            self.assertIn(WAITS, r.err, repr(r))

    def test_a_change_in_the_snapshots_own_tick_is_found(self):
        for k in range(ROUNDS):
            # the directory changes just before the run, and the run
            # changes it again at once: the same coarse tick, often
            self.outside("src/b/setup-%d.txt" % k, "set up\n")
            r = self.run_sh("%s write-text src/b/.env X=%d" % (self.static, k))
            self.assertRun(r, 2, "paldron: deny: run produced src/b/.env (policy deny_glob)")
            # moved to the quarantine by the run's cleanup: the next round
            # produces it anew
            self.assertFalse(os.path.lexists(self.p("src/b/.env")), repr(r))

    def test_a_file_written_just_before_the_run_is_not_blamed(self):
        for k in range(ROUNDS):
            # the secret's value, in a file the user wrote a moment before
            self.outside("src/b/copy-%d.txt" % k, "token %s\n" % SECRET)
            r = self.run_sh("true")
            self.assertRun(r, 0, absent=["deny", "copy-%d" % k])


if __name__ == "__main__":
    main()
