"""Issue 15, item 4: the walks before a run reuse the directory listings of
the last run (launcher/scan/scan_reuse.c), kept in <cache>/paldron/<ws>-<id>.snap;
only the directories that changed since are read. That must never change a
verdict:

- a change made between two runs outside Paldron (a new file, a file changed
  in place, a renamed directory, a deleted file, a new .env) is not blamed
  on the next run, and a change that run makes is still found, also in a
  directory whose listing came from the file;
- a secret added between runs is recorded, so the namespace floor masks it
  and the output scan knows its value;
- a damaged file means a full walk (and a finding is still found);
- the run cannot write the file, and a run that could (no OS isolation)
  removes it.

Directories are kept only once their ctime is two seconds old, so the tests
wait that long where a listing must come from the file (a wait, not a timed
assertion), and they run paldron without the harness's chown of the whole
workspace (which would move every ctime). PALDRON_DEBUG=scan makes paldron
say how many directories it listed from the file and how many it read.
Real runs as the unprivileged test user."""

import glob
import os
import re
import subprocess
import time

from harness import main, skip, valgrind_wrapped
from test_exec_result import ExecBase, example_policy

SECRET = "sk-live-7hQ2mZ9xR4pL8wK3vN6t"
LISTED = re.compile(r"paldron: scan: (\d+) directories listed from the last run's snapshot, "
                    r"(\d+) read")


class ReuseBase(ExecBase):
    """The workspace, the policies and the runs of both test classes."""

    def setUp(self):
        super().setUp()
        self.static = self.copy_probes()[1]
        for d in ("src/a/deep", "src/b", "docs"):
            self.ws.mkdir(d)
        self.ws.write("src/a/one.c", "int one;\n")
        self.ws.write("src/b/two.c", "int two;\n")
        self.ws.write("docs/readme", "read me\n")
        binaries = ["sh", "python3"] + self.probe_paths()
        self.policies = {}
        for ns in (True, False):
            self.policies[ns] = os.path.join(self.ws.base, "policy-%d.toml" % ns)
            with open(self.policies[ns], "w") as f:
                f.write(example_policy(binaries=binaries, namespaces=ns))
        self.degraded = os.path.join(self.ws.base, "policy-degraded.toml")
        with open(self.degraded, "w") as f:
            f.write(example_policy(binaries=binaries, require_os_isolation=False))
        self.ws._own()
        self.settle()

    def settle(self):
        """Let every directory's ctime get two seconds old."""
        time.sleep(2.2)

    def run_sh(self, script, namespaces=True, policy=None):
        """paldron exec -- sh -c script as the test user, without chown."""
        return self.ws.run(["exec", "--policy", policy or self.policies[namespaces], "--",
                            "sh", "-c", script], env={"PALDRON_DEBUG": "scan"}, own=False)

    def listed(self, r):
        """(directories listed from the file, directories read) of a run."""
        m = LISTED.search(r.err)
        self.assertIsNotNone(m, repr(r))
        return int(m.group(1)), int(m.group(2))

    def snapfile(self):
        files = glob.glob(os.path.join(self.ws.base, "cache", "paldron", "ws-*.snap"))
        self.assertLessEqual(len(files), 1, files)
        return files[0] if files else None

    def outside(self, rel, text, append=False):
        """A file written outside Paldron (by the user, between runs)."""
        path = self.p(rel)
        with open(path, "a" if append else "w") as f:
            f.write(text)
        os.lchown(path, self.ws.user.pw_uid, self.ws.user.pw_gid)


class ScanReuseTest(ReuseBase):
    def test_an_unchanged_workspace_is_listed_from_the_file(self):
        r1 = self.run_sh("true")
        self.assertRun(r1, 0)
        self.assertEqual(self.listed(r1)[0], 0, repr(r1))
        self.assertIsNotNone(self.snapfile())
        r2 = self.run_sh("true")
        self.assertRun(r2, 0)
        listed, read = self.listed(r2)
        self.assertEqual(read, 0, repr(r2))
        self.assertGreaterEqual(listed, 6, repr(r2))  # ws, src, src/a, src/a/deep, src/b, docs

    def test_changes_outside_paldron_are_not_blamed_on_the_next_run(self):
        # no namespace floor: it would mask the .env the run writes below
        # (and another policy file is another policy: a full walk)
        self.assertRun(self.run_sh("true", namespaces=False), 0)
        # between the runs, outside Paldron
        self.outside("src/a/new.c", "int n;\n")
        self.outside("src/b/two.c", "int more;\n", append=True)
        os.rename(self.p("src/a/deep"), self.p("src/a/deeper"))
        os.unlink(self.p("docs/readme"))
        self.outside("src/b/.env", "API_TOKEN=%s\n" % SECRET)
        self.outside(".env.local", "X=1\n")
        self.settle()
        r2 = self.run_sh("true", namespaces=False)
        self.assertRun(r2, 0, absent=["deny"])
        self.assertGreater(self.listed(r2)[0], 0, repr(r2))  # src/ did not change
        # every directory from the file now, src/b with its .env: the run
        # rewrites that .env in place (the static probe: no live gate)
        r3 = self.run_sh("%s write-text src/b/.env X=2" % self.static, namespaces=False)
        self.assertEqual(self.listed(r3)[1], 0, repr(r3))
        self.assertRun(r3, 2, "paldron: deny: run modified src/b/.env (policy deny_glob)")

    def test_a_change_by_the_run_is_found_in_a_listed_directory(self):
        self.assertRun(self.run_sh("true"), 0)
        r = self.run_sh("%s creat src/a/deep/.env; %s creat src/b/id.pem"
                        % (self.static, self.static))
        self.assertEqual(self.listed(r)[1], 0, repr(r))
        self.assertRun(r, 2, "paldron: deny: run produced src/a/deep/.env (policy deny_glob)",
                       "paldron: deny: run produced src/b/id.pem (policy deny_glob)")

    def test_a_secret_added_between_runs_is_masked_and_known(self):
        self.assertRun(self.run_sh("true"), 0)
        self.outside("src/b/.env", "API_TOKEN=%s\n" % SECRET)
        self.settle()
        self.assertRun(self.run_sh("true"), 0)
        # src/b's listing (with .env) comes from the file: the namespace
        # floor masks the file, or the output scan redacts its value
        r = self.run_sh("%s read-file src/b/.env" % self.static)
        self.assertEqual(self.listed(r)[1], 0, repr(r))
        self.assertNotIn(SECRET, r.both)

    def test_a_damaged_file_means_a_full_walk(self):
        self.assertRun(self.run_sh("true"), 0)
        snap = self.snapfile()
        with open(snap, "r+b") as f:
            data = bytearray(f.read())
            data[len(data) // 2] ^= 0x40
            f.seek(0)
            f.write(data)
        r = self.run_sh("%s creat src/a/deep/.env" % self.static)
        listed, read = self.listed(r)
        self.assertEqual(listed, 0, repr(r))
        self.assertGreaterEqual(read, 6, repr(r))
        self.assertRun(r, 2, "paldron: deny: run produced src/a/deep/.env (policy deny_glob)")
        with open(self.snapfile(), "wb") as f:
            f.write(b"garbage")
        r = self.run_sh("true")
        self.assertEqual(self.listed(r)[0], 0, repr(r))
        self.assertRun(r, 0)

    def test_the_run_cannot_write_the_file(self):
        self.assertRun(self.run_sh("true"), 0)
        snap = self.snapfile()
        with open(snap, "rb") as f:
            before = f.read()
        r = self.run_sh("%s open-write %s; %s unlink %s"
                        % (self.static, snap, self.static, snap))
        self.assertRun(r, 0)
        self.assertNotIn("0 0\n", r.out, repr(r))  # both refused
        with open(snap, "rb") as f:
            self.assertEqual(f.read(), before)

    def test_a_run_without_isolation_removes_the_file(self):
        self.assertRun(self.run_sh("true"), 0)
        self.assertIsNotNone(self.snapfile())
        r = self.run_sh("true", policy=self.degraded)
        self.assertIn("(no snapshot kept for this run)", r.err, repr(r))
        self.assertIsNone(self.snapfile())
        r = self.run_sh("true")
        self.assertEqual(self.listed(r)[0], 0, repr(r))


WATCHED = "paldron: scan: changed files found by the kernel's change notification"
WALKED = "paldron: scan: changed files found by reading every directory"


def make_many(t):
    """12 directories of 900 files in src/many, and a .env with a secret."""
    many = t.p("src/many")
    os.mkdir(many)
    for d in range(12):
        sub = os.path.join(many, "d%02d" % d)
        os.mkdir(sub)
        for f in range(900):
            with open(os.path.join(sub, "f%04d" % f), "w") as fh:
                fh.write("x\n")
    t.ws.write(".env", "API_TOKEN=%s\n" % SECRET)
    t.ws._own()
    t.settle()


class ScanWatchTest(ReuseBase):
    """Item 4, after the run: in a workspace whose writable roots hold many
    entries (10 000 and more), the search of changed files reads only the
    directories the kernel's change notification names
    (launcher/scan/scan_watch.c); what it finds is what reading every directory
    finds, a static program's in-place write included."""

    def setUp(self):
        super().setUp()
        make_many(self)

    def test_an_in_place_write_of_a_secret_is_found(self):
        r1 = self.run_sh("true")
        self.assertRun(r1, 0)
        # the secret's value, copied in place into one file of thousands by
        # a program without the live gate
        r = self.run_sh("%s copy .env src/many/d07/f0123" % self.static, namespaces=False)
        self.assertIn(WATCHED, r.err, repr(r))
        self.assertRegex(r.err, WATCHED + r", [01] directories read")
        self.assertRun(r, 2, "paldron: deny: run copied the secret of .env into "
                       "src/many/d07/f0123 (known value)")

    def test_new_files_and_folders_are_found(self):
        self.assertRun(self.run_sh("true"), 0)
        r = self.run_sh("python3 -c \"import os; os.makedirs('src/many/d03/new/deeper')\" && "
                        "%s copy .env "
                        "src/many/d03/new/deeper/leak.txt && %s creat src/many/d11/.env"
                        % (self.static, self.static), namespaces=False)
        self.assertIn(WATCHED, r.err, repr(r))
        self.assertRun(r, 2, "run copied the secret of .env into src/many/d03/new/deeper/leak.txt",
                       "paldron: deny: run produced src/many/d11/.env (policy deny_glob)")

    def test_a_quiet_run_reads_no_directory(self):
        self.assertRun(self.run_sh("true"), 0)
        r = self.run_sh("true")
        self.assertRun(r, 0)
        self.assertIn(WATCHED + ", 0 directories read", r.err)

    def test_a_small_workspace_is_read_whole(self):
        # below the threshold: the parent class's workspace alone
        for d in range(12):
            subprocess.run(["rm", "-rf", self.p("src/many/d%02d" % d)], check=True)
        self.settle()
        r = self.run_sh("true")
        self.assertIn(WALKED, r.err, repr(r))


class KeptWatchTest(ReuseBase):
    """The watches of one run are held for the next by a keeper process
    (launcher/scan/scan_watch_keep.c), named in <cache>/paldron/<ws>-<id>.watch:
    it holds two inotify instances and nothing else; the next run ends it and
    keeps its own; what that run changes is still found."""

    def setUp(self):
        super().setUp()
        if valgrind_wrapped():
            skip(self, "under valgrind no watches are kept (the keeper would be valgrind's)")
        make_many(self)

    def keeper(self):
        files = glob.glob(os.path.join(self.ws.base, "cache", "paldron", "ws-*.watch"))
        self.assertEqual(len(files), 1, files)
        with open(files[0]) as f:
            pid, start = (int(x) for x in f.read().split())
        st = os.stat(files[0])
        self.assertEqual((st.st_uid, st.st_mode & 0o777), (self.ws.user.pw_uid, 0o600))
        return pid, start

    @staticmethod
    def running(pid, start):
        """Is pid still the process started at start (not a zombie)?"""
        try:
            with open("/proc/%d/stat" % pid) as f:
                fields = f.read().rsplit(")", 1)[1].split()
        except FileNotFoundError:
            return False
        return fields[0] != "Z" and int(fields[19]) == start

    def tearDown(self):
        for path in glob.glob(os.path.join(self.ws.base, "cache", "paldron", "ws-*.watch")):
            with open(path) as f:
                pid, start = (int(x) for x in f.read().split())
            if self.running(pid, start):
                os.kill(pid, 9)
        super().tearDown()

    def test_the_next_run_ends_the_keeper_and_still_finds_its_changes(self):
        self.assertRun(self.run_sh("true"), 0)
        pid, start = self.keeper()
        self.assertTrue(self.running(pid, start))
        with open("/proc/%d/comm" % pid) as f:
            self.assertEqual(f.read().strip(), "paldron")
        self.assertEqual(os.stat("/proc/%d" % pid).st_uid, self.ws.user.pw_uid)
        # once it has started (it closes the launcher's descriptors and takes its
        # title first thing; on a busy machine it may not have run yet)
        deadline = time.monotonic() + 5
        while True:
            fds = sorted(os.readlink("/proc/%d/fd/%s" % (pid, n))
                         for n in os.listdir("/proc/%d/fd" % pid))
            with open("/proc/%d/cmdline" % pid, "rb") as f:
                cmd = f.read().rstrip(b"\0").decode()
            done = fds == ["anon_inode:inotify"] * 2 and cmd.startswith("paldron: ")
            if done or time.monotonic() > deadline:
                break
            time.sleep(0.02)
        self.assertEqual(fds, ["anon_inode:inotify"] * 2)
        # not the run's command line: a search for the run's processes finds nothing
        self.assertEqual(cmd, "paldron: watches kept for the next run")
        # the next run: a static program's in-place write of the secret is found
        r = self.run_sh("%s copy .env src/many/d05/f0042" % self.static, namespaces=False)
        self.assertIn(WATCHED, r.err, repr(r))
        self.assertRun(r, 2, "paldron: deny: run copied the secret of .env into "
                       "src/many/d05/f0042 (known value)")
        deadline = time.monotonic() + 5
        while self.running(pid, start) and time.monotonic() < deadline:
            time.sleep(0.05)
        self.assertFalse(self.running(pid, start), "the first keeper still runs")
        pid2, start2 = self.keeper()
        self.assertNotEqual((pid2, start2), (pid, start))
        self.assertTrue(self.running(pid2, start2))


if __name__ == "__main__":
    main()
