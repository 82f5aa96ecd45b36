"""The preload across processes and threads: many threads opening allowed and
denied files at once, fork children (their own pid in records), vfork users (run
as fork), posix_spawn users.
"""
import os
import sys

sys.dont_write_bytecode = True  # no __pycache__ in the source tree
sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "preload"))
import preload_fixture as pf  # noqa: E402

POLICY = """allow_paths = ["src/"]
allow_binaries = ["echo", "sh", "python3"]
"""
SECRET = "TOKEN=hunter2\n"


class Processes(pf.PreloadTest):
    def setUp(self):
        super().setUp()
        self.sb = self.sandbox(POLICY)
        self.sb.write("src/.env", SECRET)
        self.sb.write("src/a.txt", "hello\n")

    def test_many_threads(self):
        r = self.sb.run([pf.tool("thread_opener"), "16", "200", "src/a.txt", "src/.env"])
        self.assertOut(r, 0, "allowed 3200 denied 3200 other 0")
        recs = [x for x in self.sb.records() if x["kind"] == "deny"]
        self.assertEqual(len(recs), 3200)
        self.assertTrue(all(x["path"] == "src/.env" and x["op"] == "read" for x in recs))

    def test_fork_child_reports_with_its_own_pid(self):
        code = ("import os\n"
                "pid = os.fork()\n"
                "if pid == 0:\n"
                "    try:\n"
                "        open('src/.env', 'w')\n"
                "    except PermissionError:\n"
                "        os._exit(13)\n"
                "    os._exit(0)\n"
                "_, st = os.waitpid(pid, 0)\n"
                "print('child', pid, os.WEXITSTATUS(st))\n")
        r = self.sb.run([pf.PYTHON, "-c", code])
        self.assertOut(r, 0)
        _, child, status = r.out.split()
        self.assertEqual(status, "13")
        self.assertRecord(self.sb.records(), kind="deny", op="write", pid=int(child))
        self.assertEqual(self.sb.read("src/.env"), SECRET)

    def test_vfork_user(self):
        vf = pf.tool("vfork_user")
        r = self.sb.run([vf, "/usr/bin/echo", "vforked"])
        self.assertOut(r, 0, "vforked")
        r = self.sb.run([vf, "/usr/bin/id"])
        self.assertOut(r, 127, "exec 13", absent=("uid=",))
        self.assertRecord(self.sb.records(), kind="deny", op="exec", path="/usr/bin/id",
                          program="vfork_user")
        r = self.sb.run([vf, "/bin/sh", "-c", "echo x > src/.env"])
        self.assertNotEqual(r.code, 0)
        self.assertEqual(self.sb.read("src/.env"), SECRET)

    def test_posix_spawn_user(self):
        sp = pf.tool("spawn_user")
        r = self.sb.run([sp, "/usr/bin/echo", "spawned"])
        self.assertOut(r, 0, "spawned")
        r = self.sb.run([sp, "-p", "echo", "spawnedp"])
        self.assertOut(r, 0, "spawnedp")
        r = self.sb.run([sp, "/usr/bin/id"])
        self.assertOut(r, 3, "spawn 13", absent=("uid=",))
        r = self.sb.run([sp, "-p", "id"])
        self.assertOut(r, 3, "spawn 13")
        self.assertRecord(self.sb.records(), kind="deny", op="exec", path="id",
                          program="spawn_user")


if __name__ == "__main__":
    pf.main()
