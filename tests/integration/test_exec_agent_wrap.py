"""What wrapping a whole agent in `paldron exec --interactive` needs from exec
(issue 13, item 5; the real clients: tests/clients/test_wrap_*.py).

A program that writes where a directory it may not search stands in the way
(Claude Code's runtime tries /sys/kernel/debug/tracing/trace_marker) is
refused by the kernel without Paldron: the live gate passes it on and
reports nothing, as for any write the file permissions refuse. A directory the
caller owns could be opened again with a chmod, so there the refusal is still
Paldron's and still reported. Real runs as the unprivileged user."""

import os
import shutil
import tempfile

from harness import WORK_BASE, PaldronTest, Workspace, main, skip

WRITE = ("import os\ntry:\n    open(os.environ['TARGET'], 'w')\n    print('WROTE')\n"
         "except OSError as e:\n    print('REFUSED', e.errno)\n")


class AgentWrapExecTest(PaldronTest):
    def setUp(self):
        self.ws = Workspace(as_user=True)
        self.addCleanup(self.ws.close)
        self.ws.write("w.py", WRITE)
        self.policy = self.ws.policy("")

    def run_write(self, target, interactive=False):
        # the path travels in the environment: as an argument the argv gate
        # would refuse it before anything runs (outside the workspace)
        args = ["exec"] + (["--interactive"] if interactive else []) + [
            "--policy", self.policy, "--", "python3", "w.py"]
        return self.ws.run(args, env={"TARGET": target})

    def locked_tree(self, owner_uid, mode):
        """<base>/locked (mode, owned by owner_uid) holding sub/, outside
        the workspace."""
        base = tempfile.mkdtemp(prefix="paldron-it-locked-", dir=WORK_BASE)
        self.addCleanup(shutil.rmtree, base, True)
        os.chmod(base, 0o755)
        locked = os.path.join(base, "locked")
        os.makedirs(os.path.join(locked, "sub"))
        os.chown(locked, owner_uid, owner_uid)
        os.chmod(locked, mode)
        return os.path.join(locked, "sub", "f")

    def test_unsearchable_directory_of_another_user_goes_to_the_kernel_unreported(self):
        if os.geteuid() != 0:
            skip(self, "needs root to lay out a root-owned directory")
        target = self.locked_tree(0, 0o700)
        for interactive in (False, True):
            r = self.run_write(target, interactive)
            self.assertRun(r, 0, "REFUSED 13", absent=["WROTE", "paldron: blocked:",
                                                       "paldron: deny:"])
        self.assertFalse(os.path.exists(target))

    def test_trace_marker_is_refused_quietly(self):
        # The write Claude Code's runtime tries, where debugfs is mounted.
        # /sys/kernel/debug is mode 0700, root: the unprivileged user cannot
        # even look it up.
        marker = "/sys/kernel/debug/tracing/trace_marker"
        if not os.path.isdir("/sys/kernel/debug/tracing"):
            skip(self, "debugfs with tracing is not mounted at /sys/kernel/debug")
        st = os.stat("/sys/kernel/debug")
        if st.st_uid == self.ws.user.pw_uid or st.st_mode & 0o001:
            skip(self, "/sys/kernel/debug is searchable by the test user here")
        r = self.run_write(marker, interactive=True)
        self.assertRun(r, 0, "REFUSED 13", "paldron: interactive run ended: 0 live denial(s)",
                       absent=["WROTE", "paldron: blocked:", "paldron: deny:"])

    def test_unsearchable_directory_the_caller_owns_is_still_reported(self):
        # the owner may chmod it back: the kernel's answer could change, so
        # the refusal is Paldron's own (outside the writable roots)
        if os.geteuid() != 0:
            skip(self, "needs root to lay out the tree")
        target = self.locked_tree(self.ws.user.pw_uid, 0o000)
        r = self.run_write(target)
        self.assertRun(r, 0, "REFUSED 13", "paldron: blocked: python3 create %s" % target,
                       absent=["WROTE", "paldron: deny:"])
        self.assertFalse(os.path.exists(target))

    # ---- the temp home is the run's own (needs the policy/gate_path.c hunk) ----

    HOME_KEY = ("import os\nh = os.environ['HOME']\nd = os.path.join(h, '.claude', 'sessions')\n"
                "os.makedirs(d)\np = os.path.join(d, '42.abc.key')\n"
                "open(p, 'w').write('session key')\nprint(open(p).read())\n"
                "os.rename(p, p + '.old')\nopen(os.path.join(h, '.npmrc'), 'w').write('x')\n")

    def test_secret_names_in_the_temp_home_are_the_runs_own(self):
        # Claude Code keeps its session keys in ~/.claude/sessions/*.key: in
        # the temp home (made empty for the run, removed with it) the built-in
        # secret names are nobody's secret
        self.ws.write("k.py", self.HOME_KEY)
        for interactive in (False, True):
            args = ["exec"] + (["--interactive"] if interactive else []) + [
                "--policy", self.policy, "--", "python3", "k.py"]
            r = self.ws.run(args)
            self.assertRun(r, 0, "session key", absent=["paldron: deny:", "paldron: blocked:"])

    def test_deny_globs_still_apply_in_the_temp_home(self):
        self.ws.write("k.py", self.HOME_KEY)
        policy = self.ws.policy('deny_globs = ["*.key"]\n')
        r = self.ws.run(["exec", "--policy", policy, "--", "python3", "k.py"])
        self.assertRun(r, 2, "paldron: deny: python3 create ", "(policy deny_glob *.key) [live]",
                       absent=["[STDOUT]\nsession key"])

    def test_secrets_outside_the_temp_home_stay_secrets(self):
        self.ws.write(".env", "TOKEN=x\n")
        self.ws.write("l.py", "import os\nh = os.environ['HOME']\n"
                      "os.symlink(os.path.abspath('.env'), os.path.join(h, 'notes.txt'))\n"
                      "print(open(os.path.join(h, 'notes.txt')).read())\n")
        r = self.ws.run(["exec", "--policy", self.policy, "--", "python3", "l.py"])
        self.assertRun(r, 2, "paldron: deny: python3 read ", "(secret .env) [live]",
                       absent=["TOKEN=x"])


if __name__ == "__main__":
    main()
