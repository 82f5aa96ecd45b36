"""The preload's file gate, call by call and with real programs.

Every wrapped file-system entry point is called through ctypes (tests/preload/
cprobe.py) under libpaldron_preload.so once where the policy denies it (EACCES,
the effect did not happen, one record with the rule) and once where it allows it
(the effect happened). Then real programs: sh and bash redirections, coreutils
(cat, cp, mv, ln, touch, tee, dd), python3's open, git in a repository.
"""
import os
import shutil
import subprocess
import sys

sys.dont_write_bytecode = True  # no __pycache__ in the source tree
sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "preload"))
import preload_fixture as pf  # noqa: E402

POLICY = """allow_paths = ["src/", "docs/"]
deny_globs = ["*.log", "private/**"]
allow_network = false
allow_binaries = []
"""

SECRET = "TOKEN=hunter2\n"


class FileGate(pf.PreloadTest):
    def setUp(self):
        super().setUp()
        self.sb = self.sandbox(POLICY)
        sb = self.sb
        sb.write("src/.env", SECRET)
        sb.write("src/a.txt", "hello\n")
        sb.write("src/old.txt", "old\n")
        sb.write("private/key", "k\n")
        sb.write("README", "readme\n")
        os.makedirs(sb.path("src/sub"))

    def deny(self, *call, op=None, path=None, reason=None, errno_=pf.EACCES, kind="deny"):
        r = self.sb.probe(*call)
        self.assertDenied(r, errno_)
        recs = self.sb.records()
        want = {"kind": kind, "program": "python3"}
        if op:
            want["op"] = op
        if path:
            want["path"] = path
        if reason:
            want["reason"] = reason
        rec = self.assertRecord(recs, **want)
        self.assertEqual(rec["argv"][:2], [pf.PYTHON, pf.CPROBE], rec)
        return rec

    def allow(self, *call):
        r = self.sb.probe(*call)
        self.assertAllowed(r)
        self.assertNoRecord(self.sb.records(), kind="deny")
        return r

    def unchanged(self):
        self.assertEqual(self.sb.read("src/.env"), SECRET)

    # ---- reads ------------------------------------------------------------
    def test_read_of_a_secret_is_denied_and_nothing_is_read(self):
        for fn in ("open", "open64"):
            with self.subTest(fn=fn):
                r = self.sb.probe(fn, "src/.env", "O_RDONLY", "0", "read")
                self.assertDenied(r)
                self.assertNotIn("hunter2", r.out + r.err)
                rec = self.assertRecord(self.sb.records(), kind="deny", op="read",
                                        path="src/.env", reason="secret")
                self.assertEqual(rec["resolved"], os.path.realpath(self.sb.path("src/.env")))
                self.assertEqual(rec["key"], "secrets")
                self.assertEqual(rec["pattern"], ".env")
                r = self.sb.probe(fn, "src/a.txt", "O_RDONLY", "0", "read")
                self.assertIn("hello", r.out)
                self.assertAllowed(r)

    def test_read_variants(self):
        for fn in ("__open_2", "__open64_2"):
            with self.subTest(fn=fn):
                self.deny(fn, "src/.env", "O_RDONLY", op="read", reason="secret")
                self.allow(fn, "src/a.txt", "O_RDONLY")
        for fn in ("openat", "openat64"):
            with self.subTest(fn=fn):
                self.deny(fn, self.sb.path("src"), ".env", "O_RDONLY", op="read", reason="secret")
                self.allow(fn, self.sb.path("src"), "a.txt", "O_RDONLY")
                self.deny(fn, ".", "src/.env", "O_RDONLY", op="read")
        for fn in ("__openat_2", "__openat64_2"):
            with self.subTest(fn=fn):
                self.deny(fn, self.sb.path("src"), ".env", "O_RDONLY", op="read")
                self.allow(fn, self.sb.path("src"), "a.txt", "O_RDONLY")
        for fn in ("fopen", "fopen64"):
            with self.subTest(fn=fn):
                self.deny(fn, "src/.env", "r", op="read", reason="secret")
                self.allow(fn, "src/a.txt", "r")
        for fn in ("freopen", "freopen64"):
            with self.subTest(fn=fn):
                self.deny(fn, "src/.env", "r", op="read")
                self.allow(fn, "src/a.txt", "r")

    def test_deny_glob_read(self):
        self.sb.write("src/build.log", "log\n")
        rec = self.deny("open", "src/build.log", "O_RDONLY", op="read", reason="policy deny_glob")
        self.assertEqual(rec["key"], "deny_globs")
        self.assertEqual(rec["pattern"], "*.log")
        self.deny("open", "private/key", "O_RDONLY", reason="policy deny_glob")

    def test_symlink_to_a_secret_is_judged_as_the_secret(self):
        os.symlink(".env", self.sb.path("src/innocent"))
        os.symlink("src", self.sb.path("docs-link"))
        rec = self.deny("open", "src/innocent", "O_RDONLY", op="read", reason="secret")
        self.assertEqual(rec["path"], "src/innocent")
        self.assertEqual(rec["resolved"], os.path.realpath(self.sb.path("src/.env")))
        self.deny("open", "docs-link/.env", "O_RDONLY", reason="secret")
        self.deny("fopen", "src/innocent", "r", reason="secret")
        self.allow("open", "docs-link/a.txt", "O_RDONLY")

    def test_relative_paths_follow_the_working_directory(self):
        code = ("import os\n"
                "def tryopen(p):\n"
                "    try:\n"
                "        open(p).close(); return 'ok'\n"
                "    except PermissionError:\n"
                "        return 'denied'\n"
                "print(tryopen('a.txt'), tryopen('.env'))\n"
                "os.chdir('src')\n"
                "print(tryopen('a.txt'), tryopen('.env'))\n"
                "fd = os.open('/', os.O_RDONLY)\n"
                "os.fchdir(fd)\n"
                "print(tryopen('etc/passwd'))\n")
        self.sb.write(".env", SECRET)
        self.sb.write("a.txt", "top\n")
        r = self.sb.run([pf.PYTHON, "-c", code])
        self.assertOut(r, 0)
        self.assertEqual(r.out.split(), ["ok", "denied", "ok", "denied", "ok"], repr(r))
        recs = self.sb.records()
        self.assertRecord(recs, path=".env", resolved=os.path.realpath(self.sb.path(".env")))
        self.assertRecord(recs, path=".env", resolved=os.path.realpath(self.sb.path("src/.env")))

    def test_o_path_is_not_judged(self):
        self.allow("open", "src/.env", "O_PATH")

    # ---- writes -------------------------------------------------------------
    def test_write_opens(self):
        for fn in ("open", "open64"):
            with self.subTest(fn=fn):
                self.deny(fn, "src/.env", "O_WRONLY|O_TRUNC", op="write", reason="secret")
                self.unchanged()
                self.deny(fn, "src/new.key", "O_WRONLY|O_CREAT", op="create", reason="secret")
                self.assertFalse(self.sb.exists("src/new.key"))
                self.deny(fn, "README", "O_RDWR", op="write", reason="outside allow_paths",
                          kind="blocked")
                self.deny(fn, "src/.env", "O_RDONLY|O_APPEND", op="write")
                self.unchanged()
                self.allow(fn, "src/" + fn + ".txt", "O_WRONLY|O_CREAT")
                self.assertTrue(self.sb.exists("src/" + fn + ".txt"))
        for fn in ("openat", "openat64"):
            with self.subTest(fn=fn):
                self.deny(fn, self.sb.path("src"), "x.key", "O_WRONLY|O_CREAT", op="create")
                self.assertFalse(self.sb.exists("src/x.key"))
                self.allow(fn, self.sb.path("src"), fn + ".txt", "O_WRONLY|O_CREAT")
        for fn in ("creat", "creat64"):
            with self.subTest(fn=fn):
                self.deny(fn, "src/.env", "644", op="write", reason="secret")
                self.unchanged()
                self.allow(fn, "src/" + fn + ".txt", "644")
        for fn in ("fopen", "fopen64"):
            with self.subTest(fn=fn):
                self.deny(fn, "src/.env", "w", op="write")
                self.unchanged()
                self.deny(fn, "src/.env", "a", op="write")
                self.deny(fn, "src/.env", "r+", op="write")
                self.unchanged()
                self.allow(fn, "src/" + fn + ".txt", "w")
        for fn in ("freopen", "freopen64"):
            with self.subTest(fn=fn):
                self.deny(fn, "src/.env", "w", op="write")
                self.unchanged()
                self.allow(fn, "src/" + fn + ".txt", "w")

    def test_write_outside_the_writable_roots(self):
        out = os.path.join(self.sb.outside, "f")
        rec = self.deny("open", out, "O_WRONLY|O_CREAT", op="create", reason="outside workspace",
                        kind="blocked")
        self.assertEqual(rec["key"], "workspace")
        self.assertFalse(os.path.exists(out))
        self.deny("open", "newfile", "O_WRONLY|O_CREAT", reason="outside allow_paths",
                  kind="blocked")
        self.assertFalse(self.sb.exists("newfile"))

    def test_protected_paths_and_the_policy_file(self):
        os.makedirs(self.sb.path("src/.git/hooks"))
        os.makedirs(self.sb.path(".git/hooks"))
        rec = self.deny("open", ".git/hooks/pre-commit", "O_WRONLY|O_CREAT", reason="protected")
        self.assertEqual(rec["key"], "protected_paths")
        self.assertEqual(rec["pattern"], ".git/hooks/**")
        self.assertFalse(self.sb.exists(".git/hooks/pre-commit"))
        self.deny("open", self.sb.policy_path, "O_WRONLY", reason="protected")
        self.allow("open", self.sb.policy_path, "O_RDONLY")

    def test_posix_spawn_file_actions_addopen(self):
        fn = "posix_spawn_file_actions_addopen"
        self.deny(fn, "src/.env", "O_RDONLY", op="read")
        self.deny(fn, "src/.env", "O_WRONLY|O_TRUNC", op="write")
        self.allow(fn, "src/a.txt", "O_RDONLY")

    # ---- other path operations ----------------------------------------------
    def test_rename_family(self):
        sb = self.sb
        self.deny("rename", "src/a.txt", "src/stolen.key", op="create", reason="secret")
        self.assertTrue(sb.exists("src/a.txt"))
        self.assertFalse(sb.exists("src/stolen.key"))
        self.deny("rename", "src/.env", "src/env.txt", op="delete", reason="secret")
        self.unchanged()
        self.allow("rename", "src/old.txt", "src/new.txt")
        self.assertTrue(sb.exists("src/new.txt"))
        self.deny("renameat", sb.path("src"), "a.txt", sb.path("src"), "x.key", op="create")
        self.allow("renameat", sb.path("src"), "new.txt", sb.path("src"), "new2.txt")
        self.deny("renameat2", ".", "src/a.txt", ".", "src/.env.local", "0", op="create")
        self.assertFalse(sb.exists("src/.env.local"))
        self.allow("renameat2", ".", "src/new2.txt", ".", "src/new3.txt", "0")
        self.deny("rename", "src/a.txt", "README2", reason="outside allow_paths", kind="blocked")

    def test_link_family(self):
        sb = self.sb
        self.deny("link", "src/.env", "src/copy", op="write", reason="secret")
        self.assertFalse(sb.exists("src/copy"))
        self.deny("link", "src/a.txt", "src/a.key", op="create", reason="secret")
        self.allow("link", "src/a.txt", "src/a2.txt")
        self.deny("linkat", ".", "src/a.txt", ".", "src/b.key", "0", op="create")
        self.allow("linkat", ".", "src/a.txt", ".", "src/a3.txt", "0")
        self.deny("symlink", "a.txt", "src/link.key", op="create", reason="secret")
        self.assertFalse(sb.exists("src/link.key"))
        self.allow("symlink", "a.txt", "src/link.txt")
        self.deny("symlinkat", "a.txt", sb.path("src"), ".env.2", op="create")
        self.allow("symlinkat", "a.txt", sb.path("src"), "link2.txt")

    def test_removal_family(self):
        sb = self.sb
        self.deny("unlink", "src/.env", op="delete", reason="secret")
        self.unchanged()
        self.allow("unlink", "src/old.txt")
        self.assertFalse(sb.exists("src/old.txt"))
        self.deny("unlinkat", sb.path("src"), ".env", "0", op="delete")
        self.unchanged()
        sb.write("src/x.txt", "x")
        self.allow("unlinkat", sb.path("src"), "x.txt", "0")
        os.makedirs(sb.path("src/secrets"))
        self.deny("rmdir", "src/secrets", op="delete", reason="secret")
        self.assertTrue(sb.exists("src/secrets"))
        self.allow("rmdir", "src/sub")
        self.deny("remove", "src/.env", op="delete")
        self.unchanged()
        sb.write("src/y.txt", "y")
        self.allow("remove", "src/y.txt")
        self.deny("unlink", "README", reason="outside allow_paths", kind="blocked")
        self.assertTrue(sb.exists("README"))

    def test_creation_family(self):
        sb = self.sb
        self.deny("mkdir", "src/secrets", "755", op="create", reason="secret")
        self.assertFalse(sb.exists("src/secrets"))
        self.allow("mkdir", "src/d1", "755")
        self.deny("mkdirat", ".", "private/sub", "755", op="create", reason="policy deny_glob")
        self.allow("mkdirat", sb.path("src"), "d2", "755")
        self.deny("mknod", "src/fifo.key", "10644", op="create")
        self.assertFalse(sb.exists("src/fifo.key"))
        self.allow("mknod", "src/fifo1", "10644")
        self.deny("mknodat", ".", "src/f.key", "10644", op="create")
        self.allow("mknodat", ".", "src/fifo2", "10644")
        self.deny("mkfifo", "src/.env.pipe", "644", op="create")
        self.allow("mkfifo", "src/fifo3", "644")
        self.deny("mkfifoat", ".", "src/p.p12", "644", op="create")
        self.allow("mkfifoat", ".", "src/fifo4", "644")

    def test_content_and_metadata_changes(self):
        sb = self.sb
        for fn in ("truncate", "truncate64"):
            with self.subTest(fn=fn):
                self.deny(fn, "src/.env", "0", op="write", reason="secret")
                self.unchanged()
                sb.write("src/t.txt", "12345")
                self.allow(fn, "src/t.txt", "1")
                self.assertEqual(sb.read("src/t.txt"), "1")
        before = os.stat(sb.path("src/.env"))
        for fn in ("chmod", "lchmod"):
            with self.subTest(fn=fn):
                self.deny(fn, "src/.env", "777", op="write")
        self.deny("fchmodat", ".", "src/.env", "777", "0", op="write")
        self.assertEqual(os.stat(sb.path("src/.env")).st_mode, before.st_mode)
        self.allow("chmod", "src/a.txt", "600")
        self.allow("fchmodat", ".", "src/a.txt", "640", "0")
        for fn in ("chown", "lchown"):
            with self.subTest(fn=fn):
                self.deny(fn, "src/.env", "0", "0", op="write")
                self.allow(fn, "src/a.txt", "0", "0")
        self.deny("fchownat", ".", "src/.env", "0", "0", "0", op="write")
        self.allow("fchownat", ".", "src/a.txt", "0", "0", "0")
        os.utime(sb.path("src/.env"), (1000000, 1000000))
        for fn in ("utime", "utimes", "lutimes"):
            with self.subTest(fn=fn):
                self.deny(fn, "src/.env", op="write")
                self.allow(fn, "src/a.txt")
        self.deny("futimesat", ".", "src/.env", op="write")
        self.allow("futimesat", ".", "src/a.txt")
        self.deny("utimensat", ".", "src/.env", "0", op="write")
        self.allow("utimensat", ".", "src/a.txt", "0")
        self.assertEqual(os.stat(sb.path("src/.env")).st_mtime, 1000000)

    def test_temp_file_family(self):
        for fn in ("mkstemp", "mkstemp64", "mkostemp", "mkostemp64"):
            with self.subTest(fn=fn):
                self.deny(fn, "src/id_rsaXXXXXX", op="create", reason="secret")
                self.allow(fn, "src/tmpXXXXXX")
        for fn in ("mkstemps", "mkstemps64", "mkostemps", "mkostemps64"):
            with self.subTest(fn=fn):
                self.deny(fn, "src/tXXXXXX.key", "4", op="create", reason="secret")
                self.allow(fn, "src/tXXXXXX.txt", "4")
        self.deny("mkdtemp", "src/id_rsaXXXXXX", op="create", reason="secret")
        self.allow("mkdtemp", "src/dirXXXXXX")
        leftovers = [n for n in os.listdir(self.sb.path("src")) if n.endswith(".key") or "id_rsa" in n]
        self.assertEqual(leftovers, [])


class RealPrograms(pf.PreloadTest):
    def setUp(self):
        super().setUp()
        self.sb = self.sandbox(POLICY)
        self.sb.write("src/.env", SECRET)
        self.sb.write("src/a.txt", "hello\n")

    def unchanged(self):
        self.assertEqual(self.sb.read("src/.env"), SECRET)

    def test_python_cannot_read_a_secret(self):
        r = self.sb.run([pf.PYTHON, "-c", "print(open('src/.env').read())"])
        self.assertOut(r, 1, "PermissionError", "Permission denied", absent=("hunter2",))
        self.assertRecord(self.sb.records(), kind="deny", op="read", path="src/.env",
                          reason="secret", program="python3")

    def test_shell_redirections(self):
        for shell in ("/bin/sh", "/bin/bash"):
            with self.subTest(shell=shell):
                r = self.sb.run([shell, "-c", "echo x > src/.env"])
                self.assertNotEqual(r.code, 0, repr(r))
                self.assertIn("Permission denied", r.err)
                self.unchanged()
                self.assertRecord(self.sb.records(), kind="deny", path="src/.env",
                                  program=os.path.basename(shell))
                r = self.sb.run([shell, "-c", "echo x >> src/.env; cat < src/.env"])
                self.assertNotIn("hunter2", r.out)
                self.unchanged()
                r = self.sb.run([shell, "-c", "echo ok > src/out.txt && cat src/out.txt"])
                self.assertOut(r, 0, "ok")

    def test_coreutils(self):
        sb = self.sb
        cases = [
            (["cat", "src/.env"], "read"),
            (["cp", "src/a.txt", "src/.env"], "write"),
            (["cp", "src/.env", "src/copy.txt"], "read"),
            (["mv", "src/a.txt", "src/x.key"], "create"),
            (["ln", "-s", "a.txt", "src/l.key"], "create"),
            (["ln", "src/a.txt", "src/h.key"], "create"),
            (["touch", "src/.env"], "write"),
            (["touch", "src/new.key"], "create"),
            (["sh", "-c", "echo x | tee src/.env"], "write"),
            (["dd", "if=src/a.txt", "of=src/.env"], "write"),
            (["dd", "if=src/.env", "of=src/d.txt"], "read"),
        ]
        os.utime(sb.path("src/.env"), (1000000, 1000000))
        for argv, op in cases:
            with self.subTest(argv=argv):
                r = sb.run(argv)
                self.assertNotEqual(r.code, 0, repr(r))
                self.assertIn("Permission denied", r.err)
                self.assertNotIn("hunter2", r.out)
                self.assertRecord(sb.records(), kind="deny", op=op)
                self.unchanged()
        self.assertEqual(os.stat(sb.path("src/.env")).st_mtime, 1000000)
        for name in ("x.key", "l.key", "h.key", "new.key"):
            self.assertFalse(sb.exists("src/" + name), name)
        self.assertFalse(sb.exists("src/copy.txt") and sb.read("src/copy.txt"))
        self.assertEqual(sb.read("src/a.txt"), "hello\n")
        # and the same tools where the policy allows
        r = sb.run(["sh", "-c", "cp src/a.txt src/b.txt && mv src/b.txt src/c.txt && "
                    "ln -s c.txt src/l.txt && ln src/c.txt src/h.txt && touch src/t.txt && "
                    "echo y | tee src/tee.txt && dd if=src/a.txt of=src/dd.txt 2>/dev/null && "
                    "cat src/l.txt src/h.txt src/dd.txt"])
        self.assertOut(r, 0, "hello")
        self.assertNoRecord(sb.records(), kind="deny")

    def test_git_in_a_repository(self):
        if not shutil.which("git", path=pf.RUN_PATH):
            pf.skip(self, "git not installed")
        sb = self.sandbox("""allow_paths = []
deny_globs = ["*.log"]
allow_binaries = []
""")
        env = dict(GIT_AUTHOR_NAME="t", GIT_AUTHOR_EMAIL="t@e", GIT_COMMITTER_NAME="t",
                   GIT_COMMITTER_EMAIL="t@e", GIT_CONFIG_NOSYSTEM="1")
        # git init writes .git/hooks (protected): the repository is made
        # before the sandboxed part, as a checkout would be
        subprocess.run(["git", "init", "-q", sb.ws], check=True, env=dict(env, PATH=pf.RUN_PATH))
        sb.write("a.txt", "a\n")
        r = sb.run(["sh", "-c", "git add a.txt && git commit -q -m one && git status --short && "
                    "git log --oneline | wc -l"], env=sb.env(env))
        self.assertOut(r, 0, "1")
        self.assertNoRecord(sb.records(), kind="deny")
        # a hook is a protected path: git cannot be made to write one either
        r = sb.run(["git", "config", "core.hooksPath", "x"], env=sb.env(env))
        self.assertNotEqual(r.code, 0, repr(r))
        self.assertRecord(sb.records(), kind="deny", reason="protected", program="git")
        sb.write("b.log", "x")
        r = sb.run(["git", "add", "b.log"], env=sb.env(env))
        self.assertNotEqual(r.code, 0, repr(r))
        self.assertRecord(sb.records(), kind="deny", op="read", reason="policy deny_glob")


if __name__ == "__main__":
    pf.main()
